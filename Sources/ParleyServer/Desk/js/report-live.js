// The Reports page's "Right now": each agent's availability, connection and load (conversations
// held of their capacity), each queue's waiting and open conversations (GET /v1/team and
// GET /v1/desk/counts). Read again, debounced, after a `conversation` frame (an assignment, a
// transfer, an end moves load and queues) and on reconnect. Availability, profiles and connections
// come with `team` frames: sync.js reads the team again on each (coalesced), and the panel redraws
// whenever the store's team changes. No timer: nothing here waits on the clock.
import { api, ApiError } from "./api.js";
import { cell, table } from "./admin-ui.js";
import { on } from "./bus.js";
import { h, replaceChildren } from "./dom.js";
import { availabilityLabel } from "./format.js";
import { refreshTeam, state } from "./store.js";

const CHANGES = new Set(["conversation"]);
const DEBOUNCE_MS = 250;

/** The panel: `{element, refresh(), stop()}`. It follows the server until `stop()`. */
export function livePanel() {
  const summary = h("p", { id: "report-live-summary", class: "report-live-summary" });
  const agents = h("div", { id: "report-live-agents" });
  const queues = h("div", { id: "report-live-queues" });
  const updated = h("span", { id: "report-live-updated", class: "field-hint" });
  const error = h("p", { id: "report-live-error", class: "form-error", role: "alert", hidden: true });
  const element = h("section", { id: "report-live", class: "card report-live", "aria-labelledby": "report-live-title", "aria-busy": "false" },
    h("div", { class: "report-heading" },
      h("h3", { id: "report-live-title" }, "Right now"),
      h("div", { class: "report-live-tools" }, updated,
        h("button", { id: "report-live-refresh", class: "button small", type: "button", onclick: () => refresh() }, "Refresh"))),
    summary, error, h("div", { class: "report-live-tables" }, agents, queues));

  let counts = null;
  let stopped = false;
  let debounce = null;
  let generation = 0;

  const render = () => {
    if (stopped) return;
    updated.textContent = `Updated ${new Date().toLocaleTimeString()}`;
    const team = state.team.agents.filter((agent) => !agent.disabled);
    const online = team.filter((agent) => agent.availability === "online").length;
    const connected = team.filter((agent) => agent.connected).length;
    const waiting = state.team.queues.reduce((sum, queue) => sum + queue.waiting, 0);
    summary.textContent = `${online} of ${team.length} agent${team.length === 1 ? "" : "s"} online, ${connected} connected; `
      + `${waiting} conversation${waiting === 1 ? "" : "s"} waiting.`;
    replaceChildren(agents, table("Agents", ["Agent", "Availability", "Connected", "Load"], team.length === 0
      ? [h("tr", {}, h("td", { colspan: 4, class: "empty" }, "No agents."))]
      : team.map(agentRow)));
    replaceChildren(queues, table("Queues", ["Queue", "Waiting", "Open"], state.team.queues.length === 0
      ? [h("tr", {}, h("td", { colspan: 3, class: "empty" }, "No queues."))]
      : state.team.queues.map((queue) => h("tr", { dataset: { queueId: queue.id, waiting: queue.waiting } },
        cell("Queue", queue.name),
        cell("Waiting", String(queue.waiting)),
        cell("Open", counts ? String(counts.by_queue?.[queue.id] ?? 0) : "—")))));
  };

  async function refresh() {
    if (stopped) return;
    const mine = ++generation;
    element.setAttribute("aria-busy", "true");
    try {
      const [answer] = await Promise.all([api("GET", "/v1/desk/counts"), refreshTeam()]);
      if (stopped || mine !== generation) return;
      counts = answer;
      error.hidden = true;
      render();
    } catch (failure) {
      if (stopped || mine !== generation || (failure instanceof ApiError && failure.status === 401)) return;
      error.textContent = `Not updated: ${failure.message}`;
      error.hidden = false;
    } finally {
      if (mine === generation) element.setAttribute("aria-busy", "false");
    }
  }

  const soon = () => {
    clearTimeout(debounce);
    debounce = setTimeout(refresh, DEBOUNCE_MS);
  };
  const subscriptions = [
    on("server-frame", (type) => CHANGES.has(type) && soon()),
    on("connection", (value) => value === "ready" && soon()),
    // The team read again (a `team` frame, my own availability, a reconnect): show it.
    on("team", render),
  ];

  return {
    element,
    refresh,
    stop() {
      stopped = true;
      clearTimeout(debounce);
      subscriptions.forEach((off) => off());
    },
  };
}

function agentRow(agent) {
  const capacity = Math.max(0, agent.capacity);
  const load = `${agent.active_conversations} of ${capacity}`;
  return h("tr", { dataset: { agentId: agent.id, availability: agent.availability, connected: String(agent.connected), active: agent.active_conversations } },
    cell("Agent", agent.name, agent.id === state.me?.id ? h("span", { class: "field-hint" }, " (you)") : null),
    cell("Availability", h("span", { class: `presence presence-${agent.availability}` }, availabilityLabel(agent.availability))),
    cell("Connected", agent.connected ? "Yes" : "No"),
    cell("Load", h("span", { class: "report-load" },
      h("meter", { min: 0, max: Math.max(1, capacity), value: Math.min(agent.active_conversations, Math.max(1, capacity)),
        low: Math.max(1, capacity) * 0.6, high: Math.max(1, capacity) * 0.9, optimum: 0, "aria-label": `Load of ${agent.name}: ${load}` }),
      h("span", { class: "report-load-text" }, load))));
}
