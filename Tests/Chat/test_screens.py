"""Every screen of the chat page at 390×844 and 1440×900, each screenshot saved, each checked with
axe-core (no serious or critical violation): loading, pre-chat form (every field kind, refused
answers shown), queued with position and estimated wait (kept across a reload), chatting, post-chat
form with the rating, ended, unavailable (closed, nobody online, cancelled) with the offline form,
offline sent, error with retry. German strings, a right-to-left layout (at both sizes) and the dark
theme hold."""
import uuid

import pytest
from selenium.webdriver.common.by import By

from chatsuite.page import DESKTOP, MOBILE
from conftest import screenshot
from harness.http import API

SIZES = [pytest.param(MOBILE, id="390x844"), pytest.param(DESKTOP, id="1440x900")]


def axe(page, name):
    """Runs axe-core and fails on serious or critical."""
    bad = page.accessibility_problems()
    assert not bad, f"axe on {name}: {bad}"


def check(page, name):
    assert page.js("return document.documentElement.scrollWidth <= window.innerWidth + 1"), f"{name}: horizontal overflow"
    screenshot(page, name)
    axe(page, name)


@pytest.mark.parametrize("size", SIZES)
def test_pre_chat_form_every_kind_then_chat_then_post_chat(pages, world, agent, size):
    page = pages.new(size=size)
    page.open(world.app_id, world.forms)
    page.wait_screen("preChat")
    kinds = [field.get_attribute("data-kind") for field in page.find_all(".chat-form .field")]
    assert kinds == ["single_line", "email", "phone", "multi_line", "select", "radio", "checkbox", "rating"]
    check(page, "pre-chat")

    # Submitting empty: the page refuses with the server's codes, focus on the first field to fix.
    page.click(".chat-form button[type=submit]")
    page.wait(lambda: len(page.find_all(".field-error")) == 4, message="four refused fields")
    errors = {e.find_element(By.XPATH, "..").get_attribute("data-key"): e.text for e in page.find_all(".field-error")}
    assert set(errors) == {"name", "email", "topic", "terms"}
    assert page.js("return document.activeElement.id") == page.find('.field[data-key="name"] input').get_attribute("id")
    assert page.find('.field[data-key="name"] input').get_attribute("aria-invalid") == "true"
    check(page, "pre-chat-errors")

    page.find('.field[data-key="name"] input').send_keys("  Ada Lovelace ")
    page.find('.field[data-key="email"] input').send_keys("Ada@Example.COM")
    page.find('.field[data-key="phone"] input').send_keys("030 1234567")
    page.find('.field[data-key="question"] textarea').send_keys("Where is\nmy order?")
    page.find('.field[data-key="topic"] select option[value="tech"]').click()
    page.find('.field[data-key="contact"] input[value="mail"]').click()
    page.find('.field[data-key="terms"] input').click()
    page.find('.field[data-key="mood"] input[value="4"]').click()
    page.click(".chat-form button[type=submit]")
    page.wait_screen("chatting")
    conversation = page.conversation_id()
    answers = world.admin.get(f"/v1/conversations/{conversation}/forms")
    submitted = answers["submissions"][0]["answers"] if "submissions" in answers else answers
    assert submitted["name"] == "Ada Lovelace" and submitted["email"] == "Ada@example.com" and submitted["phone"] == "+49301234567"
    assert submitted["topic"] == "tech" and submitted["terms"] is True and submitted["mood"] == 4

    # The agent ends it: the post-chat form with its rating.
    agent.api.post(f"/v1/conversations/{conversation}/end")
    page.wait_screen("postChat")
    check(page, "post-chat")
    page.find('.field[data-key="score"] input[value="5"]').click()
    page.find('.field[data-key="comment"] textarea').send_keys("Quick and kind")
    page.click(".chat-form button[type=submit]")
    page.wait_screen("ended")
    check(page, "ended-after-rating")
    forms = world.admin.get(f"/v1/conversations/{conversation}/forms")
    assert "Quick and kind" in str(forms)


@pytest.mark.parametrize("size", SIZES)
def test_queued_with_position_and_estimate_then_chatting(pages, world, wendy, size):
    # Three waits of the past make an estimate; a fourth visitor waits ahead of the page.
    visitor = API(world.base)
    def visitor_conversation():
        session = visitor.post("/v1/visitor/session", {"app_id": world.app_id, "device_id": str(uuid.uuid4())})
        api = visitor.with_token(session["token"])
        return api, api.post("/v1/conversations", {"queue_id": world.waiting})
    for _ in range(3):
        api, conversation = visitor_conversation()
        world.admin.post(f"/v1/conversations/{conversation['id']}/accept")
        world.admin.post(f"/v1/conversations/{conversation['id']}/end")
    ahead_api, ahead = visitor_conversation()

    page = pages.new(size=size)
    page.open(world.app_id, world.waiting)
    page.wait_screen("queued")
    page.wait(lambda: page.find("#queue-position").get_attribute("data-position") == "2", message="position 2")
    wait = page.find("#queue-wait")
    first_estimate = int(wait.get_attribute("data-seconds"))
    assert first_estimate > 0 and wait.is_displayed()
    check(page, "queued")

    # The visitor ahead leaves: position 1, and the estimate is still there (scaled, not lost).
    ahead_api.post(f"/v1/conversations/{ahead['id']}/end")
    page.wait(lambda: page.find("#queue-position").get_attribute("data-position") == "1", message="position 1")
    estimate = int(page.find("#queue-wait").get_attribute("data-seconds"))
    assert estimate > 0

    # A reload while waiting resumes the same conversation with its place and its estimate.
    conversation = page.conversation_id()
    page.driver.refresh()
    page.wait_screen("queued")
    page.wait_subscribed()
    page.wait(lambda: page.find("#queue-position").get_attribute("data-position") == "1", message="position 1 after the reload")
    page.wait(lambda: page.find_all("#queue-wait"), message="the estimate after the reload")
    assert page.conversation_id() == conversation
    assert page.find("#queue-wait").is_displayed() and int(page.find("#queue-wait").get_attribute("data-seconds")) == estimate
    check(page, "queued-reloaded")

    # The admin takes it: chatting.
    world.admin.post(f"/v1/conversations/{page.conversation_id()}/accept")
    page.wait_screen("chatting")
    world.admin.post(f"/v1/conversations/{page.conversation_id()}/end")
    page.wait_screen("ended")


def test_a_resumed_wait_keeps_its_estimate(pages, world):
    """The screen machine's `resumed` on a table: the server's estimate when it gives one, else the
    seconds per place kept from before the reload, scaled to the place now; none without either."""
    page = pages.new()
    page.open(world.app_id, world.nobody)
    page.wait_screen("unavailable")
    table = page.module("js/screen-machine.js", """args[0].map(([state, position, wait, moved]) => {
        const machine = new m.ChatScreenMachine();
        machine.resumed(state, position, null, wait);
        const resumed = machine.screen;
        if (moved) machine.queueUpdated(moved, null);
        return [resumed, machine.screen.estimatedWaitSeconds ?? null];
    })""", [
        ["queued", 2, {"estimatedWaitSeconds": 120}, 1],
        ["queued", 3, {"secondsPerPlace": 40}, 2],
        ["queued", 3, {"secondsPerPlace": 40.2}, None],
        ["queued", 2, {}, 1],
        ["queued", None, {"secondsPerPlace": 40}, None],
        ["assigned", None, {"secondsPerPlace": 40}, None],
    ])
    assert table["ok"], table
    assert table["value"] == [
        [{"name": "queued", "position": 2, "estimatedWaitSeconds": 120}, 60],
        [{"name": "queued", "position": 3, "estimatedWaitSeconds": 120}, 80],
        [{"name": "queued", "position": 3, "estimatedWaitSeconds": 121}, 121],
        [{"name": "queued", "position": 2, "estimatedWaitSeconds": None}, None],
        [{"name": "queued", "position": None, "estimatedWaitSeconds": None}, None],
        [{"name": "chatting"}, None],
    ]


@pytest.mark.parametrize("size", SIZES)
def test_cancel_while_queued_shows_the_unavailable_form(pages, world, wendy, size):
    page = pages.new(size=size)
    page.open(world.app_id, world.waiting)
    page.wait_screen("queued")
    page.click("#cancel-wait")
    page.wait_screen("unavailable")
    check(page, "unavailable-cancelled")
    assert page.wait_bridge("chat_started")


@pytest.mark.parametrize("size", SIZES)
def test_closed_and_nobody_online_take_an_offline_message(pages, world, size):
    page = pages.new(size=size)
    page.open(world.app_id, world.closed)
    page.wait_screen("unavailable")
    assert "closed" in page.find(".form-title").text
    check(page, "unavailable-closed")

    page.open(world.app_id, world.nobody, locale="de")
    page.wait(lambda: "Mitarbeiter" in page.find("#panel").text, message="the German 'nobody online' screen")
    page.find('.field[data-key="email"] input').send_keys("not-an-email")
    page.click(".chat-form button[type=submit]")
    page.wait(lambda: "gültige E-Mail" in page.find("#panel").text, message="a German field error")
    check(page, "unavailable-nobody-de")
    page.find('.field[data-key="email"] input').clear()
    page.find('.field[data-key="email"] input').send_keys("ada@example.com")
    page.find('.field[data-key="message"] textarea').send_keys("Please call me back")
    page.click(".chat-form button[type=submit]")
    page.wait_screen("offlineSubmitted")
    check(page, "offline-sent-de")


@pytest.mark.parametrize("size", SIZES)
def test_loading_and_error_with_retry(pages, world, server, size):
    page = pages.new(size=size)
    # Slow answers hold the loading screen long enough to look at it (the page is loaded, its first
    # requests are on their way).
    page.driver.execute_cdp_cmd("Network.emulateNetworkConditions", {"offline": False, "latency": 1500, "downloadThroughput": -1, "uploadThroughput": -1})
    page.open(world.app_id, world.support)
    page.wait(lambda: page.js("return document.readyState") == "complete" and page.screen() == "loading" and page.find("#loading").is_displayed(),
              message="the loading screen")
    check(page, "loading")
    page.driver.execute_cdp_cmd("Network.emulateNetworkConditions", {"offline": False, "latency": 0, "downloadThroughput": -1, "uploadThroughput": -1})
    page.wait(lambda: page.screen() in ("queued", "chatting"), message="the chat once loaded")

    # A failed availability request: the error screen with Retry, which starts over.
    other = pages.new("blocked", size=size)
    other.driver.execute_cdp_cmd("Network.setBlockedURLs", {"urls": ["*/v1/availability*"]})
    other.open(world.app_id, world.nobody)
    other.wait_screen("error")
    check(other, "error")
    other.allow_console(r"v1/availability.*(ERR_BLOCKED_BY_CLIENT|Failed to load)")
    other.driver.execute_cdp_cmd("Network.setBlockedURLs", {"urls": []})
    other.click("#retry")
    other.wait_screen("unavailable")


def test_an_unknown_app_is_an_error_without_retry(pages, world):
    page = pages.new()
    page.open("app_00000000000000000000000000")
    page.wait_screen("error")
    assert not page.find_all("#retry")
    page.allow_console(r"v1/visitor/session - Failed to load resource: the server responded with a status of 404")


@pytest.mark.parametrize("size", SIZES)
def test_right_to_left_and_dark(pages, world, agent, size):
    page = pages.new(size=size)
    page.open(world.app_id, world.support, dir="rtl", theme="dark")
    page.wait_screen("chatting")
    page.wait_subscribed()
    page.type_and_send("مرحبا، أين طلبي؟")
    mine = page.wait_message("مرحبا").find_element(By.CSS_SELECTOR, ".bubble")
    agent.say(page.conversation_id(), "Welcome, we are looking")
    theirs = page.wait_message("we are looking", role="agent").find_element(By.CSS_SELECTOR, ".bubble")
    assert page.js("return document.documentElement.dir") == "rtl"

    def box(element):
        return page.js("const r = arguments[0].getBoundingClientRect(); return {left: r.left, right: r.right}", element)
    # Measured in the transcript (the page is a centred column on a wide screen): mine sits at the
    # inline end, the left in right-to-left; the agent's at the start, the right.
    edges = box(page.find("#transcript"))
    assert box(mine)["left"] - edges["left"] < edges["right"] - box(mine)["right"], "the visitor's bubble is on the left"
    assert edges["right"] - box(theirs)["right"] < box(theirs)["left"] - edges["left"], "the agent's bubble is on the right"
    # The header and the composer mirror too: the title right of End chat, Send left of the text box.
    assert box(page.find("#title"))["left"] > box(page.find("#end-chat"))["right"]
    assert box(page.find("#send"))["right"] <= box(page.find("#composer-text"))["left"]
    assert page.js("return getComputedStyle(document.body).backgroundColor") != "rgb(255, 255, 255)"
    check(page, "chatting-rtl-dark")


@pytest.mark.parametrize("size", SIZES)
def test_chatting_with_everything_then_ended(pages, world, agent, size):
    """The chat view with every kind of item (notices, messages both ways, a link, a pushed page, a
    file card, a failed message with Retry), then the ended screen: screenshots and axe at both sizes."""
    import urllib.request
    page = pages.new(size=size)
    page.open(world.app_id, world.support)
    page.wait_screen("chatting")
    page.wait_subscribed()
    conversation = page.conversation_id()
    page.type_and_send("Hi! My parcel 📦 has not arrived.")
    agent.say(conversation, "Sorry to hear that. Track it at https://track.example/42")
    agent.api.post(f"/v1/conversations/{conversation}/pages",
                   {"client_message_id": str(uuid.uuid4()), "url": "https://help.example.com/returns", "title": "How returns work"})
    request = urllib.request.Request(f"{world.base}/v1/conversations/{conversation}/attachments?name=label.pdf&client_message_id={uuid.uuid4()}",
                                     data=b"%PDF-1.4\n%%EOF\n", method="POST", headers={"Authorization": f"Bearer {agent.token}", "Content-Type": "application/pdf"})
    urllib.request.urlopen(request).close()
    page.visible("#transcript .page-card")
    page.wait(lambda: any("label.pdf" in m.text for m in page.messages("agent")), message="the file card")
    page.driver.execute_cdp_cmd("Network.setBlockedURLs", {"urls": ["*/messages"]})
    page.type_and_send("This one will not go")
    page.wait(lambda: page.wait_message("will not go").get_attribute("data-state") == "failed", message="a failed message")
    page.allow_console(r"/messages - Failed to load resource: net::ERR_BLOCKED_BY_CLIENT")
    check(page, "chatting-everything")
    page.driver.execute_cdp_cmd("Network.setBlockedURLs", {"urls": []})
    # Retry by hand (the page also retries by itself, so the button may be gone already).
    def sent_or_retried():
        item = page.wait_message("will not go")
        if item.get_attribute("data-state") in ("sent", "read"):
            return True
        for button in item.find_elements(By.CSS_SELECTOR, ".retry"):
            button.click()
        return False
    page.wait(sent_or_retried, message="sent after the network came back")
    agent.api.post(f"/v1/conversations/{conversation}/end")
    page.wait_screen("ended")
    check(page, "ended")
