// What the visitor told us besides messages: form answers (pre-chat, offline message, post-chat)
// and, once the conversation ended, their rating. Shown in the visitor panel, read over HTTP when a
// conversation is opened (and again when its state changes), then kept live by `answers` frames: a
// rating or a post-chat form shows as the visitor sends it. Frames are live only, so after a lost
// connection the open conversation's answers are read again.
import { api } from "./api.js";
import { on } from "./bus.js";
import { byId, h, replaceChildren } from "./dom.js";
import { longTime } from "./format.js";
import { answersMark, state } from "./store.js";

const KIND_TITLES = { pre_chat: "Pre-chat", unavailable: "Offline message", post_chat: "Post-chat" };
const KIND_ORDER = ["pre_chat", "unavailable", "post_chat"];

/**
 * The answers on screen: `key` ("id:state" last read, so a re-render of the same conversation does
 * not read again), the conversation, its forms (for their labels), and whether the forms were read
 * again for a submission of a kind they did not have.
 */
let shown = null;
/** The connection was lost since the answers on screen were read: frames may have been missed. */
let missedFrames = false;

export function initAnswers() {
  on("answers", (id) => shown?.id === id && applyFrame(id));
  on("connection", (value) => {
    if (value === "down") missedFrames = true;
    if (value !== "ready" || !missedFrames) return;
    missedFrames = false;
    if (shown) load(state.conversations.get(shown.id) ?? shown.conversation, shown.key);
  });
}

export function hideAnswers() {
  shown = null;
}

/** Loads and shows the form answers and rating of a conversation (again when its state changed). */
export async function showAnswers(conversation) {
  const key = `${conversation.id}:${conversation.state}`;
  if (shown?.key === key) return;
  if (shown?.id !== conversation.id) {
    replaceChildren(byId("visitor-forms"), h("p", { class: "empty" }, "Loading…"));
    renderRating(conversation, undefined, "Loading…");
  }
  await load(conversation, key);
}

async function load(conversation, key) {
  const current = { key, id: conversation.id, conversation, forms: shown?.id === conversation.id ? shown.forms : {}, formsReread: false };
  shown = current;
  // A frame that comes while this reading is on its way is newer than what it brings back.
  const mark = answersMark();
  let [submissions, forms, rating] = await Promise.all([
    api("GET", `/v1/conversations/${conversation.id}/forms`).then((list) => list.submissions).catch(() => null),
    api("GET", `/v1/forms?queue=${encodeURIComponent(conversation.queue_id)}`).catch(() => ({})),
    conversation.state === "ended" ? loadRating(conversation.id) : Promise.resolve(undefined),
  ]);
  if (shown !== current) return;
  current.forms = forms ?? {};
  const live = state.answers.get(conversation.id);
  if (live && live.received > mark) {
    submissions = live.form_submissions;
    rating = live.rating;
  }
  renderForms(submissions, current.forms);
  renderRating(conversation, rating);
}

/** An `answers` frame for the conversation on screen: its rating and submissions as stored. */
async function applyFrame(id) {
  const current = shown;
  const live = state.answers.get(id);
  const conversation = state.conversations.get(id) ?? current.conversation;
  renderForms(live.form_submissions, current.forms);
  renderRating(conversation, live.rating);
  // A submission of a form the page has not read (made since it was opened): read the forms for its labels, once.
  if (current.formsReread || live.form_submissions.every((submission) => current.forms[submission.kind])) return;
  current.formsReread = true;
  const forms = await api("GET", `/v1/forms?queue=${encodeURIComponent(conversation.queue_id)}`).catch(() => null);
  if (shown !== current || !forms) return;
  current.forms = forms;
  renderForms(state.answers.get(id).form_submissions, forms);
}

/** The rating, null when there is none (204), undefined when it could not be read. */
function loadRating(id) {
  return api("GET", `/v1/conversations/${id}/rating`).catch(() => undefined);
}

/** The reader's label from a {language: text} object: their language, else English, else any. */
export function localized(text) {
  if (!text) return null;
  const preferred = (navigator.language ?? "en").toLowerCase();
  const base = preferred.split("-")[0];
  const entries = Object.entries(text);
  const find = (tag) => entries.find(([language]) => language.toLowerCase() === tag)?.[1];
  return find(preferred) ?? find(base) ?? find("en") ?? entries[0]?.[1] ?? null;
}

function renderForms(submissions, forms) {
  const container = byId("visitor-forms");
  if (submissions === null) {
    replaceChildren(container, h("p", { class: "empty" }, "Not available."));
    return;
  }
  if (submissions.length === 0) {
    replaceChildren(container, h("p", { class: "empty" }, "None"));
    return;
  }
  const sorted = [...submissions].sort((a, b) => KIND_ORDER.indexOf(a.kind) - KIND_ORDER.indexOf(b.kind));
  replaceChildren(container, sorted.map((submission) => {
    const fields = forms[submission.kind]?.fields ?? [];
    return h("section", { class: "form-answers", dataset: { formKind: submission.kind } },
      h("h4", {}, KIND_TITLES[submission.kind] ?? submission.kind,
        h("span", { class: "inbox-meta" }, ` · ${longTime(submission.submitted_at)}`)),
      h("dl", { class: "details" }, answerRows(submission.answers, fields)));
  }));
}

/** dt/dd pairs in the form's field order, then answers to fields the form no longer has (by key). */
function answerRows(answers, fields) {
  const byKey = new Map(fields.map((field) => [field.key, field]));
  const keys = [...fields.map((field) => field.key).filter((key) => key in answers),
    ...Object.keys(answers).filter((key) => !byKey.has(key)).sort()];
  // A list holds term and value groups only: the term is for screen readers.
  if (keys.length === 0) return h("div", { class: "empty" }, h("dt", { class: "visually-hidden" }, "Answers"), h("dd", {}, "No answers"));
  return keys.flatMap((key) => {
    const field = byKey.get(key);
    return [h("dt", { dataset: { key } }, localized(field?.label) ?? key), h("dd", { dataset: { key } }, answerText(answers[key], field))];
  });
}

function answerText(value, field) {
  if (value === true) return "Yes";
  if (value === false) return "No";
  if (field?.kind === "rating") return `${value} / 5`;
  const option = field?.options?.find((candidate) => candidate.value === value);
  return option ? localized(option.label) ?? String(value) : String(value);
}

function renderRating(conversation, rating, unavailable = "Not available.") {
  const heading = byId("visitor-rating-title");
  const container = byId("visitor-rating");
  // Only an ended conversation can be rated: a rating that came first (its frame before the
  // conversation's) shows anyway.
  const ended = conversation.state === "ended" || Boolean(rating);
  heading.hidden = !ended;
  container.hidden = !ended;
  if (!ended) return replaceChildren(container);
  if (rating === undefined) return replaceChildren(container, h("p", { class: "empty" }, unavailable));
  if (rating === null) return replaceChildren(container, h("p", { class: "empty" }, "Not rated"));
  replaceChildren(container,
    h("p", { class: "rating-score", dataset: { score: rating.score }, "aria-label": `Rated ${rating.score} out of 5` },
      h("span", { "aria-hidden": "true" }, "★".repeat(rating.score) + "☆".repeat(5 - rating.score)), ` ${rating.score} / 5`),
    rating.comment ? h("blockquote", { class: "rating-comment" }, rating.comment) : null,
    h("p", { class: "inbox-meta" }, longTime(rating.updated_at)));
}
