// What the visitor does with links, files and transcripts: the link policy's decision carried out,
// files fetched with the visitor's token, and each handed to the host app through the bridge when
// there is one (a plain browser saves, opens or prints itself).
import { api, authorization } from "./api.js";
import { h } from "./dom.js";
import { locale, t } from "./i18n.js";
import { decide } from "./links.js";
import { openViewer } from "./viewer.js";

/** A click on a link or a pushed page, by the app's link policy. */
export function openLink(chat, url) {
  const decision = decide(url, chat.policy);
  if (decision === "inside") {
    openViewer(url);
  } else if (decision === "outside") {
    if (chat.bridge.hasHost) chat.bridge.send("open_url", { url });
    else window.open(url, "_blank", "noopener,noreferrer");
  } else if (decision === "block") {
    chat.toast(t("link_blocked", { host: new URL(url).host }));
  }
}

function attachmentURL(chat, file) {
  return `/v1/conversations/${chat.conversationID ?? file.conversation_id}/attachments/${file.id}`;
}

/** A file's bytes as a blob: URL (fetched with the visitor's token), kept per file. */
export async function loadImage(chat, file) {
  if (chat.imageURLs.has(file.id)) return chat.imageURLs.get(file.id);
  try {
    const response = await api("GET", attachmentURL(chat, file), null, { raw: true });
    const url = URL.createObjectURL(await response.blob());
    chat.imageURLs.set(file.id, url);
    return url;
  } catch {
    return null;
  }
}

/** Download: the host gets the URL and authorization; a plain browser saves the file. */
export async function download(chat, file) {
  const url = new URL(attachmentURL(chat, file), location.href).href;
  if (chat.bridge.hasHost) {
    chat.bridge.send("download_attachment", {
      conversation_id: chat.conversationID, attachment_id: file.id, file_name: file.name, content_type: file.content_type,
      size: file.size, url, authorization: authorization(),
    });
    return;
  }
  const response = await api("GET", attachmentURL(chat, file), null, { raw: true });
  saveBlob(await response.blob(), file.name);
}

async function transcriptHTML(conversationID) {
  const response = await api("GET", `/v1/conversations/${conversationID}/transcript?format=html&lang=${encodeURIComponent(locale())}`, null, { raw: true });
  return response.text();
}

export async function saveTranscript(chat, conversationID) {
  const html = await transcriptHTML(conversationID);
  const fileName = `transcript-${conversationID}.html`;
  if (chat.bridge.hasHost) chat.bridge.send("save_transcript", { conversation_id: conversationID, file_name: fileName, html });
  else saveBlob(new Blob([html], { type: "text/html" }), fileName);
}

export async function printTranscript(chat, conversationID) {
  const html = await transcriptHTML(conversationID);
  if (chat.bridge.hasHost) chat.bridge.send("print_transcript", { conversation_id: conversationID, html });
  else window.print();
}

function saveBlob(blob, name) {
  const url = URL.createObjectURL(blob);
  const link = h("a", { href: url, download: name, hidden: true });
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10000);
}
