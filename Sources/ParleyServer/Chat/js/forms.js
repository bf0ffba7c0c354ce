// Renders a form of the server's (every field kind) and reads its answers back. Validation is
// form-rules.js's (through the screen machine); this file shows its errors next to the fields.
import { h } from "./dom.js";
import { pick, t } from "./i18n.js";

let formCounter = 0;

/**
 * A <form> for `screen` ({form, errors, isSubmitting, failure}). `onSubmit(answers)` gets the raw
 * answers; `extra` are more buttons (Skip).
 */
export function renderForm(screen, { title, lead, submitLabel, onSubmit, extra = [], prefill = {} }) {
  const id = `f${(formCounter += 1)}`;
  const errors = new Map((screen.errors ?? []).map((error) => [error.key, error.code]));
  const fields = screen.form.fields.map((field, index) => renderField(field, `${id}-${index}`, errors.get(field.key), screen.isSubmitting));
  // Customer data from the host fills what it names: the email field, and a field keyed "name".
  if (!screen.errors && prefill) {
    for (const field of fields) {
      const value = field.kind === "email" ? prefill.email : field.key === "name" ? prefill.name : undefined;
      if (value && field.write) field.write(value);
    }
  }
  const form = h("form", { class: "chat-form", novalidate: true, dataset: { kind: screen.form.kind }, "aria-labelledby": `${id}-title` },
    h("h2", { id: `${id}-title`, class: "form-title", text: title }),
    lead ? h("p", { class: "form-lead", text: lead }) : null,
    fields.map((field) => field.element),
    screen.failure ? h("p", { class: "form-failure", role: "alert", text: t("form_failure") }) : null,
    h("div", { class: "form-actions" },
      h("button", { class: "button primary", type: "submit", disabled: screen.isSubmitting, text: submitLabel }),
      extra));
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    const answers = {};
    for (const field of fields) {
      const value = field.read();
      if (value !== undefined) answers[field.key] = value;
    }
    onSubmit(answers);
  });
  // Focus the first refused field so keyboard and screen-reader users land on what to fix.
  queueMicrotask(() => {
    const invalid = form.querySelector("[aria-invalid=true]");
    if (invalid) invalid.focus();
  });
  return form;
}

/** One field of a server form: `{key, element, read(), write?(value)}` (the callback form asks pre-chat questions with it). */
export function renderField(field, id, errorCode, disabled) {
  const label = pick(field.label) || field.key;
  const hint = pick(field.hint);
  const hintID = hint ? `${id}-hint` : null;
  const errorID = errorCode ? `${id}-error` : null;
  const describedBy = [hintID, errorID].filter(Boolean).join(" ") || null;
  const common = { id, name: field.key, disabled, "aria-invalid": errorCode ? "true" : null, "aria-describedby": describedBy, "aria-required": field.required ? "true" : null };
  const labelText = [label, field.required ? h("span", { class: "required", text: ` ${t("required_mark")}` }) : null];
  const hintElement = hint ? h("p", { class: "field-hint", id: hintID, text: hint }) : null;
  const errorElement = errorCode ? h("p", { class: "field-error", id: errorID, text: t(`errors.${errorCode}`) }) : null;
  const wrap = (control) => h("div", { class: "field", dataset: { key: field.key, kind: field.kind } }, control, hintElement, errorElement);

  switch (field.kind) {
    case "multi_line": {
      const input = h("textarea", { ...common, rows: 3 });
      return { key: field.key, element: wrap([h("label", { for: id }, labelText), input]), read: () => input.value };
    }
    case "select": {
      const select = h("select", common, h("option", { value: "", text: t("optional") }),
        (field.options ?? []).map((option) => h("option", { value: option.value, text: pick(option.label) || option.value })));
      return { key: field.key, element: wrap([h("label", { for: id }, labelText), select]), read: () => (select.value === "" ? undefined : select.value) };
    }
    case "radio":
    case "rating": {
      const options = field.kind === "rating"
        ? [1, 2, 3, 4, 5].map((n) => ({ value: String(n), label: String(n), aria: t("rating_label", { n }) }))
        : (field.options ?? []).map((option) => ({ value: option.value, label: pick(option.label) || option.value }));
      const inputs = options.map((option, index) => h("input", {
        type: "radio", id: `${id}-${index}`, name: `${id}-group`, value: option.value, disabled,
        "aria-label": option.aria ?? null,
      }));
      const group = h("fieldset", { class: field.kind === "rating" ? "choices rating" : "choices", "aria-describedby": describedBy, "aria-invalid": errorCode ? "true" : null },
        h("legend", {}, labelText),
        options.map((option, index) => h("span", { class: "choice" }, inputs[index], h("label", { for: `${id}-${index}`, text: option.label }))));
      if (errorCode) inputs[0].setAttribute("aria-invalid", "true");
      return {
        key: field.key,
        element: h("div", { class: "field", dataset: { key: field.key, kind: field.kind } }, group, hintElement, errorElement),
        read: () => {
          const checked = inputs.find((input) => input.checked);
          if (!checked) return undefined;
          return field.kind === "rating" ? Number.parseInt(checked.value, 10) : checked.value;
        },
      };
    }
    case "checkbox": {
      const input = h("input", { ...common, type: "checkbox" });
      return {
        key: field.key,
        element: h("div", { class: "field checkbox", dataset: { key: field.key, kind: field.kind } }, input, h("label", { for: id }, labelText), hintElement, errorElement),
        read: () => input.checked,
      };
    }
    default: {
      const type = field.kind === "email" ? "email" : field.kind === "phone" ? "tel" : "text";
      const autocomplete = field.kind === "email" ? "email" : field.kind === "phone" ? "tel" : null;
      const input = h("input", { ...common, type, autocomplete, inputmode: field.kind === "phone" ? "tel" : null });
      return { key: field.key, kind: field.kind, element: wrap([h("label", { for: id }, labelText), input]), read: () => input.value, write: (value) => { input.value = value; } };
    }
  }
}
