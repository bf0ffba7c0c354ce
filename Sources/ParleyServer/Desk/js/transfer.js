// Transfer dialog: hand the conversation to another agent (who is available is shown) or a queue.
import { api } from "./api.js";
import { toast } from "./cues.js";
import { openDialog } from "./dialogs.js";
import { byId, h, replaceChildren } from "./dom.js";
import { availabilityLabel } from "./format.js";
import { placeInLists, refreshTeam, state, upsertConversation } from "./store.js";

let conversationID = null;

export function initTransfer() {
  byId("transfer-form").addEventListener("submit", (event) => {
    event.preventDefault();
    submit();
  });
}

export async function openTransfer(id) {
  conversationID = id;
  const error = byId("transfer-error");
  error.hidden = true;
  replaceChildren(byId("transfer-agents"), h("li", {}, "Loading…"));
  replaceChildren(byId("transfer-queues"));
  const closed = openDialog(byId("transfer-dialog"), { focus: byId("transfer-submit") });
  try {
    await refreshTeam();
    renderChoices();
  } catch (failure) {
    error.textContent = `The team could not be loaded: ${failure.message}`;
    error.hidden = false;
  }
  await closed;
  conversationID = null;
}

/** Why an agent cannot take a conversation now (null when they can), as routing sees it. */
function unavailableReason(agent) {
  if (agent.disabled) return "disabled";
  if (!agent.connected) return "not connected";
  if (agent.availability === "offline") return "offline";
  if (agent.active_conversations >= agent.capacity) return "at capacity";
  return null;
}

function renderChoices() {
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
  const first = byId("transfer-form").querySelector("input[name=target]:not(:disabled)");
  if (first) first.focus();
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
  const button = byId("transfer-submit");
  button.disabled = true;
  error.hidden = true;
  try {
    const conversation = await api("POST", `/v1/conversations/${conversationID}/transfer`, body);
    upsertConversation(conversation);
    placeInLists(conversation);
    const label = chosen.closest("label").querySelector("span").firstChild.textContent;
    byId("transfer-dialog").close("done");
    toast(kind === "agent" ? `Transferred to ${label}.` : `Transferred to the ${label} queue.`);
  } catch (failure) {
    error.textContent = {
      cannot_transfer: "That agent cannot take it now: offline, not connected, at capacity or disabled. Choose someone else or a queue.",
      invalid_state: "This conversation is no longer assigned to you.",
      not_found: "That agent or queue no longer exists.",
    }[failure.code] ?? failure.message;
    error.hidden = false;
    refreshTeam().then(renderChoices, () => {});
  } finally {
    button.disabled = false;
  }
}
