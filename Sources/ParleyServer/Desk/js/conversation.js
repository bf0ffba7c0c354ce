// The open conversation: header and actions (accept, transfer, end), triage (tags, priority,
// snooze: triage-panel.js), a callback request's panel, the transcript (scrolled to a message a
// search found), who is typing (the visitor under the transcript; another agent as a warning by the
// composer). On wide screens the transcript scrolls on its own; on one-column screens the page is
// the only scroller, and "stay at the bottom" follows the page instead.
import { api, ApiError } from "./api.js";
import { emit, on } from "./bus.js";
import { initCallbackPanel, renderCallbackPanel } from "./callback-panel.js";
import { toast } from "./cues.js";
import { confirmAction, openForm } from "./dialogs.js";
import { byId, h, replaceChildren } from "./dom.js";
import { duration, longTime, participantName, shortTime, stateLabel } from "./format.js";
import { composerFor, retrySend, switchComposer } from "./composer.js";
import {
  agentName, applyTriage, catchUp, isMine, loadNotes, queueName, state, timeline, upsertConversation, placeInLists, visitorName,
} from "./store.js";
import { ensureSubscriptions, markRead, markSelfAssigned } from "./sync.js";
import { reconcile, transcriptItems } from "./transcript.js";
import { agentsTyping, visitorTyping } from "./typing.js";
import { openTransfer } from "./transfer.js";
import { initAnswers, showAnswers } from "./answers.js";
import { initTranscriptActions, updateTranscriptLinks } from "./transcript-actions.js";
import { initTriagePanel, renderTriage } from "./triage-panel.js";
import { cancelUpload, retryUpload } from "./uploads.js";
import { hideVisitor, showVisitor } from "./visitor.js";

/** key → {version, element} for the transcript on screen. */
const rendered = new Map();
let frame = 0;
let stickToBottom = true;
/** A message to bring into view once it is in the transcript (a search result's seq). */
let reveal = null;

export function initConversation() {
  on("timeline", (id) => id === state.openID && renderSoon());
  on("conversation", (id) => id === state.openID && renderSoon());
  on("team", () => state.openID && renderSoon());
  on("visitor", () => state.openID && renderSoon());
  byId("accept").addEventListener("click", accept);
  byId("end").addEventListener("click", end);
  byId("transfer").addEventListener("click", () => state.openID && openTransfer(state.openID));
  byId("push-page").addEventListener("click", () => state.openID && pushPage(state.openID));
  initTranscriptActions();
  initCallbackPanel();
  initTriagePanel();
  initAnswers();
  byId("transcript").addEventListener("click", (event) => {
    if (!state.openID) return;
    const retry = event.target.closest("[data-retry]");
    if (retry) retrySend(state.openID, retry.dataset.retry);
    const cancel = event.target.closest("[data-upload-cancel]");
    if (cancel) {
      // The item goes away: keep the keyboard in the composer, not on the lost button.
      if (cancel === document.activeElement) byId("composer-text").focus();
      cancelUpload(state.openID, cancel.dataset.uploadCancel);
    }
    const again = event.target.closest("[data-upload-retry]");
    if (again) {
      if (again === document.activeElement) byId("composer-text").focus();
      retryUpload(state.openID, again.dataset.uploadRetry);
    }
  });
  // An image preview that loads makes the transcript taller, files waiting in the composer make it
  // shorter: stay at the bottom if that is where the agent was.
  const keepBottom = () => {
    if (stickToBottom) toBottom();
  };
  byId("transcript").addEventListener("attachment-load", keepBottom);
  new ResizeObserver(keepBottom).observe(byId("transcript"));
  byId("transcript").addEventListener("scroll", () => {
    const list = byId("transcript");
    if (transcriptScrolls()) stickToBottom = list.scrollHeight - list.scrollTop - list.clientHeight < 48;
  });
  window.addEventListener("scroll", () => {
    if (transcriptScrolls() || byId("conversation").hidden) return;
    stickToBottom = Math.abs(byId("conversation").getBoundingClientRect().bottom - window.innerHeight) < 48;
  }, { passive: true });
  document.addEventListener("visibilitychange", () => state.openID && markRead(state.openID));
  // A queued conversation's header says how long it has waited: keep it current.
  setInterval(() => {
    if (state.conversations.get(state.openID)?.state === "queued") renderSoon();
  }, 5000);
}

/** Opens a conversation; `seq`: a message to scroll to (and mark) instead of the bottom. */
export async function openConversation(id, { seq = null } = {}) {
  if (state.openID !== id) {
    switchComposer(state.openID, id);
    rendered.clear();
    byId("transcript").replaceChildren();
    stickToBottom = true;
  }
  reveal = seq;
  state.openID = id;
  state.fresh.delete(id);
  updateTranscriptLinks(id);
  emit("lists"); // the inbox marks the open row and drops its "new" highlight
  byId("welcome").hidden = true;
  byId("not-found").hidden = true;
  byId("conversation").hidden = false;
  byId("conversation").dataset.conversationId = id;
  ensureSubscriptions();
  render();
  try {
    const conversation = await api("GET", `/v1/conversations/${id}`);
    upsertConversation(conversation);
    showVisitor(conversation);
    // History over HTTP shows the conversation at once; the subscription carries it on live.
    // Triage comes with the lists; a conversation reached otherwise (search, history) asks for it.
    await Promise.all([catchUp(id), loadNotes(id), api("GET", `/v1/conversations/${id}/triage`).then(applyTriage)]);
  } catch (error) {
    if (state.openID !== id) return;
    if (error instanceof ApiError && error.status === 404) {
      closeConversation();
      byId("welcome").hidden = true;
      byId("not-found").hidden = false;
      return;
    }
    if (error instanceof ApiError && error.status !== 401) toast(`Could not load the conversation: ${error.message}`, { kind: "error" });
  }
}

export function closeConversation() {
  if (state.openID) switchComposer(state.openID, null);
  state.openID = null;
  rendered.clear();
  byId("transcript").replaceChildren();
  byId("conversation").hidden = true;
  byId("not-found").hidden = true;
  byId("welcome").hidden = false;
  hideVisitor();
  ensureSubscriptions();
  emit("lists");
}

function renderSoon() {
  if (frame) return;
  frame = requestAnimationFrame(() => {
    frame = 0;
    render();
  });
}

function render() {
  const id = state.openID;
  if (!id) return;
  const conversation = state.conversations.get(id);
  const line = timeline(id);
  renderHeader(conversation, line);

  const list = byId("transcript");
  list.setAttribute("aria-busy", line.loaded ? "false" : "true");
  reconcile(list, transcriptItems(line), rendered);
  if (reveal !== null) revealMessage(list);
  if (stickToBottom) toBottom();

  renderTyping(line);
  composerFor(conversation);
  markRead(id);
}

/** Scrolls the searched-for message to the middle and marks it, once it is there. */
function revealMessage(list) {
  const item = list.querySelector(`:scope > li[data-seq="${reveal}"]`);
  if (!item) return;
  reveal = null;
  stickToBottom = false;
  for (const old of list.querySelectorAll(".is-found")) old.classList.remove("is-found");
  item.classList.add("is-found");
  item.scrollIntoView({ block: "center" });
}

/** Whether the transcript is its own scroller (wide screens) or grows with the page (one column). */
function transcriptScrolls() {
  return getComputedStyle(byId("transcript")).overflowY !== "visible";
}

/** Shows the newest item: the transcript's own bottom, or the page scrolled to the composer under it. */
function toBottom() {
  const list = byId("transcript");
  if (transcriptScrolls()) list.scrollTop = list.scrollHeight;
  else if (!byId("conversation").hidden) byId("conversation").scrollIntoView({ block: "end" });
}

function renderTyping(line) {
  const visitor = visitorTyping(line);
  byId("typing").textContent = visitor ? `${participantName(visitor)} is typing…` : "";
  const agents = agentsTyping(line);
  const warning = byId("agent-typing");
  const said = agents.length === 0 ? ""
    : `${agents.map(participantName).join(" and ")} ${agents.length === 1 ? "is" : "are"} typing… Someone else is answering: read their reply before you send yours.`;
  if (warning.textContent !== said) warning.textContent = said;
  warning.hidden = said === "";
}

function renderHeader(conversation, line) {
  if (!conversation) {
    byId("conversation-title").textContent = "Loading…";
    byId("conversation-meta").replaceChildren();
    for (const action of ["accept", "transfer", "push-page", "end"]) byId(action).hidden = true;
    renderCallbackPanel(null);
    renderTriage(null);
    return;
  }
  byId("conversation-title").textContent = conversation.subject
    ? `${visitorName(conversation)} — ${conversation.subject}`
    : visitorName(conversation);
  const parts = [h("span", { class: `state state-${conversation.state}`, dataset: { state: conversation.state } }, stateLabel(conversation.state))];
  parts.push(h("span", {}, `Queue: ${queueName(conversation.queue_id)}`));
  const callback = conversation.callback;
  if (conversation.state === "queued" && callback?.status === "scheduled") {
    // Held out of line until its time: no position, and the time it waits for instead of a wait.
    if (callback.scheduled_until) parts.push(h("span", {}, `Scheduled until ${shortTime(callback.scheduled_until)}`));
  } else if (conversation.state === "queued") {
    if (conversation.queue_position) parts.push(h("span", {}, `Position ${conversation.queue_position}`));
    if (conversation.queued_at) parts.push(h("span", {}, `Waiting ${duration(conversation.queued_at)}`));
  } else if (conversation.agent_id) {
    const who = conversation.agent_id === state.me.id ? "you" : agentName(conversation.agent_id, line);
    parts.push(h("span", { dataset: { agent: conversation.agent_id } }, conversation.state === "ended" ? `Handled by ${who}` : `Assigned to ${who}`));
  }
  parts.push(h("span", {}, `Started ${longTime(conversation.created_at)}`));
  replaceChildren(byId("conversation-meta"), parts);
  // Form answers and, once it ended, the rating: loaded again when the state changes.
  if (!byId("visitor-panel").hidden) showAnswers(conversation);

  renderCallbackPanel(conversation);
  renderTriage(conversation);

  const mine = isMine(conversation);
  // A scheduled callback request cannot be taken before its time; an offered one waits on the
  // visitor's answer to the agent it named, so it is not handed on meanwhile.
  byId("accept").hidden = conversation.state !== "queued" || callback?.status === "scheduled";
  byId("transfer").hidden = !(conversation.state === "assigned" && (mine || state.me.role === "admin")) || callback?.status === "offered";
  byId("end").hidden = !mine;
  byId("push-page").hidden = !(mine && conversation.state === "assigned");
}

/** Pushes a page (an http(s) address and a title) to the visitor: a `page_pushed` event in the log. */
async function pushPage(id) {
  // One id for this push, kept across a resend after a failure: the server stores it once.
  const clientMessageID = crypto.randomUUID();
  const pushed = await openForm({
    title: "Push a page",
    submitLabel: "Push page",
    fields: [
      { name: "url", label: "Address", type: "text", required: true, hint: "An http or https address the visitor opens from the chat.", maxlength: 2000 },
      { name: "title", label: "Title", type: "text", required: true, maxlength: 200 },
    ],
    submit: (values) => api("POST", `/v1/conversations/${id}/pages`, { client_message_id: clientMessageID, url: values.url.trim(), title: values.title.trim() }),
  });
  if (pushed) toast("Page pushed.");
}

async function accept() {
  const id = state.openID;
  const button = byId("accept");
  button.disabled = true;
  markSelfAssigned(id);
  try {
    const conversation = await api("POST", `/v1/conversations/${id}/accept`);
    upsertConversation(conversation);
    placeInLists(conversation);
    ensureSubscriptions();
    byId("composer-text").focus();
  } catch (error) {
    // A callback request has more states than taken or not (scheduled, ended): the server says which.
    const callback = state.conversations.get(id)?.callback;
    const reason = error.code === "cannot_accept"
      ? "You cannot take more conversations right now (at capacity), or it is no longer waiting."
      : error.code === "invalid_state" && !callback ? "Someone else took it already." : error.message;
    toast(`Not accepted: ${reason}`, { kind: "error" });
  } finally {
    button.disabled = false;
  }
}

async function end() {
  const id = state.openID;
  const confirmed = await confirmAction({
    title: "End this conversation?",
    text: `${visitorName(state.conversations.get(id))} will see that the conversation ended. They can write again to reopen it.`,
    confirm: "End conversation",
    danger: true,
  });
  if (!confirmed) return;
  try {
    const conversation = await api("POST", `/v1/conversations/${id}/end`);
    upsertConversation(conversation);
    placeInLists(conversation);
  } catch (error) {
    toast(`Not ended: ${error.code === "invalid_state" ? "the conversation is not assigned to you any more." : error.message}`, { kind: "error" });
  }
}
