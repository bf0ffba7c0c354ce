"""Callbacks in the chat page: instead of waiting, the visitor asks to be called back (or to call, or to
be told and then chat) from the queued or unavailable screen, and answers the offer when an agent is
ready. The agent's side is the admin over HTTP (`accept` offers a waiting request, `callback/outcome`
closes it). Covered: the form (a bad number refused in the page before sending, one the server refuses
marked with the server's code, the server's 409s as notices, a queue's pre-chat questions and calling code), the waiting chat cancelled for the
request, the offer's menu in the server's words with the time left, confirm, snooze, cancel, the end,
a choice the server refuses as no longer fitting (the dialog fetched again),
notify-and-chat turning into the chat, a closed queue scheduling into its next opening (and refusing a
start in closed hours), a reload coming back to the request, German; the callback screens at both
sizes through axe; and the pure callback machine on a table in the browser."""
import datetime

import pytest
from selenium.webdriver.common.by import By

from chatsuite.page import DESKTOP, MOBILE
from harness.http import API
from harness.waiting import wait_until
from test_screens import check

STANDARD_SETTINGS = {"enabled": True, "offer_seconds": 60, "snooze_minutes": 5, "on_expiry": "requeue"}
FETCH_SPY = """
window.__callbackRequests = [];
window.__tamperPhone = null;
const realFetch = window.fetch;
window.fetch = function (url, init) {
  if (String(url).endsWith('/v1/callbacks') && init && init.method === 'POST') {
    const body = JSON.parse(init.body);
    // A number the page accepted, changed on its way, so the server's own refusal is what shows.
    if (window.__tamperPhone !== null) { body.phone = window.__tamperPhone; init = Object.assign({}, init, {body: JSON.stringify(body)}); }
    window.__callbackRequests.push(body);
  }
  return realFetch.call(this, url, init);
};
"""

@pytest.fixture(autouse=True)
def no_request_left(pages, world):
    """Ends what a test left live (as its visitor: a waiting request is not an agent's to end), so the
    queues are empty for the next test."""
    yield
    for page in pages.opened:
        try:
            token = page.module("js/api.js", "m.currentToken()")["value"]
            conversation = page.conversation_id()
            if token and conversation:
                API(world.base, token).request("POST", f"/v1/conversations/{conversation}/end", expect=None)
        except Exception:
            pass


def queued_page(pages, world, size=MOBILE, **params):
    page = pages.new(size=size)
    page.open(world.app_id, world.waiting, **params)
    page.wait_screen("queued")
    page.wait_subscribed()
    return page


def open_form(page):
    page.click("#callback-open")
    page.wait_screen("callbackForm")
    page.visible("#callback-form")


def choose_kind(page, kind):
    page.find(f"label[for=callback-kind-{kind}]").click()
    page.wait(lambda: page.find(f"#callback-kind-{kind}").is_selected(), message=f"the kind {kind}")


def type_phone(page, text):
    field = page.find("#callback-phone")
    field.clear()
    field.send_keys(text)


def set_window(page, value):
    """Sets the datetime-local field as a picker would (the value in the visitor's wall-clock time)."""
    page.js("const input = document.getElementById('callback-window'); input.value = arguments[0]; input.dispatchEvent(new Event('input', {bubbles: true}))", value)


def request(page, kind="call_me", phone="+49 30 901820"):
    """Fills the open form and sends it: the request's screen, waiting or scheduled."""
    choose_kind(page, kind)
    if kind == "call_me":
        type_phone(page, phone)
    page.click("#callback-send")
    page.wait_screen("callback")
    page.wait(lambda: page.find("#callback").get_attribute("data-status") in ("waiting", "scheduled"), message="the request made")
    return page.conversation_id()


def status(page):
    return page.find("#callback").get_attribute("data-status")


def wait_status(page, value, timeout=20):
    page.wait(lambda: status(page) == value, timeout, f"the request {value} (now {status(page)})")


def menu_buttons(page):
    return [(button.get_attribute("data-action"), button.text) for button in page.find_all("#callback-menu button")]


def wait_menu(page):
    page.wait(lambda: len(page.find_all("#callback-menu button")) == 3, message="the offer's menu")
    return menu_buttons(page)


def field_error(page, key):
    errors = page.find_all(f'#callback-form .field[data-key="{key}"] .field-error')
    return errors[0].text if errors else None


@pytest.mark.parametrize("size", [pytest.param(MOBILE, id="390x844"), pytest.param(DESKTOP, id="1440x900")])
def test_call_me_from_the_queue_offered_confirmed_and_done(pages, world, wendy, agent, size):
    page = queued_page(pages, world, size)
    waiting_chat = page.conversation_id()
    assert "Don't want to wait?" in page.find("#queue-status").text
    open_form(page)
    assert page.find("#callback-kind-call_me").is_selected(), "call me is the kind to start with"
    check(page, "callback-form")
    page.js(FETCH_SPY)

    # A number that cannot be called is refused by the page's own rules: nothing is sent.
    type_phone(page, "12")
    page.click("#callback-send")
    page.wait(lambda: field_error(page, "phone") == "Please enter a valid phone number.", message="the page's phone error")
    assert page.find("#callback-phone").get_attribute("aria-invalid") == "true"
    assert page.js("return document.activeElement.id") == "callback-phone"
    assert page.js("return window.__callbackRequests") == []
    check(page, "callback-form-refused")

    # As it is typed, the number shows as it will be called (E.164).
    type_phone(page, "+49 (30) 901820")
    page.wait(lambda: page.find("#callback-phone-e164").text == "We will call +4930901820.", message="the number in E.164")

    # A number the server refuses (changed on its way): the server's code marks the field, nothing else changes.
    page.js("window.__tamperPhone = '12'")
    page.click("#callback-send")
    page.wait(lambda: len(page.js("return window.__callbackRequests")) == 1 and field_error(page, "phone") == "Please enter a valid phone number.",
              message="the server's invalid_phone on the field")
    page.allow_console(r"v1/callbacks - Failed to load resource: the server responded with a status of 400")
    assert page.screen() == "callbackForm" and page.find("#callback-phone").get_attribute("value") == "+49 (30) 901820"
    assert page.conversation_id() == waiting_chat

    # Sent for real: the request's screen, and the waiting chat is cancelled (the request took its place).
    page.js("window.__tamperPhone = null")
    page.click("#callback-send")
    page.wait_screen("callback")
    wait_status(page, "waiting")
    sent = page.js("return window.__callbackRequests")[-1]
    assert sent["kind"] == "call_me" and sent["phone"] == "+4930901820" and sent["queue_id"] == world.waiting and sent["language"] == "en"
    conversation = page.conversation_id()
    assert conversation != waiting_chat
    wait_until(lambda: world.admin.get(f"/v1/conversations/{waiting_chat}")["state"] == "ended", message="the waiting chat cancelled")
    assert page.wait_bridge("chat_ended")["conversation_id"] == waiting_chat
    assert page.find("#callback-title").text == "We will call you back"
    assert page.find("#callback-phone-line").text == "Your number: +4930901820"
    page.wait(lambda: page.find("#callback-status").text == "You are number 1 in the queue.", message="the request's place")
    check(page, "callback-waiting")

    # An agent is ready: the server's menu, in its words, with the time left to answer.
    world.admin.post(f"/v1/conversations/{conversation}/accept")
    assert wait_menu(page) == [("confirm", "Yes, I'm ready"), ("snooze", "No, try again in 5 minutes"), ("cancel", "Cancel, my problem has been solved")]
    wait_status(page, "offered")
    assert page.find("#callback-menu-label").text == "An agent is available right now"
    assert "Are you ready?" in page.find("#callback-menu").text
    page.wait(lambda: page.find("#callback-time-left").text.startswith("Time left to answer: 0:"), message="the time left")
    assert 0 < int(page.find("#callback-time-left").get_attribute("data-seconds-left")) <= 60
    assert page.find("#callback-status").text == "An agent is ready for you. Please answer."
    check(page, "callback-offered")

    page.click('#callback-menu button[data-action="confirm"]')
    page.wait(lambda: "You will receive the call shortly." in page.find("#callback").text, message="the confirmation")
    wait_status(page, "connecting")
    assert page.find("#callback-status").text.startswith("Connecting: the agent is calling +4930901820.")
    check(page, "callback-connecting")

    # The agent records the call: the request is over, and the page no longer resumes it.
    world.admin.post(f"/v1/conversations/{conversation}/callback/outcome", {"outcome": "connected"})
    wait_status(page, "ended")
    assert page.find("#callback-status").text == "Your callback is done. Thank you!"
    assert page.find("#callback-new-chat").is_displayed() and not page.find_all("#callback-cancel")
    page.wait(lambda: page.conversation_id() is None, message="the request forgotten")
    check(page, "callback-ended")


def test_notify_and_chat_turns_into_the_chat(pages, world, wendy, agent):
    page = queued_page(pages, world)
    waiting_chat = page.conversation_id()
    open_form(page)
    choose_kind(page, "notify_and_chat")
    assert not page.find("#callback-phone").is_displayed(), "no number for notify and chat"
    page.click("#callback-send")
    page.wait_screen("callback")
    wait_status(page, "waiting")
    assert page.find("#callback-title").text == "We will let you know"
    conversation = page.conversation_id()

    world.admin.post(f"/v1/conversations/{conversation}/accept")
    wait_menu(page)
    page.click('#callback-menu button[data-action="confirm"]')
    page.wait_screen("chatting")
    assert page.find("#composer").is_displayed()
    # The host hears of the chat as of any other: chat_started, after chat_ended for the waiting one.
    started = [body["conversation_id"] for body in page.bridge_events() if body.get("event") in ("chat_started", "chat_ended")]
    assert started[-3:] == [waiting_chat, waiting_chat, conversation]
    page.wait(lambda: any("joined" in notice for notice in page.notices()), message="the agent joined")

    agent.say(conversation, "Hi, I'm here now. How can I help?")
    page.wait_message("How can I help?", role="agent")
    page.type_and_send("My router keeps rebooting.")
    page.wait(lambda: page.wait_message("keeps rebooting").get_attribute("data-state") in ("sent", "read"), message="the reply sent")
    wait_until(lambda: any(e["type"] == "message" and e["author"]["role"] == "visitor" and e["text"] == "My router keeps rebooting."
                           for e in agent.events(conversation)), message="the visitor's reply at the agent")

    agent.api.post(f"/v1/conversations/{conversation}/end")
    page.wait_screen("ended")
    ended = page.wait(lambda: [body["conversation_id"] for body in page.bridge_events() if body.get("event") == "chat_ended"][-1:] == [conversation],
                      message="chat_ended for the chat the request became")
    assert ended


def test_a_closed_queue_schedules_into_its_next_opening(pages, world):
    # Open only two days from now, 10:00 to 11:00 UTC: closed now, and every hour of today and tomorrow.
    opening_day = (datetime.datetime.now(datetime.timezone.utc) + datetime.timedelta(days=2)).strftime("%A").lower()
    queue = world.admin.post(f"/v1/admin/apps/{world.app_id}/queues", {"name": f"Callback hours {opening_day}"})["id"]
    world.admin.put(f"/v1/admin/apps/{world.app_id}/queues/{queue}/hours",
                    {"time_zone": "UTC", "weekly": {opening_day: [{"start": 600, "end": 660}]}, "holidays": []})
    page = pages.new()
    page.open(world.app_id, queue)
    page.wait_screen("unavailable")
    assert "We are closed right now." in page.find("#panel").text
    assert page.find(".callback-entry").text.startswith("We can call you back once we are open again.")
    page.click("#callback-open")
    page.wait_screen("callbackForm")
    visitor = API(world.base, page.module("js/api.js", "m.currentToken()")["value"])
    next_opening = page.module("js/callback-view.js", "m.formatWhen(args[0])", visitor.get(f"/v1/availability?queue={queue}")["next_opening"])["value"]
    assert page.find("#callback-form .form-lead").text == f"We are closed now: your request waits until we open again, {next_opening}."
    assert page.find("#callback-back").text == "Back"

    # A start in closed hours is the server's to refuse: marked on the field.
    in_an_hour = page.js("const d = new Date(Date.now() + 3600e3); const p = (n) => String(n).padStart(2, '0');"
                         "return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())}T${p(d.getHours())}:${p(d.getMinutes())}`")
    type_phone(page, "+49 30 901820")
    set_window(page, in_an_hour)
    page.click("#callback-send")
    page.wait(lambda: field_error(page, "window_start") == "We are closed then. Please choose a time in our opening hours.", message="outside_hours on the field")
    page.allow_console(r"v1/callbacks - Failed to load resource: the server responded with a status of 400")
    assert page.find("#callback-window").get_attribute("aria-invalid") == "true"

    # Without a start: scheduled into the next opening, and the page says when.
    set_window(page, "")
    page.click("#callback-send")
    page.wait_screen("callback")
    wait_status(page, "scheduled")
    conversation = page.conversation_id()
    until = world.admin.get(f"/v1/conversations/{conversation}")["callback"]["scheduled_until"]
    assert page.find("#callback").get_attribute("data-scheduled-until") == until
    when = page.module("js/callback-view.js", "m.formatWhen(args[0])", until)["value"]
    assert when == next_opening
    assert page.find("#callback-status").text == f"Scheduled: we get back to you from {when}."
    assert not page.find_all("#callback-dialog-text"), "the server's snooze words do not fit a closed queue"
    check(page, "callback-scheduled-closed")

    # Cancel while it waits: over.
    page.click("#callback-cancel")
    wait_status(page, "ended")
    assert page.find("#callback-status").text == "The callback request was cancelled."


def test_the_form_asks_the_pre_chat_questions_still_to_answer(pages, world):
    # Nobody answers this queue, and it asks questions before a chat: a request answers them too.
    queue = world.admin.post(f"/v1/admin/apps/{world.app_id}/queues", {"name": "Callback questions"})["id"]
    world.admin.put(f"/v1/admin/apps/{world.app_id}/forms/pre_chat?queue={queue}", {"kind": "pre_chat", "fields": [
        {"key": "name", "kind": "single_line", "required": True, "label": {"en": "Your name"}},
        {"key": "contract", "kind": "phone", "label": {"en": "Phone on the contract"}, "default_calling_code": "49"}]})
    page = pages.new()
    page.open(world.app_id, queue)
    page.wait_screen("unavailable")
    assert "No agent is available right now." in page.find("#panel").text
    page.click("#callback-open")
    page.wait_screen("callbackForm")
    assert page.find(".callback-questions legend").text == "About your request"
    assert [field.get_attribute("data-key") for field in page.find_all(".callback-questions .field")] == ["name", "contract"]
    # The queue's calling code reads a national number.
    assert page.find("#callback-phone-hint").text == "Numbers without a country code are read as +49."
    type_phone(page, "030 901820")
    page.wait(lambda: page.find("#callback-phone-e164").text == "We will call +4930901820.", message="the national number in E.164")

    page.click("#callback-send")
    page.wait(lambda: [e.text for e in page.find_all('.callback-questions .field[data-key="name"] .field-error')] == ["Please fill this in."],
              message="the unanswered question refused")
    assert page.js("return document.activeElement.closest('.field').dataset.key") == "name"
    page.find('.callback-questions .field[data-key="name"] input').send_keys("Ada Lovelace")
    page.click("#callback-send")
    page.wait_screen("callback")
    wait_status(page, "waiting")
    conversation = page.conversation_id()
    stored = world.admin.get(f"/v1/conversations/{conversation}")
    assert stored["callback"]["phone"] == "+4930901820"
    assert "Ada Lovelace" in str(world.admin.get(f"/v1/conversations/{conversation}/forms"))


def test_snooze_from_the_menu_schedules_it(pages, world, wendy, agent):
    page = queued_page(pages, world)
    open_form(page)
    conversation = request(page)
    world.admin.post(f"/v1/conversations/{conversation}/accept")
    wait_menu(page)
    page.click('#callback-menu button[data-action="snooze"]')
    wait_status(page, "scheduled")
    page.wait(lambda: page.find("#callback-dialog-text").text == "We will ask you again in 5 minutes.", message="the server's snooze words")
    until = world.admin.get(f"/v1/conversations/{conversation}")["callback"]["scheduled_until"]
    when = page.module("js/callback-view.js", "m.formatWhen(args[0])", until)["value"]
    assert page.find("#callback-status").text == f"Scheduled: we get back to you from {when}."
    assert page.find("#callback").get_attribute("data-action") == "snoozed"
    assert not page.find_all("#callback-menu")

    page.click("#callback-cancel")
    wait_status(page, "ended")
    assert world.admin.get(f"/v1/conversations/{conversation}")["callback"]["end_reason"] == "cancelled"


def test_a_choice_that_no_longer_fits_shows_where_the_request_stands(pages, world, wendy, agent):
    page = pages.new()
    page.open(world.app_id, world.waiting)
    page.wait_screen("queued")
    page.wait_subscribed()
    open_form(page)
    conversation = request(page)
    world.admin.post(f"/v1/conversations/{conversation}/accept")
    wait_menu(page)

    # The page hears nothing for a while, and meanwhile the request is snoozed (say, on the visitor's phone).
    page.hold_frames()
    visitor = API(world.base, page.module("js/api.js", "m.currentToken()")["value"])
    visitor.post(f"/v1/callbacks/cbk_{conversation.split('_', 1)[1]}/actions/snooze")
    page.click('#callback-menu button[data-action="confirm"]')
    page.wait(lambda: page.find("#callback .form-failure").text == "That choice no longer fits. This is where your request stands now.",
              message="the refused choice said")
    page.allow_console(r"actions/confirm - Failed to load resource: the server responded with a status of 409")
    page.wait(lambda: page.find("#callback-dialog-text").text == "We will ask you again in 5 minutes.", message="the dialog fetched again")
    assert not page.find_all("#callback-menu")

    page.release_frames()
    wait_status(page, "scheduled")
    assert page.find("#callback-status").text.startswith("Scheduled: we get back to you from ")


def test_a_reload_comes_back_to_the_request(pages, world, wendy, agent):
    page = queued_page(pages, world)
    open_form(page)
    conversation = request(page)

    page.driver.refresh()
    page.wait_screen("callback")
    wait_status(page, "waiting")
    assert page.conversation_id() == conversation
    page.wait_subscribed()

    # Live after the reload: the offer arrives, and survives a reload of its own.
    world.admin.post(f"/v1/conversations/{conversation}/accept")
    wait_menu(page)
    page.driver.refresh()
    page.wait_screen("callback")
    wait_status(page, "offered")
    assert wait_menu(page)[0] == ("confirm", "Yes, I'm ready")
    page.wait_subscribed()

    page.click('#callback-menu button[data-action="confirm"]')
    wait_status(page, "connecting")
    page.driver.refresh()
    page.wait_screen("callback")
    wait_status(page, "connecting")
    page.wait(lambda: page.find("#callback-dialog-text").text == "You will receive the call shortly.", message="the dialog after the reload")
    page.wait_subscribed()

    world.admin.post(f"/v1/conversations/{conversation}/callback/outcome", {"outcome": "no_answer"})
    wait_status(page, "ended")
    assert page.find("#callback-status").text == "We could not reach you, so the request is closed."


def test_german_words_on_the_offer(pages, world, wendy, agent):
    page = queued_page(pages, world, locale="de")
    assert "Sie möchten nicht warten?" in page.find("#queue-status").text
    assert page.find("#callback-open").text == "Rufen Sie mich zurück"
    open_form(page)
    assert page.find("#callback-form-title").text == "Rückruf anfordern"
    assert page.find("label[for=callback-kind-call_me]").text == "Rufen Sie mich an"
    type_phone(page, "12")
    page.click("#callback-send")
    page.wait(lambda: field_error(page, "phone") == "Bitte eine gültige Telefonnummer eingeben.", message="the German phone error")
    conversation = request(page)
    assert page.find("#callback-title").text == "Wir rufen Sie zurück"

    world.admin.post(f"/v1/conversations/{conversation}/accept")
    assert [label for _, label in wait_menu(page)] == ["Ja, ich bin bereit", "Nein, in 5 Minuten noch einmal", "Abbrechen, mein Anliegen ist erledigt"]
    assert page.find("#callback-menu-label").text == "Eine Mitarbeiterin oder ein Mitarbeiter ist jetzt für Sie da"
    assert page.find("#callback-status").text == "Jemand ist jetzt für Sie da. Bitte antworten Sie."
    page.wait(lambda: page.find("#callback-time-left").text.startswith("Zeit zum Antworten: 0:"), message="the German time left")
    check(page, "callback-offered-de")

    page.click('#callback-menu button[data-action="cancel"]')
    wait_status(page, "ended")
    assert page.find("#callback-status").text == "Die Rückrufanfrage wurde abgebrochen."
    assert page.find("#callback-new-chat").text == "Neuen Chat starten"


def test_refusals_are_notices_and_i_will_call_gets_the_number(pages, world, wendy, agent):
    settings = f"/v1/admin/apps/{world.app_id}/queues/{world.waiting}/callbacks"
    try:
        world.admin.put(settings, {**STANDARD_SETTINGS, "enabled": False})
        page = queued_page(pages, world)
        open_form(page)
        type_phone(page, "+49 30 901820")
        page.click("#callback-send")
        page.wait(lambda: page.find("#callback-form .form-failure").text == "Callbacks are not available here right now.", message="callbacks_disabled")
        page.allow_console(r"v1/callbacks - Failed to load resource: the server responded with a status of 409")

        world.admin.put(settings, STANDARD_SETTINGS)
        choose_kind(page, "i_will_call")
        page.click("#callback-send")
        page.wait(lambda: page.find("#callback-form .form-failure").text == "There is no number to call here. Please choose another way.", message="no_dial_number")
        assert page.screen() == "callbackForm" and page.find("#callback-kind-i_will_call").is_selected()

        world.admin.put(settings, {**STANDARD_SETTINGS, "dial_number": "+4930901820"})
        page.click("#callback-send")
        page.wait_screen("callback")
        wait_status(page, "waiting")
        assert page.find("#callback-title").text == "You will call us"
        conversation = page.conversation_id()
        world.admin.post(f"/v1/conversations/{conversation}/accept")
        wait_menu(page)
        page.click('#callback-menu button[data-action="confirm"]')
        wait_status(page, "connecting")
        call = page.visible("#callback-call")
        assert call.get_attribute("href") == "tel:+4930901820" and call.text == "Call +4930901820"
        code = world.admin.get(f"/v1/conversations/{conversation}")["callback"]["access_code"]
        page.wait(lambda: page.find("#callback-access-code").text == code, message="the access code")
        assert page.find("#callback-status").text.startswith("Connecting: please call us now.")
        check(page, "callback-dial")
        world.admin.post(f"/v1/conversations/{conversation}/callback/outcome", {"outcome": "done"})
        wait_status(page, "ended")
    finally:
        world.admin.put(settings, STANDARD_SETTINGS)


def test_the_callback_machine_on_a_table(pages, world):
    page = pages.new(channels=())
    page.open(world.app_id, world.nobody)
    page.wait_screen("unavailable")
    result = page.module("js/callback-machine.js", """(() => {
        const steps = [];
        const note = (label, effects, machine) => steps.push([label, machine.screen.name, JSON.parse(JSON.stringify(effects)), JSON.parse(JSON.stringify({
            errors: machine.screen.errors ?? null, notice: machine.screen.notice ?? null, status: machine.screen.callback?.status ?? null,
            dialog: machine.screen.dialog?.kind ?? null, note: machine.screen.note ?? null, position: machine.screen.position ?? null}))]);
        const now = Date.parse('2026-11-25T09:00:00Z');
        const pad = (n) => String(n).padStart(2, '0');
        const local = (ms) => { const d = new Date(ms); return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}T${pad(d.getHours())}:${pad(d.getMinutes())}`; };
        const offer = {callback_id: 'cbk_1', kind: 'menu', label: 'Ready', expires_at: '2026-11-25T09:01:00Z', refresh_path: '/x',
                       groups: [{name: 'Are you ready?', items: [{label: 'Yes', action: 'confirm', confirmation: {text: 'Calling you', dismiss_after: 3}},
                                                                {label: 'Later', action: 'snooze'}, {label: 'Cancel', action: 'cancel'}]}]};
        const waiting = {id: 'cbk_1', kind: 'call_me', status: 'waiting', phone: '+4930901820'};
        const chatting = {...waiting, kind: 'notify_and_chat', phone: undefined};
        const view = {callback: waiting, conversation: {id: 'cnv_1', last_seq: 2, queue_position: 3}, dialog: {kind: 'confirmation', text: 'We will notify you'}};

        let cb = new m.CallbackMachine();
        note('ignored before open', cb.submit({kind: 'call_me', phone: '+4930901820'}, now), cb);
        note('open', cb.open({origin: 'queued', callingCode: '49'}), cb);
        note('bad phone', cb.submit({kind: 'call_me', phone: '12', windowStart: ''}, now), cb);
        note('past start', cb.submit({kind: 'call_me', phone: '030 901820', windowStart: local(now - 3600e3)}, now), cb);
        note('half-typed start', cb.submit({kind: 'notify_and_chat', phone: '', windowStart: 'invalid'}, now), cb);
        note('too far ahead', cb.submit({kind: 'notify_and_chat', phone: '', windowStart: local(now + 31 * 86400e3)}, now), cb);
        note('unknown kind', cb.submit({kind: 'fax', phone: ''}, now), cb);
        note('i will call, a start', cb.submit({kind: 'i_will_call', phone: '030', windowStart: local(now + 7200e3)}, now), cb);
        note('refused: no number', cb.requestRefused({code: 'no_dial_number', message: 'x'}), cb);
        note('send', cb.submit({kind: 'call_me', phone: '030 901820', windowStart: ''}, now), cb);
        note('sending twice', cb.submit({kind: 'call_me', phone: '030 901820', windowStart: ''}, now), cb);
        note('refused: phone', cb.requestRefused({code: 'invalid_phone', message: 'phone: no'}), cb);
        cb.submit({kind: 'call_me', phone: '030 901820', windowStart: ''}, now);
        note('refused: start', cb.requestRefused({code: 'bad_request', message: 'window_start: in the past'}), cb);
        cb.submit({kind: 'call_me', phone: '030 901820', windowStart: ''}, now);
        note('refused: hours', cb.requestRefused({code: 'outside_hours', message: 'window_start: closed'}), cb);
        cb.submit({kind: 'call_me', phone: '030 901820', windowStart: ''}, now);
        note('accepted', cb.requestAccepted(view), cb);
        note('replayed event', cb.changed({seq: 2, action: 'requested', callback: waiting}), cb);
        note('position', cb.queueUpdated(1), cb);
        note('offered', cb.changed({seq: 4, action: 'offered', callback: {...waiting, status: 'offered', expires_at: offer.expires_at}}), cb);
        note('stale dialog', cb.dialogLoaded({kind: 'confirmation', text: 'old'}, 0), cb);
        note('menu', cb.dialogLoaded(offer, 1), cb);
        note('not on the menu', cb.choose('dialog'), cb);
        note('confirm', cb.choose('confirm'), cb);
        note('twice', cb.choose('snooze'), cb);
        note('done', cb.actionDone('confirm', {kind: 'confirmation', text: 'Calling you'}), cb);
        note('note gone', cb.noteDismissed(), cb);
        note('ended', cb.changed({seq: 7, action: 'completed', callback: {...waiting, status: 'ended', end_reason: 'completed', outcome: 'connected'}}), cb);
        note('cancel once ended', cb.choose('cancel'), cb);

        cb = new m.CallbackMachine();
        note('resumed offer', cb.resumed({id: 'cnv_1', last_seq: 4, callback: {...waiting, status: 'offered'}}), cb);
        cb.dialogLoaded(offer, 1);
        cb.choose('confirm');
        note('refused: expired', cb.actionRefused('confirm', {code: 'invalid_state'}), cb);

        cb = new m.CallbackMachine();
        cb.open({origin: 'unavailable', reason: 'closed'});
        note('notify and chat', cb.submit({kind: 'notify_and_chat', phone: 'ignored', windowStart: ''}, now), cb);
        note('accepted from unavailable', cb.requestAccepted({...view, callback: chatting}), cb);
        note('confirmed: a chat', cb.changed({seq: 6, action: 'confirmed', callback: {...chatting, status: 'connecting'}}), cb);
        note('after the chat started', cb.changed({seq: 9, action: 'completed', callback: {...chatting, status: 'ended'}}), cb);

        cb = new m.CallbackMachine();
        cb.open({origin: 'queued'});
        note('the chat moved on', cb.chatMoved('chatting'), cb);
        cb.open({origin: 'queued'});
        cb.submit({kind: 'notify_and_chat', windowStart: ''}, now);
        note('moved while sending', cb.chatMoved('chatting'), cb);
        note('accepted after all', cb.requestAccepted(view), cb);

        cb = new m.CallbackMachine();
        note('resumed chat', cb.resumed({id: 'cnv_1', last_seq: 9, callback: {...chatting, status: 'connecting'}}), cb);

        return {steps, secondsLeft: [m.secondsLeft('2026-11-25T09:01:00Z', now), m.secondsLeft('2026-11-25T08:00:00Z', now), m.secondsLeft(null, now)],
                fits: [m.dialogFits('offered', offer), m.dialogFits('offered', {kind: 'confirmation'}), m.dialogFits('connecting', {kind: 'dial_number'}),
                       m.dialogFits('scheduled', {kind: 'menu'})]};
    })()""")
    assert result["ok"], result["value"]
    steps = {label: (screen, effects, state) for label, screen, effects, state in result["value"]["steps"]}
    assert steps["ignored before open"][:2] == ("idle", [])
    assert steps["open"][0] == "form"
    assert steps["bad phone"][1] == [] and steps["bad phone"][2]["errors"] == [{"key": "phone", "code": "invalid_phone"}]
    assert steps["past start"][2]["errors"] == [{"key": "window_start", "code": "in_the_past"}]
    assert steps["half-typed start"][2]["errors"] == [{"key": "window_start", "code": "invalid_time"}]
    assert steps["too far ahead"][2]["errors"] == [{"key": "window_start", "code": "too_far_ahead"}]
    assert steps["refused: start"][2]["errors"] == [{"key": "window_start", "code": "in_the_past"}]
    assert steps["unknown kind"][2]["errors"] == [{"key": "kind", "code": "not_an_option"}]
    kind, = steps["i will call, a start"][1]
    assert kind["type"] == "requestCallback" and set(kind["body"]) == {"kind", "window_start"} and kind["body"]["kind"] == "i_will_call"
    assert steps["refused: no number"][2]["notice"] == "no_dial_number" and steps["refused: no number"][0] == "form"
    assert steps["send"][1] == [{"type": "requestCallback", "body": {"kind": "call_me", "phone": "+4930901820", "default_calling_code": "49"}}]
    assert steps["sending twice"][1] == []
    assert steps["refused: phone"][2]["errors"] == [{"key": "phone", "code": "invalid_phone"}]
    assert steps["refused: hours"][2]["errors"] == [{"key": "window_start", "code": "outside_hours"}]
    assert steps["accepted"][:2] == ("request", [{"type": "follow", "conversationID": "cnv_1", "leaveQueue": True}])
    assert steps["accepted"][2]["position"] == 3 and steps["accepted"][2]["dialog"] == "confirmation"
    assert steps["replayed event"][1] == [] and steps["position"][2]["position"] == 1
    assert steps["offered"][1] == [{"type": "fetchDialog", "callbackID": "cbk_1", "token": 1}] and steps["offered"][2]["dialog"] is None
    assert steps["stale dialog"][2]["dialog"] is None and steps["menu"][2]["dialog"] == "menu"
    assert steps["not on the menu"][1] == []
    assert steps["confirm"][1] == [{"type": "perform", "callbackID": "cbk_1", "action": "confirm"}] and steps["twice"][1] == []
    assert steps["done"][1] == [{"type": "dismissNote", "after": 3}] and steps["done"][2]["note"] == "Calling you"
    assert steps["note gone"][2]["note"] is None
    assert steps["ended"][1] == [{"type": "finished"}, {"type": "fetchDialog", "callbackID": "cbk_1", "token": 3}] and steps["ended"][2]["status"] == "ended"
    assert steps["cancel once ended"][1] == []
    assert steps["resumed offer"][:2] == ("request", [{"type": "fetchDialog", "callbackID": "cbk_1", "token": 1}])
    assert steps["refused: expired"][1] == [{"type": "fetchDialog", "callbackID": "cbk_1", "token": 2}] and steps["refused: expired"][2]["notice"] == "changed"
    assert steps["notify and chat"][1] == [{"type": "requestCallback", "body": {"kind": "notify_and_chat"}}]
    assert steps["accepted from unavailable"][1][0]["leaveQueue"] is False
    assert steps["confirmed: a chat"][:2] == ("chat", [{"type": "startChat"}])
    assert steps["after the chat started"][:2] == ("chat", [])
    assert steps["the chat moved on"][0] == "idle"
    assert steps["moved while sending"][:2] == ("form", [])
    assert steps["accepted after all"][:2] == ("idle", [{"type": "perform", "callbackID": "cbk_1", "action": "cancel"}])
    assert steps["resumed chat"][:2] == ("chat", [])
    assert result["value"]["secondsLeft"] == [60, 0, None]
    assert result["value"]["fits"] == [True, False, True, False]
