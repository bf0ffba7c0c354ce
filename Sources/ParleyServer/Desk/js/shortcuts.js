// Keyboard shortcuts. Single keys never fire while the agent types in a field (a "j" in a reply is
// a "j"); Esc leaves the field, and Alt+↓/Alt+↑ work from anywhere, the reply box included, since
// they type nothing. Nothing fires while a dialog is open (it has the keyboard) or before sign-in.
// The help sheet (?) is built from the same table, so it lists exactly what is handled.
import { emit } from "./bus.js";
import { openDialog } from "./dialogs.js";
import { byId, h, replaceChildren } from "./dom.js";
import { go } from "./router.js";
import { state } from "./store.js";

/** `key`: KeyboardEvent.key alone; `alt`: the key with Alt; `shown`: the help sheet's key combinations. */
const SHORTCUTS = [
  { key: "j", alt: "ArrowDown", shown: [["j"], ["Alt", "↓"]], does: "Next conversation in the list", run: () => step(1) },
  { key: "k", alt: "ArrowUp", shown: [["k"], ["Alt", "↑"]], does: "Previous conversation in the list", run: () => step(-1) },
  { key: "r", shown: [["r"]], does: "Write a reply (focus the reply box)", run: () => compose("reply") },
  { key: "n", shown: [["n"]], does: "Write an internal note", run: () => compose("note") },
  { key: "e", shown: [["e"]], does: "End the conversation (asks first)", run: () => press("end") },
  { key: "t", shown: [["t"]], does: "Transfer the conversation", run: () => press("transfer") },
  { key: "/", shown: [["/"]], does: "Search", run: search },
  { key: "?", shown: [["?"]], does: "Show these shortcuts", run: showHelp },
  { shown: [["Esc"]], does: "Leave a text field (in a dialog or a list: close it)" },
];

export function initShortcuts() {
  document.addEventListener("keydown", onKey);
  byId("shortcuts-help").addEventListener("click", showHelp);
}

function onKey(event) {
  if (event.defaultPrevented || event.isComposing || event.ctrlKey || event.metaKey) return;
  if (!state.me || document.body.dataset.view === "login" || document.querySelector("dialog[open]")) return;
  const typing = isTextField(event.target);
  if (event.key === "Escape") {
    if (typing) leaveField();
    return;
  }
  if (event.altKey) {
    // A select opens its list with Alt+↓: leave it that.
    if (event.target instanceof HTMLSelectElement) return;
    const shortcut = SHORTCUTS.find((candidate) => candidate.alt === event.key);
    if (!shortcut) return;
    event.preventDefault();
    shortcut.run();
    return;
  }
  if (typing) return;
  const shortcut = SHORTCUTS.find((candidate) => candidate.key === event.key);
  if (!shortcut) return;
  event.preventDefault();
  shortcut.run();
}

/** Where typed characters go: text inputs, text areas, selects (type-ahead) and editable content. */
function isTextField(target) {
  if (!(target instanceof HTMLElement)) return false;
  if (target.isContentEditable || target instanceof HTMLTextAreaElement || target instanceof HTMLSelectElement) return true;
  return target instanceof HTMLInputElement && !["button", "checkbox", "radio", "submit", "reset", "file", "image", "range", "color"].includes(target.type);
}

/** Esc in a field: the keyboard goes to the transcript (or the main pane), where shortcuts work. */
function leaveField() {
  const landing = !byId("conversation").hidden ? byId("transcript") : byId("main");
  landing.focus();
}

/** Opens the next (1) or previous (-1) conversation of the list on screen, and puts focus on its row. */
function step(direction) {
  const ids = [...document.querySelectorAll("#inbox-list > li")].map((row) => row.dataset.conversationId);
  if (ids.length === 0) return;
  const at = ids.indexOf(state.openID);
  const next = at === -1 ? (direction > 0 ? 0 : ids.length - 1) : at + direction;
  if (next < 0 || next >= ids.length) return;
  const id = ids[next];
  go(`#/c/${id}`);
  // On one-column screens the list steps aside for the conversation: the transcript takes focus.
  const link = document.querySelector(`#inbox-list > li[data-conversation-id="${id}"] a`);
  if (link && link.getClientRects().length > 0) link.focus();
  else byId("transcript").focus();
}

function compose(mode) {
  if (!state.openID) return;
  const radio = byId(`mode-${mode}`);
  if (!radio.checked) {
    radio.checked = true;
    radio.dispatchEvent(new Event("change", { bubbles: true }));
  }
  const box = byId("composer-text");
  if (!box.disabled) box.focus();
}

function press(id) {
  const button = byId(id);
  if (state.openID && !button.hidden && !button.disabled) button.click();
}

/**
 * Focuses the search field when the page has one (an element marked `data-shortcut="search"`);
 * otherwise announces "shortcut:search" on the bus for whatever search view is added later.
 */
function search() {
  const field = [...document.querySelectorAll('[data-shortcut="search"]')].find((element) => element.getClientRects().length > 0);
  if (field) field.focus();
  else emit("shortcut:search");
}

function showHelp() {
  replaceChildren(byId("shortcuts-list"), SHORTCUTS.map((shortcut) => [
    h("dt", {}, shortcut.shown.map((combination, index) => [
      index ? " or " : "",
      combination.map((key, part) => [part ? "+" : "", h("kbd", {}, key)]),
    ])),
    h("dd", {}, shortcut.does),
  ]));
  openDialog(byId("shortcuts-dialog"), { focus: byId("shortcuts-close") });
}
