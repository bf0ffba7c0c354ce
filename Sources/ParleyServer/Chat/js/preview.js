// The desk's live preview (`/chat/?preview=1`, framed by the desk's Appearance and Forms pages):
// no session and no server writes. The desk posts the values being edited,
//   {"parley":1,"call":"preview","appearance":{…},"forms":{"pre_chat":…,…},"screen":"preChat"|"unavailable"|"postChat"|"chatting"}
// and the page shows that screen as a visitor would see it; forms validate with the same rules.
import { byId, h, replaceChildren } from "./dom.js";
import { renderForm } from "./forms.js";
import { pick, t } from "./i18n.js";
import { validateForm } from "./form-rules.js";
import { messageItem } from "./transcript.js";

let state = { appearance: {}, forms: {}, screen: "preChat", errors: null };

export function startPreview() {
  document.body.dataset.preview = "true";
  window.addEventListener("message", (event) => {
    if (event.source !== window.parent || event.origin !== location.origin) return;
    const data = event.data;
    if (!data || data.parley !== 1 || data.call !== "preview") return;
    state = { appearance: data.appearance ?? {}, forms: data.forms ?? {}, screen: data.screen ?? "preChat", errors: null };
    render();
  });
  render();
  window.parent.postMessage({ parley: 1, event: "preview_ready" }, location.origin);
}

function applyAppearance(appearance) {
  byId("title").textContent = appearance.title || t("title");
  const avatar = byId("avatar");
  avatar.hidden = !appearance.avatar_url;
  if (appearance.avatar_url) avatar.src = appearance.avatar_url;
  if (/^#[0-9a-fA-F]{6}$/.test(appearance.theme_color ?? "")) document.documentElement.style.setProperty("--accent", appearance.theme_color);
  else document.documentElement.style.removeProperty("--accent");
}

function formFor(screen) {
  const key = { preChat: "pre_chat", unavailable: "unavailable", postChat: "post_chat" }[screen];
  const form = key ? state.forms[key] : null;
  return form && Array.isArray(form.fields) && form.fields.length ? form : null;
}

function render() {
  const { appearance, screen } = state;
  applyAppearance(appearance);
  document.body.dataset.screen = screen;
  byId("loading").hidden = true;
  const panel = byId("panel");
  const conversation = byId("conversation");
  const form = formFor(screen);
  const welcome = pick(appearance.welcome_message);
  conversation.hidden = screen !== "chatting";
  byId("composer").hidden = screen !== "chatting";
  byId("composer-text").disabled = true;
  if (screen === "chatting") {
    const you = appearance.visitor_display_name || t("you");
    replaceChildren(byId("transcript"),
      welcome ? h("li", { class: "message theirs welcome", dataset: { key: "welcome" } }, h("div", { class: "bubble" }, h("p", { class: "text", text: welcome }))) : null,
      messageItem({ key: "m:1", role: "visitor", name: you, text: "Hello!", state: "read" }, noActions));
    panel.hidden = true;
    return;
  }
  const title = screen === "postChat" ? t("postchat_title") : screen === "unavailable" ? t("unavailable_no_agent") : appearance.title || t("title");
  const lead = screen === "preChat" ? welcome : screen === "unavailable" ? t("unavailable_leave") : null;
  replaceChildren(panel, form
    ? renderForm({ form, errors: state.errors, isSubmitting: false, failure: null }, {
      title, lead, submitLabel: screen === "preChat" ? t("start") : t("submit"),
      onSubmit: (answers) => {
        const result = validateForm(form, answers);
        state.errors = result.errors ?? null;
        render();
      },
    })
    : h("div", { class: "notice-panel" }, h("h2", { text: title }), lead ? h("p", { text: lead }) : null));
  panel.hidden = false;
}

const noActions = { onLink: () => {}, onRetry: () => {}, onDownload: () => {}, loadImage: async () => null };
