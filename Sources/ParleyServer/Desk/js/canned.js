// Canned responses in the composer: "/" at the start opens a list filtered by what follows, the
// agent's own first (marked "Mine", in words, not only by colour), then the team's;
// ↑/↓ choose, Enter or Tab insert (the "/query" is replaced by the response, its placeholders
// filled: placeholders.js; the first one left unfilled is selected, ready to be typed over), Esc closes.
// The textarea keeps focus and points at the active option (aria-activedescendant); a status line
// says how many responses match, for screen readers.
import { byId, h, replaceChildren } from "./dom.js";
import { fillPlaceholders, firstPlaceholderRange } from "./placeholders.js";
import { state } from "./store.js";

const TRIGGER = /^\/([a-z0-9_-]*)$/i;

export class CannedPicker {
  constructor(textarea, listbox, onInsert) {
    this.textarea = textarea;
    this.listbox = listbox;
    this.onInsert = onInsert;
    this.matches = [];
    this.active = 0;
    listbox.addEventListener("mousedown", (event) => event.preventDefault()); // keep focus in the textarea
    listbox.addEventListener("click", (event) => {
      const option = event.target.closest("[role=option]");
      if (option) this.insert(Number(option.dataset.index));
    });
  }

  get isOpen() {
    return !this.listbox.hidden;
  }

  /** The "/query" before the caret, or null when the text does not start a shortcut. */
  query() {
    const before = this.textarea.value.slice(0, this.textarea.selectionStart);
    const match = before.match(TRIGGER);
    return match ? match[1].toLowerCase() : null;
  }

  /** Called on every input: opens, filters or closes the list. */
  update() {
    const query = this.query();
    if (query === null) return this.close();
    // The store keeps my own first: an own reply may share its shortcut with a team one, and wins the top.
    this.matches = state.canned.filter((item) => item.shortcut.startsWith(query) || item.title.toLowerCase().includes(query));
    this.active = 0;
    this.render();
  }

  render() {
    this.listbox.hidden = false;
    const status = byId("canned-status");
    const count = this.matches.length;
    const own = this.matches.filter((item) => item.owner_id).length;
    const said = count === 0 ? "No canned response matches."
      : `${count} canned response${count === 1 ? "" : "s"}${own ? ` (${own} of your own first)` : ""}: up and down to choose, Enter to insert, Escape to close.`;
    if (status.textContent !== said) status.textContent = said;
    if (this.matches.length === 0) {
      replaceChildren(this.listbox, h("li", { class: "canned-empty", role: "presentation" },
        state.canned.length ? "No canned response matches." : "No canned responses yet: add your own under My replies (admins add the team's under Admin)."));
      this.textarea.removeAttribute("aria-activedescendant");
      return;
    }
    replaceChildren(this.listbox, this.matches.map((item, index) => h("li", {
      id: `canned-option-${index}`,
      class: "canned-option",
      role: "option",
      "aria-selected": index === this.active ? "true" : "false",
      dataset: { index, shortcut: item.shortcut, owner: item.owner_id ? "me" : "team" },
    }, h("span", { class: "canned-head" }, h("span", { class: "canned-shortcut" }, `/${item.shortcut}`), " ",
      item.owner_id ? [h("span", { class: "canned-mine" }, "Mine"), " "] : null, item.title),
    h("span", { class: "canned-preview" }, item.text))));
    this.textarea.setAttribute("aria-activedescendant", `canned-option-${this.active}`);
    byId(`canned-option-${this.active}`).scrollIntoView({ block: "nearest" });
  }

  close() {
    if (!this.isOpen) return;
    this.listbox.hidden = true;
    this.listbox.replaceChildren();
    byId("canned-status").textContent = "";
    this.textarea.removeAttribute("aria-activedescendant");
  }

  /** Handles a key while the list is open; true when the key was used. */
  handleKey(event) {
    if (!this.isOpen) return false;
    switch (event.key) {
      case "ArrowDown":
      case "ArrowUp":
        if (this.matches.length) {
          const step = event.key === "ArrowDown" ? 1 : -1;
          this.active = (this.active + step + this.matches.length) % this.matches.length;
          this.render();
        }
        return true;
      case "Enter":
      case "Tab":
        if (event.shiftKey || this.matches.length === 0) return false;
        this.insert(this.active);
        return true;
      case "Escape":
        this.close();
        return true;
      default:
        return false;
    }
  }

  insert(index) {
    const item = this.matches[index];
    if (!item) return;
    const { value, selectionStart } = this.textarea;
    // The whole text before the caret is "/query" (TRIGGER is anchored), so it is replaced outright.
    const rest = value.slice(selectionStart);
    const replaced = fillPlaceholders(item.text, placeholderContext()).text;
    this.textarea.value = replaced + rest;
    const unfilled = firstPlaceholderRange(replaced);
    if (unfilled) this.textarea.setSelectionRange(...unfilled);
    else this.textarea.setSelectionRange(replaced.length, replaced.length);
    this.close();
    this.onInsert?.(item);
  }
}

/** What placeholders are filled from: the open conversation, its visitor (once the panel loaded it), me. */
function placeholderContext() {
  const conversation = state.conversations.get(state.openID);
  return { conversation, visitor: conversation ? state.visitors.get(conversation.visitor_id) : null, agent: state.me };
}
