// Files in the transcript: a message's attachment (a raster image previewed inline, anything else as
// a card) and a file being sent (progress, cancel, retry).
//
// Untrusted bytes never become a page of the desk's origin: a preview is only ever an <img> of a
// raster type the server decided from the bytes (never SVG, which can carry script), loaded straight
// from the download URL (the session cookie authenticates GETs; the answer is `attachment`,
// `nosniff`, sandboxed). Every other file is a link to that URL, which the browser saves. File names
// are text nodes and attribute values, never markup.
import { openDialog } from "./dialogs.js";
import { byId, h } from "./dom.js";
import { readableSize, typeName } from "./format.js";

/** The types shown inline (ParleyCore Attachment.isPreviewableImage). */
const PREVIEWABLE = new Set(["image/png", "image/jpeg", "image/gif", "image/webp"]);

export function downloadURL(conversationID, attachmentID) {
  return `/v1/conversations/${encodeURIComponent(conversationID)}/attachments/${encodeURIComponent(attachmentID)}`;
}

/** A message's attachment: an inline preview for raster images, a card for everything else. */
export function attachmentElement(conversationID, attachment) {
  const url = downloadURL(conversationID, attachment.id);
  if (!PREVIEWABLE.has(attachment.content_type)) return card(url, attachment);
  const size = readableSize(attachment.size);
  const image = h("img", { class: "attachment-preview", src: url, alt: attachment.name, decoding: "async" });
  const figure = h("figure", { class: "attachment attachment-image", dataset: { attachmentId: attachment.id, contentType: attachment.content_type } },
    h("button", { class: "attachment-open", type: "button", "aria-label": `Open image ${attachment.name}, ${size}`,
      onclick: () => openImage(url, attachment) }, image),
    h("figcaption", { class: "attachment-meta" },
      h("span", { class: "attachment-name" }, attachment.name), ` · ${size} · `,
      h("a", { href: url, download: attachment.name, "aria-label": `Download ${attachment.name}` }, "Download")));
  // A preview that cannot load (removed under retention, say) becomes the card, which still says what it was.
  image.addEventListener("error", () => figure.replaceWith(card(url, attachment, "Preview unavailable")), { once: true });
  // The transcript keeps to its bottom when an image above grows it.
  image.addEventListener("load", () => image.dispatchEvent(new CustomEvent("attachment-load", { bubbles: true })), { once: true });
  return figure;
}

function card(url, attachment, note = null) {
  const size = readableSize(attachment.size);
  return h("div", { class: "attachment attachment-card", dataset: { attachmentId: attachment.id, contentType: attachment.content_type } },
    fileIcon(),
    h("span", { class: "attachment-info" },
      h("span", { class: "attachment-name" }, attachment.name),
      h("span", { class: "attachment-meta" }, `${size} · ${typeName(attachment.content_type)}`, note ? ` · ${note}` : null)),
    h("a", { class: "button small", href: url, download: attachment.name, "aria-label": `Download ${attachment.name}, ${size}` }, "Download"));
}

/** A document icon (an image of the desk's own, decorative: the card says name, size and type). */
export function fileIcon() {
  return h("img", { class: "attachment-icon", src: "img/file.svg", alt: "", width: 28, height: 28 });
}

/** The full image in a dialog, with its download link. */
function openImage(url, attachment) {
  const dialog = byId("image-dialog");
  byId("image-dialog-title").textContent = attachment.name;
  const image = byId("image-dialog-image");
  image.src = url;
  image.alt = attachment.name;
  const download = byId("image-dialog-download");
  download.href = url;
  download.download = attachment.name;
  download.setAttribute("aria-label", `Download ${attachment.name}, ${readableSize(attachment.size)}`);
  openDialog(dialog, { focus: dialog.querySelector("[data-close]") }).then(() => {
    image.removeAttribute("src");
  });
}

// MARK: - Files being sent

/** A file on its way (or refused), with the caption it carries; `upload` is the record in uploads.js. */
export function uploadElement(clientMessageID, upload, author) {
  const size = readableSize(upload.size);
  let status;
  if (upload.failed) {
    status = h("p", { class: "item-status" }, `Not sent: ${upload.failed} `,
      upload.retryable ? h("button", { class: "button small", type: "button", dataset: { uploadRetry: clientMessageID },
        "aria-label": `Retry sending ${upload.name}` }, "Retry") : null, " ",
      h("button", { class: "button small", type: "button", dataset: { uploadCancel: clientMessageID }, "aria-label": `Dismiss ${upload.name}` }, "Dismiss"));
  } else {
    const percent = upload.status === "sending" ? Math.floor((upload.sent / Math.max(upload.size, 1)) * 100) : 0;
    status = h("div", { class: "upload-progress" },
      h("progress", { max: String(Math.max(upload.size, 1)), value: String(upload.sent), "aria-label": `Sending ${upload.name}` }),
      h("span", { class: "upload-percent" }, upload.status === "sending" ? `${percent} %` : "Waiting…"),
      h("button", { class: "button small", type: "button", dataset: { uploadCancel: clientMessageID }, "aria-label": `Cancel sending ${upload.name}` }, "Cancel"));
  }
  return h("li", {
    class: `item message from-agent upload ${upload.failed ? "is-failed" : "is-pending"}`,
    id: `upload-${clientMessageID}`,
    dataset: { kind: "upload", clientMessageId: clientMessageID },
  },
  author,
  h("div", { class: "attachment attachment-card" },
    fileIcon(),
    h("span", { class: "attachment-info" },
      h("span", { class: "attachment-name" }, upload.name),
      h("span", { class: "attachment-meta" }, size)),
    status),
  upload.caption ? h("p", { class: "item-text" }, upload.caption) : null);
}

/** Moves a file's progress bar without re-rendering it (focus stays on its Cancel button). */
export function paintUpload(clientMessageID, upload) {
  const item = document.getElementById(`upload-${clientMessageID}`);
  const bar = item?.querySelector("progress");
  if (!bar) return;
  bar.value = upload.sent;
  item.querySelector(".upload-percent").textContent = `${Math.floor((upload.sent / Math.max(upload.size, 1)) * 100)} %`;
}
