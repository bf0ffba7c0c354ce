// Admin: the files visitors and agents may send (GET/PUT /v1/admin/apps/{app}/attachments): on or
// off, the largest file (MB here, 1 MB = 1,000,000 bytes as the desk writes sizes; bytes on the
// wire), allowed and blocked types one per line (exact, or a family such as image/*). The server's
// 400 is shown as it is and changes nothing.
import { api, ApiError } from "./api.js";
import { forgetPolicy } from "./attachment-policy.js";
import { adminAction, toolbar } from "./admin-ui.js";
import { h } from "./dom.js";
import { readableSize } from "./format.js";
import { state } from "./store.js";

const BYTES_PER_MB = 1_000_000;

/** 26214400 → "26.2144": exact, without trailing zeros. */
function megabytes(bytes) {
  return String(Number((bytes / BYTES_PER_MB).toFixed(6)));
}

/** One type per line (commas work too), blank lines dropped. */
function typesOf(text) {
  return text.split(/[\n,]+/).map((line) => line.trim()).filter(Boolean);
}

export async function renderAttachments(reload) {
  const path = `/v1/admin/apps/${state.me.app_id}/attachments`;
  const policy = await api("GET", path);
  const error = h("p", { class: "form-error", id: "attachments-error", role: "alert", hidden: true });
  const hint = (id, text) => h("span", { class: "field-hint", id: `${id}-hint` }, text);
  const bytesHint = hint("attachments-max-mb", "");
  const showBytes = (value) => {
    const bytes = Math.round(Number(value) * BYTES_PER_MB);
    bytesHint.textContent = Number.isFinite(bytes) && bytes > 0
      ? `${bytes.toLocaleString("en")} bytes (${readableSize(bytes)}). 1 MB = 1,000,000 bytes.`
      : "A number of megabytes above 0, such as 10 or 0.5.";
  };
  showBytes(megabytes(policy.max_bytes));
  const types = (id, label, list, text) => h("div", { class: "field" },
    h("label", { for: id }, label),
    h("textarea", { id, rows: 6, spellcheck: "false", autocomplete: "off", "aria-describedby": `${id}-hint`, value: list.join("\n") }),
    hint(id, text));

  const save = async () => {
    error.hidden = true;
    const value = document.getElementById("attachments-max-mb").value.trim();
    const megabytesValue = Number(value);
    if (value === "" || !Number.isFinite(megabytesValue)) {
      error.textContent = "Not saved: the largest file must be a number of megabytes, such as 10 or 0.5.";
      error.hidden = false;
      return;
    }
    const body = {
      enabled: document.getElementById("attachments-enabled").checked,
      max_bytes: Math.round(megabytesValue * BYTES_PER_MB),
      allowed_types: typesOf(document.getElementById("attachments-allowed").value),
      blocked_types: typesOf(document.getElementById("attachments-blocked").value),
    };
    const saved = await api("PUT", path, body).catch((failure) => {
      error.textContent = `Not saved: ${failure instanceof ApiError ? failure.message : failure}`;
      error.hidden = false;
      return null;
    });
    if (!saved) return;
    // This desk checks files against the new policy from now on.
    forgetPolicy();
    await adminAction(async () => saved, "Attachment settings saved.", reload);
  };

  return [
    toolbar("Which files visitors and agents may send in conversations. The server decides a file's type from its "
      + "first bytes, not from its name; HTML, SVG and programs are never shown inline in the desk."),
    h("div", { class: "card attachments-settings" },
      h("div", { class: "field" },
        h("label", { class: "field-inline", for: "attachments-enabled" },
          h("input", { type: "checkbox", id: "attachments-enabled", checked: policy.enabled, "aria-describedby": "attachments-enabled-hint" }),
          "Visitors and agents may send files"),
        hint("attachments-enabled", "Off: every upload is refused (403), and the desk and the apps say so before sending.")),
      h("div", { class: "field" },
        h("label", { for: "attachments-max-mb" }, "Largest file (MB)"),
        h("input", { id: "attachments-max-mb", type: "number", min: "0.000001", step: "any", inputmode: "decimal", autocomplete: "off",
          value: megabytes(policy.max_bytes), "aria-describedby": "attachments-max-mb-hint", oninput: (event) => showBytes(event.target.value) }),
        bytesHint),
      types("attachments-allowed", "Allowed types", policy.allowed_types,
        "One per line: an exact type (application/pdf) or a family (image/*); */* allows every type."),
      types("attachments-blocked", "Blocked types", policy.blocked_types,
        "Refused even when allowed, one per line (video/* under */*, say)."),
      error,
      h("div", { class: "row" }, h("button", { class: "button primary", type: "button", id: "attachments-save", onclick: save }, "Save attachment settings"))),
  ];
}
