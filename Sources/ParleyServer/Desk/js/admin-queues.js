// Admin: the app's queues (create, rename).
import { api } from "./api.js";
import { adminAction, cell, table, toolbar } from "./admin-ui.js";
import { openForm } from "./dialogs.js";
import { h } from "./dom.js";
import { longTime } from "./format.js";
import { refreshTeam, state } from "./store.js";

export async function renderQueues(reload) {
  const app = state.me.app_id;
  const { queues } = await api("GET", `/v1/admin/apps/${app}/queues`);
  const create = () => openForm({
    title: "New queue",
    submitLabel: "Create queue",
    fields: [{ name: "name", label: "Name", required: true, maxlength: 100 }],
    submit: (values) => api("POST", `/v1/admin/apps/${app}/queues`, { name: values.name }),
  }).then((queue) => queue && adminAction(() => refreshTeam(), `Queue “${queue.name}” created.`, reload));
  const rename = (queue) => openForm({
    title: `Rename “${queue.name}”`,
    fields: [{ name: "name", label: "Name", value: queue.name, required: true, maxlength: 100 }],
    submit: (values) => api("PATCH", `/v1/admin/apps/${app}/queues/${queue.id}`, { name: values.name }),
  }).then((saved) => saved && adminAction(() => refreshTeam(), "Queue renamed.", reload));

  return [
    toolbar("Visitors open conversations in a queue; agents take conversations from the queues they belong to.",
      h("button", { class: "button primary", type: "button", onclick: create }, "New queue")),
    table(`${queues.length} queue${queues.length === 1 ? "" : "s"}`, ["Name", "Id", "Created", "Actions"],
      queues.map((queue) => h("tr", { dataset: { queueId: queue.id } },
        cell("Name", queue.name),
        cell("Id", h("span", { class: "mono" }, queue.id)),
        cell("Created", longTime(queue.created_at)),
        h("td", { class: "actions" },
          h("button", { class: "button small", type: "button", "aria-label": `Rename ${queue.name}`, onclick: () => rename(queue) }, "Rename"))))),
  ];
}
