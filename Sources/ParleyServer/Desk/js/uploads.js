// Sending files: each file is one message with its own client_message_id, sent in order one at a
// time per conversation, with progress and cancel. A file that fails on the way (the network) can be
// sent again with the same id, so the server stores it at most once; a refusal keeps the server's
// words and changes nothing in the conversation.
//
// Records live in the conversation's timeline (`line.uploads`, client_message_id → record) until
// the stored message replaces them: { file, name, size, caption, createdAt, status: "queued" |
// "sending", sent, failed (the reason, or null), retryable, handle }.
import { upload, uuid } from "./api.js";
import { forgetPolicy } from "./attachment-policy.js";
import { paintUpload } from "./attachment-view.js";
import { emit } from "./bus.js";
import { byId } from "./dom.js";
import { applyEvents, timeline } from "./store.js";

/** Queues files (`[{file, name}]`) for a conversation; the caption goes with the first. */
export function sendFiles(id, files, caption) {
  const line = timeline(id);
  files.forEach(({ file, name }, index) => {
    line.uploads.set(uuid(), {
      file, name, size: file.size, caption: index === 0 ? caption : "", createdAt: new Date().toISOString(),
      status: "queued", sent: 0, failed: null, retryable: false, handle: null,
    });
  });
  emit("timeline", id);
  pump(id);
}

/** Starts the next queued file of a conversation unless one is on its way. */
function pump(id) {
  const line = timeline(id);
  const records = [...line.uploads.entries()];
  if (records.some(([, record]) => record.status === "sending")) return;
  const next = records.find(([, record]) => record.status === "queued" && !record.failed);
  if (next) start(id, next[0], next[1]);
}

async function start(id, clientMessageID, record) {
  const line = timeline(id);
  record.status = "sending";
  record.sent = 0;
  emit("timeline", id);
  // Percent-encoded (%20 for a space): parleyd reads a "+" in the query as a plus sign, so
  // URLSearchParams' form encoding would turn every space of a name or caption into "+".
  const parameters = { name: record.name, client_message_id: clientMessageID, ...(record.caption ? { caption: record.caption } : {}) };
  const query = Object.entries(parameters).map(([key, value]) => `${key}=${encodeURIComponent(value)}`).join("&");
  let announced = 0;
  record.handle = upload(`/v1/conversations/${encodeURIComponent(id)}/attachments?${query}`, record.file, {
    onProgress: (sent) => {
      record.sent = Math.min(sent, record.size);
      paintUpload(clientMessageID, record);
      // Screen readers hear every quarter, not every packet.
      const quarter = Math.floor((record.sent / Math.max(record.size, 1)) * 4);
      if (quarter > announced && quarter < 4) {
        announced = quarter;
        announce(`Sending ${record.name}: ${quarter * 25} %`);
      }
    },
  });
  try {
    const answer = await record.handle.promise;
    // The stored message replaces the record (here or from the socket, whichever is first).
    line.uploads.delete(clientMessageID);
    applyEvents(id, [answer.event]);
    announce(`${record.name} sent.`);
  } catch (error) {
    if (error.code === "aborted") {
      line.uploads.delete(clientMessageID);
      announce(`Sending ${record.name} cancelled.`);
    } else if (line.uploads.has(clientMessageID)) {
      record.status = "queued";
      record.failed = reason(error);
      // The network, a server that is restarting, a scanner that is down: the same bytes may go again.
      record.retryable = error.status === 0 || error.status >= 500;
      // The server refused what the policy seemed to allow: the policy changed.
      if (["too_large", "type_not_allowed", "attachments_disabled"].includes(error.code)) forgetPolicy();
      announce(`${record.name} not sent: ${record.failed}`);
    }
  } finally {
    record.handle = null;
    emit("timeline", id);
    pump(id);
  }
}

function reason(error) {
  switch (error.code) {
    case "invalid_state": return "the conversation is not assigned to you any more.";
    case "network": return "no connection to the server.";
    default: return error.message || `the server answered ${error.status}.`;
  }
}

/** Cancels a file on its way (or waiting), or dismisses a refused one. */
export function cancelUpload(id, clientMessageID) {
  const line = timeline(id);
  const record = line.uploads.get(clientMessageID);
  if (!record) return;
  if (record.handle) {
    record.handle.abort();
    return;
  }
  line.uploads.delete(clientMessageID);
  emit("timeline", id);
}

/** Sends a failed file again, with the same client_message_id. */
export function retryUpload(id, clientMessageID) {
  const record = timeline(id).uploads.get(clientMessageID);
  if (!record || record.handle) return;
  record.failed = null;
  record.retryable = false;
  record.status = "queued";
  emit("timeline", id);
  pump(id);
}

/** Says something to screen readers without moving focus. */
function announce(text) {
  byId("upload-status").textContent = text;
}
