"""Fixtures of the chat page's suite: one parleyd for the session with queues for each screen (forms,
closed hours, nobody online, a waiting room), the admin online as the agent (HTTP + a realtime socket),
and Chromium windows on /chat/ with the bridge recorder. The server, HTTP and browser plumbing is the
desk suite's (Tests/Desk/harness).

Every page is checked when its test ends: no JS error, no CSP violation, no failed request that the test
did not expect. On a failure, screenshots, page sources, console logs and bridge records go to
.build/chat-artifacts/; screenshots of every screen at both sizes go to .build/chat-screenshots/."""
import os
import re
import shutil
import sys
import tempfile
from types import SimpleNamespace

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "Desk"))

from harness.browser import CHROMEDRIVER, CHROMIUM  # noqa: E402
from harness.http import API  # noqa: E402
from harness.server import Parleyd  # noqa: E402

from chatsuite.agent import Agent, reconnect  # noqa: E402
from chatsuite.page import MOBILE, ChatPage, make_chat_driver  # noqa: E402

ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))
ARTIFACTS = os.path.join(ROOT, ".build", "chat-artifacts")
SCREENSHOTS = os.path.join(ROOT, ".build", "chat-screenshots")

EVERY_KIND_FORM = {"kind": "pre_chat", "fields": [
    {"key": "name", "kind": "single_line", "required": True, "label": {"en": "Your name", "de": "Ihr Name"}, "hint": {"en": "As on your order"}},
    {"key": "email", "kind": "email", "required": True, "label": {"en": "Email", "de": "E-Mail"}},
    {"key": "phone", "kind": "phone", "label": {"en": "Phone", "de": "Telefon"}, "default_calling_code": "49"},
    {"key": "question", "kind": "multi_line", "label": {"en": "Question", "de": "Frage"}},
    {"key": "topic", "kind": "select", "required": True, "label": {"en": "Topic", "de": "Thema"},
     "options": [{"value": "billing", "label": {"en": "Billing", "de": "Rechnung"}}, {"value": "tech", "label": {"en": "Technical", "de": "Technik"}}]},
    {"key": "contact", "kind": "radio", "label": {"en": "Contact me by"},
     "options": [{"value": "mail", "label": {"en": "Email"}}, {"value": "phone", "label": {"en": "Phone"}}]},
    {"key": "terms", "kind": "checkbox", "required": True, "label": {"en": "I accept the terms", "de": "Ich stimme zu"}},
    {"key": "mood", "kind": "rating", "label": {"en": "How do you feel?"}},
]}
POST_CHAT_FORM = {"kind": "post_chat", "fields": [
    {"key": "score", "kind": "rating", "required": True, "label": {"en": "Your rating", "de": "Ihre Bewertung"}},
    {"key": "comment", "kind": "multi_line", "label": {"en": "Comment", "de": "Kommentar"}},
]}
UNAVAILABLE_FORM = {"kind": "unavailable", "fields": [
    {"key": "email", "kind": "email", "required": True, "label": {"en": "Email", "de": "E-Mail"}},
    {"key": "message", "kind": "multi_line", "required": True, "label": {"en": "Message", "de": "Nachricht"}},
]}
APPEARANCE = {"title": "Acme help", "welcome_message": {"en": "Hi! How can we help?", "de": "Hallo! Wie können wir helfen?"},
              "theme_color": "#0B6E4F", "visitor_display_name": "You"}


def pytest_configure(config):
    missing = [path for path in (CHROMIUM, CHROMEDRIVER) if not os.access(path, os.X_OK)]
    if missing:
        raise pytest.UsageError(f"the chat suite needs Chromium and chromedriver; missing: {', '.join(missing)}")


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    report = outcome.get_result()
    setattr(item, f"report_{report.when}", report)


def failed(request):
    return any(getattr(getattr(request.node, f"report_{when}", None), "failed", False) for when in ("setup", "call"))


def bin_dir():
    path = os.environ.get("PARLEY_BIN_DIR")
    if not path or not os.access(os.path.join(path, "parleyd"), os.X_OK):
        raise pytest.UsageError("PARLEY_BIN_DIR must hold parleyd (Tests/Chat/run.sh sets it)")
    return path


@pytest.fixture(scope="session")
def workdir():
    path = tempfile.mkdtemp(prefix="parley-chat-suite-")
    yield path
    shutil.rmtree(path, ignore_errors=True)


@pytest.fixture(scope="session")
def server(workdir):
    os.makedirs(ARTIFACTS, exist_ok=True)
    parleyd = Parleyd(os.path.join(bin_dir(), "parleyd"), os.path.join(workdir, "data"), os.path.join(ARTIFACTS, "parleyd.log"))
    parleyd.start()
    yield parleyd
    parleyd.stop()


@pytest.fixture(scope="session")
def world(server):
    """The admin (online as the agent through `agent`), and one queue per screen."""
    demo = server.demo
    assert demo, "parleyd did not print its first-start banner"
    api = API(server.base)
    login = api.post("/v1/agent/login", {"email": demo["email"], "password": demo["password"]})
    admin = api.with_token(login["token"])
    app = demo["app_id"]
    me = login["agent"]
    queues = {name: admin.post(f"/v1/admin/apps/{app}/queues", {"name": name})["id"]
              for name in ("Forms", "Closed", "Nobody", "Waiting room")}
    # The admin answers Support, Forms and Closed; nobody answers "Nobody"; "Waiting room" has Wendy,
    # online with room for no conversation, so chats there wait (and the queue counts as open).
    admin.patch(f"/v1/admin/apps/{app}/agents/{me['id']}",
                {"capacity": 50, "queue_ids": [demo["queue_id"], queues["Forms"], queues["Closed"]]})
    wendy = admin.post(f"/v1/admin/apps/{app}/agents", {"name": "Wendy Waits", "email": "wendy@chat.test", "password": "waiting-room-42",
                                                         "role": "agent", "queue_ids": [queues["Waiting room"]], "capacity": 0})["agent"]
    admin.put(f"/v1/admin/apps/{app}/appearance", APPEARANCE)
    admin.put(f"/v1/admin/apps/{app}/forms/pre_chat?queue={queues['Forms']}", EVERY_KIND_FORM)
    admin.put(f"/v1/admin/apps/{app}/forms/post_chat?queue={queues['Forms']}", POST_CHAT_FORM)
    for queue in ("Closed", "Nobody"):
        admin.put(f"/v1/admin/apps/{app}/forms/unavailable?queue={queues[queue]}", UNAVAILABLE_FORM)
    admin.put(f"/v1/admin/apps/{app}/queues/{queues['Closed']}/hours", {"time_zone": "UTC", "weekly": {}, "holidays": []})
    return SimpleNamespace(base=server.base, app_id=app, support=demo["queue_id"], forms=queues["Forms"], closed=queues["Closed"],
                           nobody=queues["Nobody"], waiting=queues["Waiting room"], admin=admin, admin_id=me["id"], admin_name=me["name"],
                           admin_email=demo["email"], admin_password=demo["password"], wendy=wendy, api=api)


@pytest.fixture(scope="session")
def agent(world):
    """The admin, online with a realtime socket: routing gives them Support, Forms and Closed chats."""
    online = Agent(world.base, world.admin_email, world.admin_password)
    yield online
    online.close()


@pytest.fixture(scope="session")
def wendy_online(world):
    online = Agent(world.base, "wendy@chat.test", "waiting-room-42")
    yield online
    online.close()


@pytest.fixture
def wendy(wendy_online):
    """Wendy, online with room for nobody, so chats in "Waiting room" wait. The test that restarts the
    server reconnects only the admin: when her socket died with the server, it is opened again here."""
    if not wendy_online._thread.is_alive():
        reconnect(wendy_online)
    return wendy_online


@pytest.fixture
def pages(request, server, world):
    """Opens Chromium windows: pages.new(label, size=MOBILE, channels=("ios",), customer=None)."""
    opened = []

    def new(label="visitor", size=MOBILE, channels=("ios",), customer=None):
        page = ChatPage(make_chat_driver(size, channels, customer), server.base, label)
        opened.append(page)
        return page

    yield SimpleNamespace(new=new, opened=opened)
    name = re.sub(r"[^A-Za-z0-9_.-]+", "_", request.node.name)
    problems = []
    for page in opened:
        if failed(request):
            page.save_artifacts(ARTIFACTS, name)
        problems += [f"[{page.label}] {entry['level']}: {entry['message']}" for entry in page.console_problems()]
        # Leave no conversation open: the next test starts with the agent free.
        try:
            conversation = page.conversation_id()
            if conversation:
                world.admin.post(f"/v1/conversations/{conversation}/end", expect=None)
        except Exception:
            pass
    if problems and not failed(request):
        for page in opened:
            page.save_artifacts(ARTIFACTS, name)
    for page in opened:
        page.quit()
    if problems and not failed(request):
        pytest.fail("browser console problems:\n" + "\n".join(problems))


def screenshot(page, name):
    """Saves the page as it is under .build/chat-screenshots/<name>-<width>x<height>.png (not committed)."""
    size = page.js("return [window.innerWidth, window.innerHeight]")
    os.makedirs(SCREENSHOTS, exist_ok=True)
    page.driver.save_screenshot(os.path.join(SCREENSHOTS, f"{name}-{size[0]}x{size[1]}.png"))
