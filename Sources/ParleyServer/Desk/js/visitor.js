// The visitor panel: who the visitor is, their custom attributes, their form answers and rating
// (answers.js), their earlier conversations.
import { api } from "./api.js";
import { hideAnswers, showAnswers } from "./answers.js";
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

function rows(pairs) {
  return pairs.filter(([, value]) => value !== undefined && value !== null && value !== "")
    .flatMap(([label, value]) => [h("dt", {}, label), h("dd", {}, String(value))]);
}

function renderDetails(visitor, conversation) {
  const details = rows([
    ["Name", visitor?.name ?? (visitor ? "—" : null)],
    ["Email", visitor?.email],
    ["Device", visitor?.device_id],
    ["Visitor id", conversation.visitor_id],
    ["First seen", visitor ? longTime(visitor.created_at) : null],
  ]);
  replaceChildren(byId("visitor-details"), details);
  // The visitor's own attributes, then those the app set on this conversation.
  const attributes = Object.entries(visitor?.attributes ?? {}).sort(([a], [b]) => a.localeCompare(b));
  const conversationAttributes = Object.entries(conversation.attributes ?? {})
    .filter(([key]) => !(key in (visitor?.attributes ?? {})))
    .sort(([a], [b]) => a.localeCompare(b));
  const all = [...attributes, ...conversationAttributes];
  replaceChildren(byId("visitor-attributes"), all.length ? rows(all) : h("dd", { class: "empty" }, "None"));
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
    h("span", { class: "inbox-meta" }, `${stateLabel(conversation.state)} · ${shortTime(conversation.updated_at)}`))));
}
