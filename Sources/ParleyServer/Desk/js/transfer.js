// Transfer dialog: hand the conversation to another agent (who is available is shown, live: the
// choices are drawn again whenever the team is read again, on every `team` frame) or a queue, with an
// optional handover note. The server stores the note as an internal note of mine as it makes the
// transfer, so whoever takes the conversation next reads it beside the transcript; a note it refuses
// (too long: 413) refuses the transfer too, and nothing moves.
import { api } from "./api.js";
import { on } from "./bus.js";
import { toast } from "./cues.js";
import { openDialog } from "./dialogs.js";
import { byId, h, replaceChildren } from "./dom.js";
import { availabilityLabel } from "./format.js";
import { placeInLists, refreshTeam, state, upsertConversation } from "./store.js";

let conversationID = null;
/** Whether the choices were drawn from the team at least once since the dialog opened. */
let drawn = false;
/** conversation id → a handover note written but not sent (the dialog was cancelled or refused). */
const notes = new Map();

export function initTransfer() {
  byId("transfer-form").addEventListener("submit", (event) => {
    event.preventDefault();
    submit();
  });
  byId("transfer-note").addEventListener("input", (event) => {
    if (conversationID) notes.set(conversationID, event.target.value);
    markNote(null);
  });
  // A teammate came online, went away, connected: the choices follow while the dialog is open.
  on("team", () => conversationID && drawn && renderChoices());
}

export async function openTransfer(id) {
  conversationID = id;
  drawn = false;
  const error = byId("transfer-error");
  error.hidden = true;
  byId("transfer-note").value = notes.get(id) ?? "";
  markNote(null);
  replaceChildren(byId("transfer-agents"), h("li", {}, "Loading…"));
  replaceChildren(byId("transfer-queues"));
  const closed = openDialog(byId("transfer-dialog"), { focus: byId("transfer-submit") });
  try {
    await refreshTeam();
    if (conversationID === id && !drawn) renderChoices({ focusFirst: true });
  } catch (failure) {
    error.textContent = `The team could not be loaded: ${failure.message}`;
    error.hidden = false;
  }
  await closed;
  conversationID = null;
  drawn = false;
}

/** Why an agent cannot take a conversation now (null when they can), as routing sees it. */
function unavailableReason(agent) {
  if (agent.disabled) return "disabled";
  if (!agent.connected) return "not connected";
  if (agent.availability === "offline") return "offline";
  if (agent.active_conversations >= agent.capacity) return "at capacity";
  return null;
}

/** Draws the choices from the store's team, keeping the one chosen (if still possible) and the keyboard. */
function renderChoices({ focusFirst = false } = {}) {
  const form = byId("transfer-form");
  const chosen = form.querySelector("input[name=target]:checked")?.value ?? null;
  const focused = form.contains(document.activeElement) && document.activeElement.name === "target" ? document.activeElement.value : null;
  const conversation = state.conversations.get(conversationID);
  const agents = state.team.agents.filter((agent) => agent.id !== state.me.id && agent.id !== conversation?.agent_id);
  replaceChildren(byId("transfer-agents"), agents.length === 0
    ? h("li", { class: "choice-note" }, "No other agents in this app.")
    : agents.map((agent) => {
      const reason = unavailableReason(agent);
      const id = `transfer-agent-${agent.id}`;
      return h("li", {},
        h("label", { for: id },
          h("input", { type: "radio", name: "target", id, value: `agent:${agent.id}`, disabled: Boolean(reason), dataset: { agentId: agent.id } }),
          h("span", {}, agent.name, " ",
            h("span", { class: "choice-note" },
              `${availabilityLabel(agent.availability)} · ${agent.active_conversations}/${agent.capacity}${reason ? ` · ${reason}` : ""}`))));
    }));
  replaceChildren(byId("transfer-queues"), state.team.queues.map((queue) => {
    const id = `transfer-queue-${queue.id}`;
    return h("li", {},
      h("label", { for: id },
        h("input", { type: "radio", name: "target", id, value: `queue:${queue.id}`, dataset: { queueId: queue.id } }),
        h("span", {}, queue.name, " ", h("span", { class: "choice-note" }, `${queue.waiting} waiting`))));
  }));
  drawn = true;
  const radio = (value) => value && [...form.querySelectorAll("input[name=target]:not(:disabled)")].find((input) => input.value === value);
  const again = radio(chosen);
  if (again) again.checked = true;
  const target = radio(focused) ?? (focusFirst ? form.querySelector("input[name=target]:not(:disabled)") : null);
  if (target) target.focus();
  else if (focused) byId("transfer-submit").focus(); // the focused choice became impossible: keep the keyboard in the dialog
}

/** Marks the note field as refused (with the words shown under the dialog) or clears the mark. */
function markNote(refused) {
  const note = byId("transfer-note");
  if (refused) {
    note.setAttribute("aria-invalid", "true");
    note.setAttribute("aria-errormessage", "transfer-error");
  } else {
    note.removeAttribute("aria-invalid");
    note.removeAttribute("aria-errormessage");
  }
}

async function submit() {
  const error = byId("transfer-error");
  const chosen = byId("transfer-form").querySelector("input[name=target]:checked");
  if (!chosen) {
    error.textContent = "Choose an agent or a queue.";
    error.hidden = false;
    return;
  }
  const [kind, target] = chosen.value.split(":");
  const body = kind === "agent" ? { agent_id: target } : { queue_id: target };
  // Empty after trimming is no note (the server agrees); the text itself goes as written.
  const note = byId("transfer-note").value;
  if (note.trim() !== "") body.note = note;
  const id = conversationID;
  const button = byId("transfer-submit");
  button.disabled = true;
  error.hidden = true;
  markNote(null);
  try {
    const conversation = await api("POST", `/v1/conversations/${id}/transfer`, body);
    upsertConversation(conversation);
    placeInLists(conversation);
    notes.delete(id);
    const label = chosen.closest("label").querySelector("span").firstChild.textContent;
    byId("transfer-dialog").close("done");
    const withNote = body.note ? " with your handover note" : "";
    toast(kind === "agent" ? `Transferred to ${label}${withNote}.` : `Transferred to the ${label} queue${withNote}.`);
  } catch (failure) {
    const noteRefused = Boolean(body.note) && (failure.code === "too_large" || (failure.status === 400 && /^note\b/.test(failure.message)));
    error.textContent = noteRefused
      ? `Not transferred: the handover note was refused (${failure.message}). Shorten it, or leave it empty; the conversation stays with you.`
      : {
        cannot_transfer: "That agent cannot take it now: offline, not connected, at capacity or disabled. Choose someone else or a queue.",
        invalid_state: "This conversation is no longer assigned to you.",
        not_found: "That agent or queue no longer exists.",
      }[failure.code] ?? failure.message;
    error.hidden = false;
    if (noteRefused) {
      markNote(true);
      byId("transfer-note").focus();
    } else {
      refreshTeam().catch(() => {});
    }
  } finally {
    button.disabled = false;
  }
}
