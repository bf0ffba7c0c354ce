// Admin: what the app masks in what visitors and agents write (GET/PUT /v1/admin/apps/{app}/masking):
// the built-in detectors (card numbers, US social security numbers, IBANs), each on or off, and the
// admin's own rules (a regular expression and its literal replacement), applied in order after
// them. The server checks every pattern; its 400 names the rule at fault, is shown as it is, and
// changes nothing.
import { api } from "./api.js";
import { saveSettings, toolbar } from "./admin-ui.js";
import { byId, h, replaceChildren } from "./dom.js";
import { state } from "./store.js";

/** The custom rules being edited; kept across redraws of the list, read again on each render. */
const editor = { rules: [] };

export async function renderMasking(reload) {
  const path = `/v1/admin/apps/${state.me.app_id}/masking`;
  const settings = await api("GET", path);
  editor.rules = structuredClone(settings.custom ?? []);
  const error = h("p", { class: "form-error", id: "masking-error", role: "alert", hidden: true });
  const check = (id, label, checked, hint) => h("div", { class: "field" },
    h("label", { class: "field-inline", for: id },
      h("input", { type: "checkbox", id, checked: Boolean(checked), "aria-describedby": `${id}-hint` }), label),
    h("span", { class: "field-hint", id: `${id}-hint` }, hint));

  const list = h("ol", { class: "masking-rules", id: "masking-rules", "aria-label": "Custom rules" });
  const drawRules = (focus) => {
    replaceChildren(list, editor.rules.length
      ? editor.rules.map((rule, index) => ruleEditor(rule, index, drawRules))
      : h("li", { class: "empty", id: "masking-no-rules" }, "No custom rule."));
    if (focus) (list.querySelector(focus) ?? byId("masking-add-rule")).focus();
  };
  drawRules();

  const add = () => {
    editor.rules.push({ name: "", pattern: "", replacement: "" });
    drawRules(`#masking-rule-${editor.rules.length - 1}-name`);
  };

  const save = async () => {
    const body = {
      card_numbers: byId("masking-cards").checked,
      us_social_security_numbers: byId("masking-ssns").checked,
      ibans: byId("masking-ibans").checked,
      custom: editor.rules.map(({ name, pattern, replacement }) => ({ name: name.trim(), pattern, replacement })),
    };
    await saveSettings(path, body, error, "Masking rules saved.", reload);
  };

  return [
    toolbar("What is masked in messages, notes, subjects, attributes, form answers and rating comments, before anything is "
      + "stored: ParleyKit masks on the device before the text is sent, and the server masks again. Texts already stored are not changed."),
    h("div", { class: "card masking" },
      h("h3", {}, "Built-in"),
      check("masking-cards", "Payment card numbers", settings.card_numbers,
        "13 to 19 digits that pass the Luhn check, unbroken or in groups of four: •••• •••• •••• 1111."),
      check("masking-ssns", "US social security numbers", settings.us_social_security_numbers,
        "AAA-GG-SSSS with dashes or spaces: •••-••-6789."),
      check("masking-ibans", "IBANs", settings.ibans,
        "When the country's length and the check digits hold: DE•• •••• •••• •••• ••30 00."),
      h("h3", {}, "Your own rules"),
      h("p", { class: "field-hint" }, "A regular expression (ICU syntax; \\d matches the digits of every script) and what each match "
        + "becomes, taken literally. Applied in order, after the built-in ones."),
      list,
      h("div", { class: "row" }, h("button", { class: "button", type: "button", id: "masking-add-rule", onclick: add }, "Add a rule")),
      error,
      h("div", { class: "row" }, h("button", { class: "button primary", type: "button", id: "masking-save", onclick: save }, "Save masking rules"))),
  ];
}

/** One custom rule's fields and its remove button. */
function ruleEditor(rule, index, redraw) {
  const id = `masking-rule-${index}`;
  const input = (key, label, attributes = {}) => h("div", { class: "field" },
    h("label", { for: `${id}-${key}` }, label),
    h("input", { id: `${id}-${key}`, value: rule[key], autocomplete: "off", spellcheck: "false",
      oninput: (event) => { rule[key] = event.target.value; }, ...attributes }));
  const remove = () => {
    editor.rules.splice(index, 1);
    redraw(editor.rules.length ? `#masking-rule-${Math.min(index, editor.rules.length - 1)}-name` : "#masking-add-rule");
  };
  return h("li", { class: "field-editor masking-rule" },
    input("name", "Name", { maxlength: 64 }),
    input("pattern", "Pattern", { class: "mono", placeholder: "ORD-\\d{6}" }),
    input("replacement", "Replacement", { maxlength: 64, placeholder: "ORD-••••••" }),
    h("div", { class: "row" },
      h("button", { class: "button", type: "button", id: `${id}-remove`, "aria-label": `Remove rule ${index + 1}`, onclick: remove }, "Remove")));
}
