// Admin: webhook endpoints (create with the secret shown once, edit, rotate the secret, enable,
// delete) and one endpoint's deliveries, with the request sent, every attempt, and a resend.
import { api } from "./api.js";
import { adminAction, cell, table, toolbar } from "./admin-ui.js";
import { confirmAction, openForm, showSecret } from "./dialogs.js";
import { h } from "./dom.js";
import { shortTime } from "./format.js";
import { state } from "./store.js";

const EVENTS = [
  ["message.created", "Message written"],
  ["conversation.started", "Conversation started"],
  ["conversation.assigned", "Conversation assigned"],
  ["conversation.ended", "Conversation ended"],
  ["rating.created", "Rating given"],
  ["form.submitted", "Form answered"],
  ["callback.requested", "Callback requested"],
  ["callback.offered", "Callback offered to the visitor"],
  ["callback.confirmed", "Callback confirmed"],
  ["callback.snoozed", "Callback snoozed"],
  ["callback.requeued", "Callback back in its queue"],
  ["callback.due", "Scheduled callback due"],
  ["callback.cancelled", "Callback cancelled"],
  ["callback.expired", "Callback expired"],
  ["callback.completed", "Callback done"],
  ["callback.rescheduled", "Callback rescheduled"],
];

/** The endpoint whose deliveries are shown, kept across reloads of the page. */
let selected = null;

function fields(endpoint = {}) {
  return [
    { name: "url", label: "URL", value: endpoint.url, required: true, maxlength: 2000,
      hint: "https:// on a public address. Events are POSTed there, signed per Standard Webhooks." },
    { name: "events", label: "Events", type: "checkboxes", value: endpoint.events ?? [],
      options: EVENTS.map(([value, label]) => ({ value, label })), hint: "None ticked: every event." },
    { name: "description", label: "Description", value: endpoint.description, maxlength: 500 },
  ];
}

function eventsText(events) {
  return events.length === 0 ? "All events" : events.join(", ");
}

function attemptText(attempt) {
  if (!attempt) return "—";
  return attempt.status ? `HTTP ${attempt.status}` : (attempt.error ?? "no answer");
}

function deliveryDetails(delivery) {
  return h("details", { class: "webhook-delivery-details" },
    h("summary", {}, "Request and attempts"),
    h("p", { class: "mono" }, `webhook-id: ${delivery.webhook_id}`),
    h("pre", { class: "webhook-request" }, delivery.request ?? "(not sent yet)"),
    h("ol", { class: "webhook-attempts" }, delivery.attempts.map((attempt) => h("li", {},
      `${shortTime(attempt.at)} · ${attemptText(attempt)} · ${attempt.duration_ms} ms`,
      attempt.response ? h("pre", { class: "webhook-response" }, attempt.response) : null))));
}

async function deliveriesSection(base, endpoint, reload) {
  const { deliveries } = await api("GET", `${base}/${endpoint.id}/deliveries?limit=50`);
  const resend = (delivery) => adminAction(
    () => api("POST", `${base}/${endpoint.id}/deliveries/${encodeURIComponent(delivery.id)}/resend`),
    "Delivery queued again, with the same webhook-id.", reload);
  return h("section", { class: "card", id: "webhook-deliveries", "aria-labelledby": "webhook-deliveries-title" },
    h("h3", { id: "webhook-deliveries-title" }, `Deliveries to ${endpoint.url}`),
    table(`${deliveries.length} recent deliver${deliveries.length === 1 ? "y" : "ies"}`, ["Event", "Status", "Attempts", "Last answer", "Created", "Actions"],
      deliveries.map((delivery) => h("tr", { dataset: { deliveryId: delivery.id, status: delivery.status } },
        cell("Event", delivery.type),
        cell("Status", delivery.status),
        cell("Attempts", String(delivery.attempts.length)),
        h("td", { dataset: { label: "Last answer" } }, attemptText(delivery.attempts.at(-1)), deliveryDetails(delivery)),
        cell("Created", shortTime(delivery.created_at)),
        h("td", { class: "actions" },
          h("button", { class: "button small", type: "button", "aria-label": `Resend ${delivery.type} ${delivery.webhook_id}`,
            onclick: () => resend(delivery) }, "Resend"))))));
}

export async function renderWebhooks(reload) {
  const base = `/v1/admin/apps/${state.me.app_id}/webhooks`;
  const { webhooks } = await api("GET", base);
  if (selected && !webhooks.some((endpoint) => endpoint.id === selected)) selected = null;

  const create = async () => {
    const created = await openForm({ title: "New webhook endpoint", submitLabel: "Create", fields: fields(), submit: (values) => api("POST", base, values) });
    if (!created) return;
    await showSecret({ title: "Signing secret", text: "Copy it now: it is shown only this once. Receivers verify each request with it.", value: created.secret });
    selected = created.endpoint.id;
    await reload();
  };
  const edit = (endpoint) => openForm({ title: "Edit webhook endpoint", fields: fields(endpoint), submit: (values) => api("PATCH", `${base}/${endpoint.id}`, values) })
    .then((saved) => saved && adminAction(async () => {}, "Endpoint saved.", reload));
  const rotate = async (endpoint) => {
    const confirmed = await confirmAction({ title: "Rotate the signing secret?", text: "Requests are signed with both the old and the new secret for a while, then with the new one only.", confirm: "Rotate secret" });
    if (!confirmed) return;
    const rotated = await adminAction(() => api("POST", `${base}/${endpoint.id}/rotate-secret`));
    if (rotated) await showSecret({ title: "New signing secret", text: "Copy it now: it is shown only this once.", value: rotated.secret });
    await reload();
  };
  const enable = (endpoint) => adminAction(() => api("POST", `${base}/${endpoint.id}/enable`), "Endpoint enabled: waiting deliveries are tried now.", reload);
  const disable = (endpoint) => adminAction(() => api("PATCH", `${base}/${endpoint.id}`, { enabled: false }), "Endpoint disabled.", reload);
  const remove = async (endpoint) => {
    const confirmed = await confirmAction({ title: "Delete this endpoint?", text: `${endpoint.url} gets no more events; its waiting deliveries are given up.`, confirm: "Delete", danger: true });
    if (confirmed) await adminAction(() => api("DELETE", `${base}/${endpoint.id}`), "Endpoint deleted.", reload);
  };
  const show = (endpoint) => { selected = endpoint.id; return reload(); };

  const content = [
    toolbar("Endpoints that receive this app's events, signed per Standard Webhooks and retried with backoff.",
      h("button", { class: "button primary", type: "button", id: "webhook-create", onclick: create }, "New endpoint")),
    table(`${webhooks.length} endpoint${webhooks.length === 1 ? "" : "s"}`, ["URL", "Events", "Status", "Actions"],
      webhooks.map((endpoint) => h("tr", { dataset: { webhookId: endpoint.id } },
        cell("URL", h("span", { class: "mono" }, endpoint.url)),
        cell("Events", eventsText(endpoint.events)),
        cell("Status", endpoint.enabled ? "Enabled" : `Disabled: ${endpoint.disabled_reason ?? ""}`),
        h("td", { class: "actions" },
          h("button", { class: "button small", type: "button", "aria-label": `Deliveries to ${endpoint.url}`, onclick: () => show(endpoint) }, "Deliveries"),
          h("button", { class: "button small", type: "button", "aria-label": `Edit ${endpoint.url}`, onclick: () => edit(endpoint) }, "Edit"),
          h("button", { class: "button small", type: "button", "aria-label": `Rotate the secret of ${endpoint.url}`, onclick: () => rotate(endpoint) }, "Rotate secret"),
          endpoint.enabled
            ? h("button", { class: "button small", type: "button", "aria-label": `Disable ${endpoint.url}`, onclick: () => disable(endpoint) }, "Disable")
            : h("button", { class: "button small", type: "button", "aria-label": `Enable ${endpoint.url}`, onclick: () => enable(endpoint) }, "Enable"),
          h("button", { class: "button small danger", type: "button", "aria-label": `Delete ${endpoint.url}`, onclick: () => remove(endpoint) }, "Delete"))))),
  ];
  const endpoint = webhooks.find((candidate) => candidate.id === selected);
  if (endpoint) content.push(await deliveriesSection(base, endpoint, reload));
  return content;
}
