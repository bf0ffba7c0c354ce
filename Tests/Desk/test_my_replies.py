"""My replies: any agent keeps canned responses of their own (POST, PATCH, DELETE /v1/canned-responses)
on a page of the top bar, and the "/" list offers them first, marked Mine in words, then the team's;
their placeholders are filled as the team's are. A shortcut already in one's own set is the server's
409, said by the field; a colleague (an admin too) never sees them, and the admins' team page stays
the team's. The page fits 1440 and 390 without sideways scrolling, axe finds nothing, and the
keyboard reaches everything."""
import uuid

from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys

from conftest import CANNED
from harness.conversations import HTTPVisitor
from harness.http import API
from test_accessibility import UNLABELLED, no_horizontal_scroll
from test_admin import confirm, go
from test_phone_layout import INNER_SCROLLERS, resize

MINE = {"shortcut": CANNED["shortcut"], "title": "My refund answer", "text": "Hello {{visitor.name}}, I will make sure it is sorted today."}


def login_api(world, email, password):
    return API(world.base, API(world.base).post("/v1/agent/login", {"email": email, "password": password})["token"])


def own_replies(api):
    return [item for item in api.get("/v1/canned-responses")["canned_responses"] if item.get("owner_id")]


def remove_own(api):
    for item in own_replies(api):
        api.request("DELETE", f"/v1/canned-responses/{item['id']}", expect=204)


def open_page(desk):
    desk.click("#replies-link")
    desk.visible("#replies")
    desk.wait(lambda: desk.find("#replies-link").get_attribute("aria-current") == "page", message="the link marked current")


def rows(desk):
    return [(row.find_element(By.CSS_SELECTOR, "td").text, row.find_elements(By.CSS_SELECTOR, "td")[1].text)
            for row in desk.find_all("#replies-list tr[data-canned-id]")]


def fill(desk, shortcut, title, text):
    """Types into the form as a person does, from the shortcut field on, by the keyboard."""
    for css, value in (("#replies-shortcut", shortcut), ("#replies-title", title), ("#replies-text", text)):
        field = desk.find(css)
        field.send_keys(Keys.CONTROL, "a")
        field.send_keys(Keys.DELETE)
        field.send_keys(value)


def submit_by_keyboard(desk):
    """From the text field: Tab to the Save button, Enter."""
    desk.find("#replies-text").click()
    desk.press(Keys.TAB)
    assert desk.active().get_attribute("id") == "replies-save"
    desk.press(Keys.ENTER)


def picker(desk, query):
    """Types `/query` into the emptied composer; returns the options as (owner, shortcut, text of the option)."""
    box = desk.composer()
    desk.wait(lambda: box.is_enabled(), message="the composer")
    box.send_keys(Keys.CONTROL, "a")
    box.send_keys(Keys.DELETE)
    box.send_keys(f"/{query}")
    desk.visible("#canned-list")
    return [(option.get_attribute("data-owner"), option.get_attribute("data-shortcut"), option.text)
            for option in desk.find_all("#canned-list [role=option]")]


def close_picker(desk):
    desk.press(Keys.ESCAPE)
    desk.gone("#canned-list")
    box = desk.composer()
    box.send_keys(Keys.CONTROL, "a")
    box.send_keys(Keys.DELETE)


def test_an_agent_adds_uses_edits_and_deletes_replies_of_their_own_that_nobody_else_sees(desks, admin_desk, world):
    alan_api = login_api(world, world.alan_email, world.alan_password)
    remove_own(alan_api)
    alan = desks.new("alan").login(world.alan_email, world.alan_password)
    alan.allow_console(r"/v1/canned-responses - Failed to load resource: the server responded with a status of 409")
    visitor = HTTPVisitor(world, "Grace Lovelace")
    conversation = None
    try:
        # A plain agent reaches the page from the top bar; its title takes the keyboard.
        open_page(alan)
        assert alan.active().get_attribute("id") == "replies-heading"
        assert alan.find("#replies-empty").text == "No replies of your own yet. Add one above."

        # Add one with a team reply's shortcut (allowed: another set), by the keyboard.
        alan.find("#replies-shortcut").click()
        fill(alan, MINE["shortcut"], MINE["title"], MINE["text"])
        submit_by_keyboard(alan)
        alan.wait(lambda: rows(alan) == [(f"/{MINE['shortcut']}", MINE["title"])], message="the new row")
        mine = own_replies(alan_api)
        assert [(item["shortcut"], item["title"], item["text"], item["owner_id"]) for item in mine] == [
            (MINE["shortcut"], MINE["title"], MINE["text"], world.alan["id"])]
        assert alan.active().get_attribute("id") == "replies-shortcut", "ready for the next one"
        assert alan.find("#replies-shortcut").get_attribute("value") == ""

        # The same shortcut again: the server's 409, said by the shortcut field, marked and focused; nothing added.
        fill(alan, MINE["shortcut"], "Another refund answer", "Something else")
        submit_by_keyboard(alan)
        error = alan.visible("#replies-shortcut-error")
        assert error.text == f"Not saved: you already have a reply /{MINE['shortcut']}. Choose another shortcut, or edit that one."
        shortcut = alan.find("#replies-shortcut")
        assert shortcut.get_attribute("aria-invalid") == "true" and alan.active() == shortcut
        assert "replies-shortcut-error" in shortcut.get_attribute("aria-describedby")
        assert len(own_replies(alan_api)) == 1 and len(rows(alan)) == 1
        # A shortcut the server would refuse is said before sending.
        posts = len(alan.fetched("POST", "/v1/canned-responses"))
        fill(alan, "Not Valid", "Bad", "Bad")
        submit_by_keyboard(alan)
        alan.wait(lambda: "a–z" in alan.find("#replies-shortcut-error").text, message="the page's own check")
        assert len(alan.fetched("POST", "/v1/canned-responses")) == posts
        fill(alan, "", "", "")
        alan.wait(lambda: alan.find("#replies-shortcut").get_attribute("aria-invalid") is None, message="typing clears the mark")

        # In a conversation: "/" lists his own first, marked Mine in words, then the team's; the
        # placeholders are filled from the visitor.
        conversation = visitor.open(subject="Refund please", queue_id=world.billing_queue)
        alan.tab("mine")
        alan.inbox_row(conversation)
        alan.open_conversation(conversation)
        alan.wait(lambda: "Grace Lovelace" in alan.find("#visitor-details").text, message="the visitor panel")
        options = picker(alan, "ref")
        assert [(owner, shortcut) for owner, shortcut, _ in options] == [("me", MINE["shortcut"]), ("team", CANNED["shortcut"])]
        assert "Mine" in options[0][2] and "Mine" not in options[1][2]
        status = alan.find("#canned-status").get_attribute("textContent")
        assert status.startswith("2 canned responses (1 of your own first)"), status
        alan.press(Keys.ENTER)
        alan.gone("#canned-list")
        filled = "Hello Grace Lovelace, I will make sure it is sorted today."
        assert alan.composer().get_attribute("value") == filled
        alan.press(Keys.ENTER)
        alan.wait_for_item(filled, kind="message")
        assert any(event.get("text") == filled for event in visitor.api.get(f"/v1/conversations/{conversation}/events")["events"])

        # A colleague, an admin included, never sees it: not in their list, their "/" list, nor the team page.
        admin = admin_desk
        assert all(item["title"] != MINE["title"] for item in world.admin.get("/v1/canned-responses")["canned_responses"])
        assert all(item["title"] != MINE["title"] for item in world.admin.get(f"/v1/admin/apps/{world.app_id}/canned-responses")["canned_responses"])
        admin.js("location.hash = arguments[0]", f"#/c/{conversation}")
        admin.wait(lambda: admin.find("#conversation").get_attribute("data-conversation-id") == conversation, message="Alan's conversation in the admin's desk")
        admin.set_mode("note")
        assert [(owner, shortcut) for owner, shortcut, _ in picker(admin, "ref")] == [("team", CANNED["shortcut"])]
        close_picker(admin)
        go(admin, "canned")
        admin.wait(lambda: admin.find_all("#admin-body tr[data-canned-id]"), message="the team page")
        assert not admin.find_all(f'#admin-body tr[data-canned-id="{mine[0]["id"]}"]')
        assert MINE["title"] not in admin.find("#admin-body").text

        # Edit: the form takes the reply; Save sends what changed; the row keeps the keyboard.
        open_page(alan)
        alan.click(f'#replies-list [aria-label="Edit /{MINE["shortcut"]}"]')
        assert alan.find("#replies-form-title").text == f"Edit /{MINE['shortcut']}"
        assert alan.active().get_attribute("id") == "replies-shortcut"
        assert alan.find("#replies-text").get_attribute("value") == MINE["text"]
        text = alan.find("#replies-text")
        text.send_keys(Keys.CONTROL, "a")
        text.send_keys("{{agent.name}} here: sorted today.")
        submit_by_keyboard(alan)
        alan.wait(lambda: own_replies(alan_api)[0]["text"] == "{{agent.name}} here: sorted today.", message="the edit stored")
        patch = alan.fetched("PATCH", f"/v1/canned-responses/{mine[0]['id']}")[-1]
        assert patch["body"] == '{"text":"{{agent.name}} here: sorted today."}', "only what changed"
        alan.wait(lambda: alan.active().get_attribute("aria-label") == f"Edit /{MINE['shortcut']}", message="focus on the row's Edit")
        assert alan.find("#replies-form-title").text == "New reply"
        alan.js("location.hash = arguments[0]", f"#/c/{conversation}")
        alan.wait(lambda: alan.find("#conversation").is_displayed(), message="back in the conversation")
        options = picker(alan, "ref")
        assert options[0][0] == "me" and "sorted today" in options[0][2]
        alan.press(Keys.ENTER)
        assert alan.composer().get_attribute("value") == "Alan Turing here: sorted today."
        close_picker(alan)

        # Delete: asked first; gone from the page and from "/".
        open_page(alan)
        alan.click(f'#replies-list [aria-label="Delete /{MINE["shortcut"]}"]')
        confirm(alan, f"Delete /{MINE['shortcut']}?")
        alan.wait(lambda: alan.find_all("#replies-empty"), message="the list empty again")
        assert own_replies(alan_api) == []
        assert alan.active().get_attribute("id") == "replies-shortcut", "the keyboard stays on the page"
        alan.js("location.hash = arguments[0]", f"#/c/{conversation}")
        alan.wait(lambda: alan.find("#conversation").is_displayed(), message="back in the conversation")
        assert [(owner, shortcut) for owner, shortcut, _ in picker(alan, "ref")] == [("team", CANNED["shortcut"])]
        close_picker(alan)
    finally:
        if conversation:
            visitor.end(conversation)
        remove_own(alan_api)


def test_my_replies_fits_desktop_and_phone_is_accessible_and_works_by_keyboard(desks, world):
    alan_api = login_api(world, world.alan_email, world.alan_password)
    remove_own(alan_api)
    alan_api.post("/v1/canned-responses", {"shortcut": f"hi-{uuid.uuid4().hex[:6]}", "title": "Greeting of mine with a rather long title to wrap",
                                           "text": "Hello {{visitor.name}}! " + "A long text that must wrap on a phone. " * 6})
    desk = desks.new("alan").login(world.alan_email, world.alan_password, online=False)
    try:
        for width, height in ((1440, 900), (390, 844)):
            resize(desk, width, height)
            desk.js("location.hash = '#/inbox/mine'")
            desk.wait(lambda: desk.find("#tab-mine").get_attribute("aria-current") == "page", message="the inbox")
            open_page(desk)
            desk.wait(lambda: len(desk.find_all("#replies-list tr[data-canned-id]")) == 1, message="the reply listed")
            # An error on screen too: its colours and its ties to the field count.
            desk.find("#replies-save").click()
            desk.visible("#replies-shortcut-error")
            assert no_horizontal_scroll(desk), f"no sideways scrolling at {width}"
            assert desk.js(UNLABELLED) == [], f"every control named at {width}"
            assert desk.accessibility_problems() == [], f"axe at {width}"
            link = desk.find("#replies-link").rect
            assert link["x"] + link["width"] <= width
            if width == 390:
                assert desk.js(INNER_SCROLLERS) == [], "only the page scrolls"
                assert desk.find(".sidebar").rect["height"] <= 64, "the navigation stays one line"
                assert desk.find(".topbar").rect["height"] <= 110, "the top bar stays two lines"
            desk.js("location.hash = '#/inbox/mine'")
            desk.wait(lambda: desk.find("#replies").is_displayed() is False, message="the page left")

        # The keyboard: from the page's title, Tab goes through the form, then each row's Edit and Delete.
        resize(desk, 1440, 900)
        open_page(desk)
        desk.wait(lambda: desk.active().get_attribute("id") == "replies-heading", message="focus on the title")
        reached = []
        for _ in range(8):
            desk.press(Keys.TAB)
            reached.append(desk.active().get_attribute("id") or desk.active().get_attribute("data-action"))
        assert reached[:6] == ["replies-shortcut", "replies-title", "replies-text", "replies-save", "edit", "delete"], reached
        # Edit by the keyboard, Cancel by the keyboard: focus back on the row.
        desk.js("document.getElementById('replies-heading').focus()")
        for _ in range(5):
            desk.press(Keys.TAB)
        assert desk.active().get_attribute("data-action") == "edit"
        desk.press(Keys.ENTER)
        assert desk.active().get_attribute("id") == "replies-shortcut"
        for _ in range(4):
            desk.press(Keys.TAB)
        assert desk.active().get_attribute("id") == "replies-cancel"
        desk.press(Keys.ENTER)
        desk.wait(lambda: desk.active().get_attribute("data-action") == "edit", message="focus back on Edit")
        assert desk.find("#replies-form-title").text == "New reply"
    finally:
        remove_own(alan_api)
        desk.driver.set_window_size(1280, 900)
