// Building blocks of the admin pages.
import { ApiError } from "./api.js";
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
