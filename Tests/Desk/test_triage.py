"""Triage: the admins' tag list (names, colours, order; the server's 400 shown and the field marked),
tags and a priority put on a conversation from its header (chips with the tag's colour, a badge in
the lists, any view filtered by them), and snoozing an assigned conversation: out of Mine into
Snoozed, back by itself when its time comes (the desk's next_wake timer) or when the visitor writes."""
import datetime

from selenium.webdriver.common.by import By

from test_admin import go
from test_views import row_ids, show, wait_counts, wait_rows

TAGS = [{"name": "vip", "color": "#b3261e"}, {"name": "billing", "color": "#1e6bb3"}]


def rgb(hex_color):
    """'#b3261e' as selenium reports a computed colour: 'rgba(179, 38, 30, 1)'."""
    value = hex_color.lstrip("#")
    return "rgba({}, {}, {}, 1)".format(*(int(value[i:i + 2], 16) for i in (0, 2, 4)))


def set_tags(world, tags):
    world.admin.put(f"/v1/admin/apps/{world.app_id}/tags", {"tags": tags})


def tag_rows(desk):
    return [(row.find_element(By.CSS_SELECTOR, ".tag-name-input").get_attribute("value"), row.find_element(By.CSS_SELECTOR, ".tag-color-input").get_attribute("value"))
            for row in desk.find_all("#tags-list > li")]


def set_value(desk, element, value):
    """Sets an input's value as typing or the colour picker would (input and change events)."""
    desk.js("arguments[0].value = arguments[1]; arguments[0].dispatchEvent(new Event('input', {bubbles: true})); "
            "arguments[0].dispatchEvent(new Event('change', {bubbles: true}))", element, value)


def chips(desk):
    return [chip.get_attribute("data-tag") for chip in desk.find_all("#triage-tags .tag-chip")]


def server_triage(world, conversation_id):
    return world.admin.get(f"/v1/conversations/{conversation_id}/triage")


def test_admin_edits_the_tag_list_and_sees_the_servers_refusal(admin_desk, world):
    desk = admin_desk
    desk.allow_console(r"/tags - Failed to load resource: the server responded with a status of 400")
    original = world.admin.get(f"/v1/admin/apps/{world.app_id}/tags")["tags"]
    set_tags(world, [])
    try:
        go(desk, "tags")
        desk.visible("#tags-empty")
        for name, color in (("vip", "#b3261e"), ("billing", "#1e6bb3")):
            desk.click("#tags-add")
            row = desk.find_all("#tags-list > li")[-1]
            field = row.find_element(By.CSS_SELECTOR, ".tag-name-input")
            assert desk.active() == field, "a new row takes the keyboard"
            field.send_keys(name)
            set_value(desk, row.find_element(By.CSS_SELECTOR, ".tag-color-input"), color)
            # The preview chip shows the colour.
            desk.wait(lambda: row.find_element(By.CSS_SELECTOR, ".tag-preview .tag-dot").value_of_css_property("background-color") == rgb(color), message="the preview")
        desk.click("#tags-save")
        desk.wait(lambda: world.admin.get(f"/v1/admin/apps/{world.app_id}/tags")["tags"] == TAGS, message="the list saved")
        desk.wait(lambda: tag_rows(desk) == [("vip", "#b3261e"), ("billing", "#1e6bb3")], message="the page redrawn from the server")

        # Reorder with the keyboard's buttons: billing up. The pressed button keeps the keyboard.
        up = desk.find('#tags-list > li:nth-child(2) [data-move="up"]')
        assert up.get_attribute("aria-label") == "Move up billing"
        up.click()
        assert tag_rows(desk) == [("billing", "#1e6bb3"), ("vip", "#b3261e")]
        assert desk.active().get_attribute("data-move") == "down", "at the top, focus moves to the row's other move button"
        desk.click("#tags-save")
        desk.wait(lambda: [tag["name"] for tag in world.admin.get(f"/v1/admin/apps/{world.app_id}/tags")["tags"]] == ["billing", "vip"], message="the new order saved")

        # A duplicate name: the server's 400 names the third entry; shown, marked, nothing changed.
        desk.wait(lambda: len(tag_rows(desk)) == 2, message="the redrawn page")
        desk.click("#tags-add")
        desk.active().send_keys("VIP")
        desk.click("#tags-save")
        error = desk.visible("#tags-error")
        assert error.text == "Not saved: tags[2].name: VIP is listed twice", error.text
        third = desk.find("#tags-list > li:nth-child(3) .tag-name-input")
        assert third.get_attribute("aria-invalid") == "true" and desk.active() == third
        assert [tag["name"] for tag in world.admin.get(f"/v1/admin/apps/{world.app_id}/tags")["tags"]] == ["billing", "vip"]
        # Remove it (and billing): saved.
        desk.find('#tags-list > li:nth-child(3) button[data-label="Remove"]').click()
        desk.find('#tags-list > li:nth-child(1) button[data-label="Remove"]').click()
        desk.click("#tags-save")
        desk.wait(lambda: world.admin.get(f"/v1/admin/apps/{world.app_id}/tags")["tags"] == [{"name": "vip", "color": "#b3261e"}], message="billing removed")
        desk.gone("#tags-error")
    finally:
        set_tags(world, original)


def test_agent_tags_and_prioritises_a_conversation_and_filters_views(chat, world):
    desk, cli = chat
    conversation = cli.conversation_id
    desk.allow_console(r"/triage - Failed to load resource: the server responded with a status of 400")
    set_tags(world, TAGS)
    try:
        # Tags the desk loaded before the list changed: read again (as after a reconnect or reload).
        desk.driver.refresh()
        desk.wait_connected()
        desk.wait(lambda: desk.find("#conversation").get_attribute("data-conversation-id") == conversation and desk.find("#triage-bar").is_displayed(), message="the triage bar")
        assert chips(desk) == []
        desk.find("#tag-menu summary").click()
        desk.click('#tag-menu [data-add-tag="vip"]')
        desk.wait(lambda: chips(desk) == ["vip"], message="the vip chip")
        assert desk.find('#triage-tags .tag-chip[data-tag="vip"] .tag-dot').value_of_css_property("background-color") == rgb("#b3261e")
        assert not desk.find_all('#tag-menu [data-add-tag="vip"]'), "a tag it has is not offered again"
        desk.find("#tag-menu summary").click()
        desk.click('#tag-menu [data-add-tag="billing"]')
        desk.wait(lambda: server_triage(world, conversation)["tags"] == ["billing", "vip"], message="both tags stored")
        desk.wait(lambda: sorted(chips(desk)) == ["billing", "vip"], message="two chips")
        # Removing by the chip's ×: its name is in the button's.
        remove = desk.find('#triage-tags .tag-chip[data-tag="vip"] .tag-remove')
        assert remove.get_attribute("aria-label") == "Remove tag vip"
        remove.click()
        desk.wait(lambda: server_triage(world, conversation)["tags"] == ["billing"], message="vip removed")
        desk.wait(lambda: chips(desk) == ["billing"], message="one chip")

        desk.find("#triage-priority").find_element(By.CSS_SELECTOR, 'option[value="high"]').click()
        desk.wait(lambda: server_triage(world, conversation)["priority"] == "high", message="high priority stored")
        row = desk.inbox_row(conversation)
        desk.wait(lambda: row.find_elements(By.CSS_SELECTOR, '.priority[data-priority="high"]'), message="the High badge in Mine")
        assert row.find_element(By.CSS_SELECTOR, ".priority").text.upper() == "HIGH"
        assert [chip.get_attribute("data-tag") for chip in row.find_elements(By.CSS_SELECTOR, ".tag-chip")] == ["billing"]

        # Filters: by tag and priority, in the address, on Mine (and any view).
        desk.js("location.hash = '#/inbox/mine'")
        desk.inbox_row(conversation)
        desk.find("#filter-tag").find_element(By.CSS_SELECTOR, 'option[value="billing"]').click()
        desk.wait(lambda: desk.driver.current_url.endswith("#/inbox/mine?tag=billing"), message="the filter in the address")
        wait_rows(desk, lambda ids: ids == [conversation], "only the tagged one")
        assert any("tag=billing" in request["url"] for request in desk.fetched("GET", "view=mine")), "the server filters"
        desk.find("#filter-tag").find_element(By.CSS_SELECTOR, 'option[value="vip"]').click()
        desk.wait(lambda: desk.find("#inbox-empty").is_displayed() and desk.find("#inbox-empty").text == "No conversations here match the filter.", message="nothing tagged vip")
        assert row_ids(desk) == []
        desk.find("#filter-tag").find_element(By.CSS_SELECTOR, 'option[value=""]').click()
        desk.find("#filter-priority").find_element(By.CSS_SELECTOR, 'option[value="high"]').click()
        desk.wait(lambda: desk.driver.current_url.endswith("#/inbox/mine?priority=high"), message="the priority filter")
        wait_rows(desk, lambda ids: conversation in ids, "the high one")
        # Another view keeps its own filter in its address.
        desk.js("location.hash = '#/inbox/all?tag=billing'")
        wait_rows(desk, lambda ids: conversation in ids, "All filtered by billing")
        assert desk.find("#filter-tag").get_attribute("value") == "billing"

        # A tag the admins removed meanwhile (its `tags` frame still on the way): the server's refusal
        # is shown under the bar; the frame then takes it off the menu.
        desk.js("location.hash = arguments[0]", f"#/c/{conversation}")
        desk.visible("#triage-bar")
        desk.hold_frames()
        set_tags(world, [TAGS[1]])
        desk.find("#tag-menu summary").click()
        desk.click('#tag-menu [data-add-tag="vip"]')
        error = desk.visible("#triage-error")
        assert error.text == "Not changed: tags: vip is not one of the app's tags", error.text
        assert server_triage(world, conversation)["tags"] == ["billing"]
        desk.release_frames()
        desk.wait(lambda: offered(desk) == [], timeout=5, message="vip off the menu (billing is on the conversation)")
    finally:
        set_tags(world, [])


def offered(desk):
    """The tags the open conversation's menu offers, in order."""
    return [item.get_attribute("data-add-tag") for item in desk.find_all("#tag-menu [data-add-tag]")]


def filter_tags(desk):
    return [option.get_attribute("value") for option in desk.find_all("#filter-tag option") if option.get_attribute("value")]


def test_a_changed_tag_list_reaches_an_open_desk_without_a_reload(chat, world):
    desk, cli = chat
    conversation = cli.conversation_id
    set_tags(world, TAGS)
    try:
        # The desk was open before the list was set: the `tags` frame brings it.
        desk.wait(lambda: offered(desk) == ["vip", "billing"], timeout=5, message="the new list in the tag menu")
        desk.find("#tag-menu summary").click()
        desk.click('#tag-menu [data-add-tag="vip"]')
        desk.wait(lambda: chips(desk) == ["vip"], message="the vip chip")
        dot = lambda: desk.find('#triage-tags .tag-chip[data-tag="vip"] .tag-dot').value_of_css_property("background-color")
        assert dot() == rgb("#b3261e")
        desk.js("window.__sameDocument = true")
        tag_reads = len(desk.fetched("GET", "/v1/tags"))

        # An admin elsewhere: vip in another colour, billing gone, refund new.
        set_tags(world, [{"name": "refund", "color": "#6b4bd6"}, {"name": "vip", "color": "#2f7d32"}])
        desk.wait(lambda: offered(desk) == ["refund"], timeout=5, message="refund offered, billing not")
        desk.wait(lambda: dot() == rgb("#2f7d32"), timeout=5, message="the chip in vip's new colour")
        row_dot = desk.inbox_row(conversation).find_element(By.CSS_SELECTOR, '.tag-chip[data-tag="vip"] .tag-dot')
        desk.wait(lambda: row_dot.value_of_css_property("background-color") == rgb("#2f7d32"), timeout=5, message="the list's chip too")
        desk.wait(lambda: filter_tags(desk) == ["refund", "vip"], timeout=5, message="the filter's choices")
        # And it can be added at once.
        desk.find("#tag-menu summary").click()
        desk.click('#tag-menu [data-add-tag="refund"]')
        desk.wait(lambda: sorted(server_triage(world, conversation)["tags"]) == ["refund", "vip"], message="refund stored")
        desk.wait(lambda: sorted(chips(desk)) == ["refund", "vip"], message="two chips")
        assert desk.find('#triage-tags .tag-chip[data-tag="refund"] .tag-dot').value_of_css_property("background-color") == rgb("#6b4bd6")

        assert desk.js("return window.__sameDocument === true"), "no reload"
        assert len(desk.fetched("GET", "/v1/tags")) == tag_reads, "not read again: the frame carried the list"
    finally:
        set_tags(world, [])


def in_browser_time(desk, script):
    """An ISO instant computed in the browser (its time zone is the agent's)."""
    return desk.js(script)


def test_snooze_leaves_mine_and_comes_back_on_time_or_when_the_visitor_writes(chat, world):
    desk, cli = chat
    conversation = cli.conversation_id
    desk.allow_console(r"/triage - Failed to load resource: the server responded with a status of 400")
    row_in_mine = lambda: desk.find_all(f'#inbox-list li[data-conversation-id="{conversation}"]')
    base = wait_counts(desk, world.admin, "at the start")

    # For an hour: out of Mine, into Snoozed, the header says until when.
    desk.find("#snooze-menu summary").click()
    desk.click('#snooze-menu [data-snooze="hour"]')
    desk.wait(lambda: not row_in_mine(), message="out of Mine")
    until = server_triage(world, conversation)["snoozed_until"]
    ahead = datetime.datetime.fromisoformat(until.replace("Z", "+00:00")) - datetime.datetime.now(datetime.timezone.utc)
    assert datetime.timedelta(minutes=59) < ahead <= datetime.timedelta(hours=1)
    desk.wait(lambda: desk.find("#snooze-status").text.startswith("Snoozed until"), message="the header's snooze")
    now = wait_counts(desk, world.admin, "after snoozing")
    assert (now["mine"], now["snoozed"]) == (base["mine"] - 1, base["snoozed"] + 1)
    show(desk, "tab-snoozed")
    wait_rows(desk, lambda ids: ids == [conversation], "in Snoozed")

    # Unsnooze: back at once.
    desk.open_conversation(conversation)
    desk.find("#snooze-menu summary").click()
    desk.click("#snooze-off")
    desk.wait(lambda: "snoozed_until" not in server_triage(world, conversation), message="the snooze ended")
    desk.gone("#snooze-status")
    show(desk, "tab-mine")
    wait_rows(desk, lambda ids: conversation in ids, "back in Mine")

    # A date and time in the past: the server's 400, in the dialog.
    desk.open_conversation(conversation)
    desk.find("#snooze-menu summary").click()
    desk.click('#snooze-menu [data-snooze="custom"]')
    field = desk.visible("#form-dialog input[name='until']")
    assert field.get_attribute("type") == "datetime-local"
    past = in_browser_time(desk, "const d = new Date(Date.now() - 60000); const p = (v) => String(v).padStart(2, '0'); "
                                 "return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())}T${p(d.getHours())}:${p(d.getMinutes())}:${p(d.getSeconds())}`")
    set_value(desk, field, past)
    desk.find("#form-dialog-submit").click()
    error = desk.visible("#form-dialog-error")
    assert error.text == "snoozed_until: must be in the future", error.text
    # A few seconds ahead: out of Mine now, and back by itself when the time comes (no frame tells
    # the desk: its timer at the counts' next_wake reads the lists again).
    soon = in_browser_time(desk, "const d = new Date(Date.now() + 4000); const p = (v) => String(v).padStart(2, '0'); "
                                 "return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())}T${p(d.getHours())}:${p(d.getMinutes())}:${p(d.getSeconds())}`")
    set_value(desk, field, soon)
    desk.find("#form-dialog-submit").click()
    desk.gone("#form-dialog")
    desk.wait(lambda: not row_in_mine(), message="snoozed: out of Mine")
    assert desk.find("#snooze-status").is_displayed()
    desk.wait(lambda: row_in_mine(), timeout=20, message="back in Mine when the snooze ends")
    desk.gone("#snooze-status")
    wait_counts(desk, world.admin, "after the snooze ended")

    # Until tomorrow 9:00 (the agent's time); the visitor writing brings it back.
    desk.find("#snooze-menu summary").click()
    desk.click('#snooze-menu [data-snooze="tomorrow"]')
    desk.wait(lambda: not row_in_mine(), message="out of Mine till tomorrow")
    expected = in_browser_time(desk, "const d = new Date(); d.setDate(d.getDate() + 1); d.setHours(9, 0, 0, 0); return d.toISOString()")
    assert server_triage(world, conversation)["snoozed_until"] == expected
    cli.say("Sorry, one more thing!")
    desk.wait(lambda: row_in_mine(), message="back in Mine when the visitor writes")
    desk.wait_for_item("Sorry, one more thing!", kind="message")
    desk.gone("#snooze-status")
