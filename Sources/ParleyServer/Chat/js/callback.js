// The callback flow's effects against the server (callback-machine.js decides, this file does):
// the request (`POST /v1/callbacks`), its dialogs and the visitor's choices, and handing the request's
// conversation to the chat, which follows it from then on (its events, its place in the queue, and
// after a reload). What shows is callback-view.js's. Most visitors never ask for a callback, so the
// machine and the view are loaded when the queued or unavailable screen offers one (or a reloaded
// page finds a request), not with the page.
import { api, ApiError } from "./api.js";
import { language, locale, t } from "./i18n.js";

const IDLE = { name: "idle" };

export class CallbackFlow {
  constructor(chat) {
    this.chat = chat;
    this.machine = null;
    this.view = null;
    this.loading = null;
    this.noteTimer = null;
  }

  /** Loads the machine and the view once; a failed load is tried again at the next call. */
  prepare() {
    this.loading ??= Promise.all([import("./callback-machine.js"), import("./callback-view.js")]).then(([machine, view]) => {
      this.machine ??= new machine.CallbackMachine();
      this.view = view;
    }, (error) => {
      this.loading = null;
      throw error;
    });
    return this.loading;
  }

  get screen() {
    return this.machine?.screen ?? IDLE;
  }

  /** The page's screen while the flow shows (`callbackForm`, `callback`), else null: the chat's screens show. */
  get pageScreen() {
    return { form: "callbackForm", request: "callback" }[this.screen.name] ?? null;
  }

  /** True while the request's conversation is the flow's: its state changes are the request's steps, not a chat's. */
  get isFollowing() {
    return this.screen.name === "request";
  }

  get customer() {
    return this.chat.customer;
  }

  // MARK: - Inputs

  /** Opens the form on the chat's queued or unavailable screen. */
  async open(origin) {
    try {
      await this.prepare();
    } catch {
      this.chat.toast(t("callback_notice.failed"));
      return;
    }
    const chatScreen = this.chat.machine.screen;
    if (chatScreen.name !== origin) return;
    const forms = this.chat.machine.forms;
    const questions = [forms?.preChat, forms?.unavailable].flatMap((form) => form?.fields ?? []);
    const phoneQuestion = questions.find((field) => field.kind === "phone" && field.default_calling_code);
    const answers = this.chat.preChatAnswers ?? null;
    const knownPhone = answers && forms?.preChat?.fields.find((field) => field.kind === "phone" && typeof answers[field.key] === "string");
    this.run(this.machine.open({
      origin,
      reason: chatScreen.reason ?? null,
      nextOpening: chatScreen.nextOpening ?? null,
      callingCode: phoneQuestion?.default_calling_code ?? null,
      // A queue with a pre-chat form checks a request's answers as a chat's: the ones given for the
      // waiting chat go along; without them the form asks its questions too.
      preChat: forms?.preChat && !answers ? forms.preChat : null,
      values: { answers: answers ?? {}, phone: knownPhone ? answers[knownPhone.key] : "" },
    }));
  }

  back() {
    if (this.machine) this.run(this.machine.back());
  }

  submit(values) {
    if (this.machine) this.run(this.machine.submit(values, Date.now()));
  }

  choose(action) {
    if (this.machine) this.run(this.machine.choose(action));
  }

  startChat() {
    if (this.machine) this.run(this.machine.startChat());
  }

  /** The chat's screen changed (an agent took the waiting chat while the form was open). */
  chatMoved(name) {
    this.machine?.chatMoved(name);
  }

  /** A reloaded page found a live request: the callback screen comes back (or the chat it turned into). */
  async resume(conversation) {
    await this.prepare();
    this.run(this.machine.resumed(conversation));
  }

  /** A `callback` event of the followed conversation. */
  changed(event) {
    if (this.machine) this.run(this.machine.changed(event));
  }

  queueUpdated(position) {
    if (this.isFollowing) this.run(this.machine.queueUpdated(position));
  }

  // MARK: - Showing (callback-view.js)

  /** Draws the flow's screen into the panel. */
  render(panel) {
    this.view.renderCallbackPanel(panel, this);
  }

  /** The chat's own screens have the panel again. */
  leave() {
    this.view?.leaveCallbackPanel();
  }

  // MARK: - Effects

  run(effects) {
    this.chat.render();
    for (const effect of effects) this.perform(effect).catch((error) => console.warn("callback", effect.type, error));
  }

  async perform(effect) {
    switch (effect.type) {
      case "requestCallback": {
        const body = { ...effect.body, language: language(), attributes: { locale: locale() } };
        if (this.chat.queue) body.queue_id = this.chat.queue;
        try {
          this.run(this.machine.requestAccepted(await api("POST", "/v1/callbacks", body)));
        } catch (error) {
          this.run(this.machine.requestRefused(refusal(error)));
        }
        break;
      }
      case "follow":
        this.chat.follow(effect.conversationID, { leaveQueue: effect.leaveQueue });
        break;
      case "fetchDialog": {
        const dialog = await api("GET", `/v1/callbacks/${effect.callbackID}/dialog`).catch(() => null);
        if (dialog) this.run(this.machine.dialogLoaded(dialog, effect.token));
        break;
      }
      case "perform": {
        const action = effect.action;
        try {
          this.run(this.machine.actionDone(action, await api("POST", `/v1/callbacks/${effect.callbackID}/actions/${action}`)));
        } catch (error) {
          this.run(this.machine.actionRefused(action, refusal(error)));
        }
        break;
      }
      case "dismissNote":
        clearTimeout(this.noteTimer);
        this.noteTimer = setTimeout(() => this.run(this.machine.noteDismissed()), effect.after * 1000);
        break;
      case "startChat":
        this.chat.chatWithAgent();
        break;
      case "finished":
        this.chat.forgetConversation();
        break;
      default:
        break;
    }
  }
}

function refusal(error) {
  if (error instanceof ApiError) return { status: error.status, code: error.code, message: error.message, fields: error.body?.error?.fields ?? [] };
  return { status: 0, code: "network", message: String(error?.message ?? error), fields: [] };
}
