// Admin: the app's tags (GET/PUT /v1/admin/apps/{app}/tags), a name and a colour each, in the order
// agents see them. The list is edited on the page (add, rename, recolour, move up or down, remove)
// and saved whole; the server's 400 names the entry at fault (`tags[1].name: …`): its words are shown
// and that field is marked and focused, and nothing changes. Conversations keep the tags they have.
import { api, ApiError } from "./api.js";
import { adminAction, toolbar } from "./admin-ui.js";
import { byId, h } from "./dom.js";
import { refreshTags, state } from "./store.js";
import { tagChip } from "./triage-badges.js";

const COLORS = ["#2457c5", "#1a7f37", "#b42318", "#8a5a00", "#6941c6", "#0e7490"];

export async function renderTags(reload) {
  const path = `/v1/admin/apps/${state.me.app_id}/tags`;
  const { tags } = await api("GET", path);
  const list = h("ol", { id: "tags-list", class: "tags-list" });
  const error = h("p", { class: "form-error", id: "tags-error", role: "alert", hidden: true });
  const empty = h("p", { id: "tags-empty", class: "empty" }, "No tags yet. Agents can tag conversations once you add some.");
  const update = () => {
    const rows = [...list.children];
    empty.hidden = rows.length > 0;
    rows.forEach((row, index) => {
      row.querySelector("[data-move=up]").disabled = index === 0;
      row.querySelector("[data-move=down]").disabled = index === rows.length - 1;
    });
  };
  const add = (tag) => {
    const row = tagRow(tag ?? { name: "", color: COLORS[list.children.length % COLORS.length] }, update);
    list.append(row);
    update();
    return row;
  };
  for (const tag of tags) add(tag);
  update();

  const save = async () => {
    error.hidden = true;
    for (const field of list.querySelectorAll("[aria-invalid]")) field.removeAttribute("aria-invalid");
    const body = { tags: [...list.children].map((row) => ({ name: row.querySelector(".tag-name-input").value.trim(), color: row.querySelector(".tag-color-input").value })) };
    try {
      await api("PUT", path, body);
    } catch (failure) {
      if (failure instanceof ApiError && failure.status === 401) return;
      error.textContent = `Not saved: ${failure.message}`;
      error.hidden = false;
      markField(list, failure.message);
      return;
    }
    await adminAction(() => refreshTags(), "Tags saved.", reload);
  };

  return [
    toolbar("Tags sort conversations (billing, bug, VIP…). Agents add them in a conversation's header and filter any inbox view by them."),
    h("div", { class: "card tags-editor" },
      empty,
      list,
      error,
      h("div", { class: "row" },
        h("button", { class: "button", type: "button", id: "tags-add", onclick: () => add().querySelector(".tag-name-input").focus() }, "Add tag"),
        h("button", { class: "button primary", type: "button", id: "tags-save", onclick: save }, "Save tags"))),
  ];
}

/** One editable tag: name, colour, a preview chip, and buttons to move or remove it. */
function tagRow(tag, update) {
  const row = h("li", { class: "tag-row" });
  const name = h("input", { class: "tag-name-input", type: "text", value: tag.name, maxlength: 40, autocomplete: "off", spellcheck: "false", "aria-label": "Tag name" });
  const color = h("input", { class: "tag-color-input", type: "color", value: tag.color, "aria-label": "Colour" });
  const preview = h("span", { class: "tag-preview", "aria-hidden": "true" });
  const label = () => name.value.trim() || "new tag";
  const refresh = () => {
    // Each control names its tag, so a screen reader hears which row it is in.
    name.setAttribute("aria-label", `Tag name (${label()})`);
    color.setAttribute("aria-label", `Colour of ${label()}`);
    for (const button of row.querySelectorAll("button[data-label]")) button.setAttribute("aria-label", `${button.dataset.label} ${label()}`);
    preview.replaceChildren(tagChip(label(), {}));
    preview.querySelector(".tag-dot").style.setProperty("--tag-color", color.value);
  };
  const move = (direction) => (event) => {
    const sibling = direction < 0 ? row.previousElementSibling : row.nextElementSibling;
    if (!sibling) return;
    if (direction < 0) sibling.before(row);
    else sibling.after(row);
    update();
    // Keep the keyboard on the button pressed; at an end it is disabled, so on its other one.
    const pressed = event.currentTarget;
    (pressed.disabled ? row.querySelector(`[data-move=${direction < 0 ? "down" : "up"}]`) : pressed).focus();
  };
  const remove = () => {
    const next = row.nextElementSibling ?? row.previousElementSibling;
    row.remove();
    update();
    (next?.querySelector(".tag-name-input") ?? byId("tags-add")).focus();
  };
  row.append(name, color, preview,
    h("span", { class: "tag-row-actions" },
      h("button", { class: "button small", type: "button", dataset: { move: "up", label: "Move up" }, onclick: move(-1) }, "↑"),
      h("button", { class: "button small", type: "button", dataset: { move: "down", label: "Move down" }, onclick: move(1) }, "↓"),
      h("button", { class: "button small danger", type: "button", dataset: { label: "Remove" }, onclick: remove }, "Remove")));
  name.addEventListener("input", refresh);
  color.addEventListener("input", refresh);
  refresh();
  return row;
}

/** `tags[2].color: …` → marks and focuses that field of the third row. */
function markField(list, message) {
  const match = message.match(/^tags\[(\d+)\]\.(name|color)/);
  const row = match ? list.children[Number(match[1])] : null;
  const field = row?.querySelector(match[2] === "name" ? ".tag-name-input" : ".tag-color-input");
  if (!field) return;
  field.setAttribute("aria-invalid", "true");
  field.setAttribute("aria-describedby", "tags-error");
  field.focus();
}
