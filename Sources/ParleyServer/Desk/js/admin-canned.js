// Admin: the team's canned responses (create, edit, delete). Agents insert them with "/shortcut".
// Only the team's set: each agent's own replies are theirs alone (My replies, my-replies.js), and
// the admin route lists none of them.
import { api } from "./api.js";
import { adminAction, cell, table, toolbar } from "./admin-ui.js";
import { confirmAction, openForm } from "./dialogs.js";
import { h } from "./dom.js";
import { refreshCanned, state } from "./store.js";

const SHORTCUT = "[a-z0-9_\\-]{1,32}";

function fields(item = {}) {
  return [
    { name: "shortcut", label: "Shortcut", value: item.shortcut, required: true, maxlength: 32, pattern: SHORTCUT,
      hint: "1 to 32 of a–z, 0–9, _ and -. Agents type /shortcut in the composer." },
    { name: "title", label: "Title", value: item.title, required: true, maxlength: 100 },
    { name: "text", label: "Text", type: "textarea", value: item.text, required: true },
  ];
}

function check(values) {
  if (!new RegExp(`^${SHORTCUT}$`).test(values.shortcut)) throw new Error("The shortcut must be 1 to 32 of a–z, 0–9, _ and -.");
  if (!values.title.trim()) throw new Error("The title is required.");
  if (!values.text.trim()) throw new Error("The text is required.");
}

export async function renderCanned(reload) {
  const app = state.me.app_id;
  const { canned_responses: items } = await api("GET", `/v1/admin/apps/${app}/canned-responses`);
  const base = `/v1/admin/apps/${app}/canned-responses`;
  const create = () => openForm({
    title: "New canned response",
    submitLabel: "Create",
    fields: fields(),
    submit: (values) => {
      check(values);
      return api("POST", base, values);
    },
  }).then((item) => item && adminAction(() => refreshCanned(), `Canned response /${item.shortcut} created.`, reload));
  const edit = (item) => openForm({
    title: `Edit /${item.shortcut}`,
    fields: fields(item),
    submit: (values) => {
      check(values);
      return api("PATCH", `${base}/${item.id}`, values);
    },
  }).then((saved) => saved && adminAction(() => refreshCanned(), "Canned response saved.", reload));
  const remove = async (item) => {
    const confirmed = await confirmAction({ title: `Delete /${item.shortcut}?`, text: `“${item.title}” will no longer be offered to agents.`, confirm: "Delete", danger: true });
    if (confirmed) await adminAction(async () => {
      await api("DELETE", `${base}/${item.id}`);
      await refreshCanned();
    }, `Canned response /${item.shortcut} deleted.`, reload);
  };

  return [
    toolbar("Saved replies for the whole team. In the composer, type / and the shortcut. Each agent also keeps replies of their own under My replies.",
      h("button", { class: "button primary", type: "button", onclick: create }, "New canned response")),
    table(`${items.length} canned response${items.length === 1 ? "" : "s"}`, ["Shortcut", "Title", "Text", "Actions"],
      items.map((item) => h("tr", { dataset: { cannedId: item.id } },
        cell("Shortcut", h("span", { class: "mono" }, `/${item.shortcut}`)),
        cell("Title", item.title),
        h("td", { class: "text-cell", dataset: { label: "Text" } }, item.text),
        h("td", { class: "actions" },
          h("button", { class: "button small", type: "button", "aria-label": `Edit /${item.shortcut}`, onclick: () => edit(item) }, "Edit"),
          h("button", { class: "button small danger", type: "button", "aria-label": `Delete /${item.shortcut}`, onclick: () => remove(item) }, "Delete"))))),
  ];
}
