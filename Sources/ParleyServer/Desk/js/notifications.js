// Telling the agent about a visitor's new message in any conversation of theirs they are not looking
// at (another one is open, or the tab is hidden): a soft tone always, and a desktop notification
// when they turned those on. A new assignment gets a desktop notification too while the tab is
// hidden (its toast and beep are inbox.js's).
//
// Desktop notifications are off until the agent turns them on with the top bar's toggle: browsers
// ask for the permission only from a click, and an agent who never wanted them is not asked. The
// choice is kept per agent in this browser (localStorage: a preference, nothing secret).
import { on } from "./bus.js";
import { chime, toast } from "./cues.js";
import { byId } from "./dom.js";
import { go } from "./router.js";
import { isMine, loadVisitor, state, visitorName } from "./store.js";

const PREVIEW_LENGTH = 140;

function supported() {
  return typeof window.Notification === "function";
}

function preferenceKey() {
  return `parley.desk.notifications.${state.me?.id}`;
}

function wanted() {
  return state.me !== null && localStorage.getItem(preferenceKey()) === "on";
}

function isOn() {
  return supported() && wanted() && Notification.permission === "granted";
}

export function initNotifications() {
  byId("notifications-toggle").addEventListener("click", toggle);
  on("visitor-message", visitorMessage);
  on("assigned", assigned);
}

/** Shows the toggle as this agent left it (after sign-in). */
export function showNotificationsToggle() {
  const button = byId("notifications-toggle");
  button.hidden = !supported();
  button.setAttribute("aria-pressed", String(isOn()));
}

async function toggle() {
  const button = byId("notifications-toggle");
  if (isOn()) {
    localStorage.removeItem(preferenceKey());
    showNotificationsToggle();
    toast("Desktop notifications are off.");
    return;
  }
  let permission = Notification.permission;
  if (permission === "default") {
    button.disabled = true;
    try {
      permission = await Notification.requestPermission();
    } finally {
      button.disabled = false;
    }
  }
  if (permission !== "granted") {
    toast("The browser blocks notifications from the desk: allow them in the site's settings, then try again.", { kind: "error" });
    showNotificationsToggle();
    return;
  }
  localStorage.setItem(preferenceKey(), "on");
  showNotificationsToggle();
  toast("Desktop notifications are on: new visitor messages while you look elsewhere.");
}

function isLookingAt(id) {
  return state.openID === id && document.visibilityState === "visible";
}

function visitorMessage(event) {
  const id = event.conversation_id;
  const conversation = state.conversations.get(id);
  if (!isMine(conversation) || isLookingAt(id)) return;
  chime();
  const said = event.attachment ? `File: ${event.attachment.name}${event.text ? ` — ${event.text}` : ""}` : event.text ?? "";
  notify(visitorName(conversation), preview(said), id);
}

async function assigned(id) {
  if (document.visibilityState !== "hidden" || !isOn()) return;
  const conversation = state.conversations.get(id);
  if (conversation) await loadVisitor(conversation.visitor_id);
  notify("New conversation assigned to you", `${visitorName(conversation)}${conversation?.subject ? ` — ${conversation.subject}` : ""}`, id);
}

function preview(text) {
  return text.length > PREVIEW_LENGTH ? `${text.slice(0, PREVIEW_LENGTH - 1)}…` : text;
}

function notify(title, body, conversationID) {
  if (!isOn()) return;
  try {
    // One notification per conversation (the tag): a newer message replaces the one before.
    const notification = new Notification(title, { body, tag: conversationID });
    notification.addEventListener("click", () => {
      window.focus();
      go(`#/c/${conversationID}`);
      notification.close();
    });
  } catch {
    // Some browsers (Android) only notify from a service worker: the tone and the badges remain.
  }
}
