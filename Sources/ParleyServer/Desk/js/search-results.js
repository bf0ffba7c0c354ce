// A search hit as the agent reads it: the visitor's name, the conversation's state and subject,
// what matched (a message and who wrote it, or the visitor's name, email, a subject or an
// attribute), and the snippet with the matching words in <mark>. The server gives the words as
// UTF-16 offsets into the snippet, which is what JavaScript strings count: the snippet is cut at
// those offsets into text nodes and <mark> elements, never parsed as HTML.
import { h } from "./dom.js";
import { participantName, shortTime, stateLabel } from "./format.js";
import { state } from "./store.js";

const FIELDS = {
  "conversation.id": "Conversation id",
  "visitor.name": "Visitor's name",
  "visitor.email": "Visitor's email",
  "visitor.user_id": "Visitor's user id",
  subject: "Subject",
};

/** The snippet as text nodes and <mark>s; overlapping or out-of-range highlights are skipped. */
export function highlighted(snippet, highlights = []) {
  const parts = [];
  let at = 0;
  for (const { start, length } of [...highlights].sort((a, b) => a.start - b.start)) {
    if (start < at || length <= 0 || start + length > snippet.length) continue;
    if (start > at) parts.push(snippet.slice(at, start));
    parts.push(h("mark", {}, snippet.slice(start, start + length)));
    at = start + length;
  }
  if (at < snippet.length) parts.push(snippet.slice(at));
  return parts;
}

/** What matched, in words: "Message from Zoë · 14:05", "Visitor's email", "Attribute plan". */
export function matchLabel(match) {
  if (match.field === "message") {
    const who = match.author?.role === "agent" && match.author.id === state.me?.id ? "you" : participantName(match.author);
    return `Message from ${who}${match.created_at ? ` · ${shortTime(match.created_at)}` : ""}`;
  }
  if (FIELDS[match.field]) return FIELDS[match.field];
  const attribute = match.field.match(/^(visitor\.)?attributes\.(.+)$/);
  if (attribute) return `${attribute[1] ? "Visitor attribute" : "Attribute"} ${attribute[2]}`;
  return match.field;
}

/** One result: a link to the conversation (to the message itself for a message). */
export function hitItem(hit) {
  const { conversation, visitor, match } = hit;
  const name = visitor?.name || visitor?.email || "Visitor";
  const href = match.seq ? `#/c/${conversation.id}?seq=${match.seq}` : `#/c/${conversation.id}`;
  const dataset = { conversationId: conversation.id, field: match.field };
  if (match.seq) dataset.seq = String(match.seq);
  return h("li", { class: "search-hit", dataset },
    h("a", { class: "search-hit-link", href },
      h("span", { class: "search-hit-head" },
        h("span", { class: "search-hit-name" }, name),
        h("span", { class: `state state-${conversation.state}`, dataset: { state: conversation.state } }, stateLabel(conversation.state)),
        conversation.subject ? h("span", { class: "search-hit-subject" }, conversation.subject) : null),
      h("span", { class: "search-hit-field" }, matchLabel(match)),
      h("span", { class: "search-hit-snippet" }, highlighted(match.snippet ?? "", match.highlights))));
}
