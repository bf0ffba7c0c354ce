"""The inbox beyond "Mine": the queue with positions and live wait times, accepting by hand,
availability deciding routing, the admins' "All" view, and the visitor panel."""
import re

from selenium.webdriver.common.by import By

from harness.http import API


def wait_seconds(text):
    """'waiting 12 s' → 12, 'waiting 3 min' → 180."""
    match = re.search(r"waiting (\d+) (s|min)", text)
    return int(match.group(1)) * (60 if match.group(2) == "min" else 1)


def row_order(desk):
    return [row.get_attribute("data-conversation-id") for row in desk.find_all("#inbox-list li")]


def test_queue_shows_position_and_a_live_wait_time_and_accept_takes_it(admin_desk, visitors, world):
    desk = admin_desk
    # Away: keeps what it has, gets nothing new, so both visitors wait.
    desk.set_availability("away")
    first = visitors.new("First Visitor", subject="First in line")
    first.wait_for("position 1 in the queue")
    second = visitors.new("Second Visitor", subject="Second in line")
    second.wait_for("position 2 in the queue")

    desk.tab("queued")
    desk.wait(lambda: "#1 in Support" in desk.inbox_row(first.conversation_id).text, message="first at #1")
    desk.wait(lambda: "#2 in Support" in desk.inbox_row(second.conversation_id).text, message="second at #2")
    order = row_order(desk)
    assert order.index(first.conversation_id) < order.index(second.conversation_id)
    desk.wait(lambda: desk.find("#count-queued").text == "2", message="two waiting (the live count)")
    # The wait time counts up by itself (the page is not reloaded).
    shown = wait_seconds(desk.inbox_row(first.conversation_id).text)
    desk.wait(lambda: wait_seconds(desk.inbox_row(first.conversation_id).text) > shown, timeout=20, message="the wait time to grow")

    # Open the first: nothing can be sent before accepting; Accept takes it.
    desk.open_conversation(first.conversation_id)
    assert not desk.composer().is_enabled()
    assert "Accept the conversation to reply" in desk.find("#composer-hint").text
    assert desk.find("#accept").is_displayed()
    desk.click("#accept")
    first.wait_for(f"· {world.admin_name} joined")
    desk.wait(lambda: desk.composer().is_enabled(), message="the composer after accepting")
    assert not desk.find("#accept").is_displayed()
    desk.type_and_send("Thanks for waiting!")
    first.wait_for(f"{world.admin_name}: Thanks for waiting!")
    # The second moves up, live.
    desk.wait(lambda: "#1 in Support" in desk.inbox_row(second.conversation_id).text, message="second moves to #1")
    second.wait_for("position 1 in the queue")
    # Taking one by hand is not a "new assignment" to announce.
    assert desk.driver.title == "Parley desk"

    # Back online: routing hands over the one still waiting, with the cues.
    desk.set_availability("online")
    second.wait_for(f"· {world.admin_name} joined")
    desk.tab("mine")
    row = desk.inbox_row(second.conversation_id)
    desk.wait(lambda: "is-new" in row.get_attribute("class"), message="the routed one is highlighted")
    desk.wait(lambda: desk.find("#count-queued").text == "0", message="nobody waiting")

    # Admins see everything under All, with who holds it.
    desk.tab("all")
    all_row = desk.inbox_row(first.conversation_id)
    assert "Assigned" in all_row.text and world.admin_name in all_row.text


def test_visitor_panel_shows_the_visitor_and_opens_earlier_conversations(admin_desk, visitors, world):
    desk = admin_desk
    first = visitors.new("Ada Lovelace", email="ada@example.com", subject="First visit")
    first.wait_for(f"· {world.admin_name} joined")
    first.say("My first question")
    device = first.device_id()
    # Custom attributes, as an app would send them with the session.
    API(world.base).post("/v1/visitor/session", {"app_id": world.app_id, "device_id": device, "attributes": {"plan": "pro", "orders": "7"}})
    first.say("/end")
    first.wait_for("· you ended the conversation")
    first.close()

    # Same device: the same visitor, a new conversation.
    second = visitors.new("Ada Lovelace", subject="Second visit", storage=first.storage)
    assert second.conversation_id != first.conversation_id
    second.wait_for(f"· {world.admin_name} joined")
    desk.open_conversation(second.conversation_id)

    details = desk.wait(lambda: (lambda text: text if device in text else None)(desk.find("#visitor-details").text), message="the visitor's details")
    assert "Ada Lovelace" in details and "ada@example.com" in details
    attributes = desk.find("#visitor-attributes").text
    assert "plan\npro" in attributes and "orders\n7" in attributes
    earlier = desk.wait(lambda: desk.find_all(f'#visitor-history a[href="#/c/{first.conversation_id}"]'), message="the earlier conversation")
    assert not desk.find_all(f'#visitor-history a[href="#/c/{second.conversation_id}"]'), "the open one is not 'earlier'"
    item = earlier[0].find_element(By.XPATH, "..")
    assert "First visit" in item.text and "Ended" in item.text

    earlier[0].click()
    desk.wait(lambda: desk.find("#conversation").get_attribute("data-conversation-id") == first.conversation_id, message="the earlier one opens")
    desk.wait_for_item("My first question", kind="message")
    desk.wait(lambda: desk.find("#conversation-meta .state").text == "Ended", message="it is ended")
    assert not desk.composer().is_enabled()
    assert not desk.find("#end").is_displayed() and not desk.find("#transfer").is_displayed()


def test_mine_lists_the_latest_activity_first(admin_desk, visitors, world):
    desk = admin_desk
    older = visitors.new("Older")
    older.wait_for(f"· {world.admin_name} joined")
    newer = visitors.new("Newer")
    newer.wait_for(f"· {world.admin_name} joined")
    desk.inbox_row(older.conversation_id)
    desk.inbox_row(newer.conversation_id)
    desk.wait(lambda: row_order(desk).index(newer.conversation_id) < row_order(desk).index(older.conversation_id), message="newer first")
    older.say("A new message brings me up")
    desk.wait(lambda: row_order(desk).index(older.conversation_id) < row_order(desk).index(newer.conversation_id), message="older moves up")


def test_a_long_name_without_spaces_is_cut_not_scrolled_sideways(admin_desk, visitors, world):
    """A name with no place to break (an email-like handle, a pasted token) keeps the inbox its own
    width: the name ends in an ellipsis and nothing scrolls sideways, at desktop and phone widths."""
    desk = admin_desk
    name = "Maximilian" + "Oberhuber" * 7
    cli = visitors.new(name, subject="A" * 120)
    cli.wait_for(f"· {world.admin_name} joined")
    row = desk.inbox_row(cli.conversation_id)
    for width, height in ((1440, 900), (390, 844)):
        desk.driver.set_window_size(width, height)
        desk.wait(lambda: desk.js("return window.innerWidth") <= width, message="the resize")
        inbox = desk.find("#inbox")
        assert desk.js("return arguments[0].scrollWidth <= arguments[0].clientWidth + 1", inbox), f"the inbox scrolls sideways at {width}"
        assert desk.js("return document.documentElement.scrollWidth <= window.innerWidth + 1"), f"the page scrolls sideways at {width}"
        shown = row.find_element(By.CSS_SELECTOR, ".inbox-name")
        assert desk.js("return arguments[0].scrollWidth > arguments[0].clientWidth", shown), "the name is cut (ellipsis), not wrapped out"
    desk.driver.set_window_size(1280, 900)



def test_availability_is_kept_across_logout_and_login_and_routing_follows_it(desks, visitors, world):
    """The server keeps each agent's availability (it is the agent's, not the session's): signing in
    again lands in the one chosen last, and routing acts on it at once."""
    desk = desks.new("admin").login(world.admin_email, world.admin_password, online=False)
    desk.set_availability("away")
    desk.click("#logout")
    desk.visible("#login-email")
    desk.login(world.admin_email, world.admin_password, online=False)
    desk.wait(lambda: desk.find("body").get_attribute("data-availability") == "away", message="away again")
    assert desk.find("#availability").get_attribute("value") == "away"
    assert world.admin.get("/v1/agent/me")["availability"] == "away"
    # Away takes nothing new: a visitor waits.
    waiting = visitors.new("Waiting Walter")
    waiting.wait_for("position 1 in the queue")

    desk.set_availability("online")
    waiting.wait_for(f"· {world.admin_name} joined")
    desk.click("#logout")
    desk.visible("#login-email")
    # Signed out, the admin is not connected: the next visitor waits too…
    later = visitors.new("Later Lara")
    later.wait_for("position 1 in the queue")
    # …until the admin is back, online as before, and routing hands it over.
    desk.login(world.admin_email, world.admin_password, online=False)
    desk.wait(lambda: desk.find("body").get_attribute("data-availability") == "online", message="online again")
    later.wait_for(f"· {world.admin_name} joined")
    desk.inbox_row(later.conversation_id)
