// The visitor panel: who the visitor is, their custom attributes, their form answers and rating
// (answers.js), their earlier conversations.
import { api } from "./api.js";
import { hideAnswers, showAnswers } from "./answers.js";
import { kindLabel } from "./callback.js";
import { byId, h, replaceChildren } from "./dom.js";
import { longTime, shortTime, stateLabel } from "./format.js";
import { state } from "./store.js";

let shownVisitor = null;
let shownConversation = null;

export function hideVisitor() {
  byId("visitor-panel").hidden = true;
  shownVisitor = null;
  shownConversation = null;
  hideAnswers();
}

export async function showVisitor(conversation) {
  const panel = byId("visitor-panel");
  panel.hidden = false;
  if (shownVisitor === conversation.visitor_id && shownConversation === conversation.id) return;
  shownVisitor = conversation.visitor_id;
  shownConversation = conversation.id;
  renderDetails(null, conversation);
  replaceChildren(byId("visitor-history"), h("li", { class: "empty" }, "Loading…"));
  showAnswers(conversation);
  const [visitor, history] = await Promise.all([
    api("GET", `/v1/visitors/${conversation.visitor_id}`).catch(() => null),
    api("GET", `/v1/visitors/${conversation.visitor_id}/conversations`).catch(() => null),
  ]);
  if (shownConversation !== conversation.id) return;
  if (visitor) state.visitors.set(visitor.id, visitor);
  renderDetails(visitor, conversation);
  renderHistory(history?.conversations ?? null, conversation.id);
}

// A value the app proved (verified identity) carries a mark; the others the app merely claimed.
function rows(pairs, verified = new Set(), fieldOf = (label) => label) {
  return pairs.filter(([, value]) => value !== undefined && value !== null && value !== "")
    .flatMap(([label, value]) => [h("dt", {}, label), h("dd", {}, String(value),
      verified.has(fieldOf(label)) ? h("span", { class: "verified", title: "From a verified source" }, " ✓ verified") : null)]);
}

function renderDetails(visitor, conversation) {
  // The user id is the proof itself: always verified when present.
  const verified = new Set([...(visitor?.verified_fields ?? []), ...(visitor?.user_id ? ["user_id"] : [])]);
  const details = rows([
    ["Name", visitor?.name ?? (visitor ? "—" : null)],
    ["Email", visitor?.email],
    ["User id", visitor?.user_id],
    ["Device", visitor?.user_id ? null : visitor?.device_id],
    ["Visitor id", conversation.visitor_id],
    ["First seen", visitor ? longTime(visitor.created_at) : null],
  ], verified, (label) => ({ Name: "name", Email: "email", "User id": "user_id" })[label]);
  replaceChildren(byId("visitor-details"), details);
  // The visitor's own attributes, then those the app set on this conversation.
  const attributes = Object.entries(visitor?.attributes ?? {}).sort(([a], [b]) => a.localeCompare(b));
  const conversationAttributes = Object.entries(conversation.attributes ?? {})
    .filter(([key]) => !(key in (visitor?.attributes ?? {})))
    .sort(([a], [b]) => a.localeCompare(b));
  const all = [...attributes, ...conversationAttributes];
  // A list holds term and value groups only, so "None" is a value with a term for screen readers.
  replaceChildren(byId("visitor-attributes"), all.length ? rows(all, verified, (key) => `attributes.${key}`)
    : h("div", { class: "empty" }, h("dt", { class: "visually-hidden" }, "Attributes"), h("dd", {}, "None")));
}

function renderHistory(conversations, currentID) {
  const list = byId("visitor-history");
  if (conversations === null) {
    replaceChildren(list, h("li", { class: "empty" }, "Not available."));
    return;
  }
  const earlier = conversations.filter((conversation) => conversation.id !== currentID);
  if (earlier.length === 0) {
    replaceChildren(list, h("li", { class: "empty" }, "None"));
    return;
  }
  replaceChildren(list, earlier.map((conversation) => h("li", {},
    h("a", { href: `#/c/${conversation.id}` }, conversation.subject ?? `Conversation of ${shortTime(conversation.created_at)}`),
    h("span", { class: "inbox-meta" }, `${conversation.callback ? `Callback request (${kindLabel(conversation.callback.kind)}) · ` : ""}${stateLabel(conversation.state)} · ${shortTime(conversation.updated_at)}`))));
}
