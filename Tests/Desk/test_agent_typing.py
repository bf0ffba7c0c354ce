"""Another agent typing in the conversation I am looking at is a warning by the composer (so two
agents do not answer at once); the visitor typing is not, and neither is my own typing."""
from selenium.webdriver.common.keys import Keys


def warning(desk):
    element = desk.find("#agent-typing")
    return element.text if element.is_displayed() else ""


def test_a_second_agent_typing_warns_by_the_composer_until_they_stop(desks, admin_desk, visitors, world):
    admin = admin_desk
    alan = desks.new("alan").login(world.alan_email, world.alan_password)
    cli = visitors.new("Ada", subject="Who answers?")
    cli.wait_for(f"· {world.admin_name} joined")
    admin.open_conversation(cli.conversation_id)
    # Handed to Alan; the admin keeps it on screen.
    world.admin.post(f"/v1/conversations/{cli.conversation_id}/transfer", {"agent_id": world.alan["id"]})
    cli.wait_for("· Alan Turing joined")
    alan.open_conversation(cli.conversation_id)
    alan.wait(lambda: alan.composer().is_enabled(), message="Alan's composer")
    assert warning(admin) == ""

    box = alan.composer()
    box.send_keys("Let me check the billing system")
    admin.wait(lambda: warning(admin).startswith("Alan Turing is typing…"), message="the warning")
    notice = admin.find("#agent-typing")
    assert notice.get_attribute("role") == "status"
    # By the composer: between the transcript and the reply box.
    assert notice.rect["y"] < admin.composer().rect["y"]
    assert notice.rect["y"] >= admin.find("#transcript").rect["y"] + admin.find("#transcript").rect["height"] - 1
    assert admin.find("#typing").text == "", "not the visitor's typing line"
    assert warning(alan) == "", "nobody warns Alan of himself"

    # Alan empties the box: his "stopped typing" clears it.
    box.send_keys(Keys.CONTROL, "a")
    box.send_keys(Keys.DELETE)
    admin.wait(lambda: warning(admin) == "", message="the warning to clear on stop")

    # The visitor typing is the usual line, not a warning.
    visitor = cli.http()
    visitor.post(f"/v1/conversations/{cli.conversation_id}/typing", {"is_typing": True})
    admin.wait(lambda: admin.find("#typing").text == "Ada is typing…", message="the visitor's typing line")
    assert warning(admin) == ""
    visitor.post(f"/v1/conversations/{cli.conversation_id}/typing", {"is_typing": False})
    admin.wait(lambda: admin.find("#typing").text == "", message="the visitor's line to go")

    # Typing again and sending: the message ends the warning.
    box.send_keys("Found it: refunded today.")
    admin.wait(lambda: warning(admin).startswith("Alan Turing is typing…"), message="the warning again")
    box.send_keys(Keys.ENTER)
    admin.wait_for_item("Found it: refunded today.", kind="message")
    admin.wait(lambda: warning(admin) == "", message="the warning to clear with the message")
    assert admin.accessibility_problems() == []
