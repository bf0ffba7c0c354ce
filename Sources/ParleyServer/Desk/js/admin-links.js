// Admin: where links in the chat go (GET/PUT /v1/admin/apps/{app}/link-policy): hosts opened inside
// the chat view, whether other web links open outside it or are blocked, and which websites may
// embed the chat page. One entry a line; the server checks each and its 400 (naming the field) is
// shown as it is and changes nothing.
import { api } from "./api.js";
import { saveSettings, toolbar } from "./admin-ui.js";
import { byId, h } from "./dom.js";
import { state } from "./store.js";

/** The non-empty, trimmed lines of a textarea. */
const lines = (id) => byId(id).value.split("\n").map((line) => line.trim()).filter(Boolean);

export async function renderLinks(reload) {
  const path = `/v1/admin/apps/${state.me.app_id}/link-policy`;
  const policy = await api("GET", path);
  const error = h("p", { class: "form-error", id: "links-error", role: "alert", hidden: true });
  const list = (id, label, values, hint) => h("div", { class: "field" },
    h("label", { for: id }, label),
    h("textarea", { id, rows: 4, spellcheck: "false", autocomplete: "off", "aria-describedby": `${id}-hint`, value: values.join("\n") }),
    h("span", { class: "field-hint", id: `${id}-hint` }, hint));
  const choice = (value, label) => h("label", { class: "field-inline", for: `links-other-${value}` },
    h("input", { type: "radio", name: "links-other", id: `links-other-${value}`, value, checked: policy.other_links === value }), label);

  const save = async () => {
    const body = {
      inside_hosts: lines("links-inside"),
      other_links: byId("links-other-block").checked ? "block" : "outside",
      embed_origins: lines("links-embed"),
    };
    await saveSettings(path, body, error, "Link policy saved.", reload);
  };

  return [
    toolbar("Where links in the chat go, for links agents write and pages they push. Only http and https links are ever followed."),
    h("div", { class: "card links" },
      list("links-inside", "Hosts opened inside the chat", policy.inside_hosts,
        "One a line: help.example.com, or *.example.com for every host under it."),
      h("fieldset", { class: "field" },
        h("legend", {}, "Other links"),
        choice("outside", "Open outside the chat (the app's browser, a new tab)"),
        choice("block", "Block them")),
      list("links-embed", "Websites that may embed the chat page", policy.embed_origins,
        "One origin a line, such as https://www.example.com. Empty: any website."),
      error,
      h("div", { class: "row" }, h("button", { class: "button primary", type: "button", id: "links-save", onclick: save }, "Save link policy"))),
  ];
}
