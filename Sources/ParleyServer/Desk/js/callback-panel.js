// The open conversation's callback request, in the conversation header: what the visitor asked for
// (the number to call, or the number they call and their access code; the window), where it
// stands, and, while the signed-in agent is connecting with it, the outcome buttons. No answer and
// Wrong number ask whether to try again later (`retry_at`). The server's refusal stays in the
// panel until the next try, and the request is read again so the panel shows what really holds.
import { api } from "./api.js";
import { callbackStatus, endedText, kindLabel, outcomeLabel, timeLeft, windowText } from "./callback.js";
import { openForm } from "./dialogs.js";
import { byId, h, replaceChildren } from "./dom.js";
import { shortTime, timeOfDay } from "./format.js";
import { agentName, placeInLists, state, timeline, upsertConversation } from "./store.js";

/** Outcomes offered per kind: a chat has no number, so nothing can be a wrong one or "connected". */
const OUTCOMES = {
  call_me: ["connected", "no_answer", "wrong_number", "done"],
  i_will_call: ["connected", "no_answer", "wrong_number", "done"],
  notify_and_chat: ["no_answer", "done"],
};
const RETRIED = new Set(["no_answer", "wrong_number"]);

/** conversation id → the server's refusal of the last outcome, shown until the next try. */
const errors = new Map();
/** Conversations with an outcome on its way: their buttons are disabled meanwhile. */
const sending = new Set();
/** The conversation the panel is for, and what it shows ("id|…"): an unrelated re-render keeps the buttons (and focus). */
let shownID = null;
let shownKey = null;

export function initCallbackPanel() {
  byId("callback-panel").addEventListener("click", (event) => {
    const button = event.target.closest("[data-outcome]");
    if (button && !button.disabled && state.openID) record(state.openID, button.dataset.outcome);
  });
  // The offer's time left counts down by itself.
  setInterval(tick, 1000);
}

/** Shows the conversation's request (or hides the panel when it is none). */
export function renderCallbackPanel(conversation) {
  const panel = byId("callback-panel");
  const callback = conversation?.callback;
  if ((conversation?.id ?? null) !== shownID) {
    // Another conversation: a refusal belongs to the one left.
    errors.clear();
    shownID = conversation?.id ?? null;
  }
  if (!callback) {
    if (shownKey !== null) {
      panel.hidden = true;
      replaceChildren(panel);
      shownKey = null;
    }
    return;
  }
  const mine = callback.agent_id === state.me?.id;
  const key = [conversation.id, JSON.stringify(callback), mine, sending.has(conversation.id), errors.get(conversation.id) ?? "",
    agentName(callback.agent_id, timeline(conversation.id))].join("|");
  if (key === shownKey) return;
  shownKey = key;
  const hadFocus = panel.contains(document.activeElement);
  panel.hidden = false;
  panel.dataset.status = callback.status;
  replaceChildren(panel,
    h("h3", { id: "callback-title", class: "callback-title" }, `Callback request · ${kindLabel(callback.kind)}`),
    h("p", { id: "callback-status", class: "callback-status", tabindex: "-1" }, statusSentence(conversation, callback, mine)),
    h("dl", { class: "callback-details" }, details(callback)),
    outcomeButtons(conversation, callback, mine),
    errors.has(conversation.id) ? h("p", { id: "callback-error", class: "form-error", role: "alert" }, errors.get(conversation.id)) : null);
  // The focused button went with the old content (an outcome recorded): keep the keyboard here.
  if (hadFocus && !panel.contains(document.activeElement)) byId("callback-status").focus();
}

/** What the agent should know or do now, as a sentence. */
function statusSentence(conversation, callback, mine) {
  const who = mine ? "you" : agentName(callback.agent_id, timeline(conversation.id));
  switch (callback.status) {
    case "waiting":
      return "Waiting for an agent. Accept it to offer it to the visitor.";
    case "scheduled":
      return callback.scheduled_until
        ? `Scheduled until ${shortTime(callback.scheduled_until)}: then it waits in the queue again.`
        : "Scheduled: held out of the queue for now.";
    case "offered":
      return h("span", {},
        `Offered to ${who}, waiting for the visitor to confirm`,
        callback.expires_at ? [` until ${shortTime(callback.expires_at)} (`, h("span", { class: "callback-countdown", dataset: { expires: callback.expires_at } }, timeLeft(callback.expires_at)), ")"] : null,
        ".");
    case "connecting":
      if (!mine) return `Connecting with ${who}.`;
      switch (callback.kind) {
        case "call_me": return `Connecting: call ${callback.phone ?? "the visitor"} now, then record how it went.`;
        case "i_will_call": return "Connecting: the visitor calls now and gives the access code. Record how it went.";
        default: return "Connecting: the visitor confirmed. Chat here, then record how it went.";
      }
    case "ended":
      return `Ended: ${endedText(callback)}.`;
    default:
      return callbackStatus(callback);
  }
}

function details(callback) {
  const rows = [];
  if (callback.kind === "call_me" && callback.phone) {
    rows.push(["Phone", h("a", { href: `tel:${callback.phone}`, class: "callback-phone" }, callback.phone)]);
  }
  if (callback.kind === "i_will_call") {
    rows.push(["Dial number", callback.dial_number ?? "none set"]);
    rows.push(["Access code", callback.access_code ? h("span", { class: "callback-code" }, callback.access_code) : "none"]);
  }
  // The status is the sentence above; the window only when the visitor chose one.
  if (callback.window_start) rows.push(["Window", windowText(callback)]);
  if (callback.status === "offered" && callback.expires_at) rows.push(["Offer expires", shortTime(callback.expires_at)]);
  if (callback.outcome) rows.push(["Last outcome", outcomeLabel(callback.outcome)]);
  if (callback.language) rows.push(["Language", callback.language]);
  return rows.map(([term, value]) => h("div", { class: "callback-detail", dataset: { term: term.toLowerCase().replaceAll(" ", "-") } },
    h("dt", {}, term), h("dd", {}, value)));
}

function outcomeButtons(conversation, callback, mine) {
  // Only the agent the visitor confirmed with can say how it went; an offer waits on the visitor.
  if (callback.status !== "connecting" || !mine || conversation.state !== "assigned") return null;
  const busy = sending.has(conversation.id);
  return h("div", { class: "callback-outcomes", role: "group", "aria-labelledby": "callback-outcomes-label", "aria-busy": busy ? "true" : "false" },
    // Named for screen readers; on screen the sentence above says it, and the buttons keep one line.
    h("span", { id: "callback-outcomes-label", class: "visually-hidden" }, "Record the outcome"),
    (OUTCOMES[callback.kind] ?? OUTCOMES.call_me).map((outcome) => h("button", {
      type: "button",
      class: `button small${outcome === "connected" || (outcome === "done" && callback.kind === "notify_and_chat") ? " primary" : ""}`,
      id: `callback-${outcome.replaceAll("_", "-")}`,
      dataset: { outcome },
      disabled: busy,
    }, RETRIED.has(outcome) ? `${outcomeLabel(outcome)}…` : outcomeLabel(outcome))));
}

function tick() {
  for (const span of document.querySelectorAll("#callback-panel .callback-countdown")) span.textContent = timeLeft(span.dataset.expires);
}

function rerender(id) {
  if (state.openID === id) renderCallbackPanel(state.conversations.get(id));
}

/** Records an outcome: at once for Connected and Done, after the retry question for the others. */
async function record(id, outcome) {
  errors.delete(id);
  if (RETRIED.has(outcome)) {
    await askRetry(id, outcome);
    return;
  }
  sending.add(id);
  rerender(id);
  try {
    await submit(id, { outcome });
  } catch (error) {
    refused(id, error);
  } finally {
    sending.delete(id);
    rerender(id);
  }
}

async function submit(id, body) {
  const conversation = await api("POST", `/v1/conversations/${id}/callback/outcome`, body);
  upsertConversation(conversation);
  placeInLists(conversation);
  return conversation;
}

/** Keeps the server's words in the panel and reads the request again: the desk's view was stale. */
function refused(id, error) {
  errors.set(id, `Not recorded: ${error.message}`);
  rerender(id);
  api("GET", `/v1/conversations/${id}`).then((conversation) => {
    upsertConversation(conversation);
    placeInLists(conversation);
  }, () => {});
}

/** The retry question: a form dialog, which shows the server's refusal and stays open. */
async function askRetry(id, outcome) {
  const now = new Date();
  const in15 = new Date(now.getTime() + 15 * 60_000);
  const in60 = new Date(now.getTime() + 60 * 60_000);
  const tomorrow = tomorrowAtNine(now);
  const recorded = await openForm({
    title: `${outcomeLabel(outcome)}: try again later?`,
    submitLabel: "Record outcome",
    fields: [{
      name: "retry",
      label: "Try again",
      type: "select",
      value: "60",
      options: [
        { value: "15", label: `In 15 minutes (${shortTime(in15.toISOString())})` },
        { value: "60", label: `In 1 hour (${shortTime(in60.toISOString())})` },
        { value: "tomorrow", label: `Tomorrow at ${timeOfDay(tomorrow.toISOString())}` },
        { value: "never", label: "Don't try again: end the request" },
      ],
      hint: "A retry takes the request out of your inbox; it waits in the queue again at that time.",
    }],
    submit: (values) => {
      const body = { outcome };
      const retryAt = retryTime(values.retry);
      if (retryAt) body.retry_at = retryAt.toISOString();
      return submit(id, body);
    },
  });
  if (recorded === undefined) rerender(id);
}

/** The moment a choice means, counted from when it is sent (the dialog may stay open a while). */
function retryTime(choice) {
  const now = new Date();
  switch (choice) {
    case "15": return new Date(now.getTime() + 15 * 60_000);
    case "60": return new Date(now.getTime() + 60 * 60_000);
    case "tomorrow": return tomorrowAtNine(now);
    default: return null;
  }
}

function tomorrowAtNine(now) {
  const date = new Date(now);
  date.setDate(date.getDate() + 1);
  date.setHours(9, 0, 0, 0);
  return date;
}
