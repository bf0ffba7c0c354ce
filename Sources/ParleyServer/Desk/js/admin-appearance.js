// Admin: how the chat looks before it starts (GET/PUT /v1/admin/apps/{app}/appearance): title,
// welcome message per language, theme colour, avatar, the visitor's display name. Empty fields are
// left out (the SDK's defaults apply); the server's 400 is shown as it is and changes nothing.
import { api } from "./api.js";
import { languagesField, parseLanguages, saveSettings, toolbar } from "./admin-ui.js";
import { chatPreview } from "./chat-preview.js";
import { h, replaceChildren } from "./dom.js";
import { state } from "./store.js";

export async function renderAppearance(reload) {
  const path = `/v1/admin/apps/${state.me.app_id}/appearance`;
  const appearance = await api("GET", path);
  const welcome = { ...(appearance.welcome_message ?? {}) };
  let languages = parseLanguages(Object.keys(welcome).join(","));
  const messages = h("div", { class: "appearance-welcome" });
  const drawMessages = () => replaceChildren(messages, languages.map((tag) => h("div", { class: "field" },
    h("label", { for: `appearance-welcome-${tag}` }, `Welcome message (${tag})`),
    h("textarea", { id: `appearance-welcome-${tag}`, rows: 2, maxlength: 1000, value: welcome[tag] ?? "",
      oninput: (event) => { welcome[tag] = event.target.value; } }))));
  drawMessages();

  const error = h("p", { class: "form-error", id: "appearance-error", role: "alert", hidden: true });
  const text = (id, label, value, { hint, ...attributes } = {}) => h("div", { class: "field" },
    h("label", { for: id }, label),
    h("input", { id, value: value ?? "", autocomplete: "off", "aria-describedby": hint ? `${id}-hint` : undefined, ...attributes }),
    hint ? h("span", { class: "field-hint", id: `${id}-hint` }, hint) : null);
  const save = async () => {
    const read = (id) => document.getElementById(id).value.trim();
    const body = {};
    for (const [key, id] of [["title", "appearance-title"], ["theme_color", "appearance-color"], ["avatar_url", "appearance-avatar"],
      ["visitor_display_name", "appearance-visitor-name"]]) {
      if (read(id)) body[key] = read(id);
    }
    const messagesByLanguage = Object.fromEntries(languages.map((tag) => [tag, (welcome[tag] ?? "").trim()]).filter(([, value]) => value));
    if (Object.keys(messagesByLanguage).length) body.welcome_message = messagesByLanguage;
    await saveSettings(path, body, error, "Appearance saved.", reload);
  };

  // The live preview: the chat page with the values as typed (unsaved), redrawn on every edit.
  const preview = chatPreview();
  const current = () => {
    const value = (id) => document.getElementById(id)?.value.trim() ?? "";
    const draft = { title: value("appearance-title"), theme_color: value("appearance-color"), avatar_url: value("appearance-avatar"),
      visitor_display_name: value("appearance-visitor-name"),
      welcome_message: Object.fromEntries(languages.map((tag) => [tag, (welcome[tag] ?? "").trim()]).filter(([, text]) => text)) };
    return { appearance: draft, forms: {}, screen: "chatting" };
  };
  const card = h("div", { class: "card appearance", oninput: () => preview.update(current()) },
      text("appearance-title", "Title", appearance.title, { maxlength: 80 }),
      languagesField("appearance-languages", "Welcome message languages", languages, (tags) => { languages = tags; drawMessages(); }),
      messages,
      text("appearance-color", "Theme colour", appearance.theme_color, { placeholder: "#1A73E8", maxlength: 7, hint: "#RRGGBB" }),
      text("appearance-avatar", "Avatar URL", appearance.avatar_url, { type: "url", placeholder: "https://…", hint: "An https address." }),
      text("appearance-visitor-name", "Visitor display name", appearance.visitor_display_name, { maxlength: 80 }),
      error,
      h("div", { class: "row" }, h("button", { class: "button primary", type: "button", id: "appearance-save", onclick: save }, "Save appearance")));
  queueMicrotask(() => preview.update(current()));
  return [
    toolbar("What visitors see before a chat starts. An app's own configuration on the device can override any of it."),
    h("div", { class: "admin-with-preview" }, card, preview.element),
  ];
}
