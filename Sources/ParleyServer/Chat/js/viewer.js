// The in-page viewer for links the app keeps inside the chat (link policy `inside_hosts`): a panel
// over the chat with the page's host as its title, a Close button, and the page in a sandboxed
// iframe (scripts and forms of that site run, but it gets no access to the chat's origin).
import { byId, h, replaceChildren } from "./dom.js";

let returnFocus = null;

export function openViewer(url, title) {
  const viewer = byId("viewer");
  const host = new URL(url).host;
  returnFocus = document.activeElement;
  byId("viewer-title").textContent = title || host;
  const frame = h("iframe", {
    src: url, title: title || host, referrerpolicy: "no-referrer",
    sandbox: "allow-scripts allow-forms allow-popups allow-popups-to-escape-sandbox allow-same-origin",
  });
  replaceChildren(byId("viewer-body"), frame);
  viewer.hidden = false;
  viewer.dataset.url = url;
  byId("viewer-close").focus();
}

export function closeViewer() {
  const viewer = byId("viewer");
  if (viewer.hidden) return;
  viewer.hidden = true;
  delete viewer.dataset.url;
  byId("viewer-body").replaceChildren();
  returnFocus?.focus?.();
}

export function installViewer() {
  byId("viewer-close").addEventListener("click", closeViewer);
  byId("viewer").addEventListener("keydown", (event) => {
    if (event.key === "Escape") closeViewer();
  });
}
