// ParleyKit's `ChatScreenMachine` (Sources/ParleyKit/StateMachines/ChatScreenMachine.swift) in
// JavaScript: the chat screen's flow as a pure state machine. Inputs in, effects out, no I/O; inputs
// that do not fit the current screen change nothing and return no effects.
//
//   loading ──open, pre-chat form──▶ preChat ──submitted──▶ (starting) ──queued──▶ queued ──assigned──▶ chatting
//      │ └──open, no form──────────────────────▶ (starting) ─────────────────────┘        │ cancel      │ ended
//      ├──closed / no agent──▶ unavailable ──offline form sent──▶ offlineSubmitted    unavailable   postChat ──▶ ended
//      └──failure──▶ error ──retry (not fatal)──▶ loading
//
// Screens are plain objects: {name: "loading" | "preChat" | "queued" | "chatting" | "postChat" |
// "ended" | "unavailable" | "offlineSubmitted" | "error", …}; a form screen is
// {form, errors, isSubmitting, failure}. Effects are {type: "fetchAvailability" | "fetchForms" |
// "startConversation" | "cancelConversation" | "endConversation" | "submitOfflineForm" |
// "submitPostChat", answers?}.
//
// One input the Swift machine does not have: `resumed(state, position, forms, wait)`, for a page
// reloaded while its conversation goes on (ParleyKit restores a running chat without this screen flow).
import { validateForm } from "./form-rules.js";

const formScreen = (form, extra = {}) => ({ form, errors: null, isSubmitting: false, failure: null, ...extra });
const nonEmpty = (form) => (form && Array.isArray(form.fields) && form.fields.length ? form : null);

export class ChatScreenMachine {
  constructor() {
    this.screen = { name: "loading" };
    this.availability = null;
    this.forms = null;
    this.isFetching = false;
    this.isStarting = false;
    // How long one place in the queue takes, from the last estimate: keeps an estimate as the position moves.
    this.secondsPerPlace = null;
  }

  /** The screen opened: fetch what the first decision needs. */
  start() {
    if (this.screen.name !== "loading" || this.isFetching || this.isStarting || (this.availability && this.forms)) return [];
    this.isFetching = true;
    return [{ type: "fetchAvailability" }, { type: "fetchForms" }];
  }

  /** The availability report arrived (`{status, estimated_wait_seconds?, next_opening?}`). */
  availabilityLoaded(report) {
    if (this.screen.name !== "loading" || !this.isFetching || this.availability) return [];
    this.availability = report;
    return this.decideAfterLoading();
  }

  /** The forms arrived (`{pre_chat?, unavailable?, post_chat?}`); a form without fields counts as none. */
  formsLoaded(forms) {
    if (this.screen.name !== "loading" || !this.isFetching || this.forms) return [];
    this.forms = { preChat: nonEmpty(forms?.pre_chat), unavailable: nonEmpty(forms?.unavailable), postChat: nonEmpty(forms?.post_chat) };
    return this.decideAfterLoading();
  }

  decideAfterLoading() {
    if (!this.availability || !this.forms) return [];
    this.isFetching = false;
    const unavailableForm = this.forms.unavailable ? formScreen(this.forms.unavailable) : null;
    switch (this.availability.status) {
      case "open":
        if (this.forms.preChat) {
          this.screen = { name: "preChat", ...formScreen(this.forms.preChat) };
          return [];
        }
        this.isStarting = true;
        return [{ type: "startConversation", answers: {} }];
      case "closed":
        this.screen = { name: "unavailable", reason: "closed", nextOpening: this.availability.next_opening ?? null, formScreen: unavailableForm };
        return [];
      default:
        this.screen = { name: "unavailable", reason: "no_agent_online", nextOpening: null, formScreen: unavailableForm };
        return [];
    }
  }

  /** The visitor submitted the pre-chat form. */
  submitPreChat(answers) {
    if (this.screen.name !== "preChat" || this.screen.isSubmitting) return [];
    return this.submit(answers, this.screen, (screen) => ({ name: "preChat", ...screen }), (values) => ({ type: "startConversation", answers: values }));
  }

  /** The server queued the conversation (at a 1-based position, when known). */
  conversationQueued(position) {
    if (!this.isAwaitingConversation()) return [];
    this.isStarting = false;
    const estimate = this.availability?.estimated_wait_seconds ?? null;
    // The availability estimate was made for the place a newcomer would take: keep it per place.
    if (estimate !== null && position > 0) this.secondsPerPlace = estimate / position;
    this.screen = { name: "queued", position: position ?? null, estimatedWaitSeconds: estimate };
    return [];
  }

  /**
   * The queue position changed, or the estimate (null: the server sent none, so the estimate moves
   * with the position, at the seconds per place known so far).
   */
  queueUpdated(position, estimatedWaitSeconds = null) {
    if (this.screen.name !== "queued") return [];
    const place = position ?? this.screen.position;
    if (estimatedWaitSeconds !== null && place > 0) this.secondsPerPlace = estimatedWaitSeconds / place;
    const moved = place > 0 && this.secondsPerPlace !== null ? Math.ceil(this.secondsPerPlace * place) : null;
    this.screen = { name: "queued", position: place ?? null, estimatedWaitSeconds: estimatedWaitSeconds ?? moved ?? this.screen.estimatedWaitSeconds };
    return [];
  }

  /** An agent took the conversation (possibly before the queued answer was seen). */
  conversationAssigned() {
    if (this.screen.name !== "queued" && !this.isAwaitingConversation()) return [];
    this.isStarting = false;
    this.screen = { name: "chatting" };
    return [];
  }

  /**
   * Page only: a reloaded page found its conversation going on ("queued" or "assigned"). A queued one
   * keeps its estimate: the server's when it gives one, else the seconds per place kept from before
   * the reload, scaled to the position now.
   */
  resumed(state, position, forms, { estimatedWaitSeconds = null, secondsPerPlace = null } = {}) {
    if (this.screen.name !== "loading") return [];
    this.isFetching = false;
    this.isStarting = false;
    if (forms) this.forms = { preChat: nonEmpty(forms.pre_chat), unavailable: nonEmpty(forms.unavailable), postChat: nonEmpty(forms.post_chat) };
    if (state === "assigned") {
      this.screen = { name: "chatting" };
      return [];
    }
    const place = position ?? null;
    if (estimatedWaitSeconds !== null && place > 0) this.secondsPerPlace = estimatedWaitSeconds / place;
    else if (secondsPerPlace > 0) this.secondsPerPlace = secondsPerPlace;
    const scaled = place > 0 && this.secondsPerPlace !== null ? Math.ceil(this.secondsPerPlace * place) : null;
    this.screen = { name: "queued", position: place, estimatedWaitSeconds: estimatedWaitSeconds ?? scaled };
    return [];
  }

  /** The visitor cancelled while queued: the conversation is cancelled and the unavailable form shown. */
  cancel() {
    if (this.screen.name !== "queued") return [];
    this.screen = { name: "unavailable", reason: "cancelled", nextOpening: null, formScreen: this.forms?.unavailable ? formScreen(this.forms.unavailable) : null };
    return [{ type: "cancelConversation" }];
  }

  /** The visitor asked to end the chat; the screen changes when `conversationEnded` follows. */
  endChat() {
    if (this.screen.name !== "chatting") return [];
    return [{ type: "endConversation" }];
  }

  /** The conversation ended (by either side). */
  conversationEnded() {
    if (this.screen.name === "queued" || this.screen.name === "chatting") {
      this.screen = this.forms?.postChat ? { name: "postChat", ...formScreen(this.forms.postChat) } : { name: "ended" };
    }
    return [];
  }

  /** The visitor submitted the post-chat form (the rating). */
  submitPostChat(answers) {
    if (this.screen.name !== "postChat" || this.screen.isSubmitting) return [];
    return this.submit(answers, this.screen, (screen) => ({ name: "postChat", ...screen }), (values) => ({ type: "submitPostChat", answers: values }));
  }

  /** The visitor skipped the post-chat form. */
  skipPostChat() {
    if (this.screen.name !== "postChat" || this.screen.isSubmitting) return [];
    this.screen = { name: "ended" };
    return [];
  }

  /** The visitor submitted the unavailable form. */
  submitOfflineForm(answers) {
    const screen = this.screen;
    if (screen.name !== "unavailable" || !screen.formScreen || screen.formScreen.isSubmitting) return [];
    return this.submit(answers, screen.formScreen, (form) => ({ ...screen, formScreen: form }), (values) => ({ type: "submitOfflineForm", answers: values }));
  }

  /** The server accepted the submission under way (offline form or post-chat form). */
  submissionAccepted() {
    const screen = this.screen;
    if (screen.name === "unavailable" && screen.formScreen?.isSubmitting) this.screen = { name: "offlineSubmitted" };
    else if (screen.name === "postChat" && screen.isSubmitting) this.screen = { name: "ended" };
    return [];
  }

  /** The server refused the submission under way with field errors (`[{key, code}]`): show them. */
  submissionRejected(errors) {
    const form = this.submittingForm();
    if (!form) return [];
    this.updateForm(formScreen(form.form, { errors }));
    return [];
  }

  /** Something failed (`{code, message, isFatal}`). A form being sent keeps a recoverable failure. */
  failed(error) {
    if (["ended", "offlineSubmitted", "error"].includes(this.screen.name)) return [];
    const form = this.submittingForm();
    if (form && !error.isFatal) {
      this.updateForm(formScreen(form.form, { failure: error }));
      return [];
    }
    this.isFetching = false;
    this.isStarting = false;
    this.screen = { name: "error", error };
    return [];
  }

  /** Try again after a recoverable error: start over from loading. */
  retry() {
    if (this.screen.name !== "error" || this.screen.error.isFatal) return [];
    this.screen = { name: "loading" };
    this.availability = null;
    this.forms = null;
    this.isFetching = true;
    return [{ type: "fetchAvailability" }, { type: "fetchForms" }];
  }

  isAwaitingConversation() {
    if (this.screen.name === "loading") return this.isStarting;
    if (this.screen.name === "preChat") return this.screen.isSubmitting;
    return false;
  }

  submittingForm() {
    const screen = this.screen;
    if ((screen.name === "preChat" || screen.name === "postChat") && screen.isSubmitting) return screen;
    if (screen.name === "unavailable" && screen.formScreen?.isSubmitting) return screen.formScreen;
    return null;
  }

  updateForm(form) {
    const screen = this.screen;
    if (screen.name === "preChat" || screen.name === "postChat") this.screen = { name: screen.name, ...form };
    else if (screen.name === "unavailable") this.screen = { ...screen, formScreen: form };
  }

  submit(answers, current, show, effect) {
    const result = validateForm(current.form, answers);
    if (result.errors) {
      this.screen = show(formScreen(current.form, { errors: result.errors }));
      return [];
    }
    this.screen = show(formScreen(current.form, { isSubmitting: true }));
    return [effect(result.values)];
  }
}
