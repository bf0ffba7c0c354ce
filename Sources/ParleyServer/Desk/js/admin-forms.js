// Admin: the forms a chat shows (pre-chat, offline message, post-chat), app-wide or for one queue
// (a queue's form wins over the app's). Edited here, saved with PUT, removed with DELETE; the
// server checks the definition and its 400 lists every problem, shown as it is.
import { api, ApiError } from "./api.js";
import { adminAction, languagesField, toolbar } from "./admin-ui.js";
import { confirmAction } from "./dialogs.js";
import { chatPreview } from "./chat-preview.js";
import { byId, h, replaceChildren } from "./dom.js";
import { fieldList, fieldsForServer, languagesOf, newField } from "./admin-form-fields.js";
import { state } from "./store.js";

export const FORM_KINDS = [["pre_chat", "Pre-chat"], ["unavailable", "Offline message (unavailable)"], ["post_chat", "Post-chat"]];

/** What the page shows and edits; kept across re-renders so a reload keeps the choice. */
const editor = { kind: "pre_chat", queue: "", fields: [], languages: ["en"], exists: false };

export async function renderForms(reload) {
  const app = state.me.app_id;
  const { queues } = await api("GET", `/v1/admin/apps/${app}/queues`);
  if (editor.queue && !queues.some((queue) => queue.id === editor.queue)) editor.queue = "";
  const form = await api("GET", formPath(app)).catch((error) => {
    if (error instanceof ApiError && error.status === 404) return null;
    throw error;
  });
  editor.exists = form !== null;
  editor.fields = structuredClone(form?.fields ?? []);
  editor.languages = languagesOf(editor.fields);

  const scopeName = editor.queue ? `queue “${queues.find((queue) => queue.id === editor.queue)?.name}”` : "the whole app";
  const list = h("div", { class: "form-editor-fields" });
  const error = h("p", { class: "form-error", id: "form-editor-error", role: "alert", hidden: true });
  // The live preview: the chat page showing this form as typed (unsaved), in the editor's first language.
  const preview = chatPreview();
  const appearance = await api("GET", `/v1/admin/apps/${app}/appearance`).catch(() => ({}));
  const refresh = () => preview.update({
    appearance, screen: { pre_chat: "preChat", unavailable: "unavailable", post_chat: "postChat" }[editor.kind],
    forms: { [editor.kind]: { kind: editor.kind, fields: fieldsForServer(editor.fields) } },
  });
  const drawFields = (focus) => {
    replaceChildren(list, fieldList(editor.fields, editor.languages, drawFields));
    if (focus) list.querySelector(focus)?.focus() ?? byId("form-add-field").focus();
    refresh();
  };
  drawFields();

  const save = async () => {
    error.hidden = true;
    const saved = await api("PUT", formPath(app), { kind: editor.kind, fields: fieldsForServer(editor.fields) }).catch((failure) => {
      showProblem(error, failure);
      return null;
    });
    if (saved) await adminAction(async () => saved, `${kindName(editor.kind)} form saved for ${scopeName}.`, reload);
  };
  const remove = async () => {
    const confirmed = await confirmAction({ title: `Delete the ${kindName(editor.kind).toLowerCase()} form?`, danger: true, confirm: "Delete form",
      text: editor.queue ? "This queue then uses the app-wide form, if there is one." : "Chats then show no such form, except in queues with their own." });
    if (confirmed) await adminAction(() => api("DELETE", formPath(app)), `${kindName(editor.kind)} form deleted for ${scopeName}.`, reload);
  };

  return [
    toolbar("Forms visitors fill in: before a chat, when nobody is available, after the end. A queue’s own form wins over the app’s."),
    h("div", { class: "admin-with-preview" }, h("div", { class: "card form-editor", oninput: refresh, onchange: refresh },
      h("div", { class: "row" },
        picker("form-kind", "Form", FORM_KINDS, editor.kind, (value) => { editor.kind = value; reload(); }),
        picker("form-scope", "For", [["", "The whole app"], ...queues.map((queue) => [queue.id, `Queue: ${queue.name}`])], editor.queue,
          (value) => { editor.queue = value; reload(); })),
      h("p", { id: "form-status", class: "field-hint" }, editor.exists
        ? `Saved: ${editor.fields.length} field${editor.fields.length === 1 ? "" : "s"}.`
        : editor.queue ? "Not defined for this queue: its chats use the app-wide form, if any." : "Not defined: chats show no such form."),
      languagesField("form-languages", "Label languages", editor.languages, (tags) => { editor.languages = tags; drawFields(); }),
      h("p", { class: "field-hint", id: "form-key-hint" }, "Keys name the answers (letters, digits, _); left empty, one is made from the English label."),
      list,
      error,
      h("div", { class: "row" },
        h("button", { class: "button", type: "button", id: "form-add-field", onclick: () => {
          editor.fields.push(newField());
          drawFields(`#form-field-${editor.fields.length - 1}-label-en`);
        } }, "Add field"),
        h("button", { class: "button primary", type: "button", id: "form-save", onclick: save }, "Save form"),
        editor.exists ? h("button", { class: "button danger", type: "button", id: "form-delete", onclick: remove }, "Delete form") : null)),
      preview.element),
  ];
}

function formPath(app) {
  const query = editor.queue ? `?queue=${encodeURIComponent(editor.queue)}` : "";
  return `/v1/admin/apps/${app}/forms/${editor.kind}${query}`;
}

function kindName(kind) {
  return { pre_chat: "Pre-chat", unavailable: "Offline message", post_chat: "Post-chat" }[kind] ?? kind;
}

function showProblem(element, failure) {
  element.textContent = failure instanceof ApiError && failure.status === 400
    ? `Not saved: ${failure.message}`
    : `Not saved: ${failure?.message ?? failure}`;
  element.hidden = false;
  element.focus?.();
}

function picker(id, label, options, selected, choose) {
  return h("div", { class: "field" },
    h("label", { for: id }, label),
    h("select", { id, onchange: (event) => choose(event.target.value) },
      options.map(([value, text]) => h("option", { value, selected: value === selected }, text))));
}
