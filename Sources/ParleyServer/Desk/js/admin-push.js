// Admin: push notifications (GET/PATCH /v1/admin/apps/{app}/push): the APNs key and the Firebase
// service account (each sent once, sealed by the server and never shown again; replaced or
// removed), message previews on or off, and the latest pushes with every attempt. The server's 400
// is shown as it is and changes nothing.
import { api } from "./api.js";
import { adminAction, cell, saveSettings, table, toolbar } from "./admin-ui.js";
import { confirmAction } from "./dialogs.js";
import { byId, h } from "./dom.js";
import { shortTime } from "./format.js";
import { state } from "./store.js";

const KINDS = {
  message: "Message",
  page: "Page pushed",
  ended: "Conversation ended",
  transferred: "Transferred",
};

/** A delivery's status in words: "Delivered", "Skipped: …", "Failed: …", "Pending, next try at …". */
function statusText(delivery) {
  switch (delivery.status) {
    case "delivered": return "Delivered";
    case "skipped": return `Skipped: ${delivery.last_error ?? "not wanted any more"}`;
    case "failed": return `Failed: ${delivery.last_error ?? "no reason given"}`;
    default: return delivery.next_attempt_at ? `Pending, next try at ${shortTime(delivery.next_attempt_at)}` : "Pending";
  }
}

function attemptAnswer(attempt) {
  return attempt.status ? `HTTP ${attempt.status}` : "no answer";
}

function attemptsDetails(delivery) {
  const count = `${delivery.attempts.length} attempt${delivery.attempts.length === 1 ? "" : "s"}`;
  if (delivery.attempts.length === 0) return count;
  return h("details", { class: "push-delivery-details" },
    h("summary", {}, count),
    h("ol", { class: "push-attempts" }, delivery.attempts.map((attempt) => h("li", {},
      `${shortTime(attempt.at)} · ${attemptAnswer(attempt)} · ${attempt.duration_ms} ms`,
      attempt.error ? h("p", { class: "push-attempt-error" }, attempt.error) : null,
      attempt.response ? h("pre", { class: "push-response" }, attempt.response) : null))));
}

/** A label and its value, for what is set up (never a key). */
function facts(entries) {
  return h("dl", { class: "push-facts" }, entries.flatMap(([term, value]) => [h("dt", {}, term), h("dd", {}, value)]));
}

const hint = (id, text) => h("span", { class: "field-hint", id: `${id}-hint` }, text);

function textField(id, label, value, text, attributes = {}) {
  return h("div", { class: "field" },
    h("label", { for: id }, label),
    h("input", { id, value: value ?? "", autocomplete: "off", spellcheck: "false", "aria-describedby": `${id}-hint`, ...attributes }),
    hint(id, text));
}

/** A file input that puts the chosen file's text into `textarea` (read in the browser, sent on save only). */
function fileField(id, label, accept, textareaId, text) {
  const read = async (event) => {
    const file = event.target.files?.[0];
    if (file) byId(textareaId).value = await file.text();
    event.target.value = "";
  };
  return h("div", { class: "field" },
    h("label", { for: id }, label),
    h("input", { id, type: "file", accept, "aria-describedby": `${id}-hint`, onchange: read }),
    hint(id, text));
}

function secretField(id, label, placeholder, text) {
  return h("div", { class: "field" },
    h("label", { for: id }, label),
    h("textarea", { id, rows: 6, spellcheck: "false", autocomplete: "off", class: "push-secret", placeholder, "aria-describedby": `${id}-hint` }),
    hint(id, text));
}

function apnsCard(path, settings, reload) {
  const apns = settings.apns;
  const error = h("p", { class: "form-error", id: "push-apns-error", role: "alert", hidden: true });
  const save = async () => {
    const body = {
      team_id: byId("push-apns-team-id").value.trim(),
      key_id: byId("push-apns-key-id").value.trim(),
      topic: byId("push-apns-topic").value.trim(),
      private_key: byId("push-apns-key").value.trim(),
    };
    // The key leaves the page with this request; a refusal leaves it for correcting.
    await saveSettings(`${path}/apns`, body, error, "APNs key saved.", reload);
  };
  const remove = async () => {
    const confirmed = await confirmAction({ title: "Remove the APNs key?", text: "Apple devices get no more pushes until a key is set again.", confirm: "Remove", danger: true });
    if (confirmed) await adminAction(() => api("DELETE", `${path}/apns`), "APNs key removed.", reload);
  };
  return h("section", { class: "card push-provider", id: "push-apns", "aria-labelledby": "push-apns-title" },
    h("h3", { id: "push-apns-title" }, "Apple Push Notification service (APNs)"),
    h("div", { id: "push-apns-status" }, apns
      ? facts([["Team ID", apns.team_id], ["Key ID", apns.key_id], ["Topic", apns.topic], ["Updated", shortTime(apns.updated_at)]])
      : h("p", {}, "Not set up: Apple devices get no pushes.")),
    textField("push-apns-team-id", "Team ID", apns?.team_id, "10 capital letters and digits, from the Apple developer account.", { maxlength: 10 }),
    textField("push-apns-key-id", "Key ID", apns?.key_id, "The key's 10-character id.", { maxlength: 10 }),
    textField("push-apns-topic", "Topic", apns?.topic, "The app's bundle id, such as com.example.app.", { maxlength: 255 }),
    fileField("push-apns-key-file", "Key file (.p8)", ".p8,text/plain", "push-apns-key", "Read here in the browser into the box below."),
    secretField("push-apns-key", "Private key", "-----BEGIN PRIVATE KEY-----",
      apns ? "Sent once and never shown again. The stored key is kept until you save a new one." : "Sent once and never shown again."),
    error,
    h("div", { class: "row" },
      h("button", { class: "button primary", type: "button", id: "push-apns-save", onclick: save }, apns ? "Replace APNs key" : "Save APNs key"),
      apns ? h("button", { class: "button danger", type: "button", id: "push-apns-remove", onclick: remove }, "Remove APNs key") : null));
}

function fcmCard(path, settings, reload) {
  const fcm = settings.fcm;
  const error = h("p", { class: "form-error", id: "push-fcm-error", role: "alert", hidden: true });
  const save = async () => {
    error.hidden = true;
    let account;
    try {
      account = JSON.parse(byId("push-fcm-account").value);
    } catch (failure) {
      account = failure;
    }
    if (account === null || typeof account !== "object" || Array.isArray(account) || account instanceof Error) {
      error.textContent = `Not saved: the service account must be the JSON key file's object${account instanceof Error ? ` (${account.message})` : ""}.`;
      error.hidden = false;
      return;
    }
    await saveSettings(`${path}/fcm`, { service_account: account }, error, "Firebase service account saved.", reload);
  };
  const remove = async () => {
    const confirmed = await confirmAction({ title: "Remove the Firebase service account?", text: "Android devices get no more pushes until an account is set again.", confirm: "Remove", danger: true });
    if (confirmed) await adminAction(() => api("DELETE", `${path}/fcm`), "Firebase service account removed.", reload);
  };
  return h("section", { class: "card push-provider", id: "push-fcm", "aria-labelledby": "push-fcm-title" },
    h("h3", { id: "push-fcm-title" }, "Firebase Cloud Messaging (FCM)"),
    h("div", { id: "push-fcm-status" }, fcm
      ? facts([["Project", fcm.project_id], ["Service account", fcm.client_email], ["Updated", shortTime(fcm.updated_at)]])
      : h("p", {}, "Not set up: Android devices get no pushes.")),
    fileField("push-fcm-file", "Service account key file (.json)", ".json,application/json", "push-fcm-account",
      "Read here in the browser into the box below."),
    secretField("push-fcm-account", "Service account JSON", "{\"type\": \"service_account\", …}",
      fcm ? "Sent once and never shown again. The stored account is kept until you save a new one." : "Sent once and never shown again."),
    error,
    h("div", { class: "row" },
      h("button", { class: "button primary", type: "button", id: "push-fcm-save", onclick: save }, fcm ? "Replace service account" : "Save service account"),
      fcm ? h("button", { class: "button danger", type: "button", id: "push-fcm-remove", onclick: remove }, "Remove service account") : null));
}

function previewsCard(path, settings, reload) {
  const change = (event) => {
    const previews = event.target.checked;
    return adminAction(() => api("PATCH", path, { previews }), previews ? "Notifications show message previews." : "Notifications show no message text.", reload);
  };
  return h("div", { class: "card" },
    h("div", { class: "field" },
      h("label", { class: "field-inline", for: "push-previews" },
        h("input", { type: "checkbox", id: "push-previews", checked: settings.previews, "aria-describedby": "push-previews-hint", onchange: change }),
        "Show message previews in notifications"),
      hint("push-previews", "Off: a notification says who wrote, not what they wrote.")));
}

function deliveriesSection(deliveries, reload) {
  return h("section", { class: "push-deliveries", id: "push-deliveries", "aria-labelledby": "push-deliveries-title" },
    h("div", { class: "toolbar" },
      h("h3", { id: "push-deliveries-title" }, "Recent pushes"),
      h("div", {}, h("button", { class: "button", type: "button", id: "push-deliveries-reload", onclick: () => reload() }, "Reload"))),
    table(`${deliveries.length} recent push${deliveries.length === 1 ? "" : "es"}, newest first`,
      ["Kind", "Device", "Conversation", "Status", "Attempts", "Last error", "Created"],
      deliveries.map((delivery) => h("tr", { dataset: { deliveryId: delivery.id, deviceId: delivery.device_id, status: delivery.status } },
        cell("Kind", KINDS[delivery.kind] ?? delivery.kind),
        cell("Device", h("span", { class: "mono" }, delivery.device_id)),
        cell("Conversation", h("a", { class: "mono", href: `#/c/${delivery.conversation_id}` }, delivery.conversation_id)),
        cell("Status", statusText(delivery)),
        cell("Attempts", attemptsDetails(delivery)),
        cell("Last error", delivery.last_error ?? "—"),
        cell("Created", shortTime(delivery.created_at))))));
}

export async function renderPush(reload) {
  const path = `/v1/admin/apps/${state.me.app_id}/push`;
  const [settings, { deliveries }] = await Promise.all([api("GET", path), api("GET", `${path}/deliveries?limit=50`)]);
  return [
    toolbar("Notifications to visitors' phones when an agent writes, pushes a page, transfers or ends a conversation while the app "
      + "is not in front. Keys are sealed at rest and never shown again."),
    h("div", { class: "push-providers" }, apnsCard(path, settings, reload), fcmCard(path, settings, reload)),
    previewsCard(path, settings, reload),
    deliveriesSection(deliveries, reload),
  ];
}
