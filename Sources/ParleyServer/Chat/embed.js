/*
 * Parley's website embed. One tag adds a launcher button that opens the chat in an iframe:
 *
 *   <script src="https://chat.example.com/chat/embed.js" data-app="app_…" data-queue="que_…"
 *           data-locale="de" data-theme="dark" async></script>
 *
 * Optional: data-name, data-email (customer data handed to the chat), data-position="left".
 * The launcher shows the unread count the page reports; a new chat starts only when it is first
 * opened. Messages between this page and the chat are origin-checked both ways: the chat's frame
 * posts only to this page's origin, and this script accepts messages only from the chat's origin and
 * frame. A classic script with no globals but window.ParleyEmbed (open(), close()); it adds one
 * shadow root (no inline style), so the website's CSS and Content-Security-Policy (no inline styles
 * needed) do not clash with it.
 */
(function () {
  "use strict";
  var script = document.currentScript;
  if (!script || window.ParleyEmbed) return;
  var chatURL = new URL("./", script.src);
  var chatOrigin = chatURL.origin;
  var data = script.dataset;
  var query = new URLSearchParams();
  query.set("app", data.app || "");
  if (data.queue) query.set("queue", data.queue);
  query.set("locale", data.locale || document.documentElement.lang || navigator.language || "en");
  if (data.theme) query.set("theme", data.theme);
  query.set("origin", location.origin);
  query.set("embed", "1");

  var host = document.createElement("div");
  host.setAttribute("data-parley-embed", "");
  var root = host.attachShadow ? host.attachShadow({ mode: "open" }) : host;
  var sheet = document.createElement("link");
  sheet.rel = "stylesheet";
  sheet.href = new URL("css/embed.css", chatURL).href;
  root.appendChild(sheet);

  var launcher = document.createElement("button");
  launcher.type = "button";
  launcher.className = "launcher" + (data.position === "left" ? " left" : "");
  launcher.setAttribute("aria-label", "Open chat");
  launcher.setAttribute("aria-expanded", "false");
  var svgNS = "http://www.w3.org/2000/svg";
  var icon = document.createElementNS(svgNS, "svg");
  icon.setAttribute("viewBox", "0 0 24 24");
  icon.setAttribute("width", "28");
  icon.setAttribute("height", "28");
  icon.setAttribute("aria-hidden", "true");
  var path = document.createElementNS(svgNS, "path");
  path.setAttribute("d", "M4 5h16v11H8l-4 4z");
  path.setAttribute("fill", "currentColor");
  icon.appendChild(path);
  launcher.appendChild(icon);
  var badge = document.createElement("span");
  badge.className = "badge";
  badge.hidden = true;
  launcher.appendChild(badge);

  var frame = null;
  var isOpen = false;
  var unread = 0;

  function post(call) {
    if (frame && frame.contentWindow) frame.contentWindow.postMessage(call, chatOrigin);
  }

  function setUnread(count) {
    unread = Math.max(0, count | 0);
    badge.textContent = unread > 99 ? "99+" : String(unread);
    badge.hidden = unread === 0;
    launcher.setAttribute("aria-label", unread ? "Open chat (" + unread + " unread)" : "Open chat");
  }

  function ensureFrame() {
    if (frame) return;
    frame = document.createElement("iframe");
    frame.className = "frame";
    frame.title = "Chat";
    frame.src = chatURL.href + "?" + query.toString();
    frame.setAttribute("allow", "clipboard-write");
    frame.hidden = true;
    root.appendChild(frame);
  }

  function open() {
    ensureFrame();
    isOpen = true;
    frame.hidden = false;
    launcher.setAttribute("aria-expanded", "true");
    post({ parley: 1, call: "set_visible", visible: true });
    frame.focus();
  }

  function close() {
    if (!frame) return;
    isOpen = false;
    frame.hidden = true;
    launcher.setAttribute("aria-expanded", "false");
    post({ parley: 1, call: "set_visible", visible: false });
    launcher.focus();
  }

  launcher.addEventListener("click", function () { if (isOpen) close(); else open(); });

  window.addEventListener("message", function (event) {
    if (!frame || event.origin !== chatOrigin || event.source !== frame.contentWindow) return;
    var message = event.data;
    if (!message || message.parley !== 1 || typeof message.event !== "string") return;
    switch (message.event) {
      case "page_ready":
        post({ parley: 1, call: "show_close_button", visible: true });
        post({ parley: 1, call: "set_visible", visible: isOpen });
        break;
      case "customer_data_requested":
        var customer = { parley: 1, call: "customer_data" };
        if (data.name) customer.name = data.name;
        if (data.email) customer.email = data.email;
        post(customer);
        break;
      case "chat_closed":
        close();
        break;
      case "unread_changed":
        setUnread(message.count);
        break;
      case "open_url":
        if (/^https?:\/\//i.test(String(message.url))) window.open(message.url, "_blank", "noopener,noreferrer");
        break;
      default:
        break;
    }
  });

  // The page loads in the background at once, so a conversation from an earlier page view resumes and
  // the unread count is live before the first open. A new conversation waits for the launcher: the
  // page starts one only once told it is visible (set_visible, posted to the chat's origin only).
  ensureFrame();
  root.appendChild(launcher);
  (document.body || document.documentElement).appendChild(host);
  window.ParleyEmbed = { open: open, close: close, get unread() { return unread; } };
})();
