// Admin: callback requests. A queue's settings (GET/PUT /v1/admin/apps/{app}/queues/{queue}/callbacks):
// on or off, the seconds a visitor has to confirm an offer, the snooze minutes, what an unconfirmed
// offer does, the number "I will call" visitors dial. Below them the dialogs' words per language
// (admin-callback-texts.js). The two cards save on their own and update only themselves, so a
// save in one never throws away what is being typed in the other. The server's 400 names the field
// at fault: it is shown as it is, the field is marked, and nothing changes.
import { api, ApiError } from "./api.js";
import { adminAction, toolbar } from "./admin-ui.js";
import { callbackTextsCard } from "./admin-callback-texts.js";
import { byId, h } from "./dom.js";
import { state } from "./store.js";

/** The queue on screen; kept across re-renders of the page. */
let chosenQueue = null;

/** The settings' wire names and the controls that edit them (for marking the field a 400 names). */
const CONTROLS = {
  enabled: "callbacks-enabled",
  offer_seconds: "callbacks-offer-seconds",
  snooze_minutes: "callbacks-snooze-minutes",
  on_expiry: "callbacks-expiry-requeue",
  dial_number: "callbacks-dial-number",
};

export async function renderCallbacks() {
  const app = state.me.app_id;
  const [{ queues }, texts] = await Promise.all([
    api("GET", `/v1/admin/apps/${app}/queues`),
    api("GET", `/v1/admin/apps/${app}/callback-texts`),
  ]);
  if (!queues.some((queue) => queue.id === chosenQueue)) chosenQueue = queues[0]?.id ?? null;
  const settings = chosenQueue ? await api("GET", settingsPath(app, chosenQueue)) : null;
  return [
    toolbar("Visitors may ask to be called, to call the queue themselves, or to be told when an agent is free, instead of "
      + "waiting in a chat. A request waits in its queue like a chat; when an agent is free, the visitor is asked to confirm."),
    chosenQueue ? settingsCard(app, queues, settings) : h("p", { class: "empty" }, "No queues yet."),
    callbackTextsCard(app, texts),
  ];
}

function settingsPath(app, queue) {
  return `/v1/admin/apps/${app}/queues/${queue}/callbacks`;
}

/** The settings in words, as stored: "On. 60 seconds to confirm an offer; …". */
function describeSettings(settings) {
  if (!settings.enabled) return "Off: visitors cannot ask this queue for callbacks.";
  const expiry = settings.on_expiry === "end" ? "an unconfirmed offer ends the request" : "an unconfirmed offer goes back to the queue, keeping its place";
  const dial = settings.dial_number ? `visitors who call dial ${settings.dial_number}` : "no number to dial: no “I will call” requests";
  return `On. ${settings.offer_seconds} seconds to confirm an offer; snooze ${settings.snooze_minutes} min; ${expiry}; ${dial}.`;
}

function settingsCard(app, queues, settings) {
  const hint = (id, text) => h("span", { class: "field-hint", id: `${id}-hint` }, text);
  const number = (id, label, value, min, max, text) => h("div", { class: "field" },
    h("label", { for: id }, label),
    h("input", { id, type: "number", min, max, step: 1, inputmode: "numeric", value: String(value), autocomplete: "off", "aria-describedby": `${id}-hint` }),
    hint(id, text));
  const radio = (value, label) => h("label", { class: "field-inline", for: `callbacks-expiry-${value}` },
    h("input", { type: "radio", name: "callbacks-expiry", id: `callbacks-expiry-${value}`, value, checked: settings.on_expiry === value }), label);

  const status = h("p", { id: "callbacks-status", class: "field-hint" }, describeSettings(settings));
  const error = h("p", { class: "form-error", id: "callbacks-error", role: "alert", hidden: true });
  const saveButton = h("button", { class: "button primary", type: "button", id: "callbacks-save" }, "Save callback settings");
  const card = h("section", { class: "card callback-settings", id: "callbacks-settings", "aria-labelledby": "callbacks-settings-title", "aria-busy": "false" },
    h("h3", { id: "callbacks-settings-title" }, "Queue settings"),
    h("div", { class: "field" },
      h("label", { for: "callbacks-queue" }, "Queue"),
      h("select", { id: "callbacks-queue", onchange: (event) => switchQueue(event.target.value) },
        queues.map((queue) => h("option", { value: queue.id, selected: queue.id === chosenQueue }, queue.name)))),
    status,
    h("div", { class: "field" },
      h("label", { class: "field-inline", for: "callbacks-enabled" },
        h("input", { type: "checkbox", id: "callbacks-enabled", checked: settings.enabled, "aria-describedby": "callbacks-enabled-hint" }),
        "Visitors may ask this queue for callbacks"),
      hint("callbacks-enabled", "Off: a request for this queue is refused; requests already made go on.")),
    number("callbacks-offer-seconds", "Seconds to confirm an offer", settings.offer_seconds, 10, 3600,
      "10 to 3600. How long a visitor has to answer “An agent is available right now”; the agent’s slot is held meanwhile."),
    number("callbacks-snooze-minutes", "Snooze minutes", settings.snooze_minutes, 1, 240,
      "1 to 240. How long “No, try again later” waits; the request keeps its place in the queue."),
    h("fieldset", { class: "field", id: "callbacks-expiry" },
      h("legend", {}, "When an offer is not confirmed in time"),
      radio("requeue", "It goes back to the queue, keeping its place"),
      radio("end", "The request ends")),
    h("div", { class: "field" },
      h("label", { for: "callbacks-dial-number" }, "Number “I will call” visitors dial"),
      h("input", { id: "callbacks-dial-number", type: "tel", value: settings.dial_number ?? "", placeholder: "+4930901820", autocomplete: "off",
        spellcheck: "false", "aria-describedby": "callbacks-dial-number-hint" }),
      hint("callbacks-dial-number", "In international form (E.164), such as +4930901820; spaces are left out. Empty: the queue takes no “I will call” requests.")),
    h("p", { class: "field-hint", id: "callbacks-made-hint" },
      "Requests already made keep the settings of when they were made; changes apply to new requests."),
    error,
    h("div", { class: "row" }, saveButton));

  const markInvalid = (field) => {
    for (const id of Object.values(CONTROLS)) byId(id).removeAttribute("aria-invalid");
    const id = CONTROLS[field];
    if (!id) return;
    const control = byId(id);
    control.setAttribute("aria-invalid", "true");
    control.focus();
  };
  const refuse = (message, field) => {
    error.textContent = `Not saved: ${message}`;
    error.hidden = false;
    markInvalid(field);
  };
  /** Puts stored settings into the form (after a save or a change of queue). */
  const show = (stored) => {
    byId("callbacks-enabled").checked = stored.enabled;
    byId("callbacks-offer-seconds").value = String(stored.offer_seconds);
    byId("callbacks-snooze-minutes").value = String(stored.snooze_minutes);
    byId(`callbacks-expiry-${stored.on_expiry === "end" ? "end" : "requeue"}`).checked = true;
    byId("callbacks-dial-number").value = stored.dial_number ?? "";
    status.textContent = describeSettings(stored);
  };
  const busy = (on) => {
    card.setAttribute("aria-busy", on ? "true" : "false");
    saveButton.disabled = on;
    byId("callbacks-queue").disabled = on;
  };

  const switchQueue = async (queue) => {
    chosenQueue = queue;
    error.hidden = true;
    markInvalid(null);
    busy(true);
    try {
      const stored = await api("GET", settingsPath(app, queue));
      if (chosenQueue === queue && card.isConnected) show(stored);
    } catch (failure) {
      if (!(failure instanceof ApiError && failure.status === 401)) refuse(`could not load the queue’s settings: ${failure.message}`);
    } finally {
      busy(false);
      if (card.isConnected) byId("callbacks-queue").focus();
    }
  };

  const save = async () => {
    error.hidden = true;
    markInvalid(null);
    // A number field holds "" for what is no number: say so here rather than send a guess.
    const whole = (field, name, range) => {
      const text = byId(CONTROLS[field]).value.trim();
      if (/^\d+$/.test(text)) return Number(text);
      refuse(`${name} must be a whole number, ${range}.`, field);
      return null;
    };
    const offerSeconds = whole("offer_seconds", "the seconds to confirm an offer", "10 to 3600");
    if (offerSeconds === null) return;
    const snoozeMinutes = whole("snooze_minutes", "the snooze minutes", "1 to 240");
    if (snoozeMinutes === null) return;
    const body = {
      enabled: byId("callbacks-enabled").checked,
      offer_seconds: offerSeconds,
      snooze_minutes: snoozeMinutes,
      on_expiry: byId("callbacks-expiry-end").checked ? "end" : "requeue",
    };
    // Absent, not empty: the queue then takes no "I will call" requests.
    const dialNumber = byId("callbacks-dial-number").value.replace(/\s+/g, "");
    if (dialNumber) body.dial_number = dialNumber;
    const queue = chosenQueue;
    const queueName = queues.find((candidate) => candidate.id === queue)?.name ?? queue;
    busy(true);
    const saved = await api("PUT", settingsPath(app, queue), body).catch((failure) => {
      const field = failure instanceof ApiError && failure.status === 400 ? failure.message.split(":")[0] : null;
      refuse(failure instanceof ApiError ? failure.message : String(failure), field);
      return null;
    });
    busy(false);
    if (saved && card.isConnected && chosenQueue === queue) {
      await adminAction(async () => show(saved), `Callback settings of “${queueName}” saved.`);
    }
  };
  saveButton.addEventListener("click", save);
  return card;
}
