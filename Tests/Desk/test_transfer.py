"""Transfers: to another agent (logged in on a second browser) and to a queue."""
from selenium.webdriver.common.by import By


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
    alan_choice = dialog.find_element(By.CSS_SELECTOR, f'input[data-agent-id="{world.alan["id"]}"]')
    assert not alan_choice.is_enabled()
    assert "not connected" in dialog.find_element(By.CSS_SELECTOR, f'label[for="{alan_choice.get_attribute("id")}"]').text
    dialog.find_element(By.CSS_SELECTOR, "[data-close]").click()
    admin.gone("#transfer-dialog")

    alan = desks.new("alan").login(world.alan_email, world.alan_password)
    assert alan.find("#tab-all-item").is_displayed() is False

    dialog = open_transfer_dialog(admin)
    alan_choice = dialog.find_element(By.CSS_SELECTOR, f'input[data-agent-id="{world.alan["id"]}"]')
    admin.wait(lambda: alan_choice.is_enabled(), message="Alan to be a possible target")
    label = dialog.find_element(By.CSS_SELECTOR, f'label[for="{alan_choice.get_attribute("id")}"]').text
    assert "Alan Turing" in label and "Online" in label and "0/3" in label
    alan_choice.click()
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
