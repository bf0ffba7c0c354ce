// The composer: a reply to the visitor or an internal note. Enter sends, Shift+Enter is a new line,
// "/" opens canned responses. Replies show at once and are confirmed by their stored event; the
// client_message_id makes a retry safe, so a reply that failed for want of a connection is sent
// again by itself once the desk is connected again. A reply still holding a `{{…}}` placeholder is
// not sent. Typing is announced only for replies, never for notes. Files wait in the composer
// (composer-files.js) and go with the next Send, the text as the first one's caption.
import { api, uuid } from "./api.js";
import { emit, on } from "./bus.js";
import { CannedPicker } from "./canned.js";
import { canAttach, clearRefusals, initComposerFiles, MAX_CAPTION, renderStaged, stagedFiles, takeStaged, updateFilesHint } from "./composer-files.js";
import { toast } from "./cues.js";
import { byId, h, replaceChildren } from "./dom.js";
import { characterCount } from "./format.js";
import { firstPlaceholderRange, unfilledPlaceholders } from "./placeholders.js";
import { addNote, applyEvents, isMine, state, timeline } from "./store.js";
import { sendTyping } from "./sync.js";
import { sendFiles } from "./uploads.js";

const TYPING_EVERY_MS = 3000;

/** conversation id → unsent text, so switching conversations keeps what was written. */
const drafts = new Map();
let picker = null;
let typingSentAt = 0;
let typingConversation = null;

export function initComposer() {
  const form = byId("composer");
  const textarea = byId("composer-text");
  picker = new CannedPicker(textarea, byId("canned-list"), () => onInput());
  initComposerFiles();

  form.addEventListener("submit", (event) => {
    event.preventDefault();
    send();
  });
  textarea.addEventListener("keydown", (event) => {
    if (event.isComposing) return;
    if (picker.handleKey(event)) {
      event.preventDefault();
      return;
    }
    if (event.key === "Enter" && !event.shiftKey && !event.altKey && !event.ctrlKey && !event.metaKey) {
      event.preventDefault();
      send();
    }
  });
  textarea.addEventListener("input", onInput);
  on("connection", (value) => value === "ready" && resendWaiting());
  textarea.addEventListener("blur", () => {
    stopTyping();
    picker.close();
  });
  for (const radio of form.querySelectorAll("input[name=mode]")) {
    radio.addEventListener("change", () => {
      stopTyping();
      composerFor(state.conversations.get(state.openID));
      textarea.focus();
    });
  }
}

function mode() {
  return byId("mode-note").checked ? "note" : "reply";
}

function onInput() {
  const textarea = byId("composer-text");
  picker.update();
  showPlaceholders(false);
  if (state.openID) drafts.set(state.openID, textarea.value);
  if (mode() !== "reply" || !isMine(state.conversations.get(state.openID))) return;
  if (textarea.value.trim() === "") {
    stopTyping();
  } else if (Date.now() - typingSentAt > TYPING_EVERY_MS) {
    typingSentAt = Date.now();
    typingConversation = state.openID;
    sendTyping(state.openID, true);
  }
}

function stopTyping() {
  if (!typingConversation) return;
  sendTyping(typingConversation, false);
  typingConversation = null;
  typingSentAt = 0;
}

/** Saves the draft of the conversation left, restores the one of the conversation opened. */
export function switchComposer(fromID, toID) {
  const textarea = byId("composer-text");
  stopTyping();
  picker?.close();
  if (fromID) drafts.set(fromID, textarea.value);
  textarea.value = (toID && drafts.get(toID)) || "";
  showPlaceholders(false);
  clearRefusals();
  renderStaged(toID);
}

/** Enables what the agent may do in this conversation and says why not otherwise. */
export function composerFor(conversation) {
  const form = byId("composer");
  const textarea = byId("composer-text");
  const note = mode() === "note";
  const canReply = isMine(conversation);
  form.classList.toggle("is-note", note);
  byId("composer-label").textContent = note ? "Internal note (only agents see it)" : "Reply to the visitor";
  textarea.placeholder = note
    ? "Write an internal note… only agents see it. Enter saves it."
    : "Type a reply… Enter sends, Shift+Enter for a new line, / for canned responses";
  const enabled = Boolean(conversation) && (note || canReply);
  textarea.disabled = !enabled;
  byId("composer-send").disabled = !enabled;
  byId("composer-attach").disabled = !canAttach();
  updateFilesHint();
  byId("composer-send").textContent = note ? "Add note" : "Send";
  let hint = "";
  if (!conversation) hint = "Loading…";
  else if (note) hint = "Internal notes are never shown to the visitor.";
  else if (conversation.state === "queued") hint = "Accept the conversation to reply. You can add internal notes.";
  else if (conversation.state === "ended") hint = "This conversation has ended. You can still add internal notes.";
  else if (!canReply) hint = "Assigned to another agent. You can add internal notes.";
  byId("composer-hint").textContent = hint;
}

async function send() {
  const id = state.openID;
  const textarea = byId("composer-text");
  const text = textarea.value;
  if (!id || textarea.disabled) return;
  // A caption is sent to the visitor too: the same check as for a reply.
  if (mode() === "reply" && showPlaceholders(true)) return;
  if (mode() === "reply" && stagedFiles(id).length > 0) {
    sendWithFiles(id, text);
    return;
  }
  if (text.trim() === "") return;
  picker.close();
  textarea.value = "";
  showPlaceholders(false);
  drafts.delete(id);
  if (mode() === "note") {
    await saveNote(id, text);
  } else {
    stopTyping();
    const clientMessageID = uuid();
    timeline(id).pending.set(clientMessageID, { text, createdAt: new Date().toISOString(), failed: null });
    emit("timeline", id);
    await post(id, clientMessageID);
  }
}

/**
 * Points out `{{…}}` left in the text (a canned response's placeholder with no value): listed under
 * the reply box, the box marked invalid. On a send attempt (`refusing`) the first one is selected,
 * ready to be typed over, and the reply is not sent. Returns whether any is left.
 */
function showPlaceholders(refusing) {
  const textarea = byId("composer-text");
  const warning = byId("placeholder-warning");
  const left = unfilledPlaceholders(textarea.value);
  if (left.length === 0) {
    if (!warning.hidden) replaceChildren(warning);
    warning.hidden = true;
    textarea.removeAttribute("aria-invalid");
    return false;
  }
  const lead = refusing ? "Not sent: fill in or remove " : "Fill in or remove before sending: ";
  const said = lead + left.join(", ");
  // Rewritten only when it changes, so a screen reader is not told again on every key.
  if (warning.textContent !== said || warning.hidden) {
    replaceChildren(warning, lead, left.map((name, index) => [index ? ", " : "", h("mark", { class: "placeholder" }, name)]));
  }
  warning.hidden = false;
  textarea.setAttribute("aria-invalid", "true");
  if (refusing) {
    textarea.focus();
    textarea.setSelectionRange(...firstPlaceholderRange(textarea.value));
  }
  return true;
}

/** Sends the waiting files, one message each, the text as the first one's caption. */
function sendWithFiles(id, text) {
  const refusal = byId("composer-refusal");
  if (!canAttach()) return;
  const caption = text.trim() === "" ? "" : text;
  if (characterCount(caption) > MAX_CAPTION || new TextEncoder().encode(caption).length > 4 * MAX_CAPTION) {
    refusal.textContent = `Not sent: a caption has at most ${MAX_CAPTION.toLocaleString("en")} characters. Shorten the text, or remove the files and send it as a message.`;
    refusal.hidden = false;
    return;
  }
  picker.close();
  stopTyping();
  byId("composer-text").value = "";
  drafts.delete(id);
  clearRefusals();
  sendFiles(id, takeStaged(id), caption);
}

async function post(id, clientMessageID) {
  const line = timeline(id);
  const pending = line.pending.get(clientMessageID);
  if (!pending) return;
  try {
    const answer = await api("POST", `/v1/conversations/${id}/messages`, { client_message_id: clientMessageID, text: pending.text });
    // The stored event replaces the pending bubble (here, or from the socket, whichever is first).
    applyEvents(id, [answer.event]);
  } catch (error) {
    pending.waitsForConnection = isTransient(error);
    pending.failed = pending.waitsForConnection
      ? "no connection to the server. It is sent again by itself once the desk is reconnected."
      : {
        invalid_state: "the conversation is not assigned to you any more.",
        too_large: "too long (10,000 characters at most).",
      }[error.code] ?? error.message;
    emit("timeline", id);
  }
}

/** The server was not reached (or a proxy in front of it said so): the same request may work later. */
function isTransient(error) {
  return error.code === "network" || (error.status >= 502 && error.status <= 504);
}

/**
 * Sends again, with their client_message_ids, the replies that failed for want of a connection: the
 * desk is connected again. One the server did store (only its answer was lost) is answered as a
 * duplicate with the stored event, so the visitor gets each reply once.
 */
function resendWaiting() {
  for (const line of state.timelines.values()) {
    for (const [clientMessageID, pending] of line.pending) {
      if (pending.failed && pending.waitsForConnection) retrySend(line.id, clientMessageID);
    }
  }
}

/** Sends a failed reply again with the same client_message_id (stored at most once). */
export function retrySend(id, clientMessageID) {
  const pending = timeline(id).pending.get(clientMessageID);
  if (!pending) return;
  pending.failed = null;
  pending.waitsForConnection = false;
  emit("timeline", id);
  post(id, clientMessageID);
}

/** conversation id → {clientNoteID, text} of a note whose save failed: saving the same text again
 * reuses the id, so a note that did reach the server before the failure is not stored twice. */
const failedNotes = new Map();

async function saveNote(id, text) {
  const button = byId("composer-send");
  button.disabled = true;
  const previous = failedNotes.get(id);
  const clientNoteID = previous?.text === text ? previous.clientNoteID : uuid();
  try {
    const saved = await api("POST", `/v1/conversations/${id}/notes`, { client_note_id: clientNoteID, text });
    failedNotes.delete(id);
    addNote(saved);
  } catch (error) {
    failedNotes.set(id, { clientNoteID, text });
    if (state.openID === id && byId("composer-text").value === "") byId("composer-text").value = text;
    toast(`Note not saved: ${error.message}`, { kind: "error" });
  } finally {
    button.disabled = false;
    composerFor(state.conversations.get(state.openID));
  }
}
