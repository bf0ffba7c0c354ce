// The open conversation's triage, in its header: tags (chips from the app's list, added from a menu
// and removed by their ×), the priority, and on an assigned conversation the Snooze menu
// (snooze-menu.js). Every change is a PUT of only what changed; the answer (and the `triage` frame
// every agent gets) updates the store. The server's refusal is shown under the bar as it is.
import { api, ApiError } from "./api.js";
import { on } from "./bus.js";
import { byId, h, replaceChildren } from "./dom.js";
import { applyTriage, state } from "./store.js";
import { closeOnEscape, initSnoozeMenu, renderSnooze } from "./snooze-menu.js";
import { PRIORITIES, priorityLabel, tagChip } from "./triage-badges.js";

export function initTriagePanel() {
  const render = () => state.openID && renderTriage(state.conversations.get(state.openID));
  on("triage", (id) => id === state.openID && render());
  on("tags", render);
  on("lists", render);
  const select = byId("triage-priority");
  replaceChildren(select, PRIORITIES.map((value) => h("option", { value }, priorityLabel(value))));
  select.addEventListener("change", () => state.openID && saveTriage(state.openID, { priority: select.value }));
  const menu = byId("tag-menu");
  menu.addEventListener("click", (event) => {
    const item = event.target.closest("[data-add-tag]");
    if (!item || !state.openID) return;
    menu.open = false;
    menu.querySelector("summary").focus();
    addTag(state.openID, item.dataset.addTag);
  });
  closeOnEscape(menu);
  initSnoozeMenu(saveTriage);
}

/** The conversation's triage as the store has it (defaults until the server said otherwise). */
export function triageOf(id) {
  return state.triage.get(id) ?? { conversation_id: id, tags: [], priority: "normal" };
}

/** Redraws the bar for the open conversation (null: still loading). */
export function renderTriage(conversation) {
  const bar = byId("triage-bar");
  bar.hidden = !conversation;
  if (!conversation) return;
  const triage = triageOf(conversation.id);
  const addable = state.tags.filter((tag) => !triage.tags.includes(tag.name));
  // The header is drawn again with every message: rebuild the chips and the menu only when they
  // change, so a focused chip or menu item keeps the keyboard.
  const drawn = JSON.stringify([conversation.id, triage.tags, state.tags]);
  if (bar.dataset.drawn !== drawn) {
    bar.dataset.drawn = drawn;
    const chips = triage.tags.map((name) => h("li", {}, tagChip(name, { remove: (tag) => removeTag(conversation.id, tag) })));
    replaceChildren(byId("triage-tags"), chips.length ? chips : h("li", { class: "tag-none" }, "No tags"));
    byId("tag-menu").hidden = addable.length === 0;
    replaceChildren(byId("tag-menu-list"), addable.map((tag) => h("button", { class: "menu-item", type: "button", dataset: { addTag: tag.name } },
      tagChip(tag.name))));
  }
  const select = byId("triage-priority");
  if (select.value !== triage.priority) select.value = triage.priority;
  renderSnooze(conversation, triage);
}

function addTag(id, name) {
  const tags = triageOf(id).tags;
  if (!tags.includes(name)) saveTriage(id, { tags: [...tags, name] });
}

function removeTag(id, name) {
  // The chip goes away with its button: keep the keyboard in the bar.
  byId("tag-menu").hidden ? byId("triage-priority").focus() : byId("tag-menu").querySelector("summary").focus();
  saveTriage(id, { tags: triageOf(id).tags.filter((tag) => tag !== name) });
}

/** PUTs a change; returns the Triage, or null when refused (the reason is shown under the bar). */
export async function saveTriage(id, change) {
  const error = byId("triage-error");
  error.hidden = true;
  try {
    const triage = await api("PUT", `/v1/conversations/${id}/triage`, change);
    applyTriage(triage);
    return triage;
  } catch (failure) {
    if (failure instanceof ApiError && failure.status === 401) return null;
    if (state.openID === id) {
      error.textContent = `Not changed: ${failure.message}`;
      error.hidden = false;
      renderTriage(state.conversations.get(id));
    }
    return null;
  }
}
