// Admin: the words of the callback dialogs per language (GET/PUT /v1/admin/apps/{app}/callback-texts),
// on the Callbacks page. A language picker with the languages customised so far and a field to add a
// tag; for the chosen language one field per text, the built-in text as its placeholder and hint,
// empty meaning the built-in one. Adding, editing and removing languages change the page; "Save
// dialog texts" sends them all, only the texts that are set. The server's 400 names the language or
// text at fault: shown as it is, that language picked and the field marked, nothing changed.
import { api, ApiError } from "./api.js";
import { adminAction } from "./admin-ui.js";
import { byId, h, replaceChildren } from "./dom.js";

/** The built-in texts, as the server has them (ParleyCore's CallbackDialogTexts). */
const BUILT_IN = {
  en: {
    offer: "An agent is available right now",
    ready_group: "Are you ready?",
    ready_item: "Yes, I'm ready",
    snooze_item: "No, try again in {minutes} minutes",
    cancel_item: "Cancel, my problem has been solved",
    calling_you: "You will receive the call shortly.",
    dial_hint: "You will hear tones right after the call connects. This is normal.",
    connecting: "Connecting …",
    start_chat: "Start chat",
    waiting: "We will notify you when an agent is available.",
    snoozed: "We will ask you again in {minutes} minutes.",
    ended: "Your callback request is closed.",
    ok: "OK",
  },
  de: {
    offer: "Eine Mitarbeiterin oder ein Mitarbeiter ist jetzt für Sie da",
    ready_group: "Sind Sie bereit?",
    ready_item: "Ja, ich bin bereit",
    snooze_item: "Nein, in {minutes} Minuten noch einmal",
    cancel_item: "Abbrechen, mein Anliegen ist erledigt",
    calling_you: "Sie werden gleich angerufen.",
    dial_hint: "Nach dem Verbinden hören Sie Töne. Das ist normal.",
    connecting: "Verbinden …",
    start_chat: "Chat beginnen",
    waiting: "Wir melden uns, sobald jemand für Sie da ist.",
    snoozed: "Wir fragen Sie in {minutes} Minuten noch einmal.",
    ended: "Ihre Rückrufanfrage ist abgeschlossen.",
    ok: "OK",
  },
};

/** The texts by where visitors meet them: [legend, [[key, label, where]]]. */
const GROUPS = [
  ["The offer, when an agent is free", [
    ["offer", "Offer", "The offer’s title."],
    ["ready_group", "Question", "Above the three choices."],
    ["ready_item", "Ready choice", "Confirms the offer."],
    ["snooze_item", "Later choice", "Asks again after the snooze minutes."],
    ["cancel_item", "Cancel choice", "Ends the request."],
  ]],
  ["Once confirmed", [
    ["calling_you", "We call you", "“Call me” requests, after confirming."],
    ["dial_hint", "Dial hint", "“I will call” requests, after confirming."],
    ["connecting", "Connecting", "Above the number to dial; “notify and chat” until the chat is ready."],
    ["start_chat", "Start chat button", "“Notify and chat” requests, once the agent is in the chat."],
  ]],
  ["Notes", [
    ["waiting", "Waiting", "While the request waits in its queue."],
    ["snoozed", "Snoozed", "After “later”, or while a request waits for its time."],
    ["ended", "Ended", "Once the request is over."],
    ["ok", "OK button", "Closes a note."],
  ]],
];
const KEYS = GROUPS.flatMap(([, texts]) => texts.map(([key]) => key));
const TAKES_MINUTES = new Set(["snooze_item", "snoozed"]);
const MAX_LENGTH = 200;
/** A tag visitors can send (the server's check of a request's `language`), in lower case. */
const TAG = /^[a-z]{2,8}(-[a-z0-9]{1,8})*$/;

/** What the card shows and edits; the chosen language is kept across re-renders of the page. */
const editor = { tag: null, languages: [], draft: {} };

/** The built-in texts a language falls back to (German for de and de-…, else English), as the server decides. */
function builtInTexts(tag) {
  return tag.toLowerCase().startsWith("de") ? BUILT_IN.de : BUILT_IN.en;
}

/** The saved texts in words: "Saved: de (1 text), en (2 texts)." */
function describeTexts(languages) {
  const tags = Object.keys(languages).sort();
  if (tags.length === 0) return "None saved: visitors see the built-in texts.";
  return `Saved: ${tags.map((tag) => {
    const count = Object.keys(languages[tag]).length;
    return `${tag} (${count} text${count === 1 ? "" : "s"})`;
  }).join(", ")}.`;
}

/** The body to save: per language only the texts that are set (trimmed), languages without any left out. */
function textsForServer() {
  const languages = {};
  for (const tag of editor.languages) {
    const set = Object.fromEntries(KEYS.map((key) => [key, (editor.draft[tag]?.[key] ?? "").trim()]).filter(([, text]) => text));
    if (Object.keys(set).length) languages[tag] = set;
  }
  return { languages };
}

function load(stored) {
  editor.draft = structuredClone(stored.languages ?? {});
  editor.languages = Object.keys(editor.draft).sort();
  if (!editor.languages.includes(editor.tag)) editor.tag = editor.languages[0] ?? null;
}

/** The card; `stored` is the GET answer. */
export function callbackTextsCard(app, stored) {
  const path = `/v1/admin/apps/${app}/callback-texts`;
  load(stored);
  const status = h("p", { id: "callback-texts-status", class: "field-hint" }, describeTexts(stored.languages ?? {}));
  const pending = h("p", { id: "callback-texts-pending", class: "field-hint", "aria-live": "polite" });
  const languageError = h("p", { class: "form-error", id: "callback-texts-language-error", role: "alert", hidden: true });
  const error = h("p", { class: "form-error", id: "callback-texts-error", role: "alert", hidden: true });
  const picker = h("div", { class: "callback-texts-picker" });
  const texts = h("div", { class: "callback-texts-fields", id: "callback-texts-fields" });
  // No maxlength: a tag cut short silently would be another tag; the server says when one is too long.
  const newLanguage = h("input", { id: "callback-texts-new-language", autocomplete: "off", spellcheck: "false",
    placeholder: "fr", "aria-describedby": "callback-texts-new-language-hint",
    onkeydown: (event) => { if (event.key === "Enter") { event.preventDefault(); add(); } } });
  const saveButton = h("button", { class: "button primary", type: "button", id: "callback-texts-save" }, "Save dialog texts");

  const drawPicker = () => replaceChildren(picker, editor.languages.length
    ? h("div", { class: "field" },
      h("label", { for: "callback-texts-language" }, "Language"),
      h("select", { id: "callback-texts-language", onchange: (event) => { editor.tag = event.target.value; drawTexts(); } },
        editor.languages.map((tag) => h("option", { value: tag, selected: tag === editor.tag }, tag))))
    : h("p", { class: "empty", id: "callback-texts-none" }, "No language customised: visitors see the built-in texts."));

  const drawTexts = () => {
    const tag = editor.tag;
    if (!tag) return replaceChildren(texts);
    const draft = (editor.draft[tag] ??= {});
    const builtIn = builtInTexts(tag);
    const field = ([key, label, where]) => {
      const id = `callback-text-${key}`;
      const minutes = TAKES_MINUTES.has(key) ? " {minutes} becomes the queue’s snooze minutes." : "";
      // The built-in text is quoted as it is, so no full stop follows it.
      return h("div", { class: "field" },
        h("label", { for: id }, label),
        h("input", { id, value: draft[key] ?? "", placeholder: builtIn[key], maxlength: MAX_LENGTH, autocomplete: "off",
          dataset: { key }, "aria-describedby": `${id}-hint`, oninput: (event) => { draft[key] = event.target.value; } }),
        h("span", { class: "field-hint", id: `${id}-hint` }, `${where}${minutes} Empty: “${builtIn[key]}”`));
    };
    return replaceChildren(texts,
      GROUPS.map(([legend, entries]) => h("fieldset", { class: "callback-texts-group" },
        h("legend", {}, `${legend} (${tag})`),
        entries.map(field))),
      h("div", { class: "row" },
        h("button", { class: "button danger", type: "button", id: "callback-texts-remove", onclick: remove }, `Remove “${tag}”`)));
  };

  const add = () => {
    languageError.hidden = true;
    newLanguage.removeAttribute("aria-invalid");
    const typed = newLanguage.value.trim();
    const tag = typed.toLowerCase();
    if (!TAG.test(tag)) {
      languageError.textContent = typed
        ? `“${typed}” is not a language tag: letters, then parts of letters or digits after hyphens, such as fr, de or pt-BR.`
        : "Type a language tag first, such as fr, de or pt-BR.";
      languageError.hidden = false;
      newLanguage.setAttribute("aria-invalid", "true");
      newLanguage.focus();
      return;
    }
    if (!editor.languages.includes(tag)) {
      editor.languages = [...editor.languages, tag].sort();
      pending.textContent = `“${tag}” added. Its texts are kept once you save.`;
    }
    editor.tag = tag;
    newLanguage.value = "";
    drawPicker();
    drawTexts();
    byId("callback-text-offer").focus();
  };

  const remove = () => {
    const tag = editor.tag;
    delete editor.draft[tag];
    editor.languages = editor.languages.filter((candidate) => candidate !== tag);
    editor.tag = editor.languages[0] ?? null;
    drawPicker();
    drawTexts();
    pending.textContent = `“${tag}” removed from the page. Save dialog texts to remove it for visitors.`;
    (document.getElementById("callback-texts-language") ?? newLanguage).focus();
  };

  const showProblem = (message) => {
    error.textContent = `Not saved: ${message}`;
    error.hidden = false;
    // "languages.de.waiting: must be 1 to 200 characters": show that language and mark that text.
    const match = message.match(/^languages\.([^.:]+)(?:\.([a-z_]+))?:/);
    if (!match || !editor.languages.includes(match[1])) return;
    editor.tag = match[1];
    drawPicker();
    drawTexts();
    const control = match[2] && document.getElementById(`callback-text-${match[2]}`);
    if (control) {
      control.setAttribute("aria-invalid", "true");
      control.focus();
    } else {
      byId("callback-texts-language").focus();
    }
  };

  const save = async () => {
    error.hidden = true;
    for (const control of texts.querySelectorAll("[aria-invalid]")) control.removeAttribute("aria-invalid");
    card.setAttribute("aria-busy", "true");
    saveButton.disabled = true;
    const saved = await api("PUT", path, textsForServer()).catch((failure) => {
      showProblem(failure instanceof ApiError ? failure.message : String(failure));
      return null;
    });
    saveButton.disabled = false;
    card.setAttribute("aria-busy", "false");
    if (!saved || !card.isConnected) return;
    await adminAction(async () => {
      load(saved);
      status.textContent = describeTexts(saved.languages ?? {});
      pending.textContent = "";
      drawPicker();
      drawTexts();
    }, "Dialog texts saved.");
  };
  saveButton.addEventListener("click", save);

  drawPicker();
  drawTexts();
  const card = h("section", { class: "card callback-texts", id: "callback-texts", "aria-labelledby": "callback-texts-title", "aria-busy": "false" },
    h("h3", { id: "callback-texts-title" }, "Dialog texts"),
    h("p", { class: "field-hint", id: "callback-texts-intro" },
      "What visitors read in the callback dialogs, by the language their app asks in. An empty field keeps the built-in text "
      + "(English; German for de). A visitor asking in de-at gets the texts of de-at, then of de, then the built-in ones. "
      + "Adding, changing and removing languages take effect when you save."),
    status,
    h("div", { class: "callback-texts-languages" },
      picker,
      h("div", { class: "field" },
        h("label", { for: "callback-texts-new-language" }, "Add a language"),
        h("div", { class: "callback-texts-add" },
          newLanguage,
          h("button", { class: "button", type: "button", id: "callback-texts-add", onclick: add }, "Add language")),
        h("span", { class: "field-hint", id: "callback-texts-new-language-hint" },
          "A tag such as fr, de or de-AT; kept in lower case, as visitors’ tags are matched."))),
    languageError,
    pending,
    texts,
    error,
    h("div", { class: "row" }, saveButton));
  return card;
}
