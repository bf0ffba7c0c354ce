"""Unread counts come from the server's read markers (`read` events), so they survive a reload, and
they are mine: a conversation handed to me counts what I have not read, whoever read it before."""


def reload_on_inbox(desk):
    """Reloads with the inbox on screen (an open conversation would be read again on the way)."""
    desk.js("location.hash = '#/inbox/mine'")
    desk.wait(lambda: desk.find("#conversation").get_attribute("hidden") is not None, message="back to the inbox")
    desk.driver.refresh()
    desk.wait_connected()


def wait_preview(desk, cli, text):
    """The row shows the conversation's newest message: its history is loaded, so its count is final."""
    desk.wait(lambda: text in desk.inbox_row(cli.conversation_id).text, message=f"{text!r} in the row")


def test_unread_counts_survive_a_reload_and_a_read_conversation_stays_read(admin_desk, visitors, world):
    desk = admin_desk
    unread = visitors.new("Unread Una")
    unread.wait_for(f"· {world.admin_name} joined")
    read = visitors.new("Read Rita")
    read.wait_for(f"· {world.admin_name} joined")
    unread.say("First question")
    unread.say("Second question")
    read.say("Only question")
    desk.wait(lambda: desk.unread_badge(unread.conversation_id) == "2", message="2 unread")
    desk.wait(lambda: desk.unread_badge(read.conversation_id) == "1", message="1 unread")
    desk.open_conversation(read.conversation_id)
    desk.wait(lambda: desk.unread_badge(read.conversation_id) is None, message="read")

    reload_on_inbox(desk)
    wait_preview(desk, unread, "Second question")
    wait_preview(desk, read, "Only question")
    assert desk.unread_badge(unread.conversation_id) == "2"
    assert desk.unread_badge(read.conversation_id) is None
    desk.wait(lambda: desk.driver.title == "(1) Parley desk", message="the title counts the unread one")


def test_a_conversation_handed_to_me_counts_what_i_have_not_read(desks, admin_desk, visitors, world):
    admin = admin_desk
    alan = desks.new("alan").login(world.alan_email, world.alan_password)
    cli = visitors.new("Ada", subject="Passed on")
    cli.wait_for(f"· {world.admin_name} joined")
    cli.say("My invoice is wrong")
    cli.say("It says 3 items")
    admin.open_conversation(cli.conversation_id)
    admin.wait_for_item("It says 3 items", kind="message")
    admin.wait(lambda: any(e["type"] == "read" and e["author"]["id"] == world.admin_id
                           for e in world.admin.get(f"/v1/conversations/{cli.conversation_id}/events")["events"]), message="the admin's read marker")

    world.admin.post(f"/v1/conversations/{cli.conversation_id}/transfer", {"agent_id": world.alan["id"]})
    cli.wait_for("· Alan Turing joined")
    # The admin read both; Alan has not.
    alan.wait(lambda: alan.unread_badge(cli.conversation_id) == "2", message="Alan's 2 unread")
    reload_on_inbox(alan)
    wait_preview(alan, cli, "It says 3 items")
    assert alan.unread_badge(cli.conversation_id) == "2", "still unread after a reload"

    alan.open_conversation(cli.conversation_id)
    alan.wait(lambda: alan.unread_badge(cli.conversation_id) is None, message="read by Alan")
    alan.wait(lambda: any(e["type"] == "read" and e["author"]["id"] == world.alan["id"]
                          for e in world.admin.get(f"/v1/conversations/{cli.conversation_id}/events")["events"]), message="Alan's read marker")
    reload_on_inbox(alan)
    wait_preview(alan, cli, "It says 3 items")
    assert alan.unread_badge(cli.conversation_id) is None
