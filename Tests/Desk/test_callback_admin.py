"""The Callbacks admin page: a queue's callback settings (the server's 400 shown on the field,
nothing changed; the dial number removed) and the dialog texts per language, which reach visitors
in the dialogs of their callback requests (`POST /v1/callbacks`, an offer's menu). Plain agents get
no such page; axe finds nothing serious on it, at desktop and phone width."""
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support.ui import Select

from harness.waiting import wait_until
from test_accessibility import UNLABELLED, active, no_horizontal_scroll
from test_admin import go
from test_forms import choose, type_into, visitor_api

STANDARD = {"enabled": True, "offer_seconds": 60, "snooze_minutes": 5, "on_expiry": "requeue"}
STANDARD_STATUS = ("On. 60 seconds to confirm an offer; snooze 5 min; an unconfirmed offer goes back to the queue, keeping its place; "
                   "no number to dial: no “I will call” requests.")
DE_WAITING = "Wir rufen Sie an, sobald jemand frei ist."
EN_READY = "Yes, call me now"
# Well formed (visitors may send it), but longer than the 35 characters the server stores.
LONG_TAG = "de-variant1-variant2-variant3-variant4"


def press(desk, css):
    """Clicks a control after dismissing the toasts that may cover it, as a person would."""
    for close in desk.find_all("#toasts .toast-close"):
        close.click()
    desk.wait(lambda: not desk.find_all("#toasts .toast"), message="the toasts dismissed")
    desk.click(css)


def clear(desk, css):
    field = desk.find(css)
    field.send_keys(Keys.CONTROL, "a")
    field.send_keys(Keys.DELETE)


def settings_path(world, queue):
    return f"/v1/admin/apps/{world.app_id}/queues/{queue}/callbacks"


def texts_path(world):
    return f"/v1/admin/apps/{world.app_id}/callback-texts"


def shown(desk, css):
    """The text of an element on screen, or None while it is hidden or empty."""
    element = desk.find(css)
    return element.text if element.is_displayed() and element.text else None


def form_values(desk):
    return {
        "enabled": desk.find("#callbacks-enabled").is_selected(),
        "offer_seconds": desk.find("#callbacks-offer-seconds").get_attribute("value"),
        "snooze_minutes": desk.find("#callbacks-snooze-minutes").get_attribute("value"),
        "on_expiry": "end" if desk.find("#callbacks-expiry-end").is_selected() else "requeue",
        "dial_number": desk.find("#callbacks-dial-number").get_attribute("value"),
    }


def show_queue(desk, queue):
    choose(desk, "#callbacks-queue", queue)
    desk.wait(lambda: desk.find("#callbacks-settings").get_attribute("aria-busy") == "false", message="the queue's settings")


def invalid(desk):
    return [element.get_attribute("id") for element in desk.find_all("#callbacks-settings [aria-invalid=true]")]


def test_admin_sets_a_queues_callback_settings(admin_desk, world):
    desk = admin_desk
    desk.allow_console(r"/callbacks - Failed to load resource: the server responded with a status of 400")
    path = settings_path(world, world.billing_queue)
    previous = world.admin.get(path)
    assert previous == STANDARD, "the standard settings until set"
    caller = visitor_api(world, "Clara Callback")
    try:
        go(desk, "callbacks")
        show_queue(desk, world.billing_queue)
        assert desk.find("#callbacks-status").text == STANDARD_STATUS
        assert form_values(desk) == {"enabled": True, "offer_seconds": "60", "snooze_minutes": "5", "on_expiry": "requeue", "dial_number": ""}
        assert desk.find("#callbacks-made-hint").text == \
            "Requests already made keep the settings of when they were made; changes apply to new requests."

        # Out of range: the server's 400 as it is, the field marked and focused, nothing stored.
        type_into(desk, "#callbacks-offer-seconds", "5")
        press(desk, "#callbacks-save")
        error = desk.wait(lambda: shown(desk, "#callbacks-error"), message="the refusal")
        assert error == "Not saved: offer_seconds: must be between 10 and 3600", error
        assert invalid(desk) == ["callbacks-offer-seconds"]
        assert active(desk).get_attribute("id") == "callbacks-offer-seconds"
        assert world.admin.get(path) == previous

        # A national number: the server wants E.164.
        type_into(desk, "#callbacks-offer-seconds", "90")
        type_into(desk, "#callbacks-dial-number", "030 901820")
        press(desk, "#callbacks-save")
        desk.wait(lambda: (shown(desk, "#callbacks-error") or "").startswith("Not saved: dial_number:"), message="the refusal of the number")
        assert shown(desk, "#callbacks-error") == "Not saved: dial_number: must be a number in E.164, such as +4930901820"
        assert invalid(desk) == ["callbacks-dial-number"]
        assert world.admin.get(path) == previous

        # No number at all in a number field: the page's own check, nothing sent.
        clear(desk, "#callbacks-snooze-minutes")
        press(desk, "#callbacks-save")
        desk.wait(lambda: shown(desk, "#callbacks-error") == "Not saved: the snooze minutes must be a whole number, 1 to 240.",
                  message="the page's check")
        assert invalid(desk) == ["callbacks-snooze-minutes"]

        # Saved: what GET answers, the status in words, the form as stored (spaces left out of the number).
        type_into(desk, "#callbacks-snooze-minutes", "15")
        desk.find("#callbacks-expiry-end").click()
        type_into(desk, "#callbacks-dial-number", "+49 30 901820")
        press(desk, "#callbacks-save")
        wanted = {"enabled": True, "offer_seconds": 90, "snooze_minutes": 15, "on_expiry": "end", "dial_number": "+4930901820"}
        desk.wait(lambda: world.admin.get(path) == wanted, message="the saved settings")
        desk.wait(lambda: desk.find("#callbacks-status").text == ("On. 90 seconds to confirm an offer; snooze 15 min; an unconfirmed offer "
                                                                 "ends the request; visitors who call dial +4930901820."), message="the status")
        assert not desk.find("#callbacks-error").is_displayed() and invalid(desk) == []
        assert form_values(desk)["dial_number"] == "+4930901820"
        # A request made now carries them.
        request = caller.post("/v1/callbacks", {"kind": "i_will_call", "queue_id": world.billing_queue}, expect=201)
        caller.post(f"/v1/conversations/{request['conversation']['id']}/end")
        assert request["callback"]["dial_number"] == "+4930901820"
        assert (request["callback"]["offer_seconds"], request["callback"]["snooze_minutes"], request["callback"]["on_expiry"]) == (90, 15, "end")

        # Another queue shows its own settings, and this one its own again.
        show_queue(desk, world.support_queue)
        support = world.admin.get(settings_path(world, world.support_queue))
        desk.wait(lambda: form_values(desk)["offer_seconds"] == str(support["offer_seconds"]), message="Support's settings")
        assert form_values(desk)["dial_number"] == (support.get("dial_number") or "")
        show_queue(desk, world.billing_queue)
        desk.wait(lambda: form_values(desk) == {"enabled": True, "offer_seconds": "90", "snooze_minutes": "15", "on_expiry": "end",
                                                "dial_number": "+4930901820"}, message="Billing's settings again")

        # The number removed: absent from the settings, and "I will call" is refused.
        clear(desk, "#callbacks-dial-number")
        press(desk, "#callbacks-save")
        desk.wait(lambda: world.admin.get(path).get("dial_number") is None, message="the number removed")
        assert world.admin.get(path) == {"enabled": True, "offer_seconds": 90, "snooze_minutes": 15, "on_expiry": "end"}
        desk.wait(lambda: desk.find("#callbacks-status").text.endswith("no number to dial: no “I will call” requests."), message="the status")
        status, body = caller.exchange("POST", "/v1/callbacks", {"kind": "i_will_call", "queue_id": world.billing_queue})
        assert status == 409 and body["error"]["code"] == "no_dial_number", body

        # Off: requests are refused. A text being typed in the other card stays (each card saves on its own).
        type_into(desk, "#callback-texts-new-language", "fr\n")
        type_into(desk, "#callback-text-ok", "D’accord")
        desk.find("#callbacks-enabled").click()
        press(desk, "#callbacks-save")
        desk.wait(lambda: world.admin.get(path)["enabled"] is False, message="callbacks off")
        desk.wait(lambda: desk.find("#callbacks-status").text == "Off: visitors cannot ask this queue for callbacks.", message="the status")
        status, body = caller.exchange("POST", "/v1/callbacks", {"kind": "notify_and_chat", "queue_id": world.billing_queue})
        assert status == 409 and body["error"]["code"] == "callbacks_disabled", body
        assert desk.find("#callback-text-ok").get_attribute("value") == "D’accord"
    finally:
        world.admin.put(path, previous)


def test_admin_sets_the_dialog_texts_that_visitors_get(admin_desk, world):
    """German `waiting` and English `ready_item` set in the desk: a German request is answered in the
    saved words, an English one keeps the built-in note and gets the saved choice in its offer."""
    desk = admin_desk
    desk.allow_console(r"/callback-texts - Failed to load resource: the server responded with a status of 400")
    path = texts_path(world)
    previous = world.admin.get(path)
    world.admin.put(path, {"languages": {}})
    caller = visitor_api(world, "Greta Rückruf")
    conversations = []

    def ask(language):
        answer = caller.post("/v1/callbacks", {"kind": "notify_and_chat", "language": language, "queue_id": world.support_queue}, expect=201)
        conversations.append(answer["conversation"]["id"])
        return answer

    try:
        go(desk, "callbacks")
        assert desk.find("#callback-texts-status").text == "None saved: visitors see the built-in texts."
        assert desk.find("#callback-texts-none").is_displayed() and not desk.find_all("#callback-texts-language")

        # The page's own check: no such tag can come from a visitor.
        type_into(desk, "#callback-texts-new-language", "fr_FR\n")
        assert desk.visible("#callback-texts-language-error").text.startswith("“fr_FR” is not a language tag")
        assert desk.find("#callback-texts-new-language").get_attribute("aria-invalid") == "true"
        assert not desk.find_all("#callback-texts-language")

        # German: the built-in German texts as placeholders and hints; Enter adds, focus goes to the first text.
        type_into(desk, "#callback-texts-new-language", "de\n")
        desk.wait(lambda: desk.find_all("#callback-texts-language"), message="the language picker")
        assert not desk.find("#callback-texts-language-error").is_displayed()
        assert Select(desk.find("#callback-texts-language")).first_selected_option.get_attribute("value") == "de"
        desk.wait(lambda: active(desk).get_attribute("id") == "callback-text-offer", message="focus on the first text")
        assert desk.find("#callback-text-waiting").get_attribute("placeholder") == "Wir melden uns, sobald jemand für Sie da ist."
        assert "Empty: “Wir melden uns, sobald jemand für Sie da ist.”" in desk.find("#callback-text-waiting-hint").text
        assert desk.find("#callback-text-waiting").get_attribute("maxlength") == "200"
        for key in ("snooze_item", "snoozed"):
            assert "{minutes} becomes the queue’s snooze minutes." in desk.find(f"#callback-text-{key}-hint").text, key
        assert "{minutes}" not in desk.find("#callback-text-waiting-hint").text
        type_into(desk, "#callback-text-waiting", DE_WAITING)
        type_into(desk, "#callback-text-ended", "   ")  # only spaces: the built-in text stays

        # English (typed in capitals, kept in lower case): the built-in English texts.
        type_into(desk, "#callback-texts-new-language", "EN")
        press(desk, "#callback-texts-add")
        desk.wait(lambda: Select(desk.find("#callback-texts-language")).first_selected_option.get_attribute("value") == "en", message="en chosen")
        assert desk.find("#callback-text-ready_item").get_attribute("placeholder") == "Yes, I'm ready"
        assert desk.find("#callback-text-snooze_item").get_attribute("placeholder") == "No, try again in {minutes} minutes"
        assert desk.find("#callback-text-waiting").get_attribute("value") == ""
        type_into(desk, "#callback-text-ready_item", EN_READY)
        # Italian with no text of its own: not saved.
        type_into(desk, "#callback-texts-new-language", "it\n")
        desk.wait(lambda: Select(desk.find("#callback-texts-language")).first_selected_option.get_attribute("value") == "it", message="it chosen")
        # Back to German: what was typed there is still there.
        choose(desk, "#callback-texts-language", "de")
        desk.wait(lambda: desk.find("#callback-text-waiting").get_attribute("value") == DE_WAITING, message="the German draft")

        press(desk, "#callback-texts-save")
        saved = {"languages": {"de": {"waiting": DE_WAITING}, "en": {"ready_item": EN_READY}}}
        desk.wait(lambda: world.admin.get(path) == saved, message="the saved texts")
        desk.wait(lambda: desk.find("#callback-texts-status").text == "Saved: de (1 text), en (1 text).", message="the status")
        assert [option.get_attribute("value") for option in Select(desk.find("#callback-texts-language")).options] == ["de", "en"]

        # Visitors get them: a German request's note (and de-AT's, by its first part); English keeps the built-in note.
        # Away, nobody takes them, so they wait.
        desk.set_availability("away")
        german = ask("de")
        assert german["dialog"]["kind"] == "confirmation" and german["dialog"]["text"] == DE_WAITING, german["dialog"]
        assert ask("de-AT")["dialog"]["text"] == DE_WAITING
        for conversation_id in conversations:
            caller.post(f"/v1/conversations/{conversation_id}/end")
        english = ask("en")
        assert english["dialog"]["text"] == "We will notify you when an agent is available."
        # Online with free slots: routing offers the English request, whose menu has the saved choice.
        desk.set_availability("online")
        refresh = english["dialog"]["refresh_path"]
        menu = wait_until(lambda: (lambda dialog: dialog if dialog["kind"] == "menu" else None)(caller.get(refresh)), message="the offer")
        labels = [item["label"] for item in menu["groups"][0]["items"]]
        assert labels == [EN_READY, "No, try again in 5 minutes", "Cancel, my problem has been solved"], labels

        # A well-formed tag longer than the server stores: the server's 400 as it is, that language shown, nothing changed.
        type_into(desk, "#callback-texts-new-language", LONG_TAG + "\n")
        desk.wait(lambda: active(desk).get_attribute("id") == "callback-text-offer", message="the long tag added")
        type_into(desk, "#callback-text-waiting", "Wir rufen zurück.")
        choose(desk, "#callback-texts-language", "de")
        press(desk, "#callback-texts-save")
        error = desk.wait(lambda: shown(desk, "#callback-texts-error"), message="the refusal")
        assert error == f"Not saved: languages.{LONG_TAG}: is not a language tag", error
        assert Select(desk.find("#callback-texts-language")).first_selected_option.get_attribute("value") == LONG_TAG
        assert world.admin.get(path) == saved

        # Removing languages: the long one, then German; saved, only English is left.
        press(desk, "#callback-texts-remove")
        desk.wait(lambda: desk.find("#callback-texts-pending").text.startswith(f"“{LONG_TAG}” removed"), message="the long tag removed")
        choose(desk, "#callback-texts-language", "de")
        desk.wait(lambda: desk.find("#callback-texts-remove").text == "Remove “de”", message="German shown")
        press(desk, "#callback-texts-remove")
        desk.wait(lambda: [option.get_attribute("value") for option in Select(desk.find("#callback-texts-language")).options] == ["en"],
                  message="German removed from the page")
        assert desk.find("#callback-texts-pending").text == "“de” removed from the page. Save dialog texts to remove it for visitors."
        assert world.admin.get(path) == saved, "nothing changes before saving"
        press(desk, "#callback-texts-save")
        desk.wait(lambda: world.admin.get(path) == {"languages": {"en": {"ready_item": EN_READY}}}, message="German removed")
        desk.wait(lambda: desk.find("#callback-texts-status").text == "Saved: en (1 text).", message="the status")
        assert not desk.find("#callback-texts-error").is_displayed()
        desk.set_availability("away")
        assert ask("de")["dialog"]["text"] == "Wir melden uns, sobald jemand für Sie da ist."
    finally:
        for conversation_id in conversations:
            caller.exchange("POST", f"/v1/conversations/{conversation_id}/end")
        world.admin.put(path, previous)


def test_plain_agents_get_no_callbacks_page(desks, world):
    admin = desks.new("admin").login(world.admin_email, world.admin_password, online=False)
    go(admin, "callbacks")
    assert admin.find("#admin-title").text == "Callbacks"
    assert admin.find('#admin-nav a[href="#/admin/callbacks"]').get_attribute("aria-current") == "page"

    alan = desks.new("alan").login(world.alan_email, world.alan_password, online=False)
    assert not alan.find('#admin-nav a[href="#/admin/callbacks"]').is_displayed()
    alan.open("#/admin/callbacks")
    alan.wait(lambda: alan.driver.current_url.endswith("#/inbox/mine"), message="a redirect to the inbox")
    assert not alan.find("#admin").is_displayed()
    assert not alan.find_all("#callbacks-settings") and not alan.find_all("#callback-texts")


def test_the_callbacks_page_is_accessible_by_keyboard_and_at_phone_width(admin_desk, world):
    desk = admin_desk
    desk.allow_console(r"/callbacks - Failed to load resource: the server responded with a status of 400")
    path = settings_path(world, world.support_queue)
    previous = world.admin.get(path)
    try:
        for width, height in ((1440, 900), (390, 844)):
            desk.driver.set_window_size(width, height)
            desk.js("location.hash = arguments[0]", "#/admin/agents")
            desk.wait(lambda: desk.find_all("#admin-body tbody tr"), message="the agents page")
            desk.js("location.hash = arguments[0]", "#/admin/callbacks")
            desk.wait(lambda: desk.find("#admin-body").get_attribute("aria-busy") == "false" and desk.find_all("#callback-texts"),
                      message="the callbacks page")
            # By keyboard: a language added with Enter, focus on its first text.
            field = desk.find("#callback-texts-new-language")
            desk.js("arguments[0].scrollIntoView({block: 'center'})", field)
            field.send_keys("fr", Keys.ENTER)
            desk.wait(lambda: active(desk).get_attribute("id") == "callback-text-offer", message="focus on the first text")
            # A refusal on screen too: its message and the marked field must be accessible as well.
            type_into(desk, "#callbacks-offer-seconds", "5")
            desk.find("#callbacks-offer-seconds").send_keys(Keys.TAB)
            assert active(desk).get_attribute("id") == "callbacks-snooze-minutes"
            desk.js("arguments[0].scrollIntoView({block: 'center'})", desk.find("#callbacks-save"))
            press(desk, "#callbacks-save")
            desk.wait(lambda: shown(desk, "#callbacks-error"), message="the refusal")
            assert desk.js(UNLABELLED) == [], f"{width}×{height}"
            assert desk.accessibility_problems() == [], f"the callbacks page at {width}×{height}"
            assert no_horizontal_scroll(desk), f"{width}×{height}"
            labels = [label.text for label in desk.find_all("#callback-texts-fields label")]
            assert len(labels) == 13 and all(labels), labels
            fields = desk.find_all("#callback-texts-fields input")
            assert all(element.rect["x"] + element.rect["width"] <= width for element in fields), "the texts fit the width"
            assert world.admin.get(path) == previous
        legends = [legend.text for legend in desk.find_all("#callback-texts-fields legend")]
        assert legends == ["The offer, when an agent is free (fr)", "Once confirmed (fr)", "Notes (fr)"], legends
        assert desk.find("#callbacks-expiry").find_element(By.CSS_SELECTOR, "legend").text == "When an offer is not confirmed in time"
    finally:
        desk.driver.set_window_size(1280, 900)
        world.admin.put(path, previous)
