// The chat: the screen machine's effects run against the server, the realtime frames turned into
// transcript items, the outbox delivered. main.js builds it; views are in this file's render
// functions, forms.js and transcript.js.
import { api, ApiError, authorization, setToken } from "./api.js";
import { byId, h, replaceChildren } from "./dom.js";
import { renderForm } from "./forms.js";
import { locale, pick, t } from "./i18n.js";
import { decide, DEFAULT_POLICY } from "./links.js";
import { Outbox } from "./outbox.js";
import { backoffDelay, Realtime } from "./realtime.js";
import { ChatScreenMachine } from "./screen-machine.js";
import { messageItem, noticeItem, pageCard } from "./transcript.js";
import { openViewer } from "./viewer.js";

const TYPING_IDLE_MS = 2500;

export class Chat {
  constructor({ app, queue, bridge, customer, isVisible = true }) {
    this.app = app;
    this.queue = queue;
    this.bridge = bridge;
    this.customer = customer ?? {};
    this.machine = new ChatScreenMachine();
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
          this.machine.resumed(conversation.state, conversation.queue_position, forms);
          this.render();
          await this.restoreOutbox();
          this.realtime.start();
          return;
        }
        this.forgetConversation();
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
      case "state_changed":
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

  // MARK: - Links, files, transcripts

  openLink(url) {
    const decision = decide(url, this.policy);
    if (decision === "inside") {
      openViewer(url);
    } else if (decision === "outside") {
      if (this.bridge.hasHost) this.bridge.send("open_url", { url });
      else window.open(url, "_blank", "noopener,noreferrer");
    } else if (decision === "block") {
      this.toast(t("link_blocked", { host: new URL(url).host }));
    }
  }

  attachmentURL(file) {
    return `/v1/conversations/${this.conversationID ?? file.conversation_id}/attachments/${file.id}`;
  }

  async loadImage(file) {
    if (this.imageURLs.has(file.id)) return this.imageURLs.get(file.id);
    try {
      const response = await api("GET", this.attachmentURL(file), null, { raw: true });
      const url = URL.createObjectURL(await response.blob());
      this.imageURLs.set(file.id, url);
      return url;
    } catch {
      return null;
    }
  }

  async download(file) {
    const url = new URL(this.attachmentURL(file), location.href).href;
    if (this.bridge.hasHost) {
      this.bridge.send("download_attachment", {
        conversation_id: this.conversationID, attachment_id: file.id, file_name: file.name, content_type: file.content_type,
        size: file.size, url, authorization: authorization(),
      });
      return;
    }
    const response = await api("GET", this.attachmentURL(file), null, { raw: true });
    saveBlob(await response.blob(), file.name);
  }

  async transcriptHTML(conversationID) {
    const response = await api("GET", `/v1/conversations/${conversationID}/transcript?format=html&lang=${encodeURIComponent(locale())}`, null, { raw: true });
    return response.text();
  }

  async saveTranscript(conversationID) {
    const html = await this.transcriptHTML(conversationID);
    const fileName = `transcript-${conversationID}.html`;
    if (this.bridge.hasHost) this.bridge.send("save_transcript", { conversation_id: conversationID, file_name: fileName, html });
    else saveBlob(new Blob([html], { type: "text/html" }), fileName);
  }

  async printTranscript(conversationID) {
    const html = await this.transcriptHTML(conversationID);
    if (this.bridge.hasHost) this.bridge.send("print_transcript", { conversation_id: conversationID, html });
    else window.print();
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

  // MARK: - Rendering

  render() {
    const screen = this.machine.screen;
    document.body.dataset.screen = screen.name;
    const conversation = byId("conversation");
    const panel = byId("panel");
    const hasTranscript = ["queued", "chatting"].includes(screen.name) || (["postChat", "ended"].includes(screen.name) && this.events.length > 0);
    conversation.hidden = !hasTranscript;
    byId("composer").hidden = !["queued", "chatting"].includes(screen.name);
    byId("end-chat").hidden = screen.name !== "chatting";
    byId("loading").hidden = screen.name !== "loading";
    this.renderQueue(screen);
    replaceChildren(panel, this.panelFor(screen));
    panel.hidden = panel.childElementCount === 0;
    this.renderTranscript();
  }

  renderQueue(screen) {
    const status = byId("queue-status");
    status.hidden = screen.name !== "queued";
    if (screen.name !== "queued") return;
    const lines = [];
    lines.push(screen.position ? t("queued_position", { position: screen.position }) : t("queued_unknown"));
    if (screen.estimatedWaitSeconds) {
      const minutes = Math.round(screen.estimatedWaitSeconds / 60);
      lines.push(t("queued_wait", { wait: minutes < 1 ? t("under_a_minute") : t("minutes", { n: minutes }) }));
    }
    replaceChildren(status,
      h("h2", { class: "queue-title", text: t("queued_title") }),
      h("p", { id: "queue-position", dataset: { position: screen.position ?? "" }, text: lines[0] }),
      lines[1] ? h("p", { id: "queue-wait", dataset: { seconds: screen.estimatedWaitSeconds }, text: lines[1] }) : null,
      h("button", { class: "button", type: "button", id: "cancel-wait", text: t("cancel_wait"), onclick: () => this.run(this.machine.cancel()) }));
  }

  panelFor(screen) {
    switch (screen.name) {
      case "preChat":
        return renderForm(screen, { title: this.appearance.title || t("title"), lead: pick(this.appearance.welcome_message), submitLabel: t("start"),
          prefill: this.customer,
          onSubmit: (answers) => this.run(this.machine.submitPreChat(answers)) });
      case "unavailable": {
        const reason = screen.reason === "closed"
          ? [t("unavailable_closed"), screen.nextOpening ? t("unavailable_next", { when: new Date(screen.nextOpening).toLocaleString(locale()) }) : null]
          : [screen.reason === "cancelled" ? t("unavailable_cancelled") : t("unavailable_no_agent")];
        const lead = reason.filter(Boolean).join(" ");
        if (!screen.formScreen) return h("div", { class: "notice-panel" }, h("h2", { text: lead }));
        return renderForm(screen.formScreen, { title: lead, lead: t("unavailable_leave"), submitLabel: t("submit"), prefill: this.customer,
          onSubmit: (answers) => this.run(this.machine.submitOfflineForm(answers)) });
      }
      case "offlineSubmitted":
        return h("div", { class: "notice-panel" }, h("h2", { text: t("offline_sent") }));
      case "postChat":
        return renderForm(screen, { title: t("postchat_title"), submitLabel: t("submit"),
          onSubmit: (answers) => this.run(this.machine.submitPostChat(answers)),
          extra: [h("button", { class: "button", type: "button", text: t("skip"), onclick: () => this.run(this.machine.skipPostChat()) })] });
      case "ended":
        return this.endedPanel();
      case "error": {
        const error = screen.error;
        return h("div", { class: "notice-panel", role: "alert" },
          h("h2", { text: t("error_title") }),
          h("p", { text: error.isFatal ? t("error_app") : t("error_network") }),
          error.isFatal ? null : h("button", { class: "button primary", type: "button", id: "retry", text: t("error_retry"), onclick: () => this.run(this.machine.retry()) }));
      }
      default:
        return null;
    }
  }

  endedPanel() {
    const conversationID = this.endedConversation ?? this.events[0]?.conversation_id;
    const status = h("p", { class: "email-status", role: "status" });
    const email = h("input", { id: "transcript-email", type: "email", autocomplete: "email", value: this.customer.email ?? "" });
    const form = h("form", { class: "email-form", novalidate: true },
      h("label", { for: "transcript-email", text: t("email_label") }),
      h("div", { class: "row" }, email, h("button", { class: "button", type: "submit", text: t("transcript_email") })), status);
    form.addEventListener("submit", async (event) => {
      event.preventDefault();
      try {
        await api("POST", `/v1/conversations/${conversationID}/transcript/email`, { email: email.value.trim(), language: locale() });
        status.textContent = t("email_sent", { email: email.value.trim() });
      } catch (error) {
        status.textContent = error.code === "mail_not_configured" ? t("email_unavailable") : t(`errors.${error.code === "bad_request" ? "invalid_email" : "wrong_type"}`);
      }
    });
    return h("div", { class: "notice-panel ended" },
      h("h2", { text: t("ended_title") }),
      conversationID ? h("div", { class: "transcript-actions" },
        h("button", { class: "button", type: "button", id: "save-transcript", text: t("transcript_save"), onclick: () => this.saveTranscript(conversationID) }),
        h("button", { class: "button", type: "button", id: "print-transcript", text: t("transcript_print"), onclick: () => this.printTranscript(conversationID) }),
        form) : null,
      h("button", { class: "button primary", type: "button", id: "new-chat", text: t("new_chat"), onclick: () => location.reload() }));
  }

  renderTranscript() {
    const list = byId("transcript");
    const items = [];
    const welcome = pick(this.appearance.welcome_message);
    if (welcome) items.push(h("li", { class: "message theirs welcome", dataset: { key: "welcome" } }, h("div", { class: "bubble" }, h("p", { class: "text", dir: "auto", text: welcome }))));
    const actions = {
      onLink: (url) => this.openLink(url),
      onRetry: (message) => this.retry(message),
      onDownload: (file) => this.download(file).catch(() => this.toast(t("file_failed"))),
      loadImage: (file) => this.loadImage(file),
      cachedImage: (file) => this.imageURLs.get(file.id),
    };
    const you = this.appearance.visitor_display_name || t("you");
    let lastAgent = this.agentName;
    for (const event of this.events) {
      const key = `s:${event.seq}`;
      switch (event.type) {
        case "message": {
          const isVisitor = event.author.role === "visitor";
          const state = isVisitor ? (this.agentReadSeq >= event.seq ? "read" : "sent") : "sent";
          items.push(messageItem({ key: `m:${event.client_message_id}`, role: isVisitor ? "visitor" : "agent", name: isVisitor ? you : event.author.name || t("an_agent"),
            text: event.text, created_at: event.created_at, attachment: event.attachment, state, seq: event.seq }, actions));
          break;
        }
        case "participant_joined":
          lastAgent = event.participant?.name ?? lastAgent;
          items.push(noticeItem(key, t("agent_joined", { name: event.participant?.name || t("an_agent") })));
          break;
        case "participant_left":
          items.push(noticeItem(key, t("agent_left", { name: event.participant?.name || lastAgent || t("an_agent") })));
          break;
        case "state_changed":
          if (event.to === "ended") {
            this.endedConversation = event.conversation_id;
            items.push(noticeItem(key, t("chat_ended")));
          } else if (event.to === "queued" && event.reason !== "opened") items.push(noticeItem(key, t("requeued")));
          break;
        case "page_pushed":
          items.push(pageCard(event, (url) => this.openLink(url)));
          break;
        default:
          break;
      }
    }
    for (const message of this.pending.values()) {
      items.push(messageItem({ key: `m:${message.client_message_id}`, role: "visitor", name: you, text: message.text, attachment: message.attachment,
        created_at: new Date(message.created_at).toISOString(), state: message.state, error: message.error, client_message_id: message.client_message_id,
        conversation_id: message.conversation_id, created_at_ms: message.created_at, file: message.file }, actions));
    }
    const atBottom = list.scrollHeight - list.scrollTop - list.clientHeight < 40;
    // Patch by key so focus (a Retry button) and images survive updates.
    const existing = new Map([...list.children].map((child) => [child.dataset.key, child]));
    const next = items.map((item) => {
      const old = existing.get(item.dataset.key);
      if (old && old.isEqualNode(item)) return old;
      return item;
    });
    list.replaceChildren(...next);
    if (atBottom) list.scrollTop = list.scrollHeight;
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

function saveBlob(blob, name) {
  const url = URL.createObjectURL(blob);
  const link = h("a", { href: url, download: name, hidden: true });
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10000);
}
