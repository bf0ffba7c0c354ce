// Admin: the app's name, id and secret key (rotated with a confirmation; the new key shown once).
import { api } from "./api.js";
import { adminAction } from "./admin-ui.js";
import { confirmAction, openForm, showSecret } from "./dialogs.js";
import { h } from "./dom.js";
import { longTime } from "./format.js";
import { state } from "./store.js";

export async function renderApp(reload) {
  const id = state.me.app_id;
  const app = await api("GET", `/v1/admin/apps/${id}`);
  const rename = () => openForm({
    title: "Rename the app",
    fields: [{ name: "name", label: "Name", value: app.name, required: true, maxlength: 100 }],
    submit: (values) => api("PATCH", `/v1/admin/apps/${id}`, { name: values.name }),
  }).then((saved) => saved && adminAction(async () => {}, "App renamed.", reload));
  const rotate = async () => {
    const confirmed = await confirmAction({
      title: "Rotate the secret key?",
      text: "The current key stops working at once. Anything that uses it must be given the new key.",
      confirm: "Rotate key",
      danger: true,
    });
    if (!confirmed) return;
    const answer = await adminAction(() => api("POST", `/v1/admin/apps/${id}/rotate-key`));
    if (answer) await showSecret({ title: "New secret key", text: "Copy it now: it is shown only this once.", value: answer.secret_key });
  };

  return [
    h("section", { class: "card", "aria-labelledby": "app-card-title" },
      h("h3", { id: "app-card-title" }, app.name),
      h("dl", { class: "details" },
        h("dt", {}, "App id"), h("dd", { class: "mono" }, app.id),
        h("dt", {}, "Created"), h("dd", {}, longTime(app.created_at))),
      h("div", { class: "row" }, h("button", { class: "button", type: "button", onclick: rename }, "Rename app"))),
    h("section", { class: "card", "aria-labelledby": "key-card-title" },
      h("h3", { id: "key-card-title" }, "Secret key"),
      h("p", {}, "The secret key is shown only when it is made or rotated. If it leaked, or nobody kept it, rotate it."),
      h("div", { class: "row" }, h("button", { class: "button danger", type: "button", id: "rotate-key", onclick: rotate }, "Rotate secret key"))),
  ];
}
