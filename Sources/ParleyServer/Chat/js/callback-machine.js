// The callback flow (docs/protocol.md "Callbacks"): instead of waiting, the visitor asks to be called
// back, to call when an agent is ready, or to be told and then chat; when an agent is ready the
// server offers it and the visitor answers. A pure state machine like screen-machine.js: inputs in,
// effects out, no I/O; inputs that do not fit the current screen change nothing and return no effects.
//
//   idle ──open──▶ form ──submit──▶ form (sending) ──accepted──▶ request ──notify_and_chat confirmed──▶ chat
//    ▲               │                      │ refused: marked                 │
//    └── back, or ───┘                      ▼ on the form                     └─ where it stands: waiting ⇄ offered → connecting,
//      the chat moved on                  form                                   scheduled (a snooze, a window, a closed queue), ended
//
// Screens: {name: "idle"} (the chat's own screens show); {name: "form", origin: "queued" | "unavailable",
// reason, nextOpening, callingCode, preChat, values, errors, answerErrors, notice, isSubmitting};
// {name: "request", origin, callback, position, dialog, lastAction, note, notice, isBusy, pending};
// {name: "chat"} (a notify-and-chat request is a chat now: the chat's screens show again).
// Effects: {type: "requestCallback", body} | {type: "follow", conversationID, leaveQueue} |
// {type: "fetchDialog", callbackID, token} | {type: "perform", callbackID, action} |
// {type: "dismissNote", after} | {type: "startChat"} | {type: "finished"}.
//
// The request's own words (the menu, the notes) are the server's, in the request's language; the
// status line around them is the page's.
import { isCallingCode, validateField, validateForm } from "./form-rules.js";

export const KINDS = ["call_me", "i_will_call", "notify_and_chat"];
const ACTIONS = ["confirm", "snooze", "cancel"];
// What a window may start before now and still count as "now" (the server allows the same minute).
const PAST_SLACK_MS = 60 * 1000;
// How far ahead a window may start (the server's limit).
export const MAX_AHEAD_MS = 30 * 86400 * 1000;
// How long a note after a choice stays when the server names no time.
const NOTE_SECONDS = 2;

/** Whether `dialog` is one the server shows for a request in `status` (else it is from before a change). */
export function dialogFits(status, dialog) {
  if (!dialog) return false;
  switch (status) {
    case "offered":
      return dialog.kind === "menu";
    case "connecting":
      return ["confirmation", "dial_number", "start_chat"].includes(dialog.kind);
    default:
      return dialog.kind === "confirmation";
  }
}

/** Whole seconds from `now` (ms) until `expiresAt` (ISO), never below 0; null without a time. */
export function secondsLeft(expiresAt, now) {
  const end = Date.parse(expiresAt ?? "");
  if (Number.isNaN(end)) return null;
  return Math.max(0, Math.ceil((end - now) / 1000));
}

/** The phone field the visitor's number is read with: the queue's calling code for national numbers. */
export function phoneField(callingCode) {
  return { key: "phone", kind: "phone", required: true, default_calling_code: isCallingCode(callingCode) ? callingCode : undefined };
}

/** A `datetime-local` value (`2026-11-25T14:30`, the visitor's wall clock) as an instant, or null. */
export function localTime(value) {
  if (!/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,3})?)?$/.test(value ?? "")) return null;
  const date = new Date(value);
  return Number.isNaN(date.getTime()) ? null : date;
}

/** The server's words on a refused start (`window_start: in the past`) as the page's error code. */
function windowProblem(message) {
  if (/in the past/.test(message)) return "in_the_past";
  if (/30 days/.test(message)) return "too_far_ahead";
  return "invalid_time";
}

const isLive = (callback) => callback && callback.status !== "ended";
const isChat = (callback) => callback?.kind === "notify_and_chat" && callback.status === "connecting";

export class CallbackMachine {
  constructor() {
    this.screen = { name: "idle" };
    // The newest event of the request's conversation already reflected: a replay from the start
    // (a new subscription, a reload) repeats steps the request has long taken.
    this.seq = 0;
    // Names the newest dialog fetch: an older answer arriving late is dropped.
    this.token = 0;
    // The chat moved on (an agent took it) while the request was on its way: cancel it once made.
    this.abandoned = false;
  }

  /**
   * The visitor chose the callback on the queued or unavailable screen. `context`: {origin, reason,
   * nextOpening, callingCode, preChat (a pre-chat form still to answer, or null), values (to start with)}.
   */
  open(context) {
    if (this.screen.name !== "idle") return [];
    this.abandoned = false;
    this.screen = {
      name: "form", origin: context.origin, reason: context.reason ?? null, nextOpening: context.nextOpening ?? null,
      callingCode: isCallingCode(context.callingCode) ? context.callingCode : null, preChat: context.preChat ?? null,
      values: { kind: "call_me", phone: "", windowStart: "", answers: {}, ...(context.values ?? {}) },
      errors: [], answerErrors: [], notice: null, isSubmitting: false,
    };
    return [];
  }

  /** The visitor went back to the screen the form came from. */
  back() {
    if (this.screen.name !== "form" || this.screen.isSubmitting) return [];
    this.screen = { name: "idle" };
    return [];
  }

  /** The chat's screen is `name` now: a form opened on another screen (an agent took the chat) closes. */
  chatMoved(name) {
    if (this.screen.name !== "form" || this.screen.origin === name) return [];
    if (this.screen.isSubmitting) {
      this.abandoned = true;
      return [];
    }
    this.screen = { name: "idle" };
    return [];
  }

  /**
   * The visitor sent the form: `values` {kind, phone, windowStart (a datetime-local value or ""),
   * answers (the pre-chat form's, when it is part of the form)}, `now` in ms. Checked with the page's
   * form rules before anything is sent.
   */
  submit(values, now) {
    const screen = this.screen;
    if (screen.name !== "form" || screen.isSubmitting) return [];
    const errors = [];
    const body = { kind: values.kind };
    if (!KINDS.includes(values.kind)) errors.push({ key: "kind", code: "not_an_option" });
    if (values.kind === "call_me") {
      const phone = validateField(phoneField(screen.callingCode), values.phone ?? "");
      if (phone.error) errors.push({ key: "phone", code: phone.error });
      else body.phone = phone.value;
      if (screen.callingCode) body.default_calling_code = screen.callingCode;
    }
    if ((values.windowStart ?? "") !== "") {
      const start = localTime(values.windowStart);
      if (!start) errors.push({ key: "window_start", code: "invalid_time" });
      else if (start.getTime() < now - PAST_SLACK_MS) errors.push({ key: "window_start", code: "in_the_past" });
      else if (start.getTime() > now + MAX_AHEAD_MS) errors.push({ key: "window_start", code: "too_far_ahead" });
      else body.window_start = start.toISOString();
    }
    // The pre-chat answers are the form's own when it asks them, else the ones given for the waiting chat.
    const answers = (screen.preChat ? values.answers : screen.values.answers) ?? {};
    let answerErrors = [];
    if (screen.preChat) {
      const result = validateForm(screen.preChat, answers);
      if (result.errors) answerErrors = result.errors;
      else body.form_answers = result.values;
    } else if (Object.keys(answers).length) {
      body.form_answers = answers;
    }
    const kept = { kind: values.kind, phone: values.phone ?? "", windowStart: values.windowStart ?? "", answers };
    if (errors.length || answerErrors.length) {
      this.screen = { ...screen, values: kept, errors, answerErrors, notice: null };
      return [];
    }
    this.screen = { ...screen, values: kept, errors: [], answerErrors: [], notice: null, isSubmitting: true };
    return [{ type: "requestCallback", body }];
  }

  /** The server refused the request (`{status, code, message, fields?}`): marked on its field, or a notice. */
  requestRefused(error) {
    const screen = this.screen;
    if (screen.name !== "form" || !screen.isSubmitting) return [];
    if (this.abandoned) {
      this.screen = { name: "idle" };
      return [];
    }
    const errors = [];
    let answerErrors = [];
    let notice = null;
    const field = /^(\w+):/.exec(error.message ?? "")?.[1];
    if (error.code === "invalid_phone") errors.push({ key: "phone", code: "invalid_phone" });
    else if (error.code === "outside_hours") errors.push({ key: "window_start", code: "outside_hours" });
    else if (error.code === "invalid_form" && screen.preChat) answerErrors = error.fields ?? [];
    else if (error.code === "bad_request" && field === "phone") errors.push({ key: "phone", code: "invalid_phone" });
    else if (error.code === "bad_request" && (field === "window_start" || field === "window_end")) errors.push({ key: "window_start", code: windowProblem(error.message) });
    else if (["callbacks_disabled", "no_dial_number", "closed", "invalid_form"].includes(error.code)) notice = error.code;
    else notice = "failed";
    this.screen = { ...screen, errors, answerErrors, notice, isSubmitting: false };
    return [];
  }

  /** The server made the request: `view` is its CallbackView {callback, conversation, dialog}. */
  requestAccepted(view) {
    const screen = this.screen;
    if (screen.name !== "form" || !screen.isSubmitting) return [];
    const callbackID = view.callback.id;
    if (this.abandoned) {
      // The visitor is chatting with an agent now; a request they no longer need must not wait for one.
      this.screen = { name: "idle" };
      return [{ type: "perform", callbackID, action: "cancel" }];
    }
    this.seq = view.conversation.last_seq ?? 0;
    this.screen = {
      name: "request", origin: screen.origin, callback: view.callback, position: view.conversation.queue_position ?? null,
      dialog: dialogFits(view.callback.status, view.dialog) ? view.dialog : null, lastAction: "requested", note: null, notice: null, isBusy: false,
    };
    return [{ type: "follow", conversationID: view.conversation.id, leaveQueue: screen.origin === "queued" }, ...this.settle(false)];
  }

  /** A page reloaded while its request is live: `conversation` carries the request. */
  resumed(conversation) {
    if (this.screen.name !== "idle" || !conversation?.callback) return [];
    this.seq = conversation.last_seq ?? 0;
    if (isChat(conversation.callback)) {
      // Confirmed notify-and-chat: the conversation resumes as the chat it is.
      this.screen = { name: "chat" };
      return [];
    }
    this.screen = {
      name: "request", origin: null, callback: conversation.callback, position: conversation.queue_position ?? null,
      dialog: null, lastAction: null, note: null, notice: null, isBusy: false,
    };
    return this.settle(true);
  }

  /** A `callback` event of the request's conversation: `{seq, action, callback}`. */
  changed(event) {
    const screen = this.screen;
    if (screen.name !== "request" || !event?.callback || event.callback.id !== screen.callback.id) return [];
    if (event.seq !== undefined && event.seq <= this.seq) return [];
    if (event.seq !== undefined) this.seq = event.seq;
    const callback = event.callback;
    const moved = callback.status !== screen.callback.status;
    this.screen = {
      ...screen, callback, lastAction: event.action ?? screen.lastAction,
      // A note after a choice belongs to the state it was made in (a confirm's note until the call is over).
      note: moved && callback.status !== "connecting" ? null : screen.note,
      position: callback.status === "waiting" && screen.callback.status === "waiting" ? screen.position : null,
      dialog: dialogFits(callback.status, screen.dialog) && !moved ? screen.dialog : null,
      isBusy: isLive(callback) ? screen.isBusy : false,
    };
    return this.settle(true);
  }

  /** The request's place in its queue (a `queue_position` frame). */
  queueUpdated(position) {
    const screen = this.screen;
    if (screen.name !== "request" || screen.callback.status !== "waiting") return [];
    this.screen = { ...screen, position: position ?? null };
    return [];
  }

  /** The dialog fetched for `token` arrived. */
  dialogLoaded(dialog, token) {
    const screen = this.screen;
    if (screen.name !== "request" || token !== this.token || !dialog) return [];
    this.screen = { ...screen, dialog };
    return this.startChatIfConfirmed();
  }

  /** The visitor chose `action` (`confirm`, `snooze`, `cancel`): a menu item, or the Cancel button. */
  choose(action) {
    const screen = this.screen;
    if (screen.name !== "request" || screen.isBusy || !isLive(screen.callback) || !ACTIONS.includes(action)) return [];
    const items = screen.dialog?.kind === "menu" ? screen.dialog.groups.flatMap((group) => group.items ?? []) : [];
    const item = items.find((candidate) => candidate.action === action);
    if (!item && action !== "cancel") return [];
    this.screen = { ...screen, isBusy: true, notice: null, note: null, pending: { action, note: item?.confirmation ?? null } };
    return [{ type: "perform", callbackID: screen.callback.id, action }];
  }

  /** The server did the visitor's choice and answered the dialog for where the request stands now. */
  actionDone(action, dialog) {
    const screen = this.screen;
    if (screen.name !== "request" || !screen.isBusy || screen.pending?.action !== action) return [];
    // A dialog fetched before the choice is older than this answer.
    this.token += 1;
    const note = screen.pending.note;
    this.screen = {
      ...screen, isBusy: false, pending: null, dialog: dialog ?? screen.dialog, note: note?.text ?? null,
      lastAction: action === "snooze" ? "snoozed" : screen.lastAction,
    };
    const effects = note?.text ? [{ type: "dismissNote", after: Number.isInteger(note.dismiss_after) && note.dismiss_after > 0 ? note.dismiss_after : NOTE_SECONDS }] : [];
    return [...effects, ...this.startChatIfConfirmed()];
  }

  /** The server refused the choice (`{code}`): `invalid_state` means it no longer fits, so show where it stands. */
  actionRefused(action, error) {
    const screen = this.screen;
    if (screen.name !== "request" || !screen.isBusy || screen.pending?.action !== action) return [];
    const changed = error?.code === "invalid_state";
    this.screen = { ...screen, isBusy: false, pending: null, notice: changed ? "changed" : "failed", dialog: changed ? null : screen.dialog };
    return changed ? [this.fetchDialog()] : [];
  }

  /** The note after a choice has been shown long enough. */
  noteDismissed() {
    if (this.screen.name !== "request" || !this.screen.note) return [];
    this.screen = { ...this.screen, note: null };
    return [];
  }

  /** The visitor pressed the start-chat dialog's button (the page also starts the chat by itself). */
  startChat() {
    if (this.screen.name !== "request" || this.screen.dialog?.kind !== "start_chat") return [];
    this.screen = { name: "chat" };
    return [{ type: "startChat" }];
  }

  // What follows a new state of the request: the chat it turned into, the end, or its current dialog.
  settle(fetch) {
    const screen = this.screen;
    if (isChat(screen.callback)) {
      this.screen = { name: "chat" };
      return [{ type: "startChat" }];
    }
    const effects = [];
    if (!isLive(screen.callback)) effects.push({ type: "finished" });
    if (fetch || !screen.dialog) effects.push(this.fetchDialog());
    return effects;
  }

  startChatIfConfirmed() {
    const screen = this.screen;
    if (screen.name === "request" && screen.dialog?.kind === "start_chat" && screen.callback.kind === "notify_and_chat") {
      this.screen = { name: "chat" };
      return [{ type: "startChat" }];
    }
    return [];
  }

  fetchDialog() {
    this.token += 1;
    return { type: "fetchDialog", callbackID: this.screen.callback.id, token: this.token };
  }
}
