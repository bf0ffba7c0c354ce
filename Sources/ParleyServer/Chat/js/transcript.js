// Transcript items: messages (text with safe links, files), notices, pushed pages. Each item has a
// stable key (`m:<client_message_id>`, `s:<seq>`) so the controller patches it in place.
import { h } from "./dom.js";
import { t } from "./i18n.js";
import { linkify } from "./links.js";

const RASTER = new Set(["image/png", "image/jpeg", "image/gif", "image/webp"]);

export function formatTime(iso) {
  const date = iso ? new Date(iso) : new Date();
  return date.toLocaleTimeString(document.documentElement.lang || undefined, { hour: "2-digit", minute: "2-digit" });
}

export function formatSize(bytes) {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KB`;
  return `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}

/** The text of a message with http(s) links as <a> elements; `onLink(url, event)` decides what a click does. */
export function richText(text, onLink) {
  return linkify(text).map((part) => {
    if (!part.url) return part.text;
    const link = h("a", { href: part.url, rel: "noopener noreferrer nofollow", target: "_blank", text: part.text });
    link.addEventListener("click", (event) => {
      event.preventDefault();
      onLink(part.url);
    });
    return link;
  });
}

/**
 * A message item. `message`: {key, role: "visitor"|"agent", name, text, created_at, attachment?,
 * state: "sending"|"sent"|"read"|"failed", error?}.
 */
export function messageItem(message, actions) {
  const isVisitor = message.role === "visitor";
  const body = h("div", { class: "bubble" });
  if (message.attachment) body.append(attachmentView(message, actions));
  // Each text sets its own direction from its first strong character (an Arabic message in an English page).
  if (message.text) body.append(h("p", { class: "text", dir: "auto" }, richText(message.text, actions.onLink)));
  const status = isVisitor ? statusLine(message, actions) : null;
  return h("li", { class: `message ${isVisitor ? "mine" : "theirs"}`, dataset: { key: message.key, role: message.role, state: message.state ?? "sent" } },
    h("span", { class: "visually-hidden", text: `${message.name}: ` }),
    isVisitor ? null : h("span", { class: "author", "aria-hidden": "true", text: message.name }),
    body,
    h("span", { class: "meta" }, h("time", { datetime: message.created_at ?? "", text: formatTime(message.created_at) }), status));
}

function statusLine(message, actions) {
  switch (message.state) {
    case "sending":
      return h("span", { class: "status", text: ` · ${t("sending")}` });
    case "failed":
      return h("span", { class: "status failed" }, ` · ${message.error ?? t("failed")} `,
        h("button", { class: "link-button retry", type: "button", text: t("retry"), onclick: () => actions.onRetry(message) }));
    case "read":
      return h("span", { class: "status", text: ` · ${t("read")}` });
    default:
      return h("span", { class: "status", text: ` · ${t("sent")}` });
  }
}

function attachmentView(message, actions) {
  const file = message.attachment;
  const card = h("div", { class: "file-card" },
    h("span", { class: "file-name", text: file.name }),
    h("span", { class: "file-meta", text: `${formatSize(file.size ?? 0)} · ${file.content_type ?? ""}` }));
  if (file.id) {
    card.append(h("button", { class: "button small", type: "button", text: t("download"), "aria-label": `${t("download")} ${file.name}`, onclick: () => actions.onDownload(file) }));
  }
  if (!RASTER.has(file.content_type) || !file.id) return card;
  // A decoded image keeps its blob: URL, so a redrawn item is equal to the one on screen (and kept).
  const cached = actions.cachedImage?.(file);
  const image = h("img", { class: "file-image", alt: file.name, src: cached ?? null });
  if (!cached) actions.loadImage(file).then((url) => { if (url) image.src = url; });
  return h("figure", { class: "file" }, image, card);
}

export function noticeItem(key, text) {
  return h("li", { class: "notice", dataset: { key }, text });
}

/** A page the agent pushed: title, host, Open (which follows the link policy). */
export function pageCard(event, onOpen) {
  let host = "";
  try {
    host = new URL(event.url).host;
  } catch { /* a URL the server accepted is absolute */ }
  return h("li", { class: "page-card", dataset: { key: `s:${event.seq}` } },
    h("div", { class: "page-card-body" },
      h("p", { class: "page-title", text: event.title || host }),
      h("p", { class: "page-host", text: host })),
    h("button", { class: "button small", type: "button", text: t("page_open"), "aria-label": `${t("page_open")}: ${event.title || host}`, onclick: () => onOpen(event.url) }));
}
