// Building blocks of the admin pages.
import { api, ApiError } from "./api.js";
import { toast } from "./cues.js";
import { h } from "./dom.js";

/** Runs an admin action; failures become a toast, success reloads the page (`reload`). */
export async function adminAction(work, success, reload) {
  try {
    const result = await work();
    if (success) toast(success);
    await reload?.();
    return result;
  } catch (error) {
    if (!(error instanceof ApiError && error.status === 401)) toast(error.message, { kind: "error" });
    return undefined;
  }
}

/**
 * Saves a settings document with PUT: the server's refusal (a 400 naming the field) is shown in
 * `error` as it is and nothing changes; success toasts `success` and reloads the page.
 */
export async function saveSettings(path, body, error, success, reload) {
  error.hidden = true;
  const saved = await api("PUT", path, body).catch((failure) => {
    error.textContent = `Not saved: ${failure instanceof ApiError ? failure.message : failure}`;
    error.hidden = false;
    return null;
  });
  if (saved) await adminAction(async () => saved, success, reload);
}

/** A table with a caption and labelled cells (labels show as prefixes on narrow screens). */
export function table(caption, columns, rows) {
  return h("div", { class: "table-wrap" },
    h("table", { class: "table" },
      h("caption", {}, caption),
      h("thead", {}, h("tr", {}, columns.map((column) => h("th", { scope: "col" }, column)))),
      h("tbody", {}, rows)));
}

export function cell(label, ...content) {
  return h("td", { dataset: { label } }, ...content);
}

export function toolbar(text, ...buttons) {
  return h("div", { class: "toolbar" }, h("p", {}, text), h("div", {}, ...buttons));
}

/** "en, de-AT" → ["en", "de-AT"], always with "en" first. */
export function parseLanguages(text) {
  const tags = text.split(/[\s,]+/).map((tag) => tag.trim()).filter(Boolean);
  return ["en", ...new Set(tags.filter((tag) => tag.toLowerCase() !== "en"))];
}

/** A "languages" text field (English always first); `choose(tags)` runs on change or Enter. */
export function languagesField(id, label, languages, choose) {
  const apply = (input) => {
    const tags = parseLanguages(input.value);
    input.value = tags.join(", ");
    choose(tags);
  };
  return h("div", { class: "field" },
    h("label", { for: id }, label),
    h("input", { id, value: languages.join(", "), autocomplete: "off", "aria-describedby": `${id}-hint`,
      onchange: (event) => apply(event.target), onkeydown: (event) => event.key === "Enter" && apply(event.target) }),
    h("span", { class: "field-hint", id: `${id}-hint` }, "English always; add tags such as de, fr, pt-BR, separated by commas."));
}
