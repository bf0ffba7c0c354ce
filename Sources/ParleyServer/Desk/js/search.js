// The Search page (#/search: the top bar's Search, or "/"): messages or conversations of the app,
// filtered by state, queue, agent, dates and rating, messages newest first or by relevance
// (GET /v1/desk/search). Results come 20 at a time ("Load more" follows next_cursor). The server's
// 400 names the parameter at fault ("from: …"): its words are shown under that control, which is
// marked invalid. What was searched stays on the page, so Back from a result finds it again.
import { api, ApiError } from "./api.js";
import { on } from "./bus.js";
import { byId, h, replaceChildren } from "./dom.js";
import { go } from "./router.js";
import { hitItem } from "./search-results.js";
import { state, upsertConversation } from "./store.js";

const PAGE = 20;
/** A parameter the server may name → the control it is shown by (the others: under the form). */
const CONTROLS = {
  q: "search-q", scope: "search-scope", sort: "search-sort", state: "search-state", queue_id: "search-queue",
  agent_id: "search-agent", from: "search-from", to: "search-to", rating: "search-rating",
};

/** The search on screen: its parameters (without cursor), the next page's cursor, results so far. */
let shown = null;
/** Only the newest request's answer is shown. */
let generation = 0;

export function initSearch() {
  const form = byId("search-form");
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    run();
  });
  // Another scope or filter searches again at once, once something was searched for.
  form.addEventListener("change", (event) => {
    if (event.target.id === "search-q") return;
    updateSort();
    if (shown) run();
  });
  byId("search-more").addEventListener("click", more);
  // "/" where no search field is on screen: come here, to the field.
  on("shortcut:search", () => {
    if (location.hash === "#/search") byId("search-q").focus();
    else go("#/search");
  });
  on("team", fillChoices);
  updateSort();
}

export function showSearch() {
  byId("search").hidden = false;
  fillChoices();
  byId("search-q").focus();
}

export function hideSearch() {
  byId("search").hidden = true;
}

/** Queues and agents of the team as filter choices (the chosen one kept). */
function fillChoices() {
  const fill = (id, any, items) => {
    const select = byId(id);
    // The team is read again on every `team` frame: redraw only when the choices changed.
    const drawn = JSON.stringify(items.map((item) => [item.id, item.name]));
    if (select.dataset.drawn === drawn) return;
    select.dataset.drawn = drawn;
    const chosen = select.value;
    replaceChildren(select, h("option", { value: "" }, any), items.map((item) => h("option", { value: item.id }, item.name)));
    select.value = items.some((item) => item.id === chosen) ? chosen : "";
  };
  fill("search-queue", "Any queue", state.team.queues);
  fill("search-agent", "Any agent", state.team.agents.map((agent) => ({ id: agent.id, name: agent.id === state.me?.id ? `${agent.name} (you)` : agent.name })));
}

/** Sorting applies to messages only. */
function updateSort() {
  byId("search-sort").disabled = scope() !== "messages";
}

function scope() {
  return byId("search-form").querySelector('input[name="search-scope"]:checked')?.value ?? "messages";
}

/** The form as the server's query. Dates are whole days of the agent's own time; "to" includes its day. */
function parameters() {
  const query = new URLSearchParams({ q: byId("search-q").value, scope: scope() });
  if (scope() === "messages") query.set("sort", byId("search-sort").value);
  const states = [...byId("search-state").querySelectorAll("input:checked")].map((box) => box.value);
  if (states.length) query.set("state", states.join(","));
  for (const [name, id] of [["queue_id", "search-queue"], ["agent_id", "search-agent"], ["rating", "search-rating"]]) {
    if (byId(id).value) query.set(name, byId(id).value);
  }
  const from = byId("search-from").value;
  if (from) query.set("from", startOfDay(from, 0));
  const to = byId("search-to").value;
  if (to) query.set("to", startOfDay(to, 1));
  return query;
}

/** "2026-11-25" → the instant that day (plus `days`) starts here, in ISO 8601. */
function startOfDay(value, days) {
  const date = new Date(`${value}T00:00:00`);
  if (Number.isNaN(date.getTime())) return value; // the server names what it cannot read
  date.setDate(date.getDate() + days);
  return date.toISOString();
}

async function run() {
  const query = parameters();
  const mine = ++generation;
  clearErrors();
  setBusy(true);
  let answer;
  try {
    answer = await api("GET", `/v1/desk/search?${query}&limit=${PAGE}`);
  } catch (error) {
    if (mine === generation) failed(error);
    return;
  }
  if (mine !== generation) return;
  setBusy(false);
  shown = { query, next: answer.next_cursor ?? null, count: answer.hits.length, q: query.get("q").trim() };
  for (const hit of answer.hits) upsertConversation(hit.conversation);
  replaceChildren(byId("search-results"), answer.hits.map(hitItem));
  renderStatus();
}

/** The next page; the keyboard goes to its first result. */
async function more() {
  if (!shown?.next) return;
  const mine = ++generation;
  const button = byId("search-more");
  const hadFocus = document.activeElement === button;
  button.disabled = true;
  let answer;
  try {
    answer = await api("GET", `/v1/desk/search?${shown.query}&limit=${PAGE}&cursor=${encodeURIComponent(shown.next)}`);
  } catch (error) {
    button.disabled = false;
    if (mine === generation) failed(error);
    return;
  }
  button.disabled = false;
  if (mine !== generation) return;
  for (const hit of answer.hits) upsertConversation(hit.conversation);
  const items = answer.hits.map(hitItem);
  byId("search-results").append(...items);
  shown = { ...shown, next: answer.next_cursor ?? null, count: shown.count + items.length };
  renderStatus();
  if (items.length && hadFocus) items[0].querySelector("a").focus();
}

function renderStatus() {
  const { count, next, q } = shown;
  byId("search-status").textContent = count === 0 ? `Nothing found for “${q}”.`
    : `${count} result${count === 1 ? "" : "s"}${next ? ", more to load" : ""}.`;
  byId("search-more").hidden = !next;
}

function setBusy(busy) {
  byId("search-results").setAttribute("aria-busy", String(busy));
}

/** The server's words by the control they name, or under the form. */
function failed(error) {
  setBusy(false);
  if (error instanceof ApiError && error.status === 401) return;
  const name = error instanceof ApiError && error.status === 400 ? error.message.split(":")[0].trim() : null;
  const control = CONTROLS[name] ?? null;
  const message = byId(control ? `${control}-error` : "search-error");
  message.textContent = error.message;
  message.hidden = false;
  // A field is marked invalid; a group (scope, states) only gets the words.
  if (control && byId(control).matches("input, select")) byId(control).setAttribute("aria-invalid", "true");
}

function clearErrors() {
  for (const element of byId("search-form").querySelectorAll(".field-error")) {
    element.hidden = true;
    element.textContent = "";
  }
  byId("search-error").hidden = true;
  for (const element of byId("search-form").querySelectorAll("[aria-invalid]")) element.removeAttribute("aria-invalid");
}
