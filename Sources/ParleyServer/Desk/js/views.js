// The inbox's views, as the sidebar lists them: Unassigned (queued), Mine, Unread, Waiting longest,
// Snoozed, each teammate's, each queue's, History (ended) and All; any of them filtered by a tag
// and a priority. Mine and Unassigned without a filter are the store's live lists (moved at once by
// frames); every other view is read from the server (GET /v1/conversations?view=…), again after
// each refresh of the live lists, and History and All page by next_cursor ("Load more": nothing is
// capped). This module also builds the sidebar's links for teammates and queues and marks the one
// on screen.
import { api } from "./api.js";
import { emit, on } from "./bus.js";
import { byId, h, replaceChildren } from "./dom.js";
import { learnTriage, queueName, state, upsertConversation } from "./store.js";

const VIEWS = {
  queued: { title: "Unassigned", empty: "Nobody is waiting." },
  mine: { title: "Mine", empty: "No conversations assigned to you. Set yourself Online to receive new ones." },
  unread: { title: "Unread", empty: "Nothing unread in your conversations." },
  waiting: { title: "Waiting longest", empty: "No visitor is waiting for an answer." },
  snoozed: { title: "Snoozed", empty: "Nothing snoozed. Snooze one of your conversations from its header to set it aside until later." },
  ended: { title: "History", empty: "No ended conversations yet.", paged: true },
  all: { title: "All conversations", empty: "No conversations yet.", paged: true },
  // A teammate's and a queue's titles are their names (viewTitle); a teammate's empty text names them.
  agent: {},
  queue: { empty: "No open conversations in this queue." },
};
/** History and All come a page at a time; the other views ask for up to MOST at once (and page past that). */
const PAGE = 50;
const MOST = 500;

let current = { key: "mine", tag: null, priority: null };
/** The server's answer for `signature` (the view and its filter): ids in order, and the next page's cursor. */
let fetched = { signature: null, ids: [], next: null, loaded: false, error: null };
/** Requests for the view run one after another (a refresh and "Load more" must not interleave). */
let chain = Promise.resolve();
let refreshTimer = null;
/** Something changed while the fetched view was not on screen: read it again when it comes back. */
let stale = false;

export function initViews() {
  on("lists-refreshed", refreshViewSoon);
  on("team", renderTeamLinks);
}

/** Shows a view (a route's `tab`, tag and priority); reads it from the server when it is not live. */
export function showView({ tab, tag = null, priority = null }) {
  current = { key: tab, tag, priority };
  markCurrent();
  if (!isLive() && fetched.signature !== signature()) {
    fetched = { signature: signature(), ids: [], next: null, loaded: false, error: null };
    enqueue(() => read({ more: false }));
  } else if (!isLive() && stale) {
    enqueue(() => read({ more: false }));
  }
  stale = false;
  emit("view");
}

export function currentView() {
  return current;
}

/** Mine and Unassigned without a filter come from the store, live; the rest from the server. */
export function isLive() {
  return (current.key === "mine" || current.key === "queued") && !current.tag && !current.priority;
}

/** The ids the server listed for the view on screen (not for live views), and whether more pages are left. */
export function fetchedView() {
  return fetched.signature === signature() ? fetched : { ids: [], next: null, loaded: false, error: null };
}

export function viewTitle(key = current.key) {
  const [kind, id] = key.split("/");
  if (kind === "agent") return state.team.agents.find((agent) => agent.id === id)?.name ?? "A teammate";
  if (kind === "queue") return `${queueName(id)} queue`;
  return VIEWS[kind]?.title ?? key;
}

export function viewEmptyText(key = current.key) {
  const [kind] = key.split("/");
  if (current.tag || current.priority) return "No conversations here match the filter.";
  if (kind === "agent") return `${viewTitle(key)} has no open conversations.`;
  return VIEWS[kind]?.empty ?? "";
}

/** Reads the next page of the view on screen. */
export function loadMore() {
  if (isLive() || !fetchedView().next) return Promise.resolve();
  return enqueue(() => read({ more: true }));
}

function refreshViewSoon() {
  if (isLive() || fetched.signature !== signature()) {
    stale = true;
    return;
  }
  clearTimeout(refreshTimer);
  refreshTimer = setTimeout(() => enqueue(() => read({ more: false })), 100);
}

function enqueue(work) {
  chain = chain.then(work, work);
  return chain;
}

function signature() {
  return JSON.stringify(current);
}

/** First page (as many rows as are shown already, so a refresh keeps what "Load more" added) or the next. */
async function read({ more }) {
  const wanted = signature();
  if (fetched.signature !== wanted) return;
  const [kind, id] = current.key.split("/");
  const query = new URLSearchParams({ view: kind });
  if (kind === "agent") query.set("agent_id", id);
  if (kind === "queue") query.set("queue_id", id);
  if (current.tag) query.set("tag", current.tag);
  if (current.priority) query.set("priority", current.priority);
  const paged = VIEWS[kind]?.paged;
  if (more) {
    query.set("cursor", fetched.next);
    query.set("limit", String(paged ? PAGE : MOST));
  } else {
    query.set("limit", String(paged ? Math.min(MOST, Math.max(PAGE, fetched.ids.length)) : MOST));
  }
  let answer;
  try {
    answer = await api("GET", `/v1/conversations?${query}`);
  } catch (error) {
    if (fetched.signature === wanted) {
      fetched = { ...fetched, loaded: true, error: error.message };
      emit("view");
    }
    return;
  }
  if (fetched.signature !== wanted) return;
  for (const conversation of answer.conversations) upsertConversation(conversation);
  learnTriage(answer.triage);
  const ids = answer.conversations.map((conversation) => conversation.id);
  const merged = more ? [...fetched.ids, ...ids.filter((item) => !fetched.ids.includes(item))] : ids;
  fetched = { signature: wanted, ids: merged, next: answer.next_cursor ?? null, loaded: true, error: null };
  emit("view");
}

/** What the team links were last drawn from (ids and names): a `team` frame often changes neither. */
let teamLinksDrawn = null;

/** The sidebar's links to each teammate's and each queue's open conversations. */
function renderTeamLinks() {
  const teammates = state.team.agents.filter((agent) => agent.id !== state.me?.id && !agent.disabled);
  const drawn = JSON.stringify([teammates.map((agent) => [agent.id, agent.name]), state.team.queues.map((queue) => [queue.id, queue.name])]);
  if (drawn === teamLinksDrawn) return;
  teamLinksDrawn = drawn;
  const link = (key, name) => h("li", {},
    h("a", { class: "nav-link", id: `tab-${key.replace("/", "-")}`, href: `#/inbox/${key}`, dataset: { viewKey: key } },
      h("span", { class: "nav-link-name" }, name), " ", h("span", { class: "count", dataset: { count: key } })));
  // The team is read again on every `team` frame and reconnect: a focused link keeps the keyboard.
  const focused = document.activeElement?.closest?.("#nav-team, #nav-queues") ? document.activeElement.id : null;
  replaceChildren(byId("nav-team"), teammates.map((agent) => link(`agent/${agent.id}`, agent.name)));
  replaceChildren(byId("nav-queues"), state.team.queues.map((queue) => link(`queue/${queue.id}`, queue.name)));
  if (focused) document.getElementById(focused)?.focus();
  byId("nav-team-heading").hidden = teammates.length === 0;
  byId("nav-queues-heading").hidden = state.team.queues.length === 0;
  markCurrent();
  emit("nav");
  // A teammate's or queue's name is the title of its view.
  if (current.key.includes("/")) emit("view");
}

/** aria-current on the sidebar link of the view on screen (none on the admin, search and My replies pages). */
export function markCurrent() {
  const elsewhere = ["admin", "search", "replies"].includes(document.body.dataset.view);
  for (const link of document.querySelectorAll(".sidebar a[data-view-key]")) {
    if (!elsewhere && link.dataset.viewKey === current.key) link.setAttribute("aria-current", "page");
    else link.removeAttribute("aria-current");
  }
}
