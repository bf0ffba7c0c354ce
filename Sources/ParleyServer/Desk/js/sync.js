// Keeps the store in step with the server: subscribes to every conversation assigned to me plus
// the one on screen, resumes each after the last seq it holds (so a reconnect has no gap and no
// duplicate), turns frames into store changes, and refreshes the inbox when conversations move.
// A visitor's message that is news (not a replay of history) is announced as "visitor-message".
// Every frame's type is announced as "server-frame" (live counts follow them: counts.js). The app's
// frames that name no conversation keep the store's shared parts live: `tags` (the list itself),
// `team` (an agent's availability, profile or connection changed: GET /v1/team is read again,
// bursts coalesced by store.js) and `answers` (a visitor's rating or post-chat form).
import { api } from "./api.js";
import { emit } from "./bus.js";
import { Realtime } from "./realtime.js";
import {
  addNote, applyAnswers, applyEvents, applyTriage, catchUp, isMine, loadNotes, placeInLists, refreshCanned, refreshLists, refreshTags,
  refreshTeam, resetTimeline, setTags, state, timeline, upsertConversation,
} from "./store.js";
import { noteTyping } from "./typing.js";

let realtime = null;
/** Conversation ids subscribed on the current socket. */
const subscribed = new Set();
/** Conversations this desk took itself (accept): no "new assignment" cue for those. */
const selfAssigned = new Set();
let refreshTimer = null;
let hasConnected = false;

export function startSync() {
  hasConnected = false;
  realtime = new Realtime({
    onReady: ready,
    onFrame: frame,
    onDown: () => setConnection("down"),
    onRejected: checkSession,
    onUnauthorized: () => emit("unauthorized"),
  });
  setConnection("connecting");
  realtime.start();
}

export function stopSync() {
  realtime?.stop();
  realtime = null;
  subscribed.clear();
  selfAssigned.clear();
  clearTimeout(refreshTimer);
  setConnection("idle");
}

/** Sends a frame over the socket when it is up; false when it is not. */
function sendFrame(frame) {
  return Boolean(realtime?.send(frame));
}

export function markSelfAssigned(id) {
  selfAssigned.add(id);
}

function setConnection(value) {
  document.body.dataset.connection = value;
  emit("connection", value);
}

/** A connection closed before `ready`: no session (204) means it is over; anything else retries. */
function checkSession() {
  api("GET", "/v1/desk/session")
    .then((session) => {
      if (!session) emit("unauthorized");
    })
    .catch(() => {});
}

async function ready() {
  setConnection("ready");
  subscribed.clear();
  ensureSubscriptions();
  // Frames sent while we were away are lost: catch up on lists, notes, the team, tags and canned
  // responses (answers.js reads the open conversation's answers again).
  if (hasConnected) {
    scheduleRefresh(0);
    api("GET", "/v1/agent/me").then((agent) => {
      state.me = { ...state.me, ...agent };
      emit("me");
    }, () => {});
    if (state.openID) api("GET", `/v1/conversations/${state.openID}`).then(upsertConversation, () => {});
    refreshTeam().catch(() => {});
    refreshCanned().catch(() => {});
    refreshTags().catch(() => {});
    for (const line of state.timelines.values()) if (line.notesLoaded) loadNotes(line.id).catch(() => {});
  }
  hasConnected = true;
}

/** The conversations this desk wants live: mine (snoozed ones too), and the one open on screen. */
function wanted() {
  const ids = new Set([...state.lists.mine, ...state.lists.snoozed]);
  if (state.openID) ids.add(state.openID);
  return ids;
}

/** Subscribes to what is wanted and not yet subscribed, unsubscribes from the rest. */
export function ensureSubscriptions() {
  if (!realtime?.isReady) return;
  const want = wanted();
  for (const id of want) {
    if (subscribed.has(id)) continue;
    const line = timeline(id);
    const frame = { type: "subscribe", conversation_id: id, after_seq: line.lastSeq };
    if (line.epoch) frame.epoch = line.epoch;
    if (realtime.send(frame)) subscribed.add(id);
  }
  for (const id of [...subscribed]) {
    if (want.has(id)) continue;
    realtime.send({ type: "unsubscribe", conversation_id: id });
    subscribed.delete(id);
  }
}

function frame(message) {
  switch (message.type) {
    case "event": {
      const event = message.event;
      // News only once the desk holds the history: a first replay (a reload, a newly assigned
      // conversation) is the past; what comes after, or after a reconnect, is new.
      const isNews = timeline(event.conversation_id).loaded;
      if (applyEvents(event.conversation_id, [event]) && isNews && event.type === "message" && event.author.role === "visitor") {
        emit("visitor-message", event);
      }
      // The visitor writing ends a snooze (the server's lists say so; no other frame tells it).
      if (isNews && event.type === "message" && event.author.role === "visitor" && state.lists.snoozed.includes(event.conversation_id)) scheduleRefresh();
      break;
    }
    case "subscribed": {
      const line = timeline(message.conversation_id);
      line.epoch = message.epoch;
      line.loaded = true;
      if (message.last_seq > line.lastSeq) catchUp(message.conversation_id);
      emit("timeline", message.conversation_id);
      break;
    }
    case "reset":
      resetTimeline(message.conversation_id, message.epoch);
      break;
    case "typing":
      noteTyping(message);
      break;
    case "conversation":
      conversationChanged(message.conversation);
      break;
    case "note":
      addNote(message.note);
      break;
    case "triage":
      applyTriage(message.triage);
      // A snooze set or ended anywhere moves the conversation between lists.
      scheduleRefresh();
      break;
    case "answers":
      applyAnswers(message.answers);
      break;
    case "tags":
      setTags(message.tags);
      break;
    case "team":
      refreshTeam().catch(() => {});
      break;
    case "error":
      if (message.code === "not_found" && message.conversation_id) subscribed.delete(message.conversation_id);
      break;
    default:
      break;
  }
  emit("server-frame", message.type);
}

function conversationChanged(conversation) {
  const previous = upsertConversation(conversation);
  const nowMine = isMine(conversation);
  if (nowMine && !isMine(previous) && state.listsLoaded) newlyAssigned(conversation.id);
  // A callback request offered to me was confirmed: the agent acts now (calls, or is called). A
  // confirmation alone sends no conversation frame (store.js learns it from the callback event);
  // this covers a summary that carries it first.
  if (nowMine && conversation.callback?.status === "connecting" && previous?.callback?.status === "offered") {
    emit("callback-confirmed", conversation.id);
  }
  if (!nowMine) state.fresh.delete(conversation.id);
  placeInLists(conversation);
  ensureSubscriptions();
  scheduleRefresh();
}

function newlyAssigned(id) {
  if (selfAssigned.delete(id)) return;
  if (state.openID === id) return;
  if (state.fresh.has(id)) return;
  state.fresh.add(id);
  emit("assigned", id);
}

/** Refetches the inbox soon; several changes in a burst cost one refetch. */
export function scheduleRefresh(delay = 150) {
  clearTimeout(refreshTimer);
  refreshTimer = setTimeout(async () => {
    try {
      const added = await refreshLists();
      for (const id of added) newlyAssigned(id);
      ensureSubscriptions();
    } catch {
      // The next change or reconnect refreshes again.
    }
  }, delay);
}

// MARK: - Reading and typing

const readRequested = new Map();

/** Marks the open conversation read up to its last event, when a visitor message is unread. */
export function markRead(id) {
  const line = state.timelines.get(id);
  const conversation = state.conversations.get(id);
  if (!line || !isMine(conversation) || document.visibilityState !== "visible") return;
  const target = line.lastVisitorMessageSeq;
  if (target <= line.myReadSeq || (readRequested.get(id) ?? 0) >= line.lastSeq) return;
  const seq = line.lastSeq;
  readRequested.set(id, seq);
  if (!sendFrame({ type: "read", conversation_id: id, seq, ref: `read-${id}-${seq}` })) {
    api("POST", `/v1/conversations/${id}/read`, { seq }).catch(() => readRequested.delete(id));
  }
}

/** Tells the conversation's other side that this agent is (or stopped) typing. */
export function sendTyping(id, isTyping) {
  if (!sendFrame({ type: "typing", conversation_id: id, is_typing: isTyping })) {
    api("POST", `/v1/conversations/${id}/typing`, { is_typing: isTyping }).catch(() => {});
  }
}
