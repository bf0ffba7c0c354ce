// Admin: the app's agents (create, edit role/queues/capacity, disable/enable, reset password).
import { api } from "./api.js";
import { adminAction, cell, table, toolbar } from "./admin-ui.js";
import { confirmAction, openForm, showSecret } from "./dialogs.js";
import { h } from "./dom.js";
import { availabilityLabel } from "./format.js";
import { refreshTeam, state } from "./store.js";

const ROLES = [{ value: "agent", label: "Agent" }, { value: "admin", label: "Admin" }];

function fields(queues, agent = null) {
  const list = [
    { name: "name", label: "Name", value: agent?.name, required: true, maxlength: 100, autocomplete: "off" },
    { name: "email", label: "Email", type: "email", value: agent?.email, required: true, maxlength: 254, autocomplete: "off" },
    { name: "role", label: "Role", type: "select", value: agent?.role ?? "agent", options: ROLES },
    { name: "capacity", label: "Capacity", type: "number", value: String(agent?.capacity ?? 3), min: 0, max: 100,
      hint: "How many conversations routing gives this agent at once (0 to 100)." },
    { name: "queue_ids", label: "Queues", type: "checkboxes", value: agent?.queue_ids ?? queues.map((queue) => queue.id),
      options: queues.map((queue) => ({ value: queue.id, label: queue.name })) },
  ];
  if (!agent) {
    list.push({ name: "password", label: "Password (optional)", type: "password", autocomplete: "new-password",
      hint: "Leave empty to have one generated and shown once. 8 to 200 characters." });
  }
  return list;
}

function check(values) {
  if (!values.name.trim()) throw new Error("The name is required.");
  if (!/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(values.email)) throw new Error("Enter a valid email address.");
  if (!Number.isInteger(values.capacity) || values.capacity < 0 || values.capacity > 100) throw new Error("Capacity is a whole number from 0 to 100.");
  if (values.password && (values.password.length < 8 || values.password.length > 200)) throw new Error("A password has 8 to 200 characters.");
}

export async function renderAgents(reload) {
  const app = state.me.app_id;
  const base = `/v1/admin/apps/${app}/agents`;
  const [{ agents }, { queues }] = await Promise.all([api("GET", base), api("GET", `/v1/admin/apps/${app}/queues`)]);
  const queueNames = new Map(queues.map((queue) => [queue.id, queue.name]));

  const create = async () => {
    const created = await openForm({
      title: "New agent",
      submitLabel: "Create agent",
      fields: fields(queues),
      submit: (values) => {
        check(values);
        const body = { name: values.name, email: values.email, role: values.role, capacity: values.capacity, queue_ids: values.queue_ids };
        if (values.password) body.password = values.password;
        return api("POST", base, body);
      },
    });
    if (!created) return;
    await adminAction(() => refreshTeam(), `${created.agent.name} can now sign in.`, reload);
    if (created.generated_password) {
      await showSecret({ title: `Password for ${created.agent.name}`, text: `Give it to ${created.agent.email}; it is shown only this once.`, value: created.generated_password });
    }
  };

  const edit = async (agent) => {
    const saved = await openForm({
      title: `Edit ${agent.name}`,
      fields: fields(queues, agent),
      submit: (values) => {
        check(values);
        return api("PATCH", `${base}/${agent.id}`, { name: values.name, email: values.email, role: values.role, capacity: values.capacity, queue_ids: values.queue_ids });
      },
    });
    if (saved) await adminAction(() => refreshTeam(), `${saved.name} saved.`, reload);
  };

  const setDisabled = async (agent, disabled) => {
    if (disabled) {
      const confirmed = await confirmAction({
        title: `Disable ${agent.name}?`,
        text: "They are signed out everywhere at once and cannot sign in. Their conversations go back to the queue after the grace time.",
        confirm: "Disable",
        danger: true,
      });
      if (!confirmed) return;
    }
    await adminAction(async () => {
      await api("PATCH", `${base}/${agent.id}`, { disabled });
      await refreshTeam();
    }, `${agent.name} ${disabled ? "disabled" : "enabled"}.`, reload);
  };

  const resetPassword = async (agent) => {
    const confirmed = await confirmAction({
      title: `Reset the password of ${agent.name}?`,
      text: "A new password is generated and shown once. The old one stops working and they are signed out everywhere.",
      confirm: "Reset password",
      danger: true,
    });
    if (!confirmed) return;
    const answer = await adminAction(() => api("POST", `${base}/${agent.id}/reset-password`), null, reload);
    if (answer) await showSecret({ title: `New password for ${answer.agent.name}`, text: `Give it to ${answer.agent.email}; it is shown only this once.`, value: answer.generated_password });
  };

  const rows = agents.map((agent) => {
    const self = agent.id === state.me.id;
    return h("tr", { class: agent.disabled ? "is-disabled" : "", dataset: { agentId: agent.id, email: agent.email } },
      cell("Name", agent.name, self ? " (you)" : ""),
      cell("Email", agent.email),
      cell("Role", agent.role === "admin" ? "Admin" : "Agent"),
      cell("Queues", agent.queue_ids.map((id) => queueNames.get(id) ?? id).join(", ") || "None"),
      cell("Capacity", String(agent.capacity)),
      cell("Status", agent.disabled ? "Disabled" : availabilityLabel(agent.availability)),
      h("td", { class: "actions" },
        h("button", { class: "button small", type: "button", "aria-label": `Edit ${agent.email}`, onclick: () => edit(agent) }, "Edit"),
        self ? null : h("button", {
          class: `button small${agent.disabled ? "" : " danger"}`, type: "button",
          "aria-label": `${agent.disabled ? "Enable" : "Disable"} ${agent.email}`,
          onclick: () => setDisabled(agent, !agent.disabled),
        }, agent.disabled ? "Enable" : "Disable"),
        h("button", { class: "button small", type: "button", "aria-label": `Reset password of ${agent.email}`, onclick: () => resetPassword(agent) }, "Reset password")));
  });

  return [
    toolbar("Agents answer conversations from their queues; admins also manage the app.",
      h("button", { class: "button primary", type: "button", onclick: create }, "New agent")),
    table(`${agents.length} agent${agents.length === 1 ? "" : "s"}`, ["Name", "Email", "Role", "Queues", "Capacity", "Status", "Actions"], rows),
  ];
}
