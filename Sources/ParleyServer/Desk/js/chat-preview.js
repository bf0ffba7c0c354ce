// The chat page's live preview on the Appearance and Forms admin pages: an iframe of
// /chat/?preview=1 fed by postMessage with the values being edited (nothing is saved). The page and
// the desk share this origin, and both check it.
import { h } from "./dom.js";

/**
 * A preview element and `update(values)`: values are {appearance, forms, screen} as the chat page
 * takes them (`screen`: "preChat", "unavailable", "postChat" or "chatting").
 */
export function chatPreview(label = "Chat preview") {
  let latest = null;
  let ready = false;
  const frame = h("iframe", { class: "chat-preview-frame", id: "chat-preview", title: label, src: "/chat/?preview=1&locale=en" });
  const send = () => {
    if (ready && latest) frame.contentWindow?.postMessage({ parley: 1, call: "preview", ...latest }, location.origin);
  };
  window.addEventListener("message", (event) => {
    if (event.source !== frame.contentWindow || event.origin !== location.origin) return;
    if (event.data?.parley === 1 && event.data.event === "preview_ready") {
      ready = true;
      send();
    }
  });
  const element = h("figure", { class: "chat-preview" }, h("figcaption", { class: "field-hint" }, `${label}: as a visitor sees it, before you save`), frame);
  return {
    element,
    update(values) {
      latest = structuredClone(values);
      send();
    },
  };
}
