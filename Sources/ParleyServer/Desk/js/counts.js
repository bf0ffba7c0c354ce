// The numbers beside the inbox views (GET /v1/desk/counts): read again, debounced, whenever a
// realtime frame may have changed one (a conversation moved, a message came, triage changed) and
// after a reconnect. A snooze ends by itself when its time comes, and nothing tells the desk: the
// answer's `next_wake` is when the next one does, and one timer then reads counts and lists again.
import { api } from "./api.js";
import { on } from "./bus.js";
import { state } from "./store.js";
import { scheduleRefresh } from "./sync.js";

/** Frames after which a count may differ. */
const CHANGES = new Set(["conversation", "event", "triage"]);
const DEBOUNCE_MS = 250;
/**
 * A wake the server has not acted on yet (clocks a little apart) is asked again after 1 s, doubling
 * while it stays in the past (up to 30 s), so a server that keeps naming a past time is not polled hard.
 */
const WAKE_RETRY_MS = 1000;
const WAKE_RETRY_CAP_MS = 30000;
/** setTimeout fires at once past 2^31 − 1 ms (about 24.8 days): a later wake waits in steps. */
const LONGEST_TIMER_MS = 2 ** 31 - 1;

let counts = null;
let timer = null;
let wakeTimer = null;
let wakeAt = null;
let pastWakes = 0;

export function initCounts() {
  on("server-frame", (type) => CHANGES.has(type) && refreshCountsSoon());
  on("connection", (value) => value === "ready" && refreshCountsSoon(0));
  // Links for teammates and queues are rebuilt with the team: give them their numbers again.
  on("nav", renderCounts);
}

export function stopCounts() {
  clearTimeout(timer);
  clearTimeout(wakeTimer);
  wakeTimer = null;
  counts = null;
  wakeAt = null;
  pastWakes = 0;
}

/** Reads the counts soon; a burst of frames costs one request. */
export function refreshCountsSoon(delay = DEBOUNCE_MS) {
  clearTimeout(timer);
  timer = setTimeout(load, delay);
}

async function load() {
  if (!state.me) return;
  try {
    counts = await api("GET", "/v1/desk/counts");
  } catch {
    return; // the next frame or reconnect reads them again
  }
  renderCounts();
  scheduleWake(counts.next_wake ?? null);
}

/** One timer, at the earliest snooze's end: then the lists and counts are read again. */
function scheduleWake(iso) {
  if (iso === wakeAt && wakeTimer) return;
  clearTimeout(wakeTimer);
  wakeTimer = null;
  wakeAt = iso;
  if (!iso) return;
  const due = Date.parse(iso) - Date.now();
  pastWakes = due < 0 ? pastWakes + 1 : 0;
  const delay = due < 0 ? Math.min(WAKE_RETRY_CAP_MS, WAKE_RETRY_MS * 2 ** (pastWakes - 1)) : Math.min(LONGEST_TIMER_MS, due + 100);
  wakeTimer = setTimeout(() => {
    wakeTimer = null;
    wakeAt = null;
    // The lists' refresh also refreshes the view on screen (views.js follows "lists-refreshed").
    scheduleRefresh(0);
    refreshCountsSoon(0);
  }, delay);
}

/** Writes the numbers into every element marked `data-count` ("queued", "agent/agt_…", "queue/que_…"). */
export function renderCounts() {
  for (const element of document.querySelectorAll("[data-count]")) {
    const value = countOf(element.dataset.count);
    element.textContent = value === null ? "" : String(value);
  }
}

function countOf(key) {
  if (!counts) return null;
  const [kind, id] = key.split("/");
  if (kind === "agent") return counts.by_agent?.[id] ?? 0;
  if (kind === "queue") return counts.by_queue?.[id] ?? 0;
  return typeof counts[kind] === "number" ? counts[kind] : null;
}
