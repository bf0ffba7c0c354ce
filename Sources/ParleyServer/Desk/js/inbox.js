// The inbox: Queued (position and a live wait time), Mine, All (admins); unread badges; the
// highlight, toast, beep and title count when a conversation is newly assigned to me. A callback
// request is marked as one in every list, with what was asked for and where it stands.
import { on } from "./bus.js";
import { callbackStatus, callbackSummary } from "./callback.js";
import { beep, setAttentionCount, toast } from "./cues.js";
import { byId, h, replaceChildren } from "./dom.js";
import { duration, participantName, shortTime, stateLabel } from "./format.js";
import { agentName, loadVisitor, queueName, state, visitorName } from "./store.js";
import { scheduleRefresh } from "./sync.js";

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
  on("callback-confirmed", announceConfirmed);
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
  const callback = conversation.callback;
  const label = [name, conversation.subject, callback ? `callback request: ${callbackSummary(callback)}` : null,
    unread ? `${unread} unread` : null, state.fresh.has(conversation.id) ? "new" : null].filter(Boolean).join(", ");
  link.setAttribute("aria-label", `${label}. ${metaText(conversation)}`);
  replaceChildren(link,
    h("span", { class: "inbox-row" },
      h("span", { class: "inbox-name" }, name),
      unread ? h("span", { class: "badge", "aria-hidden": "true" }, String(unread)) : null),
    conversation.subject ? h("span", { class: "inbox-subject" }, conversation.subject) : null,
    callback ? h("span", { class: "inbox-callback", "aria-hidden": "true" },
      h("span", { class: "callback-mark" }, "Callback"), " · ", h("span", { class: "inbox-callback-what" }, callbackSummary(callback))) : null,
    preview ? h("span", { class: "inbox-subject inbox-preview" }, preview) : null,
    h("span", { class: "inbox-meta", "aria-hidden": "true" }, ...metaParts(conversation)));
}

function metaParts(conversation) {
  const callback = conversation.callback;
  // A scheduled request is held out of line: the time it waits for instead of a position.
  if (conversation.state === "queued" && callback?.status === "scheduled") {
    return [h("span", { class: "inbox-callback-status" }, capitalized(callbackStatus(callback))), " · ", queueName(conversation.queue_id)];
  }
  if (conversation.state === "queued") {
    return [
      conversation.queue_position ? `#${conversation.queue_position} in ${queueName(conversation.queue_id)}` : queueName(conversation.queue_id),
      " · waiting ",
      h("span", { class: "wait", dataset: { since: conversation.queued_at ?? conversation.updated_at } }, duration(conversation.queued_at ?? conversation.updated_at)),
    ];
  }
  const parts = [h("span", { class: `state state-${conversation.state}` }, stateLabel(conversation.state))];
  if (tab !== "mine" && conversation.agent_id) parts.push(" ", agentName(conversation.agent_id, state.timelines.get(conversation.id)));
  if (callback) parts.push(" · ", h("span", { class: "inbox-callback-status" }, capitalized(callbackStatus(callback))));
  parts.push(" · ", shortTime(conversation.updated_at));
  return parts;
}

function capitalized(text) {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

function metaText(conversation) {
  const callback = conversation.callback;
  if (conversation.state === "queued" && callback?.status === "scheduled") {
    return `Queued, ${callbackStatus(callback)}, ${queueName(conversation.queue_id)}`;
  }
  if (conversation.state === "queued") {
    const position = conversation.queue_position ? `number ${conversation.queue_position} in ${queueName(conversation.queue_id)}` : queueName(conversation.queue_id);
    return `Queued, ${position}, waiting ${duration(conversation.queued_at ?? conversation.updated_at)}`;
  }
  return `${stateLabel(conversation.state)}${callback ? `, ${callbackStatus(callback)}` : ""}, updated ${shortTime(conversation.updated_at)}`;
}

function updateWaits() {
  for (const span of document.querySelectorAll("#inbox-list .wait")) span.textContent = duration(span.dataset.since);
  refreshWhenDue();
}

/** "id|time" of a scheduled request whose time passed → list refreshes asked for it so far. */
const dueRefreshes = new Map();

/**
 * A scheduled request waits in line again once its time comes, but the conversation stays queued,
 * so no frame tells the desk: read the lists again (a few times, the server's timer may be late).
 */
function refreshWhenDue() {
  const now = Date.now();
  for (const id of state.lists.queued) {
    const callback = state.conversations.get(id)?.callback;
    if (callback?.status !== "scheduled" || !callback.scheduled_until || Date.parse(callback.scheduled_until) > now) continue;
    const key = `${id}|${callback.scheduled_until}`;
    const asked = dueRefreshes.get(key) ?? 0;
    if (asked >= 3) continue;
    dueRefreshes.set(key, asked + 1);
    scheduleRefresh();
  }
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
  const what = conversation?.callback
    ? `New callback request for you: ${visitorName(conversation)} — ${callbackSummary(conversation.callback)}; waiting for the visitor to confirm`
    : `New conversation assigned to you: ${visitorName(conversation)}${conversation?.subject ? ` — ${conversation.subject}` : ""}`;
  toast(what, { href: `#/c/${id}`, linkText: "Open" });
}

/** The visitor confirmed a callback request offered to me: it is time to call (or be called, or chat). */
async function announceConfirmed(id) {
  beep();
  const conversation = state.conversations.get(id);
  if (!conversation?.callback) return;
  await loadVisitor(conversation.visitor_id);
  const callback = conversation.callback;
  const now = callback.kind === "call_me" && callback.phone ? `call ${callback.phone} now`
    : callback.kind === "i_will_call" ? `they call ${callback.dial_number ?? "now"}${callback.access_code ? ` with code ${callback.access_code}` : ""}`
      : "chat with them now";
  toast(`${visitorName(conversation)} confirmed the callback: ${now}`, state.openID === id ? {} : { href: `#/c/${id}`, linkText: "Open" });
}
