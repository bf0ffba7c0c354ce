"""Transfers: to another agent (logged in on a second browser, the dialog's choices following his
connection live), to a queue, and with a handover note the next agent reads (a note the server
refuses moves nothing); the dialog at 1440 and 390, by keyboard, axe."""
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys

from test_accessibility import no_horizontal_scroll
from test_phone_layout import resize

# The dialog follows `team` frames: a teammate's change shows within this.
LIVE = 5


def open_transfer_dialog(desk):
    desk.find("#transfer").click()
    dialog = desk.visible("#transfer-dialog")
    desk.wait(lambda: dialog.find_elements(By.CSS_SELECTOR, 'input[name="target"]'), message="the transfer choices")
    return dialog


def test_transfer_to_another_agent_who_sees_it_and_replies(desks, admin_desk, visitors, world):
    admin = admin_desk
    cli = visitors.new("Ada", subject="Billing question")
    cli.wait_for(f"· {world.admin_name} joined")
    admin.open_conversation(cli.conversation_id)
    cli.say("Can someone from billing help?")
    admin.wait_for_item("Can someone from billing help?", kind="message")

    # Alan is not connected yet: the dialog shows him, but not as a possible target.
    dialog = open_transfer_dialog(admin)
    alan_choice = lambda: dialog.find_element(By.CSS_SELECTOR, f'input[data-agent-id="{world.alan["id"]}"]')
    alan_label = lambda: dialog.find_element(By.CSS_SELECTOR, f'label[for="{alan_choice().get_attribute("id")}"]').text
    assert not alan_choice().is_enabled()
    assert "not connected" in alan_label()
    # The queue chosen meanwhile stays chosen as the choices are drawn again.
    dialog.find_element(By.CSS_SELECTOR, f'input[data-queue-id="{world.billing_queue}"]').click()

    # He signs in and goes online while the dialog stays open: the `team` frames bring it, live.
    alan = desks.new("alan").login(world.alan_email, world.alan_password)
    assert alan.find("#tab-all-item").is_displayed() is False
    admin.wait(lambda: alan_choice().is_enabled(), timeout=LIVE, message="Alan to be a possible target, without reopening")
    admin.wait(lambda: "Online" in alan_label(), timeout=LIVE, message="Alan online in the dialog")
    label = alan_label()
    assert "Alan Turing" in label and "0/3" in label and "not connected" not in label
    assert dialog.find_element(By.CSS_SELECTOR, f'input[data-queue-id="{world.billing_queue}"]').is_selected()
    alan_choice().click()
    admin.find("#transfer-submit").click()
    admin.gone("#transfer-dialog")

    admin.wait_for_item(f"{world.admin_name} transferred the conversation to Alan Turing", kind="notice")
    admin.wait_for_item(f"{world.admin_name} left: transferred", kind="notice")
    admin.wait(lambda: not admin.find_all(f'#inbox-list li[data-conversation-id="{cli.conversation_id}"]'), message="it leaves the admin's Mine")
    admin.wait(lambda: "Assigned to Alan Turing" in admin.find("#conversation-meta").text, message="the header names Alan")
    admin.wait(lambda: not admin.composer().is_enabled(), message="the admin can no longer reply")
    assert not admin.find("#end").is_displayed()
    cli.wait_for("· Alan Turing joined")

    # Alan: a cue, the conversation under Mine with its history, and he can reply.
    row = alan.inbox_row(cli.conversation_id)
    alan.wait(lambda: "is-new" in row.get_attribute("class"), message="Alan's highlight")
    assert "New conversation assigned to you: Ada" in alan.visible("#toasts .toast").text
    alan.wait(lambda: alan.driver.title.startswith("(1) "), message="Alan's title count")
    alan.open_conversation(cli.conversation_id)
    alan.wait_for_item("Can someone from billing help?", kind="message")
    alan.wait_for_item(f"{world.admin_name} transferred the conversation to Alan Turing", kind="notice")
    alan.type_and_send("Alan from billing here, happy to help.")
    cli.wait_for("Alan Turing: Alan from billing here, happy to help.")
    admin.wait_for_item("Alan from billing here, happy to help.", kind="message")
    assert world.admin.get(f"/v1/conversations/{cli.conversation_id}")["agent_id"] == world.alan["id"]


def test_transfer_to_a_queue_routes_it_to_an_agent_of_that_queue(desks, admin_desk, visitors, world):
    admin = admin_desk
    alan = desks.new("alan").login(world.alan_email, world.alan_password)
    cli = visitors.new("Ada", subject="Refund")
    cli.wait_for(f"· {world.admin_name} joined")
    admin.open_conversation(cli.conversation_id)

    dialog = open_transfer_dialog(admin)
    dialog.find_element(By.CSS_SELECTOR, f'input[data-queue-id="{world.billing_queue}"]').click()
    admin.find("#transfer-submit").click()
    admin.gone("#transfer-dialog")
    admin.wait_for_item(f"{world.admin_name} transferred the conversation to the Billing queue", kind="notice")

    # Alan is the only agent of Billing: routing gives it to him.
    alan.inbox_row(cli.conversation_id)
    cli.wait_for("· Alan Turing joined")
    admin.wait_for_item("Alan Turing joined the conversation", kind="notice")


def notes_of(world, conversation_id):
    return world.admin.get(f"/v1/conversations/{conversation_id}/notes")["notes"]


def test_a_handover_note_reaches_the_next_agent_and_a_refused_one_moves_nothing(desks, admin_desk, visitors, world):
    admin = admin_desk
    admin.allow_console(r"/transfer - Failed to load resource: the server responded with a status of 413")
    alan = desks.new("alan").login(world.alan_email, world.alan_password)
    cli = visitors.new("Ada", subject="Refund with a note")
    cli.wait_for(f"· {world.admin_name} joined")
    conversation = cli.conversation_id
    admin.open_conversation(conversation)
    cli.say("I would like my money back")
    admin.wait_for_item("I would like my money back", kind="message")

    dialog = open_transfer_dialog(admin)
    note = admin.find("#transfer-note")
    assert admin.find('label[for="transfer-note"]').text == "Handover note (optional)"
    assert "transfer-note-hint" in note.get_attribute("aria-describedby")
    billing = dialog.find_element(By.CSS_SELECTOR, f'input[data-queue-id="{world.billing_queue}"]')
    billing.click()
    # By keyboard: from the choices to the note, then Cancel and Transfer.
    admin.js("arguments[0].focus()", billing)
    admin.press(Keys.TAB)
    assert admin.active() == note
    admin.press(Keys.TAB)
    assert admin.active().get_attribute("data-close") is not None
    admin.press(Keys.TAB)
    assert admin.active().get_attribute("id") == "transfer-submit"
    for width, height in ((1440, 900), (390, 844)):
        resize(admin, width, height)
        box = admin.find("#transfer-dialog").rect
        assert box["x"] >= 0 and box["x"] + box["width"] <= width, f"the dialog inside the window at {width}"
        assert no_horizontal_scroll(admin), f"no sideways scrolling at {width}"
        assert admin.accessibility_problems() == [], f"axe at {width}"
    resize(admin, 1280, 900)

    # Too long for the server (10,000 characters at most): its 413 is said in the dialog, the field
    # marked and focused, and nothing moves.
    admin.js("arguments[0].value = 'x'.repeat(10001); arguments[0].dispatchEvent(new Event('input', {bubbles: true}))", note)
    admin.find("#transfer-submit").click()
    error = admin.visible("#transfer-error")
    assert error.text.startswith("Not transferred: the handover note was refused (") and "10000" in error.text, error.text
    assert error.get_attribute("role") == "alert"
    assert note.get_attribute("aria-invalid") == "true" and admin.active() == note
    assert admin.find("#transfer-dialog").is_displayed()
    held = world.admin.get(f"/v1/conversations/{conversation}")
    assert held["state"] == "assigned" and held["agent_id"] == world.admin_id
    assert notes_of(world, conversation) == []
    assert not [event for event in world.admin.get(f"/v1/conversations/{conversation}/events")["events"] if event.get("reason") == "transferred"]

    # A note that fits: sent with the transfer; typing clears the mark.
    text = "Wants a refund for order 42; card already checked"
    admin.js("arguments[0].value = ''", note)
    note.send_keys(text)
    assert note.get_attribute("aria-invalid") is None
    admin.find("#transfer-submit").click()
    admin.gone("#transfer-dialog")
    admin.wait(lambda: any(toast.text.startswith("Transferred to the Billing queue with your handover note.") for toast in admin.find_all("#toasts .toast")),
               message="the toast says the note went with it")
    sent = [request for request in admin.fetched("POST", f"/v1/conversations/{conversation}/transfer")][-1]
    assert '"note":"' + text + '"' in sent["body"]
    stored = notes_of(world, conversation)
    assert [(item["text"], item["author"]["id"]) for item in stored] == [(text, world.admin_id)]
    admin.wait_for_item(text, kind="note")

    # Routing gives it to Alan (Billing's only agent): he reads the note beside the transcript.
    alan.inbox_row(conversation)
    alan.open_conversation(conversation)
    item = alan.wait_for_item(text, kind="note")
    assert world.admin_name in item.find_element(By.CSS_SELECTOR, ".author").text
    assert "Internal note" in item.get_attribute("textContent")
    alan.wait_for_item("I would like my money back", kind="message")
    # The visitor never gets it: Alan's reply is the barrier.
    alan.type_and_send("Alan here, I see the refund is approved.")
    cli.wait_for("Alan Turing: Alan here, I see the refund is approved.")
    assert text not in cli.text()
