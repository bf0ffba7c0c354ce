// Callback requests in words: what the visitor asked for, where the request stands, and what
// happened to it (the transcript's notices). A request is a conversation carrying a `callback`
// object; its statuses and its events' actions are turned into words here and nowhere else.
import { longTime, participantName, shortTime, timeOfDay } from "./format.js";

const KINDS = { call_me: "Call me", i_will_call: "I will call", notify_and_chat: "Notify and chat" };
const OUTCOMES = { connected: "Connected", no_answer: "No answer", wrong_number: "Wrong number", done: "Done" };
const ENDS = { completed: "completed", cancelled: "cancelled", expired: "expired, not confirmed in time" };

/** "Call me", "I will call", "Notify and chat". */
export function kindLabel(kind) {
  return KINDS[kind] ?? kind;
}

/** "Connected", "No answer", "Wrong number", "Done". */
export function outcomeLabel(outcome) {
  return OUTCOMES[outcome] ?? outcome;
}

/** What the visitor asked for, in a line: "Call me +4930901820", "I will call +4930901820", "Notify and chat". */
export function callbackSummary(callback) {
  switch (callback.kind) {
    case "call_me": return callback.phone ? `Call me ${callback.phone}` : KINDS.call_me;
    case "i_will_call": return callback.dial_number ? `I will call ${callback.dial_number}` : KINDS.i_will_call;
    default: return kindLabel(callback.kind);
  }
}

/**
 * Where the request stands, short, for lists: "waiting", "scheduled until 15:10", "offered, waiting
 * for the visitor", "connecting", "ended: completed, connected".
 */
export function callbackStatus(callback) {
  switch (callback.status) {
    case "waiting": return "waiting";
    case "scheduled": return callback.scheduled_until ? `scheduled until ${shortTime(callback.scheduled_until)}` : "scheduled";
    case "offered": return "offered, waiting for the visitor";
    case "connecting": return "connecting";
    case "ended": return `ended: ${endedText(callback)}`;
    default: return callback.status;
  }
}

/** Why it ended, with the outcome when the agent recorded one: "completed, connected", "cancelled". */
export function endedText(callback) {
  const reason = ENDS[callback.end_reason] ?? callback.end_reason ?? "ended";
  // An outcome recorded earlier (no answer, then rescheduled) is not why a cancelled request ended.
  return callback.end_reason === "completed" && callback.outcome ? `${reason}, ${outcomeLabel(callback.outcome).toLowerCase()}` : reason;
}

/** The visitor's window: "25 Nov 2026, 14:00 to 15:00", "from 25 Nov 2026, 14:00"; null without one. */
export function windowText(callback) {
  if (!callback.window_start) return null;
  if (!callback.window_end) return `from ${longTime(callback.window_start)}`;
  const sameDay = new Date(callback.window_start).toDateString() === new Date(callback.window_end).toDateString();
  return `${longTime(callback.window_start)} to ${sameDay ? timeOfDay(callback.window_end) : longTime(callback.window_end)}`;
}

/** How long an offer has left: "52 s left", "4 min 5 s left", "expiring". */
export function timeLeft(iso, now = Date.now()) {
  const seconds = Math.ceil((Date.parse(iso) - now) / 1000);
  if (!(seconds > 0)) return "expiring";
  if (seconds < 60) return `${seconds} s left`;
  return seconds % 60 ? `${Math.floor(seconds / 60)} min ${seconds % 60} s left` : `${seconds / 60} min left`;
}

/**
 * A `callback` event as a transcript notice, or null for an action this desk does not know (a newer
 * server's): such an event is skipped, as unknown event types are. `agentName(id)` names agents.
 */
export function callbackNotice(event, line, agentName) {
  const callback = event.callback ?? {};
  const who = participantName(event.author);
  switch (event.action) {
    case "requested": {
      const window = windowText(callback);
      return `Callback requested: ${requestedWhat(callback)}${window ? `, ${window}` : ""}`;
    }
    case "offered":
      return `Offered to ${agentName(callback.agent_id)}; waiting for the visitor to confirm${callback.expires_at ? ` until ${shortTime(callback.expires_at)}` : ""}`;
    case "confirmed":
      return `${who} confirmed the callback`;
    case "snoozed":
      return `${who} snoozed the callback for ${callback.snooze_minutes} min${callback.scheduled_until ? `; back in the queue at ${shortTime(callback.scheduled_until)}` : ""}`;
    case "requeued":
      return previousAction(event, line) === "offered" && event.author.role === "system"
        ? "The visitor did not confirm in time; the callback request is back in the queue"
        : "The callback request is back in the queue";
    case "due":
      return "The callback's time came; it is waiting in the queue";
    case "cancelled":
      return `${who} cancelled the callback request`;
    case "expired":
      return "The visitor did not confirm in time; the callback request expired";
    case "completed":
      return callback.outcome ? `Callback done: ${outcomeLabel(callback.outcome).toLowerCase()}` : "Callback done";
    case "rescheduled": {
      const why = callback.outcome ? ` (${outcomeLabel(callback.outcome).toLowerCase()})` : "";
      return `Callback rescheduled for ${callback.scheduled_until ? shortTime(callback.scheduled_until) : "later"}${why}`;
    }
    default:
      return null;
  }
}

function requestedWhat(callback) {
  switch (callback.kind) {
    case "call_me": return `call ${callback.phone ?? "the visitor"}`;
    case "i_will_call":
      return `the visitor calls ${callback.dial_number ?? "the queue's number"}${callback.access_code ? ` with access code ${callback.access_code}` : ""}`;
    case "notify_and_chat": return "notify the visitor and chat";
    default: return kindLabel(callback.kind);
  }
}

/** The action of the callback event before this one: an unanswered offer reads differently from a requeue by routing. */
function previousAction(event, line) {
  for (let i = line.events.length - 1; i >= 0; i -= 1) {
    const other = line.events[i];
    if (other.seq < event.seq && other.type === "callback") return other.action;
  }
  return null;
}
