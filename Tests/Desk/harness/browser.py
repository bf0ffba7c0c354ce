"""Chromium through chromedriver (Debian's, explicit paths: nothing is downloaded), and the desk as
a page object: every helper waits for an explicit condition, never for a fixed time."""
import json
import os
import re

from selenium import webdriver
from selenium.common.exceptions import ElementClickInterceptedException, NoSuchElementException, StaleElementReferenceException, WebDriverException
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support.ui import WebDriverWait

CHROMIUM = os.environ.get("PARLEY_CHROMIUM", "/usr/bin/chromium")
CHROMEDRIVER = os.environ.get("PARLEY_CHROMEDRIVER", "/usr/bin/chromedriver")

# Probes injected before any page script (DevTools scripts are not subject to the page's CSP); the
# desk itself has no test hooks. They count the beeps (WebAudio oscillators), record the frames
# the desk sends on its WebSocket, and can hold the frames a page (the desk's or the chat page's)
# receives (a slow network: the page still shows what the server has already changed). They keep
# the page's sockets (to drop them), record the desktop notifications it makes and the requests it
# fetches, and can lose the answer of one request that did reach the server (a connection that
# broke after sending).
PROBES = """
window.__parleyOscillators = 0;
window.__parleySentFrames = [];
window.__parleyHoldFrames = false;
window.__parleyHeldFrames = [];
window.__parleySockets = new Set();
window.__parleyNotifications = [];
window.__parleyFetches = [];
window.__parleyLoseAnswerOf = null;
(() => {
  if (typeof Notification === "function") {
    const Original = Notification;
    window.Notification = class extends Original {
      constructor(title, options) {
        super(title, options);
        window.__parleyNotifications.push({ title, body: options?.body ?? null, tag: options?.tag ?? null });
      }
    };
  }
  const fetch = window.fetch;
  window.fetch = async function (input, init) {
    const method = init?.method ?? "GET";
    const url = String(input);
    window.__parleyFetches.push({ method, url, body: typeof init?.body === "string" ? init.body : null });
    const response = await fetch.call(window, input, init);
    const lose = window.__parleyLoseAnswerOf;
    if (lose && method === lose.method && url.includes(lose.path)) {
      window.__parleyLoseAnswerOf = null;
      throw new TypeError("Failed to fetch (the answer was lost on purpose)");
    }
    return response;
  };
  const createOscillator = AudioContext.prototype.createOscillator;
  AudioContext.prototype.createOscillator = function () {
    window.__parleyOscillators += 1;
    return createOscillator.call(this);
  };
  const send = WebSocket.prototype.send;
  WebSocket.prototype.send = function (data) {
    try { window.__parleySentFrames.push(JSON.parse(data)); } catch (e) {}
    return send.call(this, data);
  };
  const addEventListener = WebSocket.prototype.addEventListener;
  WebSocket.prototype.addEventListener = function (type, listener, options) {
    window.__parleySockets.add(this);
    if (type !== "message") return addEventListener.call(this, type, listener, options);
    const socket = this;
    return addEventListener.call(this, type, function (event) {
      if (window.__parleyHoldFrames) window.__parleyHeldFrames.push(() => listener.call(socket, event));
      else listener.call(socket, event);
    }, options);
  };
  window.__parleyReleaseFrames = () => {
    window.__parleyHoldFrames = false;
    for (const deliver of window.__parleyHeldFrames.splice(0)) deliver();
  };
})();
"""

# Messages Chromium logs at SEVERE that are not faults of the desk. None today: an unrated chat and a
# queue without hours are answered 204 (normal states), so any 4xx in the console is a finding.
ALWAYS_ALLOWED = []


def make_driver(width=1280, height=900):
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for argument in [
        "--headless=new", "--no-sandbox", "--disable-dev-shm-usage", f"--window-size={width},{height}",
        "--autoplay-policy=no-user-gesture-required", "--disable-gpu", "--no-first-run",
    ]:
        options.add_argument(argument)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(service=Service(CHROMEDRIVER), options=options)
    driver.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": PROBES})
    return driver


AXE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "Chat", "vendor", "axe.min.js")


class BrowserPage:
    """One browser window on one of Parley's pages (the desk, the chat page): waiting, finding,
    clicking, and the console's problems. Subclasses name what they are and how long they wait."""

    default_timeout = 15
    what = "the page"

    def __init__(self, driver, base, label, allowed=()):
        self.driver = driver
        self.base = base
        self.label = label
        self.console = []
        self.allowed = list(allowed)

    # MARK: - Waiting and finding

    def wait(self, condition, timeout=None, message=None):
        def check(_):
            try:
                return condition()
            except (NoSuchElementException, StaleElementReferenceException):
                return False
        return WebDriverWait(self.driver, timeout or self.default_timeout, poll_frequency=0.05).until(
            check, message=f"[{self.label}] {message or 'a condition in ' + self.what}")

    def find(self, css):
        return self.driver.find_element(By.CSS_SELECTOR, css)

    def find_all(self, css):
        return self.driver.find_elements(By.CSS_SELECTOR, css)

    def visible(self, css, timeout=None):
        return self.wait(lambda: (lambda e: e if e.is_displayed() else None)(self.find(css)), timeout, f"{css} to be visible")

    def gone(self, css, timeout=None):
        return self.wait(lambda: all(not e.is_displayed() for e in self.find_all(css)), timeout, f"{css} to be hidden")

    def click(self, css, timeout=None):
        """Clicks the element once it is there and visible; a re-render in between just means another try."""
        def attempt():
            element = self.find(css)
            if not element.is_displayed() or not element.is_enabled():
                return False
            element.click()
            return True
        self.wait(attempt, timeout, f"{css} to be clickable")

    def js(self, script, *args):
        return self.driver.execute_script(script, *args)

    def hold_frames(self):
        """Holds the frames the server sends on the realtime socket (in order) until release_frames():
        the page keeps showing what it knew, as on a slow network."""
        self.js("window.__parleyHoldFrames = true")

    def release_frames(self):
        """Delivers the held frames, in order, and lets new ones through again."""
        return self.js("const count = window.__parleyHeldFrames.length; window.__parleyReleaseFrames(); return count")

    def discard_held_frames(self):
        """Throws away the held frames (as a broken connection loses them) and lets new ones through."""
        return self.js("const count = window.__parleyHeldFrames.length; window.__parleyHeldFrames = []; "
                       "window.__parleyHoldFrames = false; return count")

    def drop_sockets(self):
        """Closes the page's open WebSockets from the client side, as a network change would."""
        return self.js("let n = 0; for (const s of window.__parleySockets) if (s.readyState === WebSocket.OPEN) { s.close(); n += 1; } return n")

    def lose_answer_of(self, method, path):
        """The next `method` request whose URL contains `path` reaches the server, but the page gets a
        network failure instead of the answer."""
        self.js("window.__parleyLoseAnswerOf = {method: arguments[0], path: arguments[1]}", method, path)

    def fetched(self, method=None, path=None):
        """The requests the page fetched, oldest first: {method, url, body (a string or None)}."""
        return [request for request in self.js("return window.__parleyFetches") or []
                if (method is None or request["method"] == method) and (path is None or path in request["url"])]

    def notifications(self):
        """The desktop notifications the page made: {title, body, tag}."""
        return self.js("return window.__parleyNotifications") or []

    def press(self, *keys):
        """Types keys into whatever has focus (as a person at the keyboard would)."""
        ActionChains(self.driver).send_keys(*keys).perform()

    def chord(self, modifier, key):
        """Presses `key` while holding `modifier` (Keys.ALT, Keys.SHIFT…)."""
        ActionChains(self.driver).key_down(modifier).send_keys(key).key_up(modifier).perform()

    def active(self):
        return self.driver.switch_to.active_element

    def accessibility_problems(self):
        """axe-core's serious and critical violations on the page as it is now (axe is injected from
        the test tree, Tests/Chat/vendor/axe.min.js, never served by parleyd)."""
        with open(AXE) as file:
            self.js(file.read())
        found = self.driver.execute_async_script(
            "const done = arguments[0]; axe.run(document, {resultTypes: ['violations']}).then((r) => "
            "done(r.violations.map((v) => ({id: v.id, impact: v.impact, nodes: v.nodes.map((n) => n.target.join(' '))}))))")
        return [violation for violation in found if violation["impact"] in ("serious", "critical")]

    # MARK: - Console

    def allow_console(self, pattern):
        self.allowed.append(re.compile(pattern))

    def collect_console(self):
        try:
            self.console.extend(self.driver.get_log("browser"))
        except WebDriverException:
            pass
        return self.console

    def console_problems(self):
        """SEVERE console entries (JS errors, CSP violations, failed requests) not explicitly allowed,
        and any CSP report whatever its level."""
        problems = []
        for entry in self.collect_console():
            message = entry.get("message", "")
            csp = "Content Security Policy" in message or "Content-Security-Policy" in message
            if entry.get("level") != "SEVERE" and not csp:
                continue
            if not csp and any(pattern.search(message) for pattern in self.allowed):
                continue
            problems.append(entry)
        return problems

    def save_artifacts(self, directory, name):
        os.makedirs(directory, exist_ok=True)
        stem = os.path.join(directory, f"{name}-{self.label}")
        try:
            self.driver.save_screenshot(stem + ".png")
            with open(stem + ".html", "w") as file:
                file.write(self.driver.page_source)
        except WebDriverException as error:
            with open(stem + ".error.txt", "w") as file:
                file.write(str(error))
        with open(stem + ".console.json", "w") as file:
            json.dump(self.collect_console(), file, indent=2)

    def quit(self):
        try:
            self.driver.quit()
        except WebDriverException:
            pass


class Desk(BrowserPage):
    """One browser window on the desk."""

    what = "the desk"

    def __init__(self, driver, base, label):
        super().__init__(driver, base, label, ALWAYS_ALLOWED)

    def sent_frames(self, type=None):
        """The frames this page sent on its realtime socket(s), oldest first."""
        frames = self.js("return window.__parleySentFrames") or []
        return [frame for frame in frames if type is None or frame.get("type") == type]

    def fetch(self, method, path, body=None, headers=None):
        """A same-origin fetch from inside the page (with the session cookie); returns {status, body}."""
        return self.driver.execute_async_script("""
            const [method, path, body, headers, done] = arguments;
            fetch(path, {method, headers: Object.assign({'Content-Type': 'application/json'}, headers || {}),
                         body: body === null ? undefined : JSON.stringify(body), credentials: 'same-origin'})
              .then(async (r) => done({status: r.status, body: await r.text()}))
              .catch((e) => done({status: 0, body: String(e)}));
        """, method, path, body, headers)

    # MARK: - Session

    def open(self, route=""):
        self.driver.get(f"{self.base}/desk/{route}")

    def login(self, email, password, online=True):
        self.open()
        self.visible("#login-email").send_keys(email)
        self.find("#login-password").send_keys(password + Keys.ENTER)
        self.visible("#desk")
        self.wait_connected()
        if online:
            self.set_availability("online")
        return self

    def wait_connected(self, timeout=20):
        self.wait(lambda: self.find("body").get_attribute("data-connection") == "ready", timeout, "the realtime connection")

    def set_availability(self, value):
        select = self.find("#availability")
        select.find_element(By.CSS_SELECTOR, f"option[value={value}]").click()
        self.wait(lambda: self.find("body").get_attribute("data-availability") == value, message=f"availability {value}")

    # MARK: - Inbox

    def tab(self, name):
        link = self.find(f"#tab-{name}")
        try:
            link.click()
        except ElementClickInterceptedException:
            # Toasts sit over the navigation, bottom left, and the views list is long: a person dismisses them.
            for close in self.find_all("#toasts .toast-close"):
                close.click()
            self.wait(lambda: not self.find_all("#toasts .toast"), message="the toasts dismissed")
            link.click()
        self.wait(lambda: self.find(f"#tab-{name}").get_attribute("aria-current") == "page", message=f"tab {name}")

    def inbox_row(self, conversation_id, timeout=20):
        return self.visible(f'#inbox-list li[data-conversation-id="{conversation_id}"]', timeout)

    def unread_badge(self, conversation_id):
        """The unread count shown on a row, or None without a badge."""
        badges = self.find_all(f'#inbox-list li[data-conversation-id="{conversation_id}"] .badge')
        return badges[0].text if badges else None

    def open_conversation(self, conversation_id):
        self.inbox_row(conversation_id).find_element(By.CSS_SELECTOR, "a").click()
        self.wait(lambda: self.find("#conversation").get_attribute("data-conversation-id") == conversation_id and self.find("#conversation").is_displayed(),
                  message=f"conversation {conversation_id} open")
        self.wait(lambda: self.find("#transcript").get_attribute("aria-busy") == "false", message="the transcript loaded")

    # MARK: - Transcript and composer

    def transcript_items(self, kind=None):
        selector = "#transcript > li" + (f'[data-kind="{kind}"]' if kind else "")
        return self.find_all(selector)

    def wait_for_item(self, text, kind=None, timeout=20):
        """The transcript item whose text (message body or notice) contains `text`."""
        def find():
            for item in self.transcript_items(kind):
                body = item.find_elements(By.CSS_SELECTOR, ".item-text")
                content = body[0].text if body else item.text
                if text in content:
                    return item
            return None
        return self.wait(find, timeout, f"a transcript item ({kind or 'any'}) with {text!r}")

    def composer(self):
        return self.find("#composer-text")

    def set_mode(self, mode):
        self.find(f'label[for="mode-{mode}"]').click()
        self.wait(lambda: self.find(f"#mode-{mode}").is_selected(), message=f"composer mode {mode}")

    def type_and_send(self, text):
        box = self.composer()
        self.wait(lambda: box.is_enabled(), message="the composer to be enabled")
        box.send_keys(text)
        box.send_keys(Keys.ENTER)
