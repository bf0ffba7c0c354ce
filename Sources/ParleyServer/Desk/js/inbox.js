// The inbox: Queued (position and a live wait time), Mine, All (admins); unread badges; the
// highlight, toast, beep and title count when a conversation is newly assigned to me.
import { on } from "./bus.js";
import { beep, setAttentionCount, toast } from "./cues.js";
import { byId, h, replaceChildren } from "./dom.js";
import { duration, participantName, shortTime, stateLabel } from "./format.js";
import { agentName, loadVisitor, queueName, state, visitorName } from "./store.js";

const TITLES = { queued: "Queued", mine: "Mine", all: "All conversations" };
const EMPTY = {
  queued: "Nobody is waiting.",
  mine: "No conversations assigned to you. Set yourself Online to receive new ones.",
  all: "No conversations yet.",
};

let tab = "mine";
/** conversation id → the row's <li> (kept, so a focused row keeps focus across updates). */
const rows = new Map();
let frame = 0;

export function initInbox() {
  for (const topic of ["lists", "conversation", "timeline", "visitor", "team"]) on(topic, renderSoon);
  on("assigned", announce);
  // The wait times tick on their own.
  setInterval(updateWaits, 5000);
}

export function showTab(name) {
  tab = name;
  render();
}

export function currentTab() {
  return tab;
}

function renderSoon() {
  if (frame) return;
  frame = requestAnimationFrame(() => {
    frame = 0;
    render();
  });
}

export function render() {
  if (!state.me) return;
  const list = byId("inbox-list");
  byId("inbox-title").textContent = TITLES[tab];
  const onAdminPage = document.body.dataset.view === "admin";
  for (const name of ["queued", "mine", "all"]) {
    const link = byId(`tab-${name}`);
    if (name === tab && !onAdminPage) link.setAttribute("aria-current", "page");
    else link.removeAttribute("aria-current");
    byId(`count-${name}`).textContent = state.listsLoaded ? String(state.lists[name].length) : "";
  }
  const ids = state.lists[tab].filter((id) => state.conversations.has(id));
  // Mine: the latest activity first (a new visitor message brings a conversation up); the other
  // tabs keep the server's order (the queue's order, or the last change).
  if (tab === "mine") ids.sort((a, b) => lastActivity(b).localeCompare(lastActivity(a)));
  const empty = byId("inbox-empty");
  empty.textContent = EMPTY[tab];
  empty.hidden = !state.listsLoaded || ids.length > 0;

  const keep = new Set(ids);
  for (const [id, row] of rows) {
    if (!keep.has(id)) {
      row.remove();
      rows.delete(id);
    }
  }
  let previous = null;
  for (const id of ids) {
    let row = rows.get(id);
    if (!row) {
      row = h("li", { class: "inbox-item", dataset: { conversationId: id } }, h("a", { class: "inbox-link", href: `#/c/${id}` }));
      rows.set(id, row);
    }
    fill(row, state.conversations.get(id));
    const expected = previous ? previous.nextSibling : list.firstChild;
    if (expected !== row) list.insertBefore(row, expected);
    previous = row;
  }
  updateTitle();
}

function lastActivity(id) {
  const conversation = state.conversations.get(id);
  // Reading is not activity: a read marker must not move a conversation up.
  const last = state.timelines.get(id)?.events.findLast((event) => event.type !== "read")?.created_at ?? "";
  return last > conversation.updated_at ? last : conversation.updated_at;
}

function fill(row, conversation) {
  const line = state.timelines.get(conversation.id);
  const unread = line && conversation.state !== "queued" ? line.unread : 0;
  const name = visitorName(conversation);
  row.classList.toggle("is-new", state.fresh.has(conversation.id));
  row.dataset.state = conversation.state;
  const link = row.firstElementChild;
  if (state.openID === conversation.id) link.setAttribute("aria-current", "page");
  else link.removeAttribute("aria-current");

  const last = line?.lastMessage;
  const said = last?.attachment ? `File: ${last.attachment.name}${last.text ? ` — ${last.text}` : ""}` : last?.text;
  const preview = last ? `${last.author.role === "visitor" ? "" : `${last.author.id === state.me.id ? "You" : participantName(last.author)}: `}${said}` : conversation.subject ? null : "No messages yet";
  const label = [name, conversation.subject, unread ? `${unread} unread` : null, state.fresh.has(conversation.id) ? "new" : null].filter(Boolean).join(", ");
  link.setAttribute("aria-label", `${label}. ${metaText(conversation)}`);
  replaceChildren(link,
    h("span", { class: "inbox-row" },
      h("span", { class: "inbox-name" }, name),
      unread ? h("span", { class: "badge", "aria-hidden": "true" }, String(unread)) : null),
    conversation.subject ? h("span", { class: "inbox-subject" }, conversation.subject) : null,
    preview ? h("span", { class: "inbox-subject inbox-preview" }, preview) : null,
    h("span", { class: "inbox-meta", "aria-hidden": "true" }, ...metaParts(conversation)));
}

function metaParts(conversation) {
  if (conversation.state === "queued") {
    return [
      conversation.queue_position ? `#${conversation.queue_position} in ${queueName(conversation.queue_id)}` : queueName(conversation.queue_id),
      " · waiting ",
      h("span", { class: "wait", dataset: { since: conversation.queued_at ?? conversation.updated_at } }, duration(conversation.queued_at ?? conversation.updated_at)),
    ];
  }
  const parts = [h("span", { class: `state state-${conversation.state}` }, stateLabel(conversation.state))];
  if (tab !== "mine" && conversation.agent_id) parts.push(" ", agentName(conversation.agent_id, state.timelines.get(conversation.id)));
  parts.push(" · ", shortTime(conversation.updated_at));
  return parts;
}

function metaText(conversation) {
  if (conversation.state === "queued") {
    const position = conversation.queue_position ? `number ${conversation.queue_position} in ${queueName(conversation.queue_id)}` : queueName(conversation.queue_id);
    return `Queued, ${position}, waiting ${duration(conversation.queued_at ?? conversation.updated_at)}`;
  }
  return `${stateLabel(conversation.state)}, updated ${shortTime(conversation.updated_at)}`;
}

function updateWaits() {
  for (const span of document.querySelectorAll("#inbox-list .wait")) span.textContent = duration(span.dataset.since);
}

/** Conversations that need me: newly assigned and not opened, or mine with unread visitor messages. */
function updateTitle() {
  const needing = new Set(state.fresh);
  for (const id of state.lists.mine) {
    if ((state.timelines.get(id)?.unread ?? 0) > 0) needing.add(id);
  }
  setAttentionCount(needing.size);
}

async function announce(id) {
  beep();
  renderSoon();
  const conversation = state.conversations.get(id);
  if (conversation) await loadVisitor(conversation.visitor_id);
  toast(`New conversation assigned to you: ${visitorName(conversation)}${conversation?.subject ? ` — ${conversation.subject}` : ""}`, { href: `#/c/${id}`, linkText: "Open" });
}
