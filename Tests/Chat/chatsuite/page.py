"""The chat page as a page object, and the recorder that stands in for the host app's bridge.

The recorder is injected before any page script (CDP `Page.addScriptToEvaluateOnNewDocument`, which
the page's CSP does not govern). It registers the host side the page looks for — iOS
`window.webkit.messageHandlers`, Android `window.ParleyAndroid`, and Cisco's names — and records
everything posted or passed as {channel, handler, body}, exactly as the app would receive it."""
import json
import os

from selenium.common.exceptions import WebDriverException
from selenium.webdriver.common.by import By

from harness.browser import BrowserPage, make_driver

CISCO_IOS = ["IOSChatStarted", "IOSSetSessionId", "IOSChatClosed", "IOSChatEnded", "IOSGetCustomerData",
             "IOSSaveTranscript", "IOSPrintTranscript", "IOSDownloadAttachment"]
CISCO_ANDROID = ["onChatStarted", "setSid", "onChatClosed", "onChatEnded", "saveTranscript", "printTranscript"]

RECORDER = """
(() => {
  const channels = %(channels)s;
  const customer = %(customer)s;
  const copy = (value) => (value === undefined ? null : JSON.parse(JSON.stringify(value)));
  window.__bridge = [];
  const record = (channel, handler, body) => window.__bridge.push({channel, handler, body: copy(body)});
  const handlers = {};
  if (channels.includes("ios")) {
    handlers.parley = {postMessage(body) {
      record("ios", "parley", body);
      // A host that answers customer data the way ParleyChatView does: with a customer_data call
      // (customer false: a host that never answers, so the test answers by hand).
      if (customer !== false && body && body.event === "customer_data_requested") {
        setTimeout(() => window.Parley.receive(Object.assign({parley: 1, call: "customer_data"}, customer || {})), 0);
      }
    }};
  }
  if (channels.includes("ios-cisco")) {
    for (const name of %(cisco_ios)s) handlers[name] = {postMessage(body) { record("ios-cisco", name, body); }};
  }
  if (Object.keys(handlers).length) window.webkit = {messageHandlers: handlers};
  if (channels.includes("android")) {
    // Android's interface is named by its object (ParleyKit's ChatBridge.androidInterfaceName).
    window.ParleyAndroid = {postMessage(text) { record("android", "ParleyAndroid", text); }};
  }
  if (channels.includes("android-cisco")) {
    const android = {};
    for (const name of %(cisco_android)s) android[name] = function (argument) { record("android-cisco", name, argument === undefined ? null : argument); };
    android.getCustomerData = function () { record("android-cisco", "getCustomerData", null); return JSON.stringify(customer || {}); };
    window.AndroidInterface = android;
  }
})();
"""

MOBILE = (390, 844)
DESKTOP = (1440, 900)


def make_chat_driver(size=MOBILE, channels=(), customer=None):
    width, height = size
    driver = make_driver(width, height)
    if size == MOBILE:
        driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": True})
    else:
        driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": False})
    source = RECORDER % {"channels": json.dumps(list(channels)), "customer": json.dumps(customer),
                         "cisco_ios": json.dumps(CISCO_IOS), "cisco_android": json.dumps(CISCO_ANDROID)}
    driver.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": source})
    driver.execute_cdp_cmd("Network.enable", {})
    return driver


class ChatPage(BrowserPage):
    """One browser window on the chat page."""

    default_timeout = 20
    what = "the chat page"

    def open(self, app, queue=None, **params):
        query = {"app": app}
        if queue:
            query["queue"] = queue
        query.update(params)
        from urllib.parse import urlencode
        self.driver.get(f"{self.base}/chat/?{urlencode(query)}")
        return self

    def js_async(self, script, *args):
        return self.driver.execute_async_script(script, *args)

    def module(self, path, expression, *args):
        """Imports one of the page's modules (`js/links.js`) and evaluates `expression` with it as `m`."""
        return self.js_async(f"""
            const done = arguments[arguments.length - 1];
            const args = Array.from(arguments).slice(0, -1);
            // The page's own instance: index.html loads its modules under v/<version>/, and the same
            // file at another URL would be a second module with none of the page's state.
            const main = document.querySelector('script[type=module][src$="js/main.js"]');
            const base = main ? new URL("..", main.src).href : location.origin + "/chat/";
            import(new URL("{path}", base).href).then((m) => done({{ok: true, value: (function () {{ return {expression}; }})()}}))
              .catch((e) => done({{ok: false, value: String(e)}}));
        """, *args)

    def screen(self):
        return self.find("body").get_attribute("data-screen")

    def wait_screen(self, name, timeout=20):
        self.wait(lambda: self.screen() == name, timeout, f"the {name} screen (now {self.screen()})")
        return self

    def wait_subscribed(self, timeout=20):
        self.wait(lambda: self.find("body").get_attribute("data-subscribed") == "true" and self.find("body").get_attribute("data-connection") == "ready",
                  timeout, "the realtime subscription")

    def conversation_id(self):
        return self.js("return localStorage.getItem(Object.keys(localStorage).find((k) => k.startsWith('parley.conversation.')))")

    def messages(self, role=None):
        selector = "#transcript > li.message" + (f'[data-role="{role}"]' if role else "")
        return [item for item in self.find_all(selector) if "welcome" not in (item.get_attribute("class") or "")]

    def message_texts(self, role=None):
        return [item.find_element(By.CSS_SELECTOR, ".bubble").text for item in self.messages(role)]

    def wait_message(self, text, role=None, timeout=20):
        def find():
            for item in self.messages(role):
                if text in item.find_element(By.CSS_SELECTOR, ".bubble").text:
                    return item
            return None
        return self.wait(find, timeout, f"a message with {text[:40]!r}")

    def notices(self):
        return [item.text for item in self.find_all("#transcript > li.notice")]

    def type_and_send(self, text):
        box = self.visible("#composer-text")
        self.js("arguments[0].focus()", box)
        # send_keys cannot type characters outside the BMP (emoji); paste-like input covers them.
        self.js("""const box = arguments[0]; box.value = arguments[1]; box.dispatchEvent(new Event('input', {bubbles: true}));""", box, text)
        self.click("#send")

    def bridge(self):
        return self.js("return window.__bridge || []") or []

    def bridge_events(self, channel="ios"):
        return [entry["body"] for entry in self.bridge() if entry["channel"] == channel]

    def wait_bridge(self, event, channel="ios", timeout=20):
        return self.wait(lambda: next((body for body in self.bridge_events(channel) if isinstance(body, dict) and body.get("event") == event), None),
                         timeout, f"the bridge event {event}")

    def call(self, call):
        return self.js("return window.Parley.receive(arguments[0])", call)

    def set_offline(self, offline):
        self.driver.execute_cdp_cmd("Network.emulateNetworkConditions", {
            "offline": offline, "latency": 0, "downloadThroughput": -1, "uploadThroughput": -1})

    # MARK: - Console and artifacts

    def screenshot(self, directory, name):
        os.makedirs(directory, exist_ok=True)
        self.driver.save_screenshot(os.path.join(directory, f"{name}.png"))

    def save_artifacts(self, directory, name):
        super().save_artifacts(directory, name)
        try:
            with open(os.path.join(directory, f"{name}-{self.label}.bridge.json"), "w") as file:
                json.dump(self.bridge(), file, indent=2)
        except WebDriverException:
            pass
