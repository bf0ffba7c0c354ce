// The Snooze menu of an assigned conversation: for an hour, until tomorrow 9:00 (the agent's own
// time), until a date and time of their choosing, or Unsnooze. A snoozed conversation leaves Mine
// (and every other open view) for Snoozed until its time, or until the visitor writes: the server
// decides that, the desk moves it at once and its lists confirm it (counts.js wakes them on time).
import { api } from "./api.js";
import { toast } from "./cues.js";
import { openForm } from "./dialogs.js";
import { byId } from "./dom.js";
import { shortTime } from "./format.js";
import { applyTriage, isMine, placeSnoozed, state } from "./store.js";
import { scheduleRefresh } from "./sync.js";

/** triage-panel.js's save: a PUT whose refusal is shown under the triage bar. */
let save = null;

export function initSnoozeMenu(saveTriage) {
  save = saveTriage;
  const menu = byId("snooze-menu");
  menu.addEventListener("click", (event) => {
    const item = event.target.closest("[data-snooze]");
    if (!item || !state.openID) return;
    menu.open = false;
    menu.querySelector("summary").focus();
    choose(state.openID, item.dataset.snooze);
  });
  closeOnEscape(menu);
}

/** Escape closes a header menu (a <details>) and gives focus back to its button. */
export function closeOnEscape(menu) {
  menu.addEventListener("keydown", (event) => {
    if (event.key !== "Escape" || !menu.open) return;
    event.preventDefault();
    menu.open = false;
    menu.querySelector("summary").focus();
  });
}

/**
 * When a conversation's snooze ends, or null when it is not snoozed now. Mine: the server's Snoozed
 * list says (it knows whether the visitor wrote since). A teammate's: the time, unless the visitor
 * wrote after the snooze was set in the history the desk holds.
 */
export function snoozedUntil(conversation, triage) {
  const until = triage?.snoozed_until;
  if (!until || conversation?.state !== "assigned" || Date.parse(until) <= Date.now()) return null;
  if (isMine(conversation)) return state.lists.snoozed.includes(conversation.id) ? until : null;
  const lastVisitor = state.timelines.get(conversation.id)?.events.findLast((event) => event.type === "message" && event.author.role === "visitor");
  return lastVisitor && triage.updated_at && lastVisitor.created_at > triage.updated_at ? null : until;
}

/** Shows the menu on assigned conversations, Unsnooze only while snoozed, and until when. */
export function renderSnooze(conversation, triage) {
  const until = snoozedUntil(conversation, triage);
  byId("snooze-menu").hidden = conversation.state !== "assigned";
  byId("snooze-off").hidden = !until;
  const status = byId("snooze-status");
  status.textContent = until ? `Snoozed until ${shortTime(until)}` : "";
  status.hidden = !until;
}

async function choose(id, kind) {
  if (kind === "custom") {
    await snoozeUntilChosen(id);
    return;
  }
  const until = kind === "hour" ? new Date(Date.now() + 3600 * 1000) : kind === "tomorrow" ? tomorrowAtNine() : null;
  const triage = await save(id, { snoozed_until: until ? until.toISOString() : null });
  if (triage) snoozed(id, triage);
}

/** A date and time of the agent's choosing, in a dialog that shows the server's refusal. */
async function snoozeUntilChosen(id) {
  const triage = await openForm({
    title: "Snooze until",
    submitLabel: "Snooze",
    fields: [{ name: "until", label: "Date and time", type: "datetime-local", required: true, step: 1,
      value: localInputValue(new Date(Date.now() + 3600 * 1000)), hint: "Your own time. The conversation comes back to Mine then, or when the visitor writes." }],
    submit: async (values) => {
      const chosen = values.until ? new Date(values.until) : null;
      if (!chosen || Number.isNaN(chosen.getTime())) throw new Error("Choose a date and time.");
      const saved = await api("PUT", `/v1/conversations/${id}/triage`, { snoozed_until: chosen.toISOString() });
      applyTriage(saved);
      return saved;
    },
  });
  if (triage) snoozed(id, triage);
}

/** After a change: my conversation moves between Mine and Snoozed now; the lists confirm it. */
function snoozed(id, triage) {
  const until = triage.snoozed_until ?? null;
  if (isMine(state.conversations.get(id))) placeSnoozed(id, until !== null);
  scheduleRefresh();
  toast(until ? `Snoozed until ${shortTime(until)}.` : "Snooze ended.");
}

function tomorrowAtNine() {
  const date = new Date();
  date.setDate(date.getDate() + 1);
  date.setHours(9, 0, 0, 0);
  return date;
}

/** "2026-11-25T14:05:00": what a datetime-local input holds, in the agent's own time. */
function localInputValue(date) {
  const pad = (value) => String(value).padStart(2, "0");
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}T${pad(date.getHours())}:${pad(date.getMinutes())}:${pad(date.getSeconds())}`;
}
