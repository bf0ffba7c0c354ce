// Triage as agents see it in lists, results and the conversation header: a priority badge (none for
// "normal", the usual case, so the others stand out) and tag chips with the admins' colours. A tag's
// colour is a dot beside its name, never the text's background, so any colour keeps the name legible;
// it is set through the CSSOM (a custom property), which the page's CSP allows, unlike a style attribute.
import { h } from "./dom.js";
import { state } from "./store.js";

export const PRIORITIES = ["low", "normal", "high", "urgent"];
const PRIORITY_LABELS = { low: "Low", normal: "Normal", high: "High", urgent: "Urgent" };

export function priorityLabel(priority) {
  return PRIORITY_LABELS[priority] ?? priority;
}

/** "high priority" for a conversation's accessible label, or null when normal. */
export function priorityWords(triage) {
  return triage && triage.priority !== "normal" ? `${priorityLabel(triage.priority).toLowerCase()} priority` : null;
}

/** The priority badge, or null for normal. */
export function priorityBadge(triage) {
  if (!triage || triage.priority === "normal") return null;
  return h("span", { class: `priority priority-${triage.priority}`, dataset: { priority: triage.priority } }, priorityLabel(triage.priority));
}

/** The colour of a tag of the app's list; a tag no longer listed is grey. */
export function tagColor(name) {
  return state.tags.find((tag) => tag.name === name)?.color ?? "#8a94a3";
}

/** One chip: a dot of the tag's colour and its name; `remove` adds a button that takes it off. */
export function tagChip(name, { remove } = {}) {
  const dot = h("span", { class: "tag-dot", "aria-hidden": "true" });
  dot.style.setProperty("--tag-color", tagColor(name));
  return h("span", { class: "tag-chip", dataset: { tag: name } }, dot, h("span", { class: "tag-name" }, name),
    remove ? h("button", { class: "tag-remove", type: "button", "aria-label": `Remove tag ${name}`, onclick: () => remove(name) }, "×") : null);
}

/** A conversation's tags as a list of chips (`hidden`: left out for screen readers, its label says them). */
export function tagChips(names, { hidden = false, remove } = {}) {
  return h("span", { class: "tag-list", "aria-hidden": hidden ? "true" : null }, names.map((name) => tagChip(name, { remove })));
}
