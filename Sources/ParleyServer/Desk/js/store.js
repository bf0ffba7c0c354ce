// What the desk knows: the agent, conversation summaries, each conversation's events and notes,
// triage (tags, priority, snooze), visitors, the team and canned responses. Views read it and
// re-render on the bus topics below.
//
// Topics: "me", "lists", "lists-refreshed" (the server's lists were read again), "conversation" (id),
// "timeline" (id), "triage" (id), "tags", "visitor" (id), "team", "canned", "answers" (id).
import { api, ApiError } from "./api.js";
import { emit } from "./bus.js";

export const state = {
  me: null,
  /** id → Conversation summary (the newest the desk has seen). */
  conversations: new Map(),
  /**
   * Ids of the lists kept live, in the server's order: mine and queued (the inbox's own), snoozed
   * (mine too: subscribed, so a visitor's message that ends a snooze is heard). Other views are
   * read on demand (views.js).
   */
  lists: { mine: [], queued: [], snoozed: [] },
  listsLoaded: false,
  /** id → Timeline. */
  timelines: new Map(),
  /** id → Visitor, or null when the server does not know it. */
  visitors: new Map(),
  /** conversation id → Triage (tags, priority, snoozed_until), from lists and `triage` frames. */
  triage: new Map(),
  /** The app's tags, in the admins' order: [{name, color}]. */
  tags: [],
  team: { agents: [], queues: [] },
  /** Canned responses: the agent's own (with `owner_id`) first, then the team's. */
  canned: [],
  /**
   * conversation id → the visitor's answers from the newest `answers` frame: {rating, form_submissions,
   * received} (`received` counts frames, so a reading over HTTP that started earlier loses to it).
   */
  answers: new Map(),
  /** Conversations newly assigned to me and not opened yet (highlighted, counted in the title). */
  fresh: new Set(),
  openID: null,
};

/** Everything known of one conversation's history. */
class Timeline {
  constructor(id) {
    this.id = id;
    this.epoch = null;
    this.events = [];
    this.lastSeq = 0;
    /** True once a replay or a history page reached the end. */
    this.loaded = false;
    /** note seq → Note */
    this.notes = new Map();
    this.notesLoaded = false;
    /** client_message_id → {text, failed, createdAt}: sent by this desk, not stored yet. */
    this.pending = new Map();
    /** client_message_id → a file this desk is sending or failed to send (uploads.js). */
    this.uploads = new Map();
    /** Read up to here by me (my `read` events: every device of mine, across reloads). */
    this.myReadSeq = 0;
    this.visitorReadSeq = 0;
    /** participant id → name, from the events (agents who joined, the visitor). */
    this.names = new Map();
    /** participant id → participant, typing now (typing.js). */
    this.typing = new Map();
  }

  reset(epoch) {
    this.epoch = epoch ?? null;
    this.events = [];
    this.lastSeq = 0;
    this.loaded = false;
    this.myReadSeq = 0;
    this.visitorReadSeq = 0;
    this.names.clear();
  }

  /**
   * Visitor messages after my last read marker. Mine, not any agent's: a conversation handed to me
   * shows what I have not read yet, whoever read it before.
   */
  get unread() {
    let count = 0;
    for (const event of this.events) {
      if (event.type === "message" && event.author.role === "visitor" && event.seq > this.myReadSeq) count += 1;
    }
    return count;
  }

  get lastVisitorMessageSeq() {
    for (let i = this.events.length - 1; i >= 0; i -= 1) {
      const event = this.events[i];
      if (event.type === "message" && event.author.role === "visitor") return event.seq;
    }
    return 0;
  }

  get lastMessage() {
    for (let i = this.events.length - 1; i >= 0; i -= 1) {
      if (this.events[i].type === "message") return this.events[i];
    }
    return null;
  }
}

export function timeline(id) {
  let value = state.timelines.get(id);
  if (!value) {
    value = new Timeline(id);
    state.timelines.set(id, value);
  }
  return value;
}

// MARK: - Conversations

/** Stores a newer summary; returns the previous one. */
export function upsertConversation(conversation) {
  const previous = state.conversations.get(conversation.id);
  // Summaries from lists and frames can arrive out of order; keep the newest.
  if (previous && previous.updated_at > conversation.updated_at) return previous;
  const merged = { ...conversation };
  // A callback event newer than this summary already told the request's state (learnCallback).
  if (previous?.callback && merged.callback && (previous.last_seq ?? 0) > (merged.last_seq ?? 0)) {
    merged.callback = previous.callback;
    merged.last_seq = previous.last_seq;
  }
  // queue_position only comes in some answers; keep it while still queued.
  if (merged.state === "queued" && merged.queue_position === undefined && previous?.state === "queued") {
    merged.queue_position = previous.queue_position;
  }
  state.conversations.set(conversation.id, merged);
  emit("conversation", conversation.id);
  return previous;
}

export function isMine(conversation) {
  return Boolean(conversation && state.me && conversation.state === "assigned" && conversation.agent_id === state.me.id);
}

/** Fetches the lists kept live. Returns the ids newly in "mine" (a snooze's end is not new). */
export async function refreshLists() {
  const views = ["mine", "queued", "snoozed"];
  const answers = await Promise.all(views.map((view) => api("GET", `/v1/conversations?view=${view}&limit=500`)));
  const previousMine = new Set(state.lists.mine);
  const previousSnoozed = new Set(state.lists.snoozed);
  views.forEach((view, index) => {
    const { conversations, triage } = answers[index];
    for (const conversation of conversations) upsertConversation(conversation);
    learnTriage(triage);
    state.lists[view] = conversations.map((c) => c.id);
  });
  const wasLoaded = state.listsLoaded;
  state.listsLoaded = true;
  emit("lists");
  emit("lists-refreshed");
  return wasLoaded ? state.lists.mine.filter((id) => !previousMine.has(id) && !previousSnoozed.has(id)) : [];
}

/** Keeps lists in step with a summary change before the next refresh lands. */
export function placeInLists(conversation) {
  const { id } = conversation;
  const without = (list) => list.filter((item) => item !== id);
  // A snoozed conversation is still mine, but out of Mine until the server says it is back.
  const snoozed = isMine(conversation) && state.lists.snoozed.includes(id);
  state.lists.mine = isMine(conversation) && !snoozed ? (state.lists.mine.includes(id) ? state.lists.mine : [id, ...state.lists.mine]) : without(state.lists.mine);
  if (!snoozed) state.lists.snoozed = without(state.lists.snoozed);
  state.lists.queued = conversation.state === "queued"
    ? (state.lists.queued.includes(id) ? state.lists.queued : [...state.lists.queued, id])
    : without(state.lists.queued);
  emit("lists");
}

/** Moves one of my conversations between Mine and Snoozed at once (the next refresh confirms it). */
export function placeSnoozed(id, isSnoozed) {
  const without = (list) => list.filter((item) => item !== id);
  state.lists.snoozed = isSnoozed ? [...without(state.lists.snoozed), id] : without(state.lists.snoozed);
  state.lists.mine = isSnoozed ? without(state.lists.mine) : (isMine(state.conversations.get(id)) ? [id, ...without(state.lists.mine)] : state.lists.mine);
  emit("lists");
}

// MARK: - Triage

/** Stores the triage of listed conversations (one per conversation of a list answer). */
export function learnTriage(list = []) {
  for (const triage of list) applyTriage(triage);
}

/** Stores one conversation's triage, unless an older one (by updated_at) than what the desk holds. */
export function applyTriage(triage) {
  const previous = state.triage.get(triage.conversation_id);
  if (previous?.updated_at && triage.updated_at && previous.updated_at > triage.updated_at) return;
  state.triage.set(triage.conversation_id, triage);
  emit("triage", triage.conversation_id);
  learnTagNames(triage.tags);
}

/** Tag names already asked about: a tag taken off the list stays on conversations, ask once only. */
const askedTags = new Set();

/**
 * A `tags` frame carries the list whenever an admin changes it; a tag the desk does not know (its
 * colour, whether it may be added) is still read again as a fallback (a frame lost to a reconnect is
 * also covered by the reading on `ready`), once per such name.
 */
function learnTagNames(names = []) {
  const unknown = names.filter((name) => !askedTags.has(name) && !state.tags.some((tag) => tag.name === name));
  if (unknown.length === 0) return;
  for (const name of unknown) askedTags.add(name);
  refreshTags().catch(() => {});
}

/** Reads the app's tags (GET /v1/tags: every agent may). */
export async function refreshTags() {
  setTags((await api("GET", "/v1/tags")).tags);
}

/** Replaces the app's tag list (a `tags` frame or a reading): colours and what may be added. */
export function setTags(tags) {
  state.tags = tags;
  emit("tags");
}

// MARK: - Events

/**
 * Applies events of one conversation. Only the next seq is taken: older ones are duplicates, a
 * jump means something was missed, and the gap is filled over HTTP before anything past it.
 */
export function applyEvents(id, events) {
  const line = timeline(id);
  let changed = false;
  let gap = false;
  let request = false;
  for (const event of events) {
    if (event.seq <= line.lastSeq) continue;
    if (event.seq !== line.lastSeq + 1) {
      gap = true;
      break;
    }
    line.events.push(event);
    line.lastSeq = event.seq;
    learnFrom(line, event);
    if (event.type === "callback") request = learnCallback(id, event) || request;
    changed = true;
  }
  if (request) emit("conversation", id);
  if (changed) emit("timeline", id);
  if (gap) catchUp(id);
  return changed;
}

function learnFrom(line, event) {
  if (event.author?.id && event.author.name) line.names.set(event.author.id, event.author.name);
  if (event.participant?.id && event.participant.name) line.names.set(event.participant.id, event.participant.name);
  if (event.type === "message" && event.client_message_id) {
    line.pending.delete(event.client_message_id);
    line.uploads.delete(event.client_message_id);
  }
  // Whoever was typing has sent it.
  if (event.type === "message" && event.author.id) line.typing.delete(event.author.id);
  if (event.type === "read") {
    if (event.author.role === "agent" && event.author.id === state.me?.id) line.myReadSeq = Math.max(line.myReadSeq, event.read_seq);
    if (event.author.role === "visitor") line.visitorReadSeq = Math.max(line.visitorReadSeq, event.read_seq);
  }
}

/**
 * A callback event carries the request as it is afterwards. The server sends a conversation frame
 * only when the conversation's state changes, and some steps keep it (a confirmation stays
 * assigned, a due time stays queued): the event is how the desk hears of those. Only an event newer
 * than the summary (by seq) is news; a replayed one is already in it. Returns true when it was news.
 */
function learnCallback(id, event) {
  const conversation = state.conversations.get(id);
  if (!conversation?.callback || !event.callback || event.seq <= (conversation.last_seq ?? 0)) return false;
  state.conversations.set(id, { ...conversation, callback: event.callback, last_seq: event.seq });
  if (event.action === "confirmed" && event.callback.agent_id === state.me?.id) emit("callback-confirmed", id);
  return true;
}

/** The server's store changed under us (a restored backup): drop and replay. */
export function resetTimeline(id, epoch) {
  timeline(id).reset(epoch);
  emit("timeline", id);
}

const catchUps = new Map();

/** Reads the history after what the desk holds, page by page (one fetch per conversation at a time). */
export function catchUp(id) {
  if (catchUps.has(id)) return catchUps.get(id);
  const work = (async () => {
    try {
      const line = timeline(id);
      for (;;) {
        const page = await api("GET", `/v1/conversations/${id}/events?after=${line.lastSeq}&limit=500`);
        if (line.epoch && page.epoch !== line.epoch) {
          resetTimeline(id, page.epoch);
          continue;
        }
        if (page.last_seq < line.lastSeq) {
          // The server holds less than we saw: ours is void.
          resetTimeline(id, page.epoch);
          continue;
        }
        line.epoch = page.epoch;
        applyEvents(id, page.events);
        if (!page.has_more) break;
      }
      line.loaded = true;
      emit("timeline", id);
    } finally {
      catchUps.delete(id);
    }
  })();
  catchUps.set(id, work);
  work.catch(() => {});
  return work;
}

// MARK: - Notes

export function addNote(noteValue) {
  const line = timeline(noteValue.conversation_id);
  line.notes.set(noteValue.seq, noteValue);
  emit("timeline", noteValue.conversation_id);
}

/** Reads the notes after the newest one held (notes have no replay on the socket), page by page. */
export async function loadNotes(id) {
  const line = timeline(id);
  const limit = 500;
  for (;;) {
    const after = Math.max(0, ...line.notes.keys());
    const answer = await api("GET", `/v1/conversations/${id}/notes?after=${after}&limit=${limit}`);
    for (const item of answer.notes) line.notes.set(item.seq, item);
    if (answer.notes.length < limit) break;
  }
  line.notesLoaded = true;
  emit("timeline", id);
}

// MARK: - Visitors, team, canned responses

const visitorRequests = new Map();

/** The visitor, from cache or fetched once (undefined until it has come; null when unknown). */
export function visitor(id) {
  if (state.visitors.has(id)) return state.visitors.get(id);
  loadVisitor(id);
  return undefined;
}

/** Resolves once the visitor is known (or known to be unknown); never rejects. */
export function loadVisitor(id) {
  if (!visitorRequests.has(id)) {
    const request = api("GET", `/v1/visitors/${id}`)
      .then((value) => value, (error) => {
        if (error instanceof ApiError && error.status === 404) return null;
        visitorRequests.delete(id);
        throw error;
      })
      .then((value) => {
        state.visitors.set(id, value);
        emit("visitor", id);
      })
      .catch(() => {});
    visitorRequests.set(id, request);
  }
  return visitorRequests.get(id);
}

/** The name to show for a conversation's visitor. */
export function visitorName(conversation) {
  const known = conversation && state.visitors.get(conversation.visitor_id);
  if (known?.name) return known.name;
  const line = conversation && state.timelines.get(conversation.id);
  const fromEvents = line?.names.get(conversation.visitor_id);
  if (fromEvents) return fromEvents;
  if (known?.email) return known.email;
  if (conversation && known === undefined) visitor(conversation.visitor_id);
  return "Visitor";
}

/** The reading of GET /v1/team in flight, and the one more asked for meanwhile. */
let teamReading = null;
let teamAgain = null;

/**
 * Reads the team again (availability, connections, load, names). Bursts are coalesced: one reading
 * in flight at a time, and however many asks arrive meanwhile, one more after it (whose answer is as
 * new as the last ask). Resolves once a reading that started after this call has been stored.
 */
export function refreshTeam() {
  if (teamReading) {
    teamAgain ??= teamReading.catch(() => {}).then(() => {
      teamAgain = null;
      return refreshTeam();
    });
    return teamAgain;
  }
  teamReading = (async () => {
    try {
      state.team = await api("GET", "/v1/team");
      emit("team");
    } finally {
      teamReading = null;
    }
  })();
  return teamReading;
}

export function agentName(id, line) {
  const member = state.team.agents.find((agent) => agent.id === id);
  if (member) return member.name;
  return line?.names.get(id) ?? (id === state.me?.id ? state.me.name : "an agent");
}

export function queueName(id) {
  return state.team.queues.find((queue) => queue.id === id)?.name ?? "a queue";
}

/** Reads the canned responses: the server lists my own set first, then the team's (kept so here). */
export async function refreshCanned() {
  const answer = await api("GET", "/v1/canned-responses");
  const own = answer.canned_responses.filter((item) => item.owner_id);
  state.canned = [...own, ...answer.canned_responses.filter((item) => !item.owner_id)];
  emit("canned");
}

/** My own canned responses (the ones the caller owns), in the server's order. */
export function ownCanned() {
  return state.canned.filter((item) => item.owner_id && item.owner_id === state.me?.id);
}

// MARK: - Answers

let answersReceived = 0;
/** Every agent hears every rating of the app: only the newest frames are kept (a page read later asks the server). */
const ANSWERS_KEPT = 200;

/** Stores the answers of an `answers` frame (the rating and every form submission, as stored). */
export function applyAnswers(answers) {
  answersReceived += 1;
  state.answers.delete(answers.conversation_id);
  if (state.answers.size >= ANSWERS_KEPT) state.answers.delete(state.answers.keys().next().value);
  state.answers.set(answers.conversation_id, {
    rating: answers.rating ?? null,
    form_submissions: answers.form_submissions ?? [],
    received: answersReceived,
  });
  emit("answers", answers.conversation_id);
}

/** How many `answers` frames have come so far: a reading over HTTP compares it to `received`. */
export function answersMark() {
  return answersReceived;
}
