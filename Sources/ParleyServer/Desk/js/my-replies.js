// My replies (#/replies, the top bar's link): the agent's own canned responses, which only they see
// and which the "/" list offers first, marked Mine (canned.js). Any agent adds, edits and deletes
// their own here (POST, PATCH, DELETE /v1/canned-responses[/{id}]); the team's set stays on the
// admins' Canned responses page. The form checks what it can before sending; the server's refusal
// (a 409 for a shortcut already in my own set, a 400 naming its field, a 413 text) is shown by the
// field it concerns, which is marked and focused, and nothing changes.
import { api, ApiError } from "./api.js";
import { cell, table } from "./admin-ui.js";
import { on } from "./bus.js";
import { toast } from "./cues.js";
import { confirmAction } from "./dialogs.js";
import { byId, h, replaceChildren } from "./dom.js";
import { ownCanned, refreshCanned } from "./store.js";

const SHORTCUT = /^[a-z0-9_-]{1,32}$/;
const FIELDS = { shortcut: "replies-shortcut", title: "replies-title", text: "replies-text" };

/** The reply being edited (null: the form adds a new one). */
let editing = null;
let isShown = false;

export function initMyReplies() {
  byId("replies-form").addEventListener("submit", (event) => {
    event.preventDefault();
    save();
  });
  byId("replies-cancel").addEventListener("click", () => {
    const id = editing?.id;
    resetForm();
    focusRow(id, "edit") || byId(FIELDS.shortcut).focus();
  });
  for (const [name, id] of Object.entries(FIELDS)) byId(id).addEventListener("input", () => clearError(name));
  on("canned", () => isShown && renderList());
}

export async function showReplies() {
  const first = !isShown;
  isShown = true;
  byId("replies").hidden = false;
  byId("replies-link").setAttribute("aria-current", "page");
  renderList();
  if (first) byId("replies-heading").focus();
  try {
    await refreshCanned();
  } catch (failure) {
    if (!(failure instanceof ApiError && failure.status === 401)) showListError(`Could not load your replies: ${failure.message}`);
  }
}

export function hideReplies() {
  if (!isShown) return;
  isShown = false;
  byId("replies").hidden = true;
  byId("replies-link").removeAttribute("aria-current");
  resetForm();
  showListError(null);
}

function renderList() {
  const items = ownCanned();
  replaceChildren(byId("replies-list"), items.length === 0
    ? h("p", { id: "replies-empty", class: "empty" }, "No replies of your own yet. Add one above.")
    : table(`${items.length} repl${items.length === 1 ? "y" : "ies"} of your own`, ["Shortcut", "Title", "Text", "Actions"],
      items.map((item) => h("tr", { dataset: { cannedId: item.id } },
        cell("Shortcut", h("span", { class: "mono" }, `/${item.shortcut}`)),
        cell("Title", item.title),
        h("td", { class: "text-cell", dataset: { label: "Text" } }, item.text),
        h("td", { class: "actions" },
          h("button", { class: "button small", type: "button", dataset: { action: "edit" }, "aria-label": `Edit /${item.shortcut}`, onclick: () => edit(item) }, "Edit"),
          h("button", { class: "button small danger", type: "button", dataset: { action: "delete" }, "aria-label": `Delete /${item.shortcut}`, onclick: () => remove(item) }, "Delete"))))));
}

function values() {
  return { shortcut: byId(FIELDS.shortcut).value.trim(), title: byId(FIELDS.title).value.trim(), text: byId(FIELDS.text).value };
}

/** What the server would refuse anyway, said before sending: {field: words}. */
function check({ shortcut, title, text }) {
  const problems = {};
  if (!SHORTCUT.test(shortcut)) problems.shortcut = "Use 1 to 32 of a–z, 0–9, _ and - (no spaces, no capitals).";
  if (!title) problems.title = "A title is required.";
  else if (/[\r\n]/.test(title)) problems.title = "The title is one line.";
  if (!text.trim()) problems.text = "The text is required.";
  return problems;
}

async function save() {
  clearErrors();
  const wanted = values();
  const problems = check(wanted);
  if (Object.keys(problems).length > 0) {
    for (const [name, words] of Object.entries(problems)) showError(name, words);
    byId(FIELDS[Object.keys(FIELDS).find((name) => problems[name])]).focus();
    return;
  }
  const item = editing;
  // An edit sends only what changed (PATCH changes the fields given).
  const body = item ? Object.fromEntries(Object.entries(wanted).filter(([name, value]) => value !== item[name])) : wanted;
  if (item && Object.keys(body).length === 0) {
    resetForm();
    focusRow(item.id, "edit");
    return;
  }
  const button = byId("replies-save");
  button.disabled = true;
  try {
    const saved = item ? await api("PATCH", `/v1/canned-responses/${item.id}`, body) : await api("POST", "/v1/canned-responses", body);
    await refreshCanned().catch(() => {});
    resetForm();
    toast(item ? `Reply /${saved.shortcut} saved.` : `Reply /${saved.shortcut} added. Type /${saved.shortcut} in a reply to use it.`);
    if (item) focusRow(saved.id, "edit");
    else byId(FIELDS.shortcut).focus();
  } catch (failure) {
    if (failure instanceof ApiError && failure.status === 401) return;
    refused(failure, wanted);
  } finally {
    button.disabled = false;
  }
}

/** The server's refusal, by the field it concerns (marked and focused), else under the form. */
function refused(failure, wanted) {
  let field = null;
  let words = failure.message;
  if (failure.code === "duplicate") {
    field = "shortcut";
    words = `Not saved: you already have a reply /${wanted.shortcut}. Choose another shortcut, or edit that one.`;
  } else if (failure.code === "too_large") {
    field = "text";
    words = `Not saved: ${failure.message}`;
  } else if (failure.status === 400) {
    const named = failure.message.match(/^(shortcut|title|text)\b/);
    field = named ? named[1] : null;
    words = `Not saved: ${failure.message}`;
  } else if (failure.status === 404) {
    words = "Not saved: this reply no longer exists (deleted elsewhere?).";
    refreshCanned().catch(() => {});
  } else {
    words = `Not saved: ${failure.message}`;
  }
  if (field) {
    showError(field, words);
    byId(FIELDS[field]).focus();
  } else {
    const error = byId("replies-error");
    error.textContent = words;
    error.hidden = false;
  }
}

function edit(item) {
  clearErrors();
  editing = item;
  byId(FIELDS.shortcut).value = item.shortcut;
  byId(FIELDS.title).value = item.title;
  byId(FIELDS.text).value = item.text;
  byId("replies-form-title").textContent = `Edit /${item.shortcut}`;
  byId("replies-save").textContent = "Save changes";
  byId("replies-cancel").hidden = false;
  byId(FIELDS.shortcut).focus();
}

async function remove(item) {
  showListError(null);
  const confirmed = await confirmAction({
    title: `Delete /${item.shortcut}?`,
    text: `“${item.title}” will no longer be offered when you type /.`,
    confirm: "Delete",
    danger: true,
  });
  if (!confirmed) return;
  // Where the keyboard goes once the row is gone: the next row's Delete, else the form.
  const rows = [...byId("replies-list").querySelectorAll("tr[data-canned-id]")];
  const next = rows[rows.findIndex((row) => row.dataset.cannedId === item.id) + 1]?.dataset.cannedId ?? null;
  try {
    await api("DELETE", `/v1/canned-responses/${item.id}`);
    if (editing?.id === item.id) resetForm();
    toast(`Reply /${item.shortcut} deleted.`);
  } catch (failure) {
    if (failure instanceof ApiError && failure.status === 401) return;
    showListError(failure.status === 404 ? `/${item.shortcut} was already deleted.` : `Not deleted: ${failure.message}`);
  }
  await refreshCanned().catch(() => {});
  focusRow(next, "delete") || focusRow(item.id, "delete") || byId(FIELDS.shortcut).focus();
}

function resetForm() {
  editing = null;
  byId("replies-form").reset();
  clearErrors();
  byId("replies-form-title").textContent = "New reply";
  byId("replies-save").textContent = "Add reply";
  byId("replies-cancel").hidden = true;
}

/** Focuses a row's Edit or Delete button; false when there is no such row. */
function focusRow(id, action) {
  const button = id && byId("replies-list").querySelector(`tr[data-canned-id="${CSS.escape(id)}"] [data-action="${action}"]`);
  if (!button) return false;
  button.focus();
  return true;
}

function showError(name, words) {
  const error = byId(`${FIELDS[name]}-error`);
  error.textContent = words;
  error.hidden = false;
  byId(FIELDS[name]).setAttribute("aria-invalid", "true");
}

function clearError(name) {
  const error = byId(`${FIELDS[name]}-error`);
  error.hidden = true;
  error.textContent = "";
  byId(FIELDS[name]).removeAttribute("aria-invalid");
}

function clearErrors() {
  for (const name of Object.keys(FIELDS)) clearError(name);
  byId("replies-error").hidden = true;
}

function showListError(words) {
  const error = byId("replies-list-error");
  error.textContent = words ?? "";
  error.hidden = !words;
}
