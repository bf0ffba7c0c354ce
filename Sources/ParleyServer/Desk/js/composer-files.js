// Files in the composer: chosen with the Attach button, dropped on the conversation or pasted into
// the reply box. Each is checked against the app's policy first (a refusal is shown and nothing is
// sent) and then waits in the composer, removable, until Send: a file dropped or pasted by mistake
// never reaches a visitor on its own. Send sends each file as its own message; the text in the
// reply box goes with the first file as its caption (the composer says so while files wait).
import { checkFile, currentPolicy } from "./attachment-policy.js";
import { fileIcon } from "./attachment-view.js";
import { byId, h, replaceChildren } from "./dom.js";
import { readableSize, typeName } from "./format.js";
import { isMine, state } from "./store.js";

/** A caption travels in the URL's query: the server takes at most this many characters. */
export const MAX_CAPTION = 1000;

/** conversation id → [{file, name, type}] waiting to be sent. */
const staged = new Map();
let dragDepth = 0;

export function initComposerFiles() {
  const input = byId("composer-file-input");
  byId("composer-attach").addEventListener("click", () => input.click());
  input.addEventListener("change", () => {
    const files = [...input.files];
    input.value = "";
    stage(files);
  });
  byId("composer-text").addEventListener("paste", (event) => {
    const files = [...(event.clipboardData?.files ?? [])];
    if (files.length === 0) return;
    // Text copied along with a picture of it (office programs do that) still pastes as text.
    if (!event.clipboardData.types.includes("text/plain")) event.preventDefault();
    stage(files);
  });

  const zone = byId("conversation");
  const carriesFiles = (event) => [...(event.dataTransfer?.types ?? [])].includes("Files");
  zone.addEventListener("dragenter", (event) => {
    if (!carriesFiles(event)) return;
    event.preventDefault();
    dragDepth += 1;
    zone.classList.add("is-dropping");
  });
  zone.addEventListener("dragover", (event) => {
    if (!carriesFiles(event)) return;
    event.preventDefault();
    // Always "copy": a drop that cannot be taken (a note, someone else's conversation) is explained, not ignored.
    event.dataTransfer.dropEffect = "copy";
  });
  zone.addEventListener("dragleave", (event) => {
    if (!carriesFiles(event)) return;
    dragDepth = Math.max(0, dragDepth - 1);
    if (dragDepth === 0) zone.classList.remove("is-dropping");
  });
  zone.addEventListener("drop", (event) => {
    dragDepth = 0;
    zone.classList.remove("is-dropping");
    const files = [...(event.dataTransfer?.files ?? [])];
    if (files.length === 0) return;
    event.preventDefault();
    stage(files);
  });
  // A file dropped anywhere else must not replace the desk with the file.
  for (const type of ["dragover", "drop"]) {
    window.addEventListener(type, (event) => {
      if (event.defaultPrevented || !carriesFiles(event)) return;
      event.preventDefault();
      event.dataTransfer.dropEffect = "none";
    });
  }

  byId("composer-files").addEventListener("click", (event) => {
    const button = event.target.closest("[data-unstage]");
    if (!button || !state.openID) return;
    const files = staged.get(state.openID) ?? [];
    files.splice(Number(button.dataset.unstage), 1);
    renderStaged();
    byId("composer-text").focus();
  });
}

/** Whether files may be sent in the open conversation now: a reply in a conversation assigned to me. */
export function canAttach() {
  return Boolean(state.openID) && !byId("mode-note").checked && isMine(state.conversations.get(state.openID));
}

/** The files waiting in the open conversation's composer. */
export function stagedFiles(id) {
  return staged.get(id) ?? [];
}

/** Takes the waiting files out of the composer (to send them). */
export function takeStaged(id) {
  const files = staged.get(id) ?? [];
  staged.delete(id);
  renderStaged();
  return files;
}

/** Checks files and puts the acceptable ones in the open conversation's composer. */
async function stage(files) {
  const id = state.openID;
  if (!id || files.length === 0) return;
  showRefusals([]);
  if (!canAttach()) {
    showRefusals([byId("mode-note").checked
      ? "Internal notes cannot carry files: switch to Reply to send them to the visitor."
      : "Files can be sent only in a conversation assigned to you."]);
    return;
  }
  let policy;
  try {
    policy = await currentPolicy();
  } catch (error) {
    showRefusals([`Files cannot be checked right now: ${error.message}`]);
    return;
  }
  const checked = await Promise.all(files.map((file) => checkFile(file, policy)));
  const refusals = checked.filter((item) => item.refusal).map((item) => `Not attached: ${item.name}: ${item.refusal}.`);
  const accepted = checked.filter((item) => !item.refusal);
  if (accepted.length) staged.set(id, [...stagedFiles(id), ...accepted]);
  if (state.openID === id) {
    renderStaged();
    showRefusals(refusals);
  }
}

function showRefusals(lines) {
  const box = byId("composer-refusal");
  replaceChildren(box, lines.map((line) => h("p", {}, line)));
  box.hidden = lines.length === 0;
}

/** Shows the open conversation's waiting files and what Send will do with them. */
export function renderStaged(id = state.openID) {
  const files = id ? stagedFiles(id) : [];
  const list = byId("composer-files");
  replaceChildren(list, files.map((item, index) => h("li", { class: "staged-file" },
    fileIcon(),
    h("span", { class: "attachment-name" }, item.name),
    h("span", { class: "attachment-meta" }, `${readableSize(item.file.size)}${item.type ? ` · ${typeName(item.type)}` : ""}`),
    h("button", { class: "button small subtle", type: "button", dataset: { unstage: index }, "aria-label": `Remove ${item.name}` }, "Remove"))));
  list.hidden = files.length === 0;
  updateFilesHint(id);
}

/** What Send will do with the waiting files (nothing, in an internal note). */
export function updateFilesHint(id = state.openID) {
  const count = id ? stagedFiles(id).length : 0;
  const hint = byId("composer-files-hint");
  hint.hidden = count === 0;
  let text = "";
  if (count > 0 && byId("mode-note").checked) text = "Internal notes cannot carry files: they wait here until you switch back to Reply.";
  else if (count === 1) text = "Send sends this file; any text in the reply box goes with it as its caption.";
  else if (count > 1) text = `Send sends these ${count} files, one message each; any text in the reply box goes with the first as its caption.`;
  if (hint.textContent !== text) hint.textContent = text;
}

/** Forgets the refusals shown (another conversation was opened). */
export function clearRefusals() {
  showRefusals([]);
}
