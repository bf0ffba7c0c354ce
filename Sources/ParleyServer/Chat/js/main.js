// Start-up: read the URL (`?app=app_…&queue=que_…&locale=de&theme=dark`), install the bridge, ask
// the host for customer data, then start the chat (or the desk's preview, `&preview=1`). In the
// website embed (`&embed=1`, framed) a new chat starts only once the launcher opens it.
import { Bridge, parseCustomerData } from "./bridge.js";
import { Chat } from "./chat.js";
import { byId } from "./dom.js";
import { setLocale, t } from "./i18n.js";
import { installViewer } from "./viewer.js";

const CUSTOMER_DATA_WAIT_MS = 1500;
const params = new URLSearchParams(location.search);
const app = params.get("app");
const queue = params.get("queue");
const preview = params.get("preview") === "1";
const embedded = params.get("embed") === "1";

/** The origin of the page that frames us, when it is the one it says it is (`origin=` from embed.js). */
function embedderOrigin() {
  if (window.parent === window) return null;
  const claimed = params.get("origin") ?? (preview ? location.origin : null);
  const ancestors = location.ancestorOrigins;
  if (ancestors && ancestors.length) return claimed && ancestors[0] === claimed ? claimed : ancestors[0];
  return claimed;
}

function applyLocale(tag) {
  const { dir } = setLocale(tag);
  document.documentElement.lang = tag;
  document.documentElement.dir = params.get("dir") ?? dir;
  for (const element of document.querySelectorAll("[data-t]")) element.textContent = t(element.dataset.t);
  for (const element of document.querySelectorAll("[data-t-label]")) element.setAttribute("aria-label", t(element.dataset.tLabel));
  for (const element of document.querySelectorAll("[data-t-placeholder]")) element.setAttribute("placeholder", t(element.dataset.tPlaceholder));
}

function applyTheme(theme) {
  document.documentElement.dataset.theme = theme === "dark" || theme === "light" ? theme : "auto";
}

let chat = null;
let customer = null;
let isVisible = true;
let customerArrived = null;
let launcherOpened = null;
const firstOpen = new Promise((resolve) => { launcherOpened = resolve; });

function onCall(call) {
  switch (call.call) {
    case "close_chat":
      chat?.closeChat();
      break;
    case "show_close_button":
      byId("close-button").hidden = call.visible !== true;
      break;
    case "customer_data": {
      customer = parseCustomerData(call);
      customerArrived?.();
      if (chat) {
        chat.customer = { ...chat.customer, ...customer };
        chat.renewSession().catch(() => {});
      }
      break;
    }
    case "set_locale":
      if (typeof call.locale === "string" && call.locale) {
        applyLocale(call.locale);
        if (chat) {
          chat.applyAppearance(chat.appearance);
          chat.render();
        }
      }
      break;
    case "set_visible":
      // The embed's launcher opened or closed the chat: read receipts only while it is on screen.
      isVisible = call.visible === true;
      if (isVisible) launcherOpened();
      chat?.setVisible(isVisible);
      break;
    default:
      break;
  }
  document.body.dataset.lastCall = call.call;
}

async function main() {
  applyLocale(params.get("locale") || navigator.language || "en");
  applyTheme(params.get("theme"));
  installViewer();
  const bridge = new Bridge({ embedderOrigin: embedderOrigin(), onCall });
  // The embed's frame is hidden until its launcher says otherwise (`set_visible`, from the embedder only).
  const waitsForLauncher = embedded && bridge.framed;
  if (waitsForLauncher) isVisible = false;
  bridge.install();
  byId("close-button").addEventListener("click", () => bridge.send("chat_closed"));
  bridge.send("page_ready", { locale: document.documentElement.lang });

  if (preview) {
    const { startPreview } = await import("./preview.js");
    startPreview();
    return;
  }
  if (!app) {
    document.body.dataset.screen = "error";
    byId("loading").hidden = true;
    byId("panel").hidden = false;
    byId("panel").textContent = t("error_app");
    return;
  }
  if (bridge.hasHost) {
    const answered = new Promise((resolve) => { customerArrived = resolve; });
    const immediate = bridge.requestCustomerData();
    if (immediate) customer = immediate;
    else await Promise.race([answered, new Promise((resolve) => setTimeout(resolve, CUSTOMER_DATA_WAIT_MS))]);
  }
  chat = new Chat({ app, queue, bridge, customer, isVisible, untilOpened: waitsForLauncher ? firstOpen : null });
  wireComposer(chat);
  await chat.start();
}

function wireComposer(chat) {
  const form = byId("composer");
  const box = byId("composer-text");
  const fileInput = byId("file-input");
  const resize = () => {
    box.style.blockSize = "auto";
    box.style.blockSize = `${Math.min(box.scrollHeight, 160)}px`;
  };
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    const text = box.value;
    if (!text.trim()) return;
    box.value = "";
    resize();
    chat.send(text);
  });
  box.addEventListener("keydown", (event) => {
    if (event.key === "Enter" && !event.shiftKey && !event.isComposing) {
      event.preventDefault();
      form.requestSubmit();
    }
  });
  box.addEventListener("input", () => {
    resize();
    chat.onInput();
  });
  byId("attach").addEventListener("click", () => fileInput.click());
  fileInput.addEventListener("change", () => {
    for (const file of fileInput.files) chat.sendFile(file);
    fileInput.value = "";
  });
  byId("end-chat").addEventListener("click", () => {
    const dialog = byId("end-dialog");
    dialog.showModal();
  });
  byId("end-dialog").addEventListener("close", () => {
    if (byId("end-dialog").returnValue === "end") chat.run(chat.machine.endChat());
  });
  // Keep the composer above the on-screen keyboard where `interactive-widget` is not honoured.
  if (window.visualViewport) {
    const fit = () => document.documentElement.style.setProperty("--viewport-height", `${window.visualViewport.height}px`);
    window.visualViewport.addEventListener("resize", fit);
    fit();
  }
}

main().catch((error) => {
  console.warn("parley chat failed to start", error);
});
