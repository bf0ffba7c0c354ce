// Modal dialogs built on <dialog>.showModal(): focus moves in, stays in (the browser makes the rest
// inert), Esc closes, and focus goes back to the control that opened it.
import { ApiError } from "./api.js";
import { byId, h, replaceChildren } from "./dom.js";

/** Opens a dialog; returns a promise of its returnValue once closed. */
export function openDialog(dialog, { focus } = {}) {
  const opener = document.activeElement;
  dialog.returnValue = "";
  for (const button of dialog.querySelectorAll("[data-close]")) button.onclick = () => dialog.close("cancel");
  dialog.showModal();
  (focus ?? dialog.querySelector("[autofocus], input:not([type=hidden]):not(:disabled), select, textarea, button:not([data-close])"))?.focus();
  return new Promise((resolve) => {
    dialog.addEventListener("close", () => {
      if (opener instanceof HTMLElement && opener.isConnected) opener.focus();
      resolve(dialog.returnValue);
    }, { once: true });
  });
}

export function closeAllDialogs() {
  for (const dialog of document.querySelectorAll("dialog[open]")) dialog.close("cancel");
}

/** Asks before something that cannot be undone. Resolves true when confirmed. */
export async function confirmAction({ title, text, confirm, danger = false }) {
  const dialog = byId("confirm-dialog");
  byId("confirm-title").textContent = title;
  byId("confirm-text").textContent = text;
  const ok = byId("confirm-ok");
  ok.textContent = confirm;
  ok.value = "confirm";
  ok.className = danger ? "button danger" : "button primary";
  // Start on Cancel: Enter right after opening must not confirm something destructive by accident.
  const result = await openDialog(dialog, { focus: dialog.querySelector("[data-close]") });
  return result === "confirm";
}

/** Shows a secret (a generated password, a new app key) once, with a copy button. */
export async function showSecret({ title, text, value }) {
  byId("secret-title").textContent = title;
  byId("secret-text").textContent = text;
  byId("secret-value").textContent = value;
  const copy = byId("secret-copy");
  copy.textContent = "Copy";
  copy.onclick = async () => {
    try {
      await navigator.clipboard.writeText(value);
      copy.textContent = "Copied";
    } catch {
      // Clipboard refused (plain http): the value is selectable by hand.
      const range = document.createRange();
      range.selectNodeContents(byId("secret-value"));
      getSelection().removeAllRanges();
      getSelection().addRange(range);
      copy.textContent = "Selected: press Ctrl+C";
    }
  };
  await openDialog(byId("secret-dialog"), { focus: copy });
  byId("secret-value").textContent = "";
}

/**
 * A form in a dialog. `fields`: [{name, label, type: text|email|password|number|select|checkboxes|textarea|checkbox,
 * value, options: [{value, label}], required, hint, min, max, step, maxlength, pattern}].
 * `submit(values)` may throw an ApiError: its message is shown and the dialog stays open.
 * Resolves with what `submit` returned, or undefined when cancelled.
 */
export function openForm({ title, fields, submitLabel = "Save", submit }) {
  const dialog = byId("form-dialog");
  const form = byId("form-dialog-form");
  const error = byId("form-dialog-error");
  const button = byId("form-dialog-submit");
  byId("form-dialog-title").textContent = title;
  button.textContent = submitLabel;
  error.hidden = true;
  replaceChildren(byId("form-dialog-fields"), fields.map(renderField));

  let result;
  const onSubmit = async (event) => {
    event.preventDefault();
    const values = readFields(form, fields);
    button.disabled = true;
    error.hidden = true;
    try {
      result = await submit(values);
      dialog.close("done");
    } catch (failure) {
      error.textContent = failure instanceof ApiError || failure instanceof Error ? failure.message : String(failure);
      error.hidden = false;
    } finally {
      button.disabled = false;
    }
  };
  form.addEventListener("submit", onSubmit);
  return openDialog(dialog).then(() => {
    form.removeEventListener("submit", onSubmit);
    return result;
  });
}

function renderField(field) {
  const id = `field-${field.name}`;
  const hint = field.hint ? h("span", { class: "field-hint", id: `${id}-hint` }, field.hint) : null;
  const described = hint ? `${id}-hint` : undefined;
  switch (field.type) {
    case "select":
      return h("div", { class: "field" },
        h("label", { for: id }, field.label),
        h("select", { id, name: field.name, "aria-describedby": described },
          field.options.map((option) => h("option", { value: option.value, selected: option.value === field.value }, option.label))),
        hint);
    case "checkboxes":
      return h("fieldset", { class: "field" },
        h("legend", {}, field.label),
        field.options.length === 0 ? h("p", { class: "field-hint" }, "None yet.") : null,
        field.options.map((option, index) => h("label", { class: "field-inline", for: `${id}-${index}` },
          h("input", { type: "checkbox", id: `${id}-${index}`, name: field.name, value: option.value, checked: (field.value ?? []).includes(option.value) }),
          option.label)),
        hint);
    case "checkbox":
      return h("label", { class: "field-inline", for: id },
        h("input", { type: "checkbox", id, name: field.name, checked: Boolean(field.value) }), field.label);
    case "textarea":
      return h("div", { class: "field" },
        h("label", { for: id }, field.label),
        h("textarea", { id, name: field.name, rows: 5, required: field.required, maxlength: field.maxlength, value: field.value ?? "", "aria-describedby": described }),
        hint);
    default:
      return h("div", { class: "field" },
        h("label", { for: id }, field.label),
        h("input", {
          id, name: field.name, type: field.type ?? "text", value: field.value ?? "", required: field.required,
          min: field.min, max: field.max, step: field.step, maxlength: field.maxlength, pattern: field.pattern,
          autocomplete: field.autocomplete ?? "off", "aria-describedby": described,
        }),
        hint);
  }
}

function readFields(form, fields) {
  const values = {};
  for (const field of fields) {
    if (field.type === "checkboxes") {
      values[field.name] = [...form.querySelectorAll(`input[name="${field.name}"]:checked`)].map((input) => input.value);
    } else if (field.type === "checkbox") {
      values[field.name] = form.querySelector(`input[name="${field.name}"]`).checked;
    } else {
      const control = form.elements.namedItem(field.name);
      values[field.name] = field.type === "number" ? Number(control.value) : control.value;
    }
  }
  return values;
}
