"""A visitor's new message in any of my conversations that I am not looking at (another one is open,
or the tab is hidden) plays a tone and, once I turned them on, makes a desktop notification; the
open conversation in a visible tab does neither. Permission is asked from the top bar's toggle."""


def oscillators(desk):
    return desk.js("return window.__parleyOscillators")


def toggle_state(desk):
    return desk.find("#notifications-toggle").get_attribute("aria-pressed")


def assigned(desk, cli, world):
    cli.wait_for(f"· {world.admin_name} joined")
    row = desk.inbox_row(cli.conversation_id)
    # The assignment's own beep has played once the row is highlighted.
    desk.wait(lambda: "is-new" in row.get_attribute("class"), message="the assignment cue")


def test_visitor_messages_elsewhere_chime_and_notify_and_the_open_one_does_not(admin_desk, visitors, world):
    desk = admin_desk
    desk.driver.execute_cdp_cmd("Browser.grantPermissions", {"permissions": ["notifications"], "origin": world.base})
    toggle = desk.visible("#notifications-toggle")
    assert toggle_state(desk) == "false", "off until the agent turns them on"
    desk.click("#notifications-toggle")
    desk.wait(lambda: toggle_state(desk) == "true", message="notifications on")

    ada = visitors.new("Ada")
    assigned(desk, ada, world)
    bob = visitors.new("Bob")
    assigned(desk, bob, world)
    desk.open_conversation(ada.conversation_id)

    # Bob writes while Ada's conversation is on screen: a tone and a notification naming him.
    before = oscillators(desk)
    bob.say("Is anyone there?")
    desk.wait(lambda: desk.notifications(), message="a desktop notification")
    assert desk.notifications() == [{"title": "Bob", "body": "Is anyone there?", "tag": bob.conversation_id}]
    assert oscillators(desk) == before + 1, "one tone"

    # Ada writes in the conversation on screen: seen already, so neither.
    before = oscillators(desk)
    ada.say("Hello from the open one")
    desk.wait_for_item("Hello from the open one", kind="message")
    assert oscillators(desk) == before
    assert len(desk.notifications()) == 1

    # The tab hidden (the window minimised): the open conversation notifies too, and so does a new assignment.
    desk.driver.minimize_window()
    desk.wait(lambda: desk.js("return document.visibilityState") == "hidden", message="the tab hidden")
    ada.say("Are you still there?")
    desk.wait(lambda: len(desk.notifications()) == 2, message="a notification while hidden")
    assert desk.notifications()[1] == {"title": "Ada", "body": "Are you still there?", "tag": ada.conversation_id}
    cleo = visitors.new("Cleo", subject="New one")
    cleo.wait_for(f"· {world.admin_name} joined")
    desk.wait(lambda: len(desk.notifications()) == 3, message="the assignment's notification while hidden")
    assert desk.notifications()[2] == {"title": "New conversation assigned to you", "body": "Cleo — New one", "tag": cleo.conversation_id}
    desk.driver.set_window_rect(0, 0, 1280, 900)
    desk.wait(lambda: desk.js("return document.visibilityState") == "visible", message="the tab visible again")

    # Off: still the tone, no notification. The choice survives a reload.
    desk.click("#notifications-toggle")
    desk.wait(lambda: toggle_state(desk) == "false", message="notifications off")
    before = oscillators(desk)
    bob.say("Hello?")
    desk.wait(lambda: oscillators(desk) == before + 1, message="the tone")
    assert len(desk.notifications()) == 3
    desk.click("#notifications-toggle")
    desk.wait(lambda: toggle_state(desk) == "true", message="notifications on again")
    desk.driver.refresh()
    desk.wait_connected()
    desk.wait(lambda: toggle_state(desk) == "true", message="still on after a reload")
    assert desk.accessibility_problems() == []


def test_without_permission_the_toggle_says_so_and_stays_off(admin_desk, world):
    desk = admin_desk
    desk.driver.execute_cdp_cmd("Browser.setPermission", {
        "permission": {"name": "notifications"}, "setting": "denied", "origin": world.base})
    desk.click("#notifications-toggle")
    toast = desk.visible("#toasts .toast.error")
    assert "blocks notifications" in toast.text
    assert toggle_state(desk) == "false"
