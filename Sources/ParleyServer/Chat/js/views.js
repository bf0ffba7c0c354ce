// The chat's views: which parts of the page show for the machine's screen, the queue status, the
// panel (forms, notices, the ended screen with its transcript actions) and the transcript. While the
// callback flow shows (its form, a request's screen), it has the panel (callback-view.js).
import { api } from "./api.js";
import { byId, h, replaceChildren } from "./dom.js";
import { renderForm } from "./forms.js";
import { locale, pick, t } from "./i18n.js";
import { messageItem, noticeItem, pageCard } from "./transcript.js";

/** Shows the machine's screen: which parts are visible, the queue, the panel, the transcript. */
export function renderScreen(chat) {
  const callback = chat.callback.pageScreen;
  const screen = callback ? { name: callback } : chat.machine.screen;
  document.body.dataset.screen = screen.name;
  const conversation = byId("conversation");
  const panel = byId("panel");
  const hasTranscript = ["queued", "chatting"].includes(screen.name) || (["postChat", "ended"].includes(screen.name) && chat.events.length > 0);
  conversation.hidden = !hasTranscript;
  byId("composer").hidden = !["queued", "chatting"].includes(screen.name);
  byId("end-chat").hidden = screen.name !== "chatting";
  byId("loading").hidden = screen.name !== "loading";
  renderQueue(chat, screen);
  if (callback) {
    chat.callback.render(panel);
  } else {
    chat.callback.leave();
    replaceChildren(panel, panelFor(chat, screen));
  }
  panel.hidden = panel.childElementCount === 0;
  renderTranscript(chat);
}

function renderQueue(chat, screen) {
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
    h("button", { class: "button", type: "button", id: "cancel-wait", text: t("cancel_wait"), onclick: () => chat.run(chat.machine.cancel()) }),
    callbackEntry("queued", {}, () => chat.callback.open("queued")));
}

/** The way into the callback flow: on the queued screen (`origin` "queued") or the unavailable one (closed or not). */
function callbackEntry(origin, { closed = false } = {}, onOpen) {
  let lead;
  if (origin === "queued") lead = t("callback_entry.queued_lead");
  // A closed queue's next opening is the unavailable screen's heading already; the form repeats it.
  else lead = t(closed ? "callback_entry.closed_lead" : "callback_entry.lead");
  return h("div", { class: "callback-entry" },
    h("p", { class: "callback-entry-lead", text: lead }),
    h("button", { class: "button", type: "button", id: "callback-open", text: t(origin === "queued" ? "callback_entry.queued" : "callback_entry.unavailable"), onclick: onOpen }));
}

function panelFor(chat, screen) {
  switch (screen.name) {
    case "preChat":
      return renderForm(screen, { title: chat.appearance.title || t("title"), lead: pick(chat.appearance.welcome_message), submitLabel: t("start"),
        prefill: chat.customer,
        onSubmit: (answers) => chat.run(chat.machine.submitPreChat(answers)) });
    case "unavailable": {
      const reason = screen.reason === "closed"
        ? [t("unavailable_closed"), screen.nextOpening ? t("unavailable_next", { when: new Date(screen.nextOpening).toLocaleString(locale()) }) : null]
        : [screen.reason === "cancelled" ? t("unavailable_cancelled") : t("unavailable_no_agent")];
      const lead = reason.filter(Boolean).join(" ");
      const callback = callbackEntry("unavailable", { closed: screen.reason === "closed" }, () => chat.callback.open("unavailable"));
      if (!screen.formScreen) return h("div", { class: "notice-panel" }, h("h2", { text: lead }), callback);
      return [renderForm(screen.formScreen, { title: lead, lead: t("unavailable_leave"), submitLabel: t("submit"), prefill: chat.customer,
        onSubmit: (answers) => chat.run(chat.machine.submitOfflineForm(answers)) }), callback];
    }
    case "offlineSubmitted":
      return h("div", { class: "notice-panel" }, h("h2", { text: t("offline_sent") }));
    case "postChat":
      return renderForm(screen, { title: t("postchat_title"), submitLabel: t("submit"),
        onSubmit: (answers) => chat.run(chat.machine.submitPostChat(answers)),
        extra: [h("button", { class: "button", type: "button", text: t("skip"), onclick: () => chat.run(chat.machine.skipPostChat()) })] });
    case "ended":
      return endedPanel(chat);
    case "error": {
      const error = screen.error;
      return h("div", { class: "notice-panel", role: "alert" },
        h("h2", { text: t("error_title") }),
        h("p", { text: error.isFatal ? t("error_app") : t("error_network") }),
        error.isFatal ? null : h("button", { class: "button primary", type: "button", id: "retry", text: t("error_retry"), onclick: () => chat.run(chat.machine.retry()) }));
    }
    default:
      return null;
  }
}

function endedPanel(chat) {
  const conversationID = chat.endedConversation ?? chat.events[0]?.conversation_id;
  const status = h("p", { class: "email-status", role: "status" });
  const email = h("input", { id: "transcript-email", type: "email", autocomplete: "email", value: chat.customer.email ?? "" });
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
      h("button", { class: "button", type: "button", id: "save-transcript", text: t("transcript_save"), onclick: () => chat.saveTranscript(conversationID) }),
      h("button", { class: "button", type: "button", id: "print-transcript", text: t("transcript_print"), onclick: () => chat.printTranscript(conversationID) }),
      form) : null,
    h("button", { class: "button primary", type: "button", id: "new-chat", text: t("new_chat"), onclick: () => location.reload() }));
}

/** The transcript from the chat's events and pending messages, patched by key. */
export function renderTranscript(chat) {
  const list = byId("transcript");
  const items = [];
  const welcome = pick(chat.appearance.welcome_message);
  if (welcome) items.push(h("li", { class: "message theirs welcome", dataset: { key: "welcome" } }, h("div", { class: "bubble" }, h("p", { class: "text", dir: "auto", text: welcome }))));
  const actions = {
    onLink: (url) => chat.openLink(url),
    onRetry: (message) => chat.retry(message),
    onDownload: (file) => chat.download(file).catch(() => chat.toast(t("file_failed"))),
    loadImage: (file) => chat.loadImage(file),
    cachedImage: (file) => chat.imageURLs.get(file.id),
  };
  const you = chat.appearance.visitor_display_name || t("you");
  let lastAgent = chat.agentName;
  for (const event of chat.events) {
    const key = `s:${event.seq}`;
    switch (event.type) {
      case "message": {
        const isVisitor = event.author.role === "visitor";
        const state = isVisitor ? (chat.agentReadSeq >= event.seq ? "read" : "sent") : "sent";
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
          chat.endedConversation = event.conversation_id;
          items.push(noticeItem(key, t("chat_ended")));
        } else if (event.to === "queued" && event.reason !== "opened") items.push(noticeItem(key, t("requeued")));
        break;
      case "page_pushed":
        items.push(pageCard(event, (url) => chat.openLink(url)));
        break;
      default:
        break;
    }
  }
  for (const message of chat.pending.values()) {
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
