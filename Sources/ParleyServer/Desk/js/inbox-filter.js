// The filter above the inbox list: any view narrowed to a tag and/or a priority. The filter is part
// of the address (#/inbox/mine?tag=vip&priority=high), so it survives a reload and Back undoes it.
import { on } from "./bus.js";
import { byId, h, replaceChildren } from "./dom.js";
import { go, inboxHash } from "./router.js";
import { state } from "./store.js";
import { PRIORITIES, priorityLabel } from "./triage-badges.js";
import { currentView } from "./views.js";

export function initInboxFilter() {
  on("tags", render);
  on("view", render);
  for (const id of ["filter-tag", "filter-priority"]) byId(id).addEventListener("change", apply);
  replaceChildren(byId("filter-priority"), h("option", { value: "" }, "Any"),
    PRIORITIES.map((value) => h("option", { value }, priorityLabel(value))));
}

function render() {
  const view = currentView();
  const select = byId("filter-tag");
  // A tag in the address that the app no longer lists is kept as a choice, so the select says the truth.
  const names = state.tags.map((tag) => tag.name);
  if (view.tag && !names.includes(view.tag)) names.push(view.tag);
  const drawn = JSON.stringify(names);
  if (select.dataset.drawn !== drawn) {
    select.dataset.drawn = drawn;
    replaceChildren(select, h("option", { value: "" }, "Any"), names.map((name) => h("option", { value: name }, name)));
  }
  select.value = view.tag ?? "";
  byId("filter-priority").value = view.priority ?? "";
  byId("inbox-filter").classList.toggle("is-active", Boolean(view.tag || view.priority));
}

function apply() {
  const view = currentView();
  go(inboxHash(view.key, { tag: byId("filter-tag").value || null, priority: byId("filter-priority").value || null }));
}
