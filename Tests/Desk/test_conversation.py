"""A conversation from the desk's side, with the real CLI as the visitor: assignment and its cues,
replies, the visitor's messages and typing, internal notes, canned responses, ending."""
import json

from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys


def test_new_assignment_is_announced_by_highlight_toast_beep_and_title(admin_desk, visitors, world):
    desk = admin_desk
    assert desk.driver.title == "Parley desk"
    cli = visitors.new("Grace", subject="Where is my parcel?")
    cli.wait_for(f"· {world.admin_name} joined")

    row = desk.inbox_row(cli.conversation_id)
    desk.wait(lambda: "is-new" in row.get_attribute("class"), message="the new row to be highlighted")
    assert "Grace" in row.text and "Where is my parcel?" in row.text
    toast = desk.visible("#toasts .toast")
    assert "New conversation assigned to you: Grace" in toast.text
    desk.wait(lambda: desk.driver.title == "(1) Parley desk", message="the title count")
    desk.wait(lambda: desk.js("return window.__parleyOscillators") > 0, message="the beep (WebAudio oscillators)")
    desk.wait(lambda: desk.find("#count-mine").text == "1", message="Mine's live count")

    # Opening it clears the highlight and the count.
    desk.open_conversation(cli.conversation_id)
    desk.wait(lambda: "is-new" not in desk.inbox_row(cli.conversation_id).get_attribute("class"), message="highlight cleared")
    desk.wait(lambda: desk.driver.title == "Parley desk", message="title count cleared")
    notice = desk.wait_for_item(f"{world.admin_name} joined the conversation", kind="notice")
    assert notice.is_displayed()


def test_visitor_message_shows_unread_badge_until_the_agent_reads_it(admin_desk, visitors, world):
    desk = admin_desk
    cli = visitors.new("Ada")
    cli.wait_for(f"· {world.admin_name} joined")
    desk.inbox_row(cli.conversation_id)
    cli.say("Hello, my order is late")

    desk.wait(lambda: desk.unread_badge(cli.conversation_id) == "1", message="an unread badge of 1")
    assert "Hello, my order is late" in desk.inbox_row(cli.conversation_id).text
    desk.wait(lambda: desk.driver.title == "(1) Parley desk", message="the title counts the unread conversation")

    desk.open_conversation(cli.conversation_id)
    message = desk.wait_for_item("Hello, my order is late", kind="message")
    assert message.get_attribute("data-role") == "visitor"
    desk.wait(lambda: desk.unread_badge(cli.conversation_id) is None, message="the badge to clear")
    # Reading stored a read marker by the agent, up to the visitor's message.
    events = world.admin.get(f"/v1/conversations/{cli.conversation_id}/events")["events"]
    message_seq = next(e["seq"] for e in events if e["type"] == "message")
    assert any(e["type"] == "read" and e["author"]["role"] == "agent" and e["read_seq"] >= message_seq for e in events)
    desk.wait(lambda: desk.driver.title == "Parley desk", message="the title count to clear")


def test_reply_reaches_the_visitor_and_visitor_messages_and_typing_reach_the_desk(chat, world):
    desk, cli = chat
    desk.type_and_send("Hi Ada, I am looking into it.")
    cli.wait_for(f"{world.admin_name}: Hi Ada, I am looking into it.")
    sent = desk.wait_for_item("Hi Ada, I am looking into it.", kind="message")
    assert sent.get_attribute("data-role") == "agent"

    # Shift+Enter is a new line inside the same message; Enter sends.
    box = desk.composer()
    box.send_keys("First line")
    box.send_keys(Keys.SHIFT, Keys.ENTER)
    box.send_keys("Second line")
    assert box.get_attribute("value") == "First line\nSecond line"
    box.send_keys(Keys.ENTER)
    cli.wait_for(f"{world.admin_name}: First line")
    cli.wait_for("Second line")
    two_lines = desk.wait_for_item("Second line", kind="message")
    assert two_lines.find_element(By.CSS_SELECTOR, ".item-text").text == "First line\nSecond line"
    assert box.get_attribute("value") == ""

    cli.say("Thanks! It was order 42.")
    received = desk.wait_for_item("Thanks! It was order 42.", kind="message")
    assert received.get_attribute("data-role") == "visitor"
    assert "Ada Lovelace" in received.text

    visitor = cli.http()
    visitor.post(f"/v1/conversations/{cli.conversation_id}/typing", {"is_typing": True})
    desk.wait(lambda: desk.find("#typing").text == "Ada Lovelace is typing…", message="the typing notice")
    visitor.post(f"/v1/conversations/{cli.conversation_id}/typing", {"is_typing": False})
    desk.wait(lambda: desk.find("#typing").text == "", message="the typing notice to go")

    # The agent typing reaches the visitor too (the CLI prints it).
    mark = cli.mark()
    desk.composer().send_keys("typing…")
    cli.wait_for(f"· {world.admin_name} is typing…", start=mark)


def test_internal_note_is_shown_to_agents_and_never_reaches_the_visitor(chat, world):
    desk, cli = chat
    secret = "Internal: customer is a VIP, refund approved by Bob"
    desk.set_mode("note")
    assert desk.find("#composer").get_attribute("class").count("is-note") == 1
    desk.type_and_send(secret)
    note = desk.wait_for_item(secret, kind="note")
    assert note.find_element(By.CSS_SELECTOR, ".note-label").get_attribute("textContent") == "Internal note"
    # Amber, not a message bubble.
    assert note.value_of_css_property("background-color") == "rgba(255, 244, 214, 1)"
    stored = world.admin.get(f"/v1/conversations/{cli.conversation_id}/notes")["notes"]
    assert [n["text"] for n in stored] == [secret]

    # A reply after the note: once the visitor has it, anything sent before would have arrived too.
    desk.set_mode("reply")
    desk.type_and_send("A reply after the note")
    cli.wait_for(f"{world.admin_name}: A reply after the note")
    assert secret not in cli.text()
    assert "VIP" not in cli.text()

    visitor = cli.http()
    history = visitor.get(f"/v1/conversations/{cli.conversation_id}/events?after=0&limit=500")
    assert secret not in json.dumps(history)
    assert visitor.status_of("GET", f"/v1/conversations/{cli.conversation_id}/notes") == 404

    # Reloading the desk shows the note again (stored on the server, not just in the page).
    desk.driver.refresh()
    desk.wait_connected()
    desk.wait(lambda: desk.find("#transcript").get_attribute("aria-busy") == "false", message="the transcript after reload")
    desk.wait_for_item(secret, kind="note")


def test_canned_response_is_inserted_with_slash_and_sent(chat, world):
    desk, cli = chat
    box = desk.composer()
    box.send_keys("/ref")
    listbox = desk.visible("#canned-list")
    option = listbox.find_element(By.CSS_SELECTOR, '[role="option"][data-shortcut="refund"]')
    assert option.get_attribute("aria-selected") == "true"
    assert "Refund policy" in option.text
    assert box.get_attribute("aria-activedescendant") == option.get_attribute("id")
    assert "canned response" in desk.find("#canned-status").get_attribute("textContent")

    box.send_keys(Keys.ENTER)  # inserts, does not send
    desk.gone("#canned-list")
    assert box.get_attribute("value") == world.canned["text"]
    box.send_keys(Keys.ENTER)
    cli.wait_for(f"{world.admin_name}: {world.canned['text']}")
    desk.wait_for_item(world.canned["text"], kind="message")

    # Esc closes the list and keeps what was typed.
    box.send_keys("/re")
    desk.visible("#canned-list")
    box.send_keys(Keys.ESCAPE)
    desk.gone("#canned-list")
    assert box.get_attribute("value") == "/re"


def test_agent_ends_the_conversation_and_both_sides_see_it(chat, world):
    desk, cli = chat
    desk.find("#end").click()
    dialog = desk.visible("#confirm-dialog")
    assert "End this conversation?" in dialog.text
    desk.find("#confirm-ok").click()
    cli.wait_for("· the conversation ended")
    desk.wait_for_item(f"{world.admin_name} ended the conversation", kind="notice")
    desk.wait(lambda: desk.find("#conversation-meta .state").text == "Ended", message="the Ended state")
    desk.wait(lambda: not desk.composer().is_enabled(), message="the reply box to be disabled")
    assert "has ended" in desk.find("#composer-hint").text
    desk.wait(lambda: not desk.find_all(f'#inbox-list li[data-conversation-id="{cli.conversation_id}"]'), message="it leaves Mine")
    assert world.admin.get(f"/v1/conversations/{cli.conversation_id}")["state"] == "ended"


def test_visitor_ending_shows_in_the_desk(chat, world):
    desk, cli = chat
    cli.say("/end")
    cli.wait_for("· you ended the conversation")
    desk.wait_for_item("Ada Lovelace ended the conversation", kind="notice")
    desk.wait(lambda: desk.find("#conversation-meta .state").text == "Ended", message="the Ended state")
    assert not desk.find("#end").is_displayed()


def test_a_reply_the_server_refuses_stays_visible_with_the_reason(chat, world):
    desk, cli = chat
    too_long = "x" * 10001
    box = desk.composer()
    # Set the text directly (typing 10,001 keys would only slow the test), then send with Enter.
    desk.js("arguments[0].value = arguments[1]; arguments[0].dispatchEvent(new Event('input'))", box, too_long)
    box.send_keys(Keys.ENTER)
    failed = desk.wait(lambda: desk.find_all('#transcript [data-kind="pending"].is-failed'), message="the failed reply")[0]
    assert "Not sent: too long (10,000 characters at most)." in failed.text
    assert failed.find_element(By.CSS_SELECTOR, "button").text == "Retry"
    desk.allow_console(r"Failed to load resource: the server responded with a status of 413")
    # Nothing reached the visitor: a later reply arrives, the long one never did.
    desk.type_and_send("After the refused one")
    cli.wait_for(f"{world.admin_name}: After the refused one")
    assert too_long not in cli.text()
