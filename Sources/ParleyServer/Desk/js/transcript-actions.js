// The "Transcript" menu of the open conversation: the standalone HTML document (open or download),
// plain text, and "Email transcript…". Links are plain GETs: the session cookie authenticates them.
import { api, ApiError } from "./api.js";
import { toast } from "./cues.js";
import { openForm } from "./dialogs.js";
import { byId } from "./dom.js";
import { loadVisitor, state } from "./store.js";

export function initTranscriptActions() {
  const menu = byId("transcript-menu");
  // Any choice closes the menu; Escape closes it and gives focus back to its button.
  menu.addEventListener("click", (event) => {
    if (event.target.closest(".menu-item")) menu.open = false;
  });
  menu.addEventListener("keydown", (event) => {
    if (event.key !== "Escape" || !menu.open) return;
    menu.open = false;
    menu.querySelector("summary").focus();
  });
  byId("transcript-email").addEventListener("click", () => state.openID && emailTranscript(state.openID));
}

/** Points the menu's links at a conversation (times in the agent's own zone). */
export function updateTranscriptLinks(id) {
  const base = `/v1/conversations/${encodeURIComponent(id)}/transcript`;
  const zone = agentTimeZone();
  const tz = zone ? `tz=${encodeURIComponent(zone)}` : "";
  byId("transcript-html").href = tz ? `${base}?${tz}` : base;
  byId("transcript-download").href = tz ? `${base}?${tz}` : base;
  byId("transcript-download").download = `transcript-${id}.html`;
  byId("transcript-text").href = `${base}?format=text${tz ? `&${tz}` : ""}`;
}

function agentTimeZone() {
  try {
    return Intl.DateTimeFormat().resolvedOptions().timeZone ?? null;
  } catch {
    return null;
  }
}

/** Shows "Email transcript…" only when the server sends email (its session says so). */
export function showTranscriptEmail(enabled) {
  byId("transcript-email").hidden = !enabled;
}

async function emailTranscript(id) {
  // The visitor's own address, when they gave one, is the usual recipient.
  const conversation = state.conversations.get(id);
  if (conversation) await loadVisitor(conversation.visitor_id);
  const visitor = conversation ? state.visitors.get(conversation.visitor_id) : null;
  const sent = await openForm({
    title: "Email transcript",
    submitLabel: "Send",
    fields: [{ name: "email", label: "Email address", type: "email", required: true, autocomplete: "email", value: visitor?.email ?? "",
      hint: "The whole conversation so far, without internal notes." }],
    submit: async ({ email }) => {
      if (!email.trim()) throw new Error("Enter an email address.");
      const body = { email: email.trim() };
      const zone = agentTimeZone();
      if (zone) body.time_zone = zone;
      try {
        return await api("POST", `/v1/conversations/${id}/transcript/email`, body);
      } catch (error) {
        throw new Error(explain(error));
      }
    },
  });
  if (sent) toast(`Transcript email to ${sent.recipient} queued (${sent.status}).`);
}

function explain(error) {
  if (!(error instanceof ApiError)) return String(error?.message ?? error);
  switch (error.code) {
    case "mail_not_configured": return "This server sends no email: it was started without SMTP (parleyd --smtp). Nothing was sent.";
    case "too_many_requests": return `Too many transcript emails for this conversation: ${error.message}`;
    default: return error.status === 400 ? `Not sent: ${error.message}` : `Not sent (${error.status || "network"}): ${error.message}`;
  }
}
