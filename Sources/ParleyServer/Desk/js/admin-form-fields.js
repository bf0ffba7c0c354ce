// The field list of the form editor: one fieldset per field (key, kind, required, a label per
// language, options, default calling code), with move up / move down / remove. Edits change the
// field objects in place; structural changes call `changed()` so the list is drawn again.
import { parseLanguages } from "./admin-ui.js";
import { h } from "./dom.js";

export const FIELD_KINDS = [
  ["single_line", "Single line"], ["email", "Email"], ["phone", "Phone"], ["multi_line", "Multiple lines"],
  ["select", "Select (drop-down)"], ["radio", "Radio buttons"], ["checkbox", "Checkbox"], ["rating", "Rating (1–5)"],
];
const CHOICE_KINDS = new Set(["select", "radio"]);

/** A new, empty field. */
export function newField() {
  return { key: "", kind: "single_line", required: false, label: {} };
}

/** The languages the fields already carry labels in. */
export function languagesOf(fields) {
  const tags = fields.flatMap((field) => [...Object.keys(field.label ?? {}), ...(field.options ?? []).flatMap((option) => Object.keys(option.label ?? {}))]);
  return parseLanguages(tags.join(","));
}

/** The body the server takes: only what each kind uses; an empty key is made from the English label. */
export function fieldsForServer(fields) {
  return fields.map((field) => {
    const clean = { key: field.key.trim() || slug(field.label.en ?? ""), kind: field.kind, required: Boolean(field.required), label: nonEmpty(field.label) };
    if (field.hint && Object.keys(field.hint).length) clean.hint = field.hint;
    if (CHOICE_KINDS.has(field.kind)) clean.options = field.options ?? [];
    if (field.kind === "phone" && field.default_calling_code) clean.default_calling_code = field.default_calling_code;
    return clean;
  });
}

function nonEmpty(text) {
  return Object.fromEntries(Object.entries(text ?? {}).map(([tag, value]) => [tag, value.trim()]).filter(([, value]) => value));
}

function slug(text) {
  return text.toLowerCase().normalize("NFKD").replace(/[^a-z0-9]+/g, "_").replace(/^_+|_+$/g, "").slice(0, 64);
}

/** The editable list. */
export function fieldList(fields, languages, changed) {
  if (fields.length === 0) return h("p", { class: "empty", id: "form-fields" }, "No fields yet. Add one below.");
  return h("ol", { class: "form-field-list", id: "form-fields" },
    fields.map((field, index) => h("li", { class: "form-field-editor", dataset: { index, key: field.key } },
      fieldEditor(fields, field, index, languages, changed))));
}

function fieldEditor(fields, field, index, languages, changed) {
  const id = (part) => `form-field-${index}-${part}`;
  const number = index + 1;
  const move = (offset) => {
    const [moved] = fields.splice(index, 1);
    fields.splice(index + offset, 0, moved);
    changed(`#${CSS.escape(`form-field-${index + offset}-${offset < 0 ? "up" : "down"}`)}`);
  };
  return h("fieldset", { class: "field-editor" },
    h("legend", {}, `Field ${number}`),
    h("div", { class: "row" },
      labelled(id("key"), "Key", h("input", { id: id("key"), value: field.key, maxlength: 64, autocomplete: "off",
        "aria-describedby": "form-key-hint", oninput: (event) => { field.key = event.target.value; } })),
      labelled(id("kind"), "Kind", h("select", { id: id("kind"), onchange: (event) => {
        field.kind = event.target.value;
        if (CHOICE_KINDS.has(field.kind)) field.options ??= [];
        changed(`#${CSS.escape(id("kind"))}`);
      } }, FIELD_KINDS.map(([value, text]) => h("option", { value, selected: value === field.kind }, text)))),
      h("label", { class: "field-inline", for: id("required") },
        h("input", { type: "checkbox", id: id("required"), checked: Boolean(field.required), onchange: (event) => { field.required = event.target.checked; } }),
        "Required")),
    h("div", { class: "row" }, languages.map((tag) => labelled(id(`label-${tag}`), `Label (${tag})`,
      h("input", { id: id(`label-${tag}`), value: field.label?.[tag] ?? "", maxlength: 200, autocomplete: "off",
        oninput: (event) => { field.label = { ...field.label, [tag]: event.target.value }; } })))),
    CHOICE_KINDS.has(field.kind) ? optionsEditor(field, id("options"), languages[0]) : null,
    field.kind === "phone"
      ? labelled(id("calling-code"), "Default calling code", h("input", { id: id("calling-code"), value: field.default_calling_code ?? "",
        inputmode: "numeric", maxlength: 4, placeholder: "49", autocomplete: "off",
        oninput: (event) => { field.default_calling_code = event.target.value.replace(/^\+/, "").trim(); } }))
      : null,
    h("div", { class: "row" },
      h("button", { class: "button small", type: "button", id: id("up"), disabled: index === 0, "aria-label": `Move field ${number} up`, onclick: () => move(-1) }, "Move up"),
      h("button", { class: "button small", type: "button", id: id("down"), disabled: index === fields.length - 1, "aria-label": `Move field ${number} down`, onclick: () => move(1) }, "Move down"),
      h("button", { class: "button small danger", type: "button", "aria-label": `Remove field ${number}`, onclick: () => {
        fields.splice(index, 1);
        changed("#form-add-field");
      } }, "Remove")));
}

/** Options as lines "value = Label" (labels in the first language; other languages are kept by value). */
function optionsEditor(field, id, tag) {
  const text = (field.options ?? []).map((option) => `${option.value} = ${option.label?.[tag] ?? ""}`).join("\n");
  return h("div", { class: "field" },
    h("label", { for: id }, "Options"),
    h("textarea", { id, rows: 3, value: text, "aria-describedby": `${id}-hint`, oninput: (event) => {
      const previous = new Map((field.options ?? []).map((option) => [option.value, option.label ?? {}]));
      field.options = event.target.value.split("\n").map((line) => line.trim()).filter(Boolean).map((line) => {
        const [value, ...rest] = line.split("=");
        const label = (rest.length ? rest.join("=") : value).trim();
        const key = value.trim();
        return { value: key, label: { ...previous.get(key), [tag]: label } };
      });
    } }),
    h("span", { class: "field-hint", id: `${id}-hint` }, "One per line: value = Label, e.g. billing = Billing."));
}

function labelled(id, text, control) {
  return h("div", { class: "field" }, h("label", { for: id }, text), control);
}
