// Admin: a queue's business hours (GET/PUT/DELETE /v1/admin/apps/{app}/queues/{queue}/hours):
// a time zone, opening intervals per weekday ("09:00-12:00, 13:00-17:00"), closed holidays.
// None means always open. The server checks overlaps and zones; its 400 is shown as it is.
import { api } from "./api.js";
import { adminAction, toolbar } from "./admin-ui.js";
import { confirmAction } from "./dialogs.js";
import { h } from "./dom.js";
import { state } from "./store.js";

const DAYS = ["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"];
let chosenQueue = null;

export async function renderHours(reload) {
  const app = state.me.app_id;
  const { queues } = await api("GET", `/v1/admin/apps/${app}/queues`);
  if (!queues.some((queue) => queue.id === chosenQueue)) chosenQueue = queues[0]?.id ?? null;
  if (!chosenQueue) return [h("p", { class: "empty" }, "No queues yet.")];
  const path = `/v1/admin/apps/${app}/queues/${chosenQueue}/hours`;
  // 204 (null): no hours, the queue is always open.
  const hours = await api("GET", path);
  const queueName = queues.find((queue) => queue.id === chosenQueue).name;
  const error = h("p", { class: "form-error", id: "hours-error", role: "alert", hidden: true });
  const fail = (message) => {
    error.textContent = `Not saved: ${message}`;
    error.hidden = false;
  };

  const save = async () => {
    error.hidden = true;
    let body;
    try {
      body = readHours();
    } catch (problem) {
      return fail(problem.message);
    }
    const saved = await api("PUT", path, body).catch((failure) => {
      fail(failure.message);
      return null;
    });
    if (saved) await adminAction(async () => saved, `Business hours of “${queueName}” saved.`, reload);
  };
  const remove = async () => {
    const confirmed = await confirmAction({ title: `Remove the hours of “${queueName}”?`, text: "The queue is then always open.", confirm: "Remove hours", danger: true });
    if (confirmed) await adminAction(() => api("DELETE", path), `“${queueName}” is now always open.`, reload);
  };

  return [
    toolbar("When a queue is closed, chats offer the offline message form. Hours are advisory: a chat opened while closed still waits."),
    h("div", { class: "card hours" },
      h("div", { class: "field" },
        h("label", { for: "hours-queue" }, "Queue"),
        h("select", { id: "hours-queue", onchange: (event) => { chosenQueue = event.target.value; reload(); } },
          queues.map((queue) => h("option", { value: queue.id, selected: queue.id === chosenQueue }, queue.name)))),
      h("p", { id: "hours-status", class: "field-hint" }, hours ? "Open during the hours below." : "No hours: always open."),
      field("hours-zone", "Time zone", hours?.time_zone ?? Intl.DateTimeFormat().resolvedOptions().timeZone ?? "UTC", "An IANA zone such as Europe/Berlin."),
      DAYS.map((day) => field(`hours-${day}`, day[0].toUpperCase() + day.slice(1), (hours?.weekly?.[day] ?? []).map(formatInterval).join(", "),
        day === "monday" ? "Times such as 09:00-12:00, 13:00-17:00; empty is closed all day." : null)),
      field("hours-holidays", "Holidays", (hours?.holidays ?? []).join(", "), "Dates closed all day: 2026-12-25, 2026-12-26."),
      error,
      h("div", { class: "row" },
        h("button", { class: "button primary", type: "button", id: "hours-save", onclick: save }, "Save hours"),
        hours ? h("button", { class: "button danger", type: "button", id: "hours-delete", onclick: remove }, "Remove hours (always open)") : null)),
  ];
}

function field(id, label, value, hint) {
  return h("div", { class: "field" },
    h("label", { for: id }, label),
    h("input", { id, value, autocomplete: "off", "aria-describedby": hint ? `${id}-hint` : undefined }),
    hint ? h("span", { class: "field-hint", id: `${id}-hint` }, hint) : null);
}

function readHours() {
  const value = (id) => document.getElementById(id).value.trim();
  const weekly = Object.fromEntries(DAYS.map((day) => [day, parseIntervals(value(`hours-${day}`), day)]));
  const holidays = value("hours-holidays").split(/[\s,]+/).filter(Boolean);
  return { time_zone: value("hours-zone"), weekly, holidays };
}

/** "09:00-12:00, 13:00-17:00" → [{start: 540, end: 720}, {start: 780, end: 1020}]. */
export function parseIntervals(text, day) {
  if (!text) return [];
  return text.split(",").map((part) => {
    const match = part.trim().match(/^(\d{1,2}):(\d{2})\s*[-–]\s*(\d{1,2}):(\d{2})$/);
    if (!match) throw new Error(`${day}: “${part.trim()}” is not a time range such as 09:00-17:00.`);
    const [, h1, m1, h2, m2] = match.map(Number);
    return { start: h1 * 60 + m1, end: h2 * 60 + m2 };
  });
}

function formatInterval({ start, end }) {
  const time = (minutes) => `${String(Math.floor(minutes / 60)).padStart(2, "0")}:${String(minutes % 60).padStart(2, "0")}`;
  return `${time(start)}-${time(end)}`;
}
