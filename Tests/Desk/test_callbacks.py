"""Callback requests in the desk: marked in every inbox list with what the visitor asked for and
where the request stands; the conversation's callback panel (the number to call, or the number the
visitor calls and their access code); the outcome buttons while connecting, a retry later, the
server's refusal; the transcript's notices; everything live from the realtime frames. Visitors ask
for callbacks over HTTP with a visitor token, as an app does."""
import datetime
import re
from types import SimpleNamespace

import pytest
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support.ui import Select

from test_accessibility import UNLABELLED, active, press
from test_forms import visitor_api

PHONE_TYPED = "+49 30 901820"
PHONE = "+4930901820"
DIAL_NUMBER = "+4989123456"


class Caller:
    """A visitor of an app, over HTTP: asks for callbacks and answers the dialogs."""

    def __init__(self, world, name):
        self.name = name
        self.api = visitor_api(world, name)
        self.conversations = []

    def request(self, kind="call_me", **fields):
        """Asks for a callback; returns the answer's callback (with `conversation_id` added)."""
        answer = self.api.post("/v1/callbacks", {"kind": kind, **fields}, expect=201)
        self.conversations.append(answer["conversation"]["id"])
        return answer["callback"] | {"conversation_id": answer["conversation"]["id"]}

    def act(self, callback, action):
        """confirm, snooze or cancel: the visitor's answer to the dialog."""
        return self.api.post(f"/v1/callbacks/{callback['id']}/actions/{action}")


@pytest.fixture
def callers(world, server):
    """callers.new(name): visitors asking for callbacks. Their requests end afterwards, so nothing is
    left waiting for routing to hand to the next test's agent."""
    made = []

    def new(name):
        caller = Caller(world, name)
        made.append(caller)
        return caller

    yield SimpleNamespace(new=new)
    for caller in made:
        for conversation_id in caller.conversations:
            if server.is_running:
                try:
                    caller.api.post(f"/v1/conversations/{conversation_id}/end")
                except Exception:
                    pass


def utc(iso):
    return datetime.datetime.fromisoformat(iso.replace("Z", "+00:00"))


def now():
    return datetime.datetime.now(datetime.timezone.utc)


def status_text(desk):
    return desk.find("#callback-status").text


def wait_status(desk, text):
    return desk.wait(lambda: (lambda shown: shown if text in shown else None)(status_text(desk)), message=f"the callback status {text!r}")


def list_reads(desk):
    """How many reads of the conversation lists the page has finished (the browser's resource timings)."""
    return desk.js("""return performance.getEntriesByType('resource')
        .filter((entry) => entry.name.includes('/v1/conversations?') && entry.responseEnd > 0).length""")


def outcome_buttons(desk):
    """The outcome buttons shown, read in one go in the page: the panel may be rebuilt between two
    WebDriver calls (a frame arriving), which would leave a found element stale."""
    return desk.js("""return [...document.querySelectorAll('#callback-panel [data-outcome]')]
        .filter((button) => button.getClientRects().length > 0).map((button) => button.innerText.trim())""")


def detail(desk, term):
    """The value of a row of the panel's details ("dial-number", "access-code", "status", …)."""
    return desk.find(f'#callback-panel [data-term="{term}"] dd').text


def take(desk, conversation_id):
    """Opens a waiting request from Queued and accepts it: offered to this agent, waiting for the visitor."""
    desk.tab("queued")
    desk.open_conversation(conversation_id)
    desk.click("#accept")
    wait_status(desk, "Offered to you, waiting for the visitor to confirm")


def test_call_me_taken_confirmed_rescheduled_after_no_answer_then_connected(admin_desk, callers, world):
    desk = admin_desk
    # Away: routing offers nothing new, so the requests wait in the queue until taken by hand.
    desk.set_availability("away")
    ada = callers.new("Ada Lovelace")
    request = ada.request("call_me", phone=PHONE_TYPED, subject="Router keeps rebooting")
    conversation_id = request["conversation_id"]

    # Queued: marked as a callback with the number, in line with a position and a wait.
    desk.tab("queued")
    row = desk.inbox_row(conversation_id)
    desk.wait(lambda: f"Callback · Call me {PHONE}" in row.text, message="the callback marker")
    desk.wait(lambda: re.search(r"#\d+ in Support · waiting \d+ s", row.text), message="its place in line and its wait")
    label = row.find_element(By.CSS_SELECTOR, "a").get_attribute("aria-label")
    assert f"callback request: Call me {PHONE}" in label and "Queued" in label

    # The panel: kind, the number as a tel: link, the window; no outcome before it is taken.
    desk.open_conversation(conversation_id)
    panel = desk.visible("#callback-panel")
    assert "Callback request · Call me" in panel.text
    phone = desk.find(f'#callback-panel a[href="tel:{PHONE}"]')
    assert phone.text == PHONE
    assert not desk.find_all('#callback-panel [data-term="window"]'), "as soon as possible: no window"
    assert "Waiting for an agent" in status_text(desk)
    assert outcome_buttons(desk) == []
    desk.wait_for_item(f"Callback requested: call {PHONE}", kind="notice")

    # Taking it offers it to the visitor: the agent waits for the confirmation, with a countdown.
    desk.click("#accept")
    status = wait_status(desk, "Offered to you, waiting for the visitor to confirm")
    assert re.search(r"\(\d+ (min|s)( \d+ s)? left\)\.$", status), status
    desk.wait(lambda: status_text(desk) != status, message="the offer's time left to count down")
    assert outcome_buttons(desk) == []
    desk.wait_for_item(f"Offered to {world.admin_name}; waiting for the visitor to confirm", kind="notice")
    assert world.admin.get(f"/v1/conversations/{conversation_id}")["callback"]["status"] == "offered"

    # Mine says so too, and follows the request live.
    desk.tab("mine")
    row = desk.inbox_row(conversation_id)
    desk.wait(lambda: "Offered, waiting for the visitor" in row.text, message="offered in Mine")
    assert "Callback · Call me" in row.text
    desk.open_conversation(conversation_id)

    # The visitor confirms (over HTTP): connecting, the outcome buttons, a cue to call now.
    ada.act(request, "confirm")
    wait_status(desk, f"Connecting: call {PHONE} now, then record how it went.")
    desk.wait(lambda: outcome_buttons(desk) == ["Connected", "No answer…", "Wrong number…", "Done"], message="the outcome buttons")
    desk.wait_for_item("Ada Lovelace confirmed the callback", kind="notice")
    desk.wait(lambda: any(f"Ada Lovelace confirmed the callback: call {PHONE} now" in toast.text for toast in desk.find_all("#toasts .toast")),
              message="the confirmation toast")
    desk.wait(lambda: "Connecting" in desk.inbox_row(conversation_id).text, message="connecting in Mine")

    # No answer → try again in an hour: scheduled, out of Mine, back in Queued with its time.
    desk.click("#callback-no-answer")
    dialog = desk.visible("#form-dialog")
    assert "No answer: try again later?" in dialog.text
    Select(desk.find("#field-retry")).select_by_value("60")
    sent_at = now()
    desk.find("#form-dialog-submit").click()
    desk.gone("#form-dialog")
    wait_status(desk, "Scheduled until")
    desk.wait(lambda: outcome_buttons(desk) == [], message="no outcome buttons once scheduled")
    assert detail(desk, "last-outcome") == "No answer"
    desk.wait_for_item("Callback rescheduled for", kind="notice")
    desk.wait_for_item("(no answer)", kind="notice")
    desk.wait(lambda: desk.find("#conversation-meta .state").text == "Queued", message="queued again")
    assert not desk.find("#accept").is_displayed(), "a scheduled request cannot be taken before its time"
    desk.wait(lambda: not desk.find_all(f'#inbox-list li[data-conversation-id="{conversation_id}"]'), message="it leaves Mine")

    conversation = world.admin.get(f"/v1/conversations/{conversation_id}")
    assert conversation["state"] == "queued" and conversation.get("queue_position") is None
    callback = conversation["callback"]
    assert callback["status"] == "scheduled" and callback["outcome"] == "no_answer"
    retry_at = utc(callback["scheduled_until"])
    assert abs((retry_at - (sent_at + datetime.timedelta(hours=1))).total_seconds()) < 60, callback

    desk.tab("queued")
    row = desk.inbox_row(conversation_id)
    desk.wait(lambda: "Scheduled until" in row.text, message="scheduled in Queued")
    assert not re.search(r"#\d+ in Support", row.text), "a scheduled request has no place in line"
    assert "scheduled until" in row.find_element(By.CSS_SELECTOR, "a").get_attribute("aria-label")

    # A second request: taken, confirmed, Connected ends it with the outcome.
    grace = callers.new("Grace Hopper")
    second = grace.request("call_me", phone="+442079460958", subject="Invoice question")
    take(desk, second["conversation_id"])
    grace.act(second, "confirm")
    desk.wait(lambda: "Connected" in outcome_buttons(desk), message="the outcome buttons")
    desk.click("#callback-connected")
    wait_status(desk, "Ended: completed, connected.")
    desk.wait(lambda: desk.find("#conversation-meta .state").text == "Ended", message="the conversation ended")
    assert outcome_buttons(desk) == []
    desk.wait_for_item("Callback done: connected", kind="notice")
    desk.wait_for_item(f"{world.admin_name} ended the conversation", kind="notice")
    ended = world.admin.get(f"/v1/conversations/{second['conversation_id']}")
    assert ended["state"] == "ended"
    assert ended["callback"]["status"] == "ended" and ended["callback"]["end_reason"] == "completed" and ended["callback"]["outcome"] == "connected"

    desk.tab("all")
    desk.wait(lambda: "Ended: completed, connected" in desk.inbox_row(second["conversation_id"]).text, message="ended in All")


def test_i_will_call_shows_the_number_to_dial_and_the_access_code(admin_desk, callers, world):
    desk = admin_desk
    settings = f"/v1/admin/apps/{world.app_id}/queues/{world.support_queue}/callbacks"
    standard = world.admin.get(settings)
    world.admin.put(settings, standard | {"dial_number": DIAL_NUMBER})
    try:
        desk.set_availability("away")
        bruno = callers.new("Bruno Kreisky")
        request = bruno.request("i_will_call", language="de", subject="Rückruf")
        assert request["dial_number"] == DIAL_NUMBER and re.fullmatch(r"\d{6}", request["access_code"])

        desk.tab("queued")
        row = desk.inbox_row(request["conversation_id"])
        desk.wait(lambda: f"Callback · I will call {DIAL_NUMBER}" in row.text, message="the callback marker")
        desk.open_conversation(request["conversation_id"])
        desk.visible("#callback-panel")
        assert "Callback request · I will call" in desk.find("#callback-panel").text
        assert detail(desk, "dial-number") == DIAL_NUMBER
        assert detail(desk, "access-code") == request["access_code"]
        assert detail(desk, "language") == "de"
        assert not desk.find_all('#callback-panel a[href^="tel:"]'), "the agent does not dial: the visitor calls"
        desk.wait_for_item(f"Callback requested: the visitor calls {DIAL_NUMBER} with access code {request['access_code']}", kind="notice")

        desk.click("#accept")
        wait_status(desk, "Offered to you")
        bruno.act(request, "confirm")
        wait_status(desk, "Connecting: the visitor calls now and gives the access code.")
        assert detail(desk, "access-code") == request["access_code"]
        desk.wait(lambda: outcome_buttons(desk) == ["Connected", "No answer…", "Wrong number…", "Done"], message="the outcome buttons")

        desk.click("#callback-done")
        wait_status(desk, "Ended: completed, done.")
        callback = world.admin.get(f"/v1/conversations/{request['conversation_id']}")["callback"]
        assert callback["end_reason"] == "completed" and callback["outcome"] == "done"
    finally:
        world.admin.put(settings, standard)


def test_routing_offers_a_request_snoozes_and_windows_schedule_it(admin_desk, callers, world):
    """Online with a free slot: routing offers the request to this agent (with the cues); the
    visitor's "later" takes it back out of Mine, scheduled, all from realtime frames. A request for
    a later window waits scheduled from the start, with its window shown."""
    desk = admin_desk
    lin = callers.new("Lin Wei")
    request = lin.request("notify_and_chat", subject="Question about my plan")
    conversation_id = request["conversation_id"]

    row = desk.inbox_row(conversation_id)
    desk.wait(lambda: "is-new" in row.get_attribute("class"), message="the new request is highlighted")
    desk.wait(lambda: "Callback · Notify and chat" in row.text and "Offered, waiting for the visitor" in row.text, message="offered in Mine")
    desk.wait(lambda: any("New callback request for you: Lin Wei — Notify and chat" in toast.text for toast in desk.find_all("#toasts .toast")),
              message="the new request's toast")

    desk.open_conversation(conversation_id)
    status = wait_status(desk, "Offered to you, waiting for the visitor to confirm")
    assert "Offer expires" in desk.find("#callback-panel").text, status
    assert outcome_buttons(desk) == []
    # Agents may write while the visitor decides (the conversation is assigned to them).
    assert desk.composer().is_enabled()

    lin.act(request, "snooze")
    wait_status(desk, "Scheduled until")
    desk.wait_for_item("Lin Wei snoozed the callback for 5 min; back in the queue at", kind="notice")
    desk.wait_for_item("Back in the queue · ", kind="notice")
    desk.wait(lambda: not desk.find_all(f'#inbox-list li[data-conversation-id="{conversation_id}"]'), message="it leaves Mine")
    callback = world.admin.get(f"/v1/conversations/{conversation_id}")["callback"]
    assert callback["status"] == "scheduled"
    assert abs((utc(callback["scheduled_until"]) - now()).total_seconds() - 300) < 60, callback

    # Later today: held out of line until the window opens, so routing offers it to nobody yet.
    start = (now() + datetime.timedelta(hours=2)).replace(microsecond=0)
    iso = lambda moment: moment.strftime("%Y-%m-%dT%H:%M:%SZ")  # noqa: E731
    later = lin.request("call_me", phone=PHONE, window_start=iso(start), window_end=iso(start + datetime.timedelta(hours=1)))
    assert later["status"] == "scheduled"
    desk.tab("queued")
    row = desk.inbox_row(later["conversation_id"])
    desk.wait(lambda: "Scheduled until" in row.text and f"Callback · Call me {PHONE}" in row.text, message="the later request, scheduled")
    desk.open_conversation(later["conversation_id"])
    wait_status(desk, "Scheduled until")
    assert " to " in detail(desk, "window")
    assert not desk.find("#accept").is_displayed()
    desk.wait_for_item(f"Callback requested: call {PHONE}, {detail(desk, 'window')}", kind="notice")


def test_a_refused_outcome_shows_the_servers_message_and_changes_nothing(admin_desk, callers, world):
    """The visitor cancels while the agent's page has not heard of it yet (its realtime frames held
    back, as on a slow network): Done is refused with a 409, the page says why, the request stays
    as the visitor left it, and the panel shows what really holds."""
    desk = admin_desk
    desk.allow_console(r"/callback/outcome - Failed to load resource: the server responded with a status of 409")
    desk.set_availability("away")
    planck = callers.new("Max Planck")
    request = planck.request("call_me", phone=PHONE)
    take(desk, request["conversation_id"])
    before = list_reads(desk)
    planck.act(request, "confirm")
    desk.wait(lambda: "Done" in outcome_buttons(desk), message="the outcome buttons")
    # Every frame of the confirmation is in, and the list refresh it asked for has come back,
    # before the page stops hearing (a refresh landing later would tell it of the cancel).
    desk.wait_for_item("Max Planck confirmed the callback", kind="notice")
    desk.wait(lambda: list_reads(desk) > before, message="the inbox read again after the confirmation")

    desk.hold_frames()
    planck.act(request, "cancel")
    cancelled = world.admin.get(f"/v1/conversations/{request['conversation_id']}")
    assert cancelled["callback"]["end_reason"] == "cancelled"
    # Stale on purpose: the page still offers the outcome.
    assert "Done" in outcome_buttons(desk)
    desk.click("#callback-done")
    # Looked up on every poll: the panel is rebuilt when it reads the request again.
    desk.wait(lambda: "Not recorded: the callback request has ended" in desk.visible("#callback-error").text, message="the server's message")

    after = world.admin.get(f"/v1/conversations/{request['conversation_id']}")
    assert after["callback"] == cancelled["callback"] and after["state"] == "ended" and after["last_seq"] == cancelled["last_seq"]
    assert after["callback"].get("outcome") is None
    # The page read the request again: ended, no buttons; the refusal stays until the next try.
    wait_status(desk, "Ended: cancelled.")
    assert outcome_buttons(desk) == []
    assert "Not recorded: the callback request has ended" in desk.find("#callback-error").text

    assert desk.release_frames() > 0
    desk.wait_for_item("Max Planck cancelled the callback request", kind="notice")
    desk.wait_for_item("Max Planck ended the conversation", kind="notice")
    assert desk.find("#callback-error").is_displayed()


def test_the_callback_panel_is_accessible(admin_desk, callers, world):
    desk = admin_desk
    desk.set_availability("away")
    emmy = callers.new("Emmy Noether")
    request = emmy.request("call_me", phone=PHONE, subject="Accessible callbacks")
    take(desk, request["conversation_id"])
    emmy.act(request, "confirm")
    desk.wait(lambda: len(outcome_buttons(desk)) == 4, message="the outcome buttons")
    desk.wait_for_item("Emmy Noether confirmed the callback", kind="notice")
    assert desk.js(UNLABELLED) == []
    assert desk.accessibility_problems() == [], "the conversation with a callback panel"
    group = desk.find("#callback-panel [role=group]")
    assert desk.find(f"#{group.get_attribute('aria-labelledby')}").text == "Record the outcome"

    # The retry question by keyboard: it opens on Enter, is labelled, and Esc gives focus back.
    desk.find("#callback-wrong-number").send_keys(Keys.ENTER)
    desk.visible("#form-dialog")
    desk.wait(lambda: active(desk).get_attribute("id") == "field-retry", message="focus in the retry choice")
    assert desk.js(UNLABELLED) == []
    assert desk.accessibility_problems() == [], "the retry dialog"
    press(desk, Keys.ESCAPE)
    desk.gone("#form-dialog")
    desk.wait(lambda: active(desk).get_attribute("id") == "callback-wrong-number", message="focus back on Wrong number")
    assert world.admin.get(f"/v1/conversations/{request['conversation_id']}")["callback"]["status"] == "connecting", "cancelled: nothing recorded"
