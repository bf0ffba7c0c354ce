// The transcript: messages, system notices and internal notes of one conversation, in order.
// Items are keyed and patched in place, so a new event does not rebuild (and lose the scroll
// position or focus of) everything above it.
import { attachmentElement, uploadElement } from "./attachment-view.js";
import { callbackNotice } from "./callback.js";
import { h } from "./dom.js";
import { participantName, shortTime, longTime } from "./format.js";
import { linkedText } from "./linkify.js";
import { agentName, queueName, state } from "./store.js";

/** Event types with something to show; read markers and a newer server's types show nothing. */
const SHOWN = new Set(["message", "participant_joined", "participant_left", "state_changed", "page_pushed", "callback"]);

/** The transcript's items: events (read markers excluded) merged with notes by time, then messages still sending. */
export function transcriptItems(line) {
  const events = line.events.filter((event) => SHOWN.has(event.type) && (event.type !== "callback" || callbackNotice(event, line, (id) => agentName(id, line)) !== null));
  const notes = [...line.notes.values()].sort((a, b) => (a.created_at < b.created_at ? -1 : a.created_at > b.created_at ? 1 : a.seq - b.seq));
  const items = [];
  let n = 0;
  for (const event of events) {
    while (n < notes.length && notes[n].created_at < event.created_at) items.push(noteItem(notes[n++]));
    items.push(eventItem(event, line));
  }
  while (n < notes.length) items.push(noteItem(notes[n++]));
  for (const [id, pending] of line.pending) {
    items.push({ key: `p:${id}`, version: pending.failed ? "failed" : "sending", render: () => pendingElement(id, pending) });
  }
  // Progress moves without a new version (attachment-view.js paints it): the Cancel button keeps focus.
  for (const [id, upload] of line.uploads) {
    items.push({ key: `u:${id}`, version: `${upload.status}|${upload.failed ?? ""}`,
      render: () => uploadElement(id, upload, meta(state.me?.name ?? "You", upload.createdAt)) });
  }
  return items;
}

function eventItem(event, line) {
  const seen = event.type === "message" && event.author.role !== "visitor" && event.seq <= line.visitorReadSeq;
  // A notice's words can improve once names or the summary arrive; a message can only become "Seen".
  const notice = event.type === "message" ? null : describe(event, line);
  return {
    key: `e:${event.seq}`,
    version: `${seen}|${notice ?? ""}`,
    render: () => eventElement(event, line, seen, notice),
  };
}

function noteItem(note) {
  return { key: `n:${note.seq}`, version: "", render: () => noteElement(note) };
}

function meta(who, iso) {
  return h("p", { class: "item-meta" }, h("span", { class: "author" }, who), " · ", h("time", { datetime: iso, title: longTime(iso) }, shortTime(iso)));
}

function eventElement(event, line, seen, notice) {
  if (event.type === "message") {
    const fromVisitor = event.author.role === "visitor";
    // A file's message: the file, then its caption (when there is one).
    const file = event.attachment ? attachmentElement(line.id, event.attachment) : null;
    return h("li", {
      class: `item message ${fromVisitor ? "from-visitor" : "from-agent"}${file ? " has-attachment" : ""}`,
      dataset: { seq: event.seq, kind: "message", role: event.author.role },
    },
    meta(participantName(event.author), event.created_at),
    file,
    file && !event.text ? null : h("p", { class: "item-text" }, linkedText(event.text)),
    seen ? h("p", { class: "item-status" }, "Seen") : null);
  }
  return h("li", { class: "item notice", dataset: { seq: event.seq, kind: "notice", type: event.type } },
    notice, " · ", h("time", { datetime: event.created_at, title: longTime(event.created_at) }, shortTime(event.created_at)));
}

function noteElement(note) {
  return h("li", { class: "item note", dataset: { noteSeq: note.seq, kind: "note" } },
    h("p", { class: "item-meta" }, h("span", { class: "note-label" }, "Internal note"), " · ", h("span", { class: "author" }, participantName(note.author)),
      " · ", h("time", { datetime: note.created_at, title: longTime(note.created_at) }, shortTime(note.created_at))),
    h("p", { class: "item-text" }, linkedText(note.text)));
}

function pendingElement(id, pending) {
  const retry = pending.failed ? h("button", { class: "button small", type: "button", dataset: { retry: id } }, "Retry") : null;
  return h("li", { class: `item message from-agent ${pending.failed ? "is-failed" : "is-pending"}`, dataset: { kind: "pending", clientMessageId: id } },
    meta(state.me?.name ?? "You", pending.createdAt),
    h("p", { class: "item-text" }, linkedText(pending.text)),
    h("p", { class: "item-status" }, pending.failed ? `Not sent: ${pending.failed} ` : "Sending…", retry));
}

/** A system notice in words: who did what. */
function describe(event, line) {
  const who = participantName(event.author);
  switch (event.type) {
    case "participant_joined":
      return `${participantName(event.participant)} joined the conversation`;
    case "participant_left": {
      const name = event.participant?.name ?? agentName(event.participant?.id, line);
      if (event.reason === "offline") return `${name} left: offline for too long`;
      if (event.reason === "transferred") return `${name} left: transferred`;
      return `${name} left the conversation`;
    }
    case "state_changed":
      switch (event.reason) {
        case "opened": return `${who} started the conversation`;
        case "assigned": return `Assigned to ${agentName(event.agent_id, line)}`;
        case "ended_by_visitor": return `${who} ended the conversation`;
        case "ended_by_agent": return `${who} ended the conversation`;
        // A callback request is cancelled from any state, an agent holding it or not.
        case "cancelled": return event.from === "assigned" ? `${who} ended the conversation` : `${who} left the queue`;
        case "reopened": return `${who} reopened the conversation`;
        case "requeued": return requeuedNotice(event, line);
        case "expired": return "Ended: the callback request was not confirmed in time";
        case "transferred": {
          const actor = event.author.role === "system" ? transferredAgent(event, line) : who;
          if (event.to === "assigned") return `${actor} transferred the conversation to ${agentName(event.agent_id, line)}`;
          return event.queue_id
            ? `${actor} transferred the conversation to the ${queueName(event.queue_id)} queue`
            : `${actor} transferred the conversation to a queue`;
        }
        default:
          return `Conversation ${event.to ?? "changed"}`;
      }
    case "page_pushed":
      return `${who} pushed a page: ${event.title ?? ""} (${event.url ?? ""})`;
    case "callback":
      return callbackNotice(event, line, (id) => agentName(id, line));
    default:
      return `${event.type.replaceAll("_", " ")}`;
  }
}

/**
 * Why a conversation went back to its queue. An agent offline too long leaves just before; a
 * callback request's snooze, unanswered offer or retry later is said by the callback event after.
 */
function requeuedNotice(event, line) {
  const before = line.events.find((other) => other.seq === event.seq - 1);
  if (!before || (before.type === "participant_left" && before.reason === "offline")) return "Back in the queue: the agent was away too long";
  return "Back in the queue";
}

/** The agent who left just before a transfer: who handed the conversation on when the system is the author. */
function transferredAgent(event, line) {
  const left = line.events.find((other) => other.seq === event.seq - 1 && other.type === "participant_left");
  return left ? left.participant?.name ?? agentName(left.participant?.id, line) : "An agent";
}

/** Patches `list` to show `items` in order, reusing elements by key. `cache`: key → {version, element}. */
export function reconcile(list, items, cache) {
  const keys = new Set();
  let previous = null;
  for (const item of items) {
    keys.add(item.key);
    let entry = cache.get(item.key);
    if (!entry || entry.version !== item.version) {
      const element = item.render();
      if (entry) entry.element.replaceWith(element);
      entry = { version: item.version, element };
      cache.set(item.key, entry);
    }
    const expected = previous ? previous.nextSibling : list.firstChild;
    if (expected !== entry.element) list.insertBefore(entry.element, expected);
    previous = entry.element;
  }
  for (const [key, entry] of cache) {
    if (!keys.has(key)) {
      entry.element.remove();
      cache.delete(key);
    }
  }
}
