// The inbox list of the view on screen (views.js says which conversations): Unassigned with the
// position and a live wait time, unread badges, priority and tags; "Load more" for paged views; the
// highlight, toast, beep and title count when a conversation is newly assigned to me. A callback
// request is marked as one in every list, with what was asked for and where it stands.
import { on } from "./bus.js";
import { callbackStatus, callbackSummary } from "./callback.js";
import { beep, setAttentionCount, toast } from "./cues.js";
import { byId, h, replaceChildren } from "./dom.js";
import { duration, participantName, shortTime, stateLabel } from "./format.js";
import { agentName, loadVisitor, queueName, state, visitorName } from "./store.js";
import { scheduleRefresh } from "./sync.js";
import { priorityBadge, priorityWords, tagChips } from "./triage-badges.js";
import { currentView, fetchedView, isLive, loadMore, viewEmptyText, viewTitle } from "./views.js";

/** conversation id → the row's <li> (kept, so a focused row keeps focus across updates). */
const rows = new Map();
let frame = 0;

export function initInbox() {
  for (const topic of ["lists", "view", "conversation", "timeline", "triage", "tags", "visitor", "team"]) on(topic, renderSoon);
  on("assigned", announce);
  on("callback-confirmed", announceConfirmed);
  byId("inbox-more").addEventListener("click", more);
  // The wait times tick on their own.
  setInterval(updateWaits, 5000);
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
  const view = currentView();
  byId("inbox-title").textContent = viewTitle();
  const fetched = isLive() ? null : fetchedView();
  const loaded = fetched ? fetched.loaded : state.listsLoaded;
  const ids = (fetched ? fetched.ids : state.lists[view.key]).filter((id) => state.conversations.has(id));
  // Mine: the latest activity first (a new visitor message brings a conversation up); the other
  // views keep the server's order (the queue's order, the longest wait, the last change).
  if (isLive() && view.key === "mine") ids.sort((a, b) => lastActivity(b).localeCompare(lastActivity(a)));
  const empty = byId("inbox-empty");
  empty.textContent = fetched?.error ? `Could not load: ${fetched.error}` : loaded ? viewEmptyText() : "Loading…";
  empty.hidden = loaded && ids.length > 0 && !fetched?.error;
  byId("inbox-more").hidden = !fetched?.next;

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

/** "Load more": the next page, then the keyboard on its first new row (the button may go away). */
async function more() {
  const button = byId("inbox-more");
  const before = new Set(rows.keys());
  // Disabling the button takes the focus away from it: remember whether it had it.
  const hadFocus = document.activeElement === button;
  button.disabled = true;
  try {
    await loadMore();
    render();
  } finally {
    button.disabled = false;
  }
  const first = [...byId("inbox-list").children].find((row) => !before.has(row.dataset.conversationId));
  if (first && hadFocus) first.querySelector("a").focus();
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
  // Only a conversation whose history the desk holds can say it has no messages yet.
  const preview = last ? `${last.author.role === "visitor" ? "" : `${last.author.id === state.me.id ? "You" : participantName(last.author)}: `}${said}`
    : conversation.subject || !line?.loaded ? null : "No messages yet";
  const callback = conversation.callback;
  const triage = state.triage.get(conversation.id);
  const label = [name, conversation.subject, callback ? `callback request: ${callbackSummary(callback)}` : null,
    unread ? `${unread} unread` : null, priorityWords(triage), triage?.tags.length ? `tags ${triage.tags.join(", ")}` : null,
    state.fresh.has(conversation.id) ? "new" : null].filter(Boolean).join(", ");
  link.setAttribute("aria-label", `${label}. ${metaText(conversation)}`);
  const content = h("a", {},
    h("span", { class: "inbox-row" },
      h("span", { class: "inbox-name" }, name),
      priorityBadge(triage),
      unread ? h("span", { class: "badge", "aria-hidden": "true" }, String(unread)) : null),
    conversation.subject ? h("span", { class: "inbox-subject" }, conversation.subject) : null,
    callback ? h("span", { class: "inbox-callback", "aria-hidden": "true" },
      h("span", { class: "callback-mark" }, "Callback"), " · ", h("span", { class: "inbox-callback-what" }, callbackSummary(callback))) : null,
    preview ? h("span", { class: "inbox-subject inbox-preview" }, preview) : null,
    triage?.tags.length ? tagChips(triage.tags, { hidden: true }) : null,
    h("span", { class: "inbox-meta", "aria-hidden": "true" }, ...metaParts(conversation)));
  // Rows are drawn again on every change anywhere: touch only those whose content differs, so a
  // row's parts stay the same nodes (for assistive technology, and for anyone holding them).
  if (!sameChildren(link, content)) replaceChildren(link, [...content.childNodes]);
}

function sameChildren(a, b) {
  return a.childNodes.length === b.childNodes.length && [...a.childNodes].every((node, index) => node.isEqualNode(b.childNodes[index]));
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
  if (currentView().key !== "mine" && conversation.agent_id) parts.push(" ", agentName(conversation.agent_id, state.timelines.get(conversation.id)));
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
