// The chat: the screen machine's effects run against the server, the realtime frames turned into
// events, the outbox delivered, read receipts and the unread count. main.js builds it; what it shows
// is views.js's, what links, files and transcripts do is chat-actions.js's. A callback request is a
// conversation the chat follows too; its steps are callback.js's.
import { api, ApiError, setToken } from "./api.js";
import { CallbackFlow } from "./callback.js";
import { byId } from "./dom.js";
import { locale, t } from "./i18n.js";
import { DEFAULT_POLICY } from "./links.js";
import { Outbox } from "./outbox.js";
import { backoffDelay, Realtime } from "./realtime.js";
import { ChatScreenMachine } from "./screen-machine.js";
import { download, loadImage, openLink, printTranscript, saveTranscript } from "./chat-actions.js";
import { renderScreen, renderTranscript } from "./views.js";

const TYPING_IDLE_MS = 2500;

export class Chat {
  /**
   * @param options.untilOpened  in the website embed, settles when the launcher first opens the chat:
   *                             a new conversation waits for it (a stored one resumes at once)
   */
  constructor({ app, queue, bridge, customer, isVisible = true, untilOpened = null }) {
    this.app = app;
    this.queue = queue;
    this.bridge = bridge;
    this.customer = customer ?? {};
    this.machine = new ChatScreenMachine();
    this.callback = new CallbackFlow(this);
    this.outbox = new Outbox();
    this.policy = DEFAULT_POLICY;
    this.appearance = {};
    this.conversationID = null;
    this.epoch = null;
    this.lastSeq = 0;
    this.events = [];
    this.pending = new Map();
    this.agentName = null;
    this.agentReadSeq = 0;
    this.myReadSeq = 0;
    this.isVisible = isVisible;
    this.untilOpened = untilOpened;
    this.unread = 0;
    this.reportedUnread = 0;
    this.delivering = false;
    this.typingTimer = null;
    this.isTyping = false;
    this.agentTypingTimer = null;
    this.imageURLs = new Map();
    this.realtime = new Realtime(() => this.token, {
      onReady: (frame) => this.onReady(frame),
      onFrame: (frame) => this.onFrame(frame),
      onDown: () => this.setConnection("down"),
      onUnauthorized: () => this.renewSession().then(() => this.realtime.start()).catch(() => {}),
    });
    document.addEventListener("visibilitychange", () => this.markRead());
    window.addEventListener("online", () => this.deliverOutbox());
  }

  // MARK: - Start

  get storageKey() {
    return `parley.conversation.${this.app}.${this.queue ?? ""}`;
  }

  /** Where the seconds one place in the queue takes are kept for the stored conversation. */
  get waitKey() {
    return `parley.wait.${this.app}.${this.queue ?? ""}`;
  }

  deviceID() {
    const key = `parley.device.${this.app}`;
    let id = null;
    try {
      id = localStorage.getItem(key);
      if (!id) {
        id = crypto.randomUUID();
        localStorage.setItem(key, id);
      }
    } catch {
      id = id ?? crypto.randomUUID();
    }
    return id;
  }

  async renewSession() {
    const body = { app_id: this.app, device_id: this.deviceID() };
    for (const key of ["name", "email", "attributes", "user_id", "user_token"]) if (this.customer[key]) body[key] = this.customer[key];
    if (body.user_token && !body.user_id) body.user_id = jwtSubject(body.user_token);
    const session = await api("POST", "/v1/visitor/session", body);
    this.token = session.token;
    this.visitor = session.visitor;
    setToken(session.token);
  }

  async start() {
    try {
      await this.renewSession();
      const [appearance, policy] = await Promise.all([
        api("GET", "/v1/appearance").catch(() => ({})),
        api("GET", "/v1/link-policy").catch((error) => {
          if (error.status !== 404) throw error;
          return DEFAULT_POLICY;
        }),
      ]);
      this.applyAppearance(appearance);
      this.policy = { ...DEFAULT_POLICY, ...policy };
      const stored = this.storedConversation();
      if (stored) {
        const conversation = await api("GET", `/v1/conversations/${stored}`).catch(() => null);
        if (conversation && conversation.state !== "ended") {
          const forms = await api("GET", this.formsPath()).catch(() => ({}));
          this.conversationID = conversation.id;
          this.resumedForms = forms;
          // A live callback request comes back to its screen; one that turned into a chat is a chat.
          if (conversation.callback) await this.callback.resume(conversation);
          if (!this.callback.pageScreen) {
            this.machine.resumed(conversation.state, conversation.queue_position, forms, {
              estimatedWaitSeconds: conversation.estimated_wait_seconds ?? null, secondsPerPlace: this.storedSecondsPerPlace(conversation.id) });
          }
          this.render();
          await this.restoreOutbox();
          this.realtime.start();
          return;
        }
        this.forgetConversation();
      }
      if (this.untilOpened) {
        // The embed loads the page with every page of the website, hidden: a new conversation (which
        // routing hands to an agent) waits until the visitor opens the launcher.
        document.body.dataset.start = "on-open";
        await this.untilOpened;
        delete document.body.dataset.start;
      }
    } catch (error) {
      this.machine.failed(asError(error));
      this.render();
      return;
    }
    this.run(this.machine.start());
  }

  formsPath() {
    return this.queue ? `/v1/forms?queue=${encodeURIComponent(this.queue)}` : "/v1/forms";
  }

  storedConversation() {
    try {
      return localStorage.getItem(this.storageKey);
    } catch {
      return null;
    }
  }

  forgetConversation() {
    try {
      localStorage.removeItem(this.storageKey);
      localStorage.removeItem(this.waitKey);
    } catch { /* private mode */ }
  }

  /** The seconds per place kept for `conversationID` (the queue estimate, so a reload still shows it). */
  storedSecondsPerPlace(conversationID) {
    try {
      const kept = JSON.parse(localStorage.getItem(this.waitKey) ?? "null");
      return kept?.conversation_id === conversationID && kept.seconds_per_place > 0 ? kept.seconds_per_place : null;
    } catch {
      return null;
    }
  }

  /** Keeps the machine's seconds per place with the conversation while it waits. */
  rememberWait() {
    const secondsPerPlace = this.machine.secondsPerPlace;
    if (this.machine.screen.name !== "queued" || !this.conversationID || !(secondsPerPlace > 0)) return;
    if (this.keptWait?.id === this.conversationID && this.keptWait.secondsPerPlace === secondsPerPlace) return;
    this.keptWait = { id: this.conversationID, secondsPerPlace };
    try {
      localStorage.setItem(this.waitKey, JSON.stringify({ conversation_id: this.conversationID, seconds_per_place: secondsPerPlace }));
    } catch { /* private mode */ }
  }

  applyAppearance(appearance) {
    this.appearance = appearance ?? {};
    byId("title").textContent = this.appearance.title || t("title");
    document.title = this.appearance.title || t("title");
    const avatar = byId("avatar");
    if (this.appearance.avatar_url) {
      avatar.src = this.appearance.avatar_url;
      avatar.hidden = false;
    } else {
      avatar.hidden = true;
    }
    if (this.appearance.theme_color) document.documentElement.style.setProperty("--accent", this.appearance.theme_color);
    else document.documentElement.style.removeProperty("--accent");
  }

  // MARK: - Effects

  run(effects) {
    this.render();
    for (const effect of effects) this.perform(effect).catch((error) => {
      this.machine.failed(asError(error));
      this.render();
    });
  }

  async perform(effect) {
    switch (effect.type) {
      case "fetchAvailability": {
        const path = this.queue ? `/v1/availability?queue=${encodeURIComponent(this.queue)}` : "/v1/availability";
        this.run(this.machine.availabilityLoaded(await api("GET", path)));
        break;
      }
      case "fetchForms":
        this.run(this.machine.formsLoaded(await api("GET", this.formsPath())));
        break;
      case "startConversation":
        await this.openConversation(effect.answers);
        break;
      case "submitOfflineForm":
        await this.submitting(async () => {
          await api("POST", "/v1/conversations", { ...this.openBody(effect.answers), offline: true });
        });
        break;
      case "submitPostChat":
        await this.submitting(async () => {
          await api("PUT", `/v1/conversations/${this.conversationID}/forms/post_chat`, { answers: effect.answers });
        });
        break;
      case "cancelConversation":
      case "endConversation":
        await api("POST", `/v1/conversations/${this.conversationID}/end`);
        if (effect.type === "cancelConversation") this.finishConversation();
        break;
      default:
        break;
    }
  }

  openBody(answers) {
    const body = { attributes: { locale: locale() } };
    if (this.queue) body.queue_id = this.queue;
    if (answers && Object.keys(answers).length) body.form_answers = answers;
    return body;
  }

  async submitting(send) {
    try {
      await send();
      this.run(this.machine.submissionAccepted());
    } catch (error) {
      if (error instanceof ApiError && error.code === "invalid_form") {
        this.run(this.machine.submissionRejected(error.body?.error?.fields ?? []));
      } else {
        this.run(this.machine.failed(asError(error)));
      }
    }
  }

  async openConversation(answers) {
    let conversation;
    try {
      conversation = await api("POST", "/v1/conversations", this.openBody(this.machine.forms?.preChat ? answers : {}));
    } catch (error) {
      if (error instanceof ApiError && error.code === "invalid_form") {
        this.run(this.machine.submissionRejected(error.body?.error?.fields ?? []));
        return;
      }
      throw error;
    }
    this.conversationID = conversation.id;
    this.lastSeq = 0;
    this.events = [];
    // A callback request in this queue checks the same pre-chat answers: it takes these along.
    if (this.machine.forms?.preChat) this.preChatAnswers = answers;
    try {
      localStorage.setItem(this.storageKey, conversation.id);
    } catch { /* private mode */ }
    this.bridge.send("chat_started", { conversation_id: conversation.id });
    if (conversation.state === "assigned") this.machine.conversationAssigned();
    this.run(this.machine.conversationQueued(conversation.queue_position));
    this.realtime.start();
  }

  finishConversation() {
    // The socket stays: closing it while the server still sends makes browsers log an error, and a
    // new chat from this page reuses it.
    this.forgetConversation();
  }

  /**
   * Follows a callback request's conversation from now on: its events, its place in the queue, and
   * after a reload. A chat still waiting is cancelled (`leaveQueue`): the request takes its place.
   */
  follow(conversationID, { leaveQueue = false } = {}) {
    const waiting = this.conversationID;
    if (leaveQueue && waiting && this.machine.screen.name === "queued") {
      for (const effect of this.machine.cancel()) {
        if (effect.type !== "cancelConversation") continue;
        api("POST", `/v1/conversations/${waiting}/end`)
          .then(() => this.bridge.send("chat_ended", { conversation_id: waiting }))
          .catch(() => {});
      }
    }
    if (waiting && waiting !== conversationID) this.realtime.send({ type: "unsubscribe", conversation_id: waiting });
    this.conversationID = conversationID;
    this.lastSeq = 0;
    this.events = [];
    this.pending.clear();
    this.agentName = null;
    this.agentReadSeq = 0;
    this.myReadSeq = 0;
    try {
      localStorage.setItem(this.storageKey, conversationID);
    } catch { /* private mode */ }
    document.body.dataset.subscribed = "false";
    const subscribe = { type: "subscribe", conversation_id: conversationID, after_seq: 0 };
    if (this.epoch) subscribe.epoch = this.epoch;
    if (!this.realtime.send(subscribe)) this.realtime.start();
    this.renderTranscript();
  }

  /** A notify-and-chat request was confirmed: its conversation is the chat with the agent now. */
  chatWithAgent() {
    const known = this.machine.forms;
    const forms = known ? { pre_chat: known.preChat, unavailable: known.unavailable, post_chat: known.postChat } : this.resumedForms;
    // The request's screens are over: the chat starts on its own screen, as a resumed chat does.
    this.machine = new ChatScreenMachine();
    this.machine.resumed("assigned", null, forms);
    this.bridge.send("chat_started", { conversation_id: this.conversationID });
    this.render();
  }

  // MARK: - Realtime

  onReady(frame) {
    this.setConnection("ready");
    if (!this.conversationID) return;
    const subscribe = { type: "subscribe", conversation_id: this.conversationID, after_seq: this.lastSeq };
    if (this.epoch) subscribe.epoch = this.epoch;
    this.realtime.send(subscribe);
    if (!this.epoch) this.epoch = frame.epoch;
  }

  onFrame(frame) {
    if (frame.conversation_id && frame.conversation_id !== this.conversationID && frame.type !== "conversation") return;
    switch (frame.type) {
      case "event":
        this.applyEvent(frame.event);
        break;
      case "reset":
        this.epoch = frame.epoch;
        this.lastSeq = 0;
        this.events = [];
        this.renderTranscript();
        break;
      case "subscribed":
        this.epoch = frame.epoch;
        document.body.dataset.subscribed = "true";
        this.deliverOutbox();
        this.markRead();
        break;
      case "queue_position":
        this.callback.queueUpdated(frame.position);
        this.run(this.machine.queueUpdated(frame.position, null));
        break;
      case "typing":
        if (frame.participant?.role === "agent") this.showAgentTyping(frame.is_typing, frame.participant.name);
        break;
      default:
        break;
    }
  }

  setConnection(state) {
    document.body.dataset.connection = state;
    byId("banner").hidden = state === "ready" || !this.conversationID;
    byId("banner").textContent = navigator.onLine === false ? t("offline_note") : t("reconnecting");
  }

  applyEvent(event) {
    if (event.seq <= this.lastSeq) return;
    this.lastSeq = event.seq;
    this.events.push(event);
    document.body.dataset.lastSeq = String(event.seq);
    switch (event.type) {
      case "message":
        if (event.author.role === "visitor") {
          this.pending.delete(event.client_message_id);
          this.outbox.remove(event.client_message_id).catch(() => {});
        } else {
          this.showAgentTyping(false);
        }
        break;
      case "callback":
        this.callback.changed(event);
        break;
      case "state_changed":
        // A callback request's state changes are its steps (callback.js), until it is a chat.
        if (this.callback.isFollowing) break;
        if (event.to === "assigned") this.run(this.machine.conversationAssigned());
        if (event.to === "ended") {
          this.bridge.send("chat_ended", { conversation_id: this.conversationID });
          this.finishConversation();
          this.run(this.machine.conversationEnded());
        }
        break;
      case "participant_joined":
        this.agentName = event.participant?.name ?? this.agentName;
        break;
      case "read":
        if (event.author.role === "agent") this.agentReadSeq = Math.max(this.agentReadSeq, event.read_seq);
        else this.myReadSeq = Math.max(this.myReadSeq, event.read_seq);
        break;
      default:
        break;
    }
    this.renderTranscript();
    this.updateUnread();
    this.markRead();
  }

  showAgentTyping(isTyping, name) {
    clearTimeout(this.agentTypingTimer);
    const line = byId("typing");
    line.textContent = isTyping ? t("typing", { name: name || this.agentName || t("an_agent") }) : "";
    line.hidden = !isTyping;
    if (isTyping) this.agentTypingTimer = setTimeout(() => this.showAgentTyping(false), 15000);
  }

  // MARK: - Unread and read

  setVisible(visible) {
    this.isVisible = visible;
    this.markRead();
  }

  /** What the agent said after `seq`: messages and pushed pages (both count as unread). */
  agentMessagesAfter(seq) {
    return this.events.filter((event) => (event.type === "message" || event.type === "page_pushed") && event.author.role === "agent" && event.seq > seq);
  }

  updateUnread() {
    this.unread = this.agentMessagesAfter(this.myReadSeq).length;
    if (this.unread !== this.reportedUnread) {
      this.reportedUnread = this.unread;
      document.body.dataset.unread = String(this.unread);
      this.bridge.send("unread_changed", { count: this.unread });
    }
  }

  markRead() {
    if (!this.isVisible || document.visibilityState !== "visible" || !this.conversationID) return;
    const unread = this.agentMessagesAfter(this.myReadSeq);
    if (!unread.length) return;
    const seq = unread[unread.length - 1].seq;
    if (this.realtime.send({ type: "read", conversation_id: this.conversationID, seq, ref: `read-${seq}` })) {
      this.myReadSeq = seq;
      this.updateUnread();
    }
  }

  // MARK: - Sending

  async send(text) {
    if (!text.trim() || !this.conversationID) return;
    const entry = { client_message_id: crypto.randomUUID(), conversation_id: this.conversationID, text, created_at: Date.now() };
    this.pending.set(entry.client_message_id, { ...entry, state: "sending" });
    this.renderTranscript();
    await this.outbox.add(entry);
    this.stopTyping();
    this.deliverOutbox();
  }

  async restoreOutbox() {
    for (const entry of await this.outbox.pending(this.conversationID)) {
      if (!this.pending.has(entry.client_message_id)) this.pending.set(entry.client_message_id, { ...entry, state: "sending" });
    }
    this.renderTranscript();
  }

  /** Delivers what waits, oldest first, one at a time; stops at the first network failure. */
  async deliverOutbox() {
    if (this.delivering || !this.conversationID) return;
    this.delivering = true;
    try {
      for (const entry of await this.outbox.pending(this.conversationID)) {
        const shown = this.pending.get(entry.client_message_id) ?? { ...entry };
        shown.state = "sending";
        this.pending.set(entry.client_message_id, shown);
        this.renderTranscript();
        try {
          await api("POST", `/v1/conversations/${entry.conversation_id}/messages`, { client_message_id: entry.client_message_id, text: entry.text });
          await this.outbox.remove(entry.client_message_id);
          const still = this.pending.get(entry.client_message_id);
          if (still) still.state = "sent";
        } catch (error) {
          const retryable = !(error instanceof ApiError) || error.status === 0 || error.status >= 500 || error.status === 429;
          shown.state = "failed";
          if (!retryable) {
            shown.error = t("failed");
            await this.outbox.remove(entry.client_message_id);
          }
          this.renderTranscript();
          if (retryable) {
            // Try again by itself (and at once when the socket or the browser says the network is back).
            this.deliveryAttempt = (this.deliveryAttempt ?? 0) + 1;
            clearTimeout(this.deliveryTimer);
            this.deliveryTimer = setTimeout(() => this.deliverOutbox(), backoffDelay(this.deliveryAttempt));
            break;
          }
        }
        this.deliveryAttempt = 0;
      }
    } finally {
      this.delivering = false;
      this.renderTranscript();
    }
  }

  async retry(message) {
    if (message.file) {
      this.sendFile(message.file, message.client_message_id);
      return;
    }
    await this.outbox.add({ client_message_id: message.client_message_id, conversation_id: message.conversation_id ?? this.conversationID, text: message.text, created_at: message.created_at_ms ?? Date.now() });
    this.deliverOutbox();
  }

  async sendFile(file, clientMessageID = crypto.randomUUID()) {
    if (!this.conversationID) return;
    const shown = { client_message_id: clientMessageID, conversation_id: this.conversationID, text: "", created_at: Date.now(), state: "sending", file,
      attachment: { name: file.name, size: file.size, content_type: file.type } };
    this.pending.set(clientMessageID, shown);
    this.renderTranscript();
    const query = `name=${encodeURIComponent(file.name)}&client_message_id=${encodeURIComponent(clientMessageID)}`;
    try {
      await api("POST", `/v1/conversations/${this.conversationID}/attachments?${query}`, file, { headers: { "Content-Type": file.type || "application/octet-stream" } });
      shown.state = "sent";
    } catch (error) {
      shown.state = "failed";
      shown.error = error.status === 413 ? t("file_too_large") : t("file_failed");
    }
    this.renderTranscript();
  }

  onInput() {
    if (!this.conversationID) return;
    if (!this.isTyping) {
      this.isTyping = true;
      this.realtime.send({ type: "typing", conversation_id: this.conversationID, is_typing: true });
    }
    clearTimeout(this.typingTimer);
    this.typingTimer = setTimeout(() => this.stopTyping(), TYPING_IDLE_MS);
  }

  stopTyping() {
    clearTimeout(this.typingTimer);
    if (!this.isTyping) return;
    this.isTyping = false;
    this.realtime.send({ type: "typing", conversation_id: this.conversationID, is_typing: false });
  }

  // MARK: - Links, files, transcripts (chat-actions.js)

  openLink(url) {
    openLink(this, url);
  }

  loadImage(file) {
    return loadImage(this, file);
  }

  download(file) {
    return download(this, file);
  }

  saveTranscript(conversationID) {
    return saveTranscript(this, conversationID);
  }

  printTranscript(conversationID) {
    return printTranscript(this, conversationID);
  }

  toast(text) {
    const toast = byId("toast");
    toast.textContent = text;
    toast.hidden = false;
    clearTimeout(this.toastTimer);
    this.toastTimer = setTimeout(() => { toast.hidden = true; }, 6000);
  }

  // MARK: - Host calls

  closeChat() {
    const name = this.machine.screen.name;
    if (name === "queued") this.run(this.machine.cancel());
    else if (name === "chatting") this.run(this.machine.endChat());
  }

  // MARK: - Rendering (views.js)

  render() {
    const name = this.machine.screen.name;
    this.rememberWait();
    this.callback.chatMoved(name);
    // The screens that offer a callback have its code ready by the time it is chosen.
    if (name === "queued" || name === "unavailable") this.callback.prepare().catch(() => {});
    renderScreen(this);
  }

  renderTranscript() {
    renderTranscript(this);
  }
}

function asError(error) {
  if (error instanceof ApiError) return { code: error.code, message: error.message, isFatal: error.isFatal };
  return { code: "internal", message: String(error?.message ?? error), isFatal: false };
}

function jwtSubject(token) {
  try {
    const payload = token.split(".")[1].replace(/-/g, "+").replace(/_/g, "/");
    return JSON.parse(atob(payload)).sub;
  } catch {
    return undefined;
  }
}
