"""The inbox's views in the sidebar with live counts: Unassigned, Mine, Unread, Waiting longest,
Snoozed, each teammate, each queue, History and All (paged with "Load more"). Counts follow a
visitor opening, writing and ending, and triage changed in another browser, with no reload."""
import uuid

from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys

from harness.conversations import HTTPVisitor

COUNTED = ("queued", "mine", "unread", "waiting", "snoozed")


def shown_counts(desk):
    return {key: desk.find(f"#count-{key}").text for key in COUNTED}


def wait_counts(desk, api, message):
    """The sidebar shows exactly what the server counts for this agent now; returns the counts."""
    def same():
        server = api.get("/v1/desk/counts")
        expected = {key: str(server[key]) for key in COUNTED}
        return server if shown_counts(desk) == expected else None
    return desk.wait(same, message=f"the counts {message}")


def row_ids(desk):
    return [row.get_attribute("data-conversation-id") for row in desk.find_all("#inbox-list > li")]


def show(desk, view_id):
    """Follows a sidebar link (desk.tab's way: toasts over the navigation are dismissed first if in the way)."""
    desk.tab(view_id.removeprefix("tab-"))


def wait_rows(desk, condition, message):
    return desk.wait(lambda: condition(row_ids(desk)), message=message)


def test_counts_follow_visitors_and_triage_from_another_browser_live(desks, admin_desk, world):
    admin = admin_desk
    admin.set_availability("away")  # what opens waits in Unassigned
    tags = world.admin.get(f"/v1/admin/apps/{world.app_id}/tags")
    world.admin.put(f"/v1/admin/apps/{world.app_id}/tags", {"tags": [{"name": "vip", "color": "#b3261e"}]})
    alan = desks.new("alan").login(world.alan_email, world.alan_password)
    visitor = HTTPVisitor(world, "Live Lena")
    conversation = None
    try:
        before = wait_counts(admin, world.admin, "at the start")
        queue_count = lambda: admin.find(f'[data-count="queue/{world.support_queue}"]').text

        conversation = visitor.open(subject="Live counts")
        now = wait_counts(admin, world.admin, "after the visitor opened")
        assert now["queued"] == before["queued"] + 1
        admin.wait(lambda: queue_count() == str(now["by_queue"][world.support_queue]), message="the Support queue's count")

        world.admin.post(f"/v1/conversations/{conversation}/accept")
        now = wait_counts(admin, world.admin, "after accepting")
        assert (now["queued"], now["mine"]) == (before["queued"], before["mine"] + 1)
        admin.wait(lambda: admin.find(f'[data-count="agent/{world.alan["id"]}"]') is not None, message="Alan's link")

        visitor.say(conversation, "Hello? Is anyone there?")
        now = wait_counts(admin, world.admin, "after the visitor wrote")
        assert (now["waiting"], now["unread"]) == (before["waiting"] + 1, before["unread"] + 1)
        show(admin, "tab-unread")
        wait_rows(admin, lambda ids: conversation in ids, "the conversation under Unread")
        show(admin, "tab-waiting")
        wait_rows(admin, lambda ids: conversation in ids, "the conversation under Waiting longest")
        show(admin, "tab-mine")
        row = admin.inbox_row(conversation)
        # An answer: nobody waits any more. (Before the snooze, so that the visitor's next message is the
        # first one after it: today's server misses a later one otherwise, SERVER-REQUESTS.md 6.)
        world.admin.post(f"/v1/conversations/{conversation}/messages", {"client_message_id": str(uuid.uuid4()), "text": "We are on it."})
        now = wait_counts(admin, world.admin, "after the answer")
        assert now["waiting"] == before["waiting"]

        # Alan, in his own browser, triages it: the admin's row shows it at once.
        alan.js("location.hash = arguments[0]", f"#/c/{conversation}")
        alan.visible("#triage-bar")
        alan.find("#triage-priority").find_element(By.CSS_SELECTOR, 'option[value="urgent"]').click()
        alan.find("#tag-menu summary").click()
        alan.click('#tag-menu [data-add-tag="vip"]')
        admin.wait(lambda: row.find_elements(By.CSS_SELECTOR, '.priority[data-priority="urgent"]') and row.find_elements(By.CSS_SELECTOR, '.tag-chip[data-tag="vip"]'),
                   message="Alan's triage on the admin's row")
        assert "urgent priority" in row.find_element(By.CSS_SELECTOR, "a").get_attribute("aria-label")

        # Alan snoozes it: it leaves the admin's Mine for Snoozed, and the counts follow.
        alan.find("#snooze-menu summary").click()
        alan.click('#snooze-menu [data-snooze="hour"]')
        wait_rows(admin, lambda ids: conversation not in ids, "the snoozed one out of Mine")
        now = wait_counts(admin, world.admin, "after Alan's snooze")
        assert (now["mine"], now["snoozed"], now["waiting"]) == (before["mine"], before["snoozed"] + 1, before["waiting"])
        show(admin, "tab-snoozed")
        wait_rows(admin, lambda ids: conversation in ids, "the conversation under Snoozed")

        # The visitor writing ends the snooze: back in Mine.
        visitor.say(conversation, "Still there?")
        wait_rows(admin, lambda ids: conversation not in ids, "out of Snoozed")
        now = wait_counts(admin, world.admin, "after the visitor woke it")
        assert (now["mine"], now["snoozed"]) == (before["mine"] + 1, before["snoozed"])
        show(admin, "tab-mine")
        wait_rows(admin, lambda ids: conversation in ids, "back in Mine")

        # The visitor ends it: out of every open view, first in History.
        visitor.end(conversation)
        wait_counts(admin, world.admin, "after the visitor ended it")
        wait_rows(admin, lambda ids: conversation not in ids, "out of Mine")
        show(admin, "tab-ended")
        wait_rows(admin, lambda ids: ids and ids[0] == conversation, "first in History")
        assert "Ended" in admin.inbox_row(conversation).text
    finally:
        if conversation:
            visitor.end(conversation)
        world.admin.put(f"/v1/admin/apps/{world.app_id}/tags", tags)
        admin.set_availability("online")


def test_teammate_and_queue_views_and_history_pages(desks, admin_desk, world):
    admin = admin_desk
    admin.set_availability("away")
    alan = desks.new("alan").login(world.alan_email, world.alan_password)
    billing = HTTPVisitor(world, "Billing Bea")
    theirs = billing.open(subject="Invoice question", queue_id=world.billing_queue)
    ended = []
    try:
        alan.inbox_row(theirs)  # routed to Alan, the only agent of Billing
        # His link counts it; his view and the Billing queue's view list it.
        link = admin.visible(f"#tab-agent-{world.alan['id']}")
        assert link.text.startswith("Alan Turing")
        admin.wait(lambda: admin.find(f'[data-count="agent/{world.alan["id"]}"]').text == "1", message="Alan's count")
        show(admin, f"tab-agent-{world.alan['id']}")
        assert admin.find("#inbox-title").text == "Alan Turing"
        assert "Alan Turing" in admin.inbox_row(theirs).text
        show(admin, f"tab-queue-{world.billing_queue}")
        assert admin.find("#inbox-title").text == "Billing queue"
        admin.inbox_row(theirs)
        assert admin.find(f'[data-count="queue/{world.billing_queue}"]').text == "1"

        # History: one more ended conversation than a page holds.
        for n in range(51):
            visitor = HTTPVisitor(world, f"Historic {n:02d}")
            conversation = visitor.open(subject=f"Old question {n:02d}")
            visitor.end(conversation)
            ended.append(conversation)
        show(admin, "tab-ended")
        newest = list(reversed(ended))
        wait_rows(admin, lambda ids: ids[:50] == newest[:50], "the newest 50 in History")
        assert len(row_ids(admin)) == 50 and ended[0] not in row_ids(admin)
        more = admin.visible("#inbox-more")
        admin.js("arguments[0].focus()", more)
        admin.press(Keys.ENTER)
        wait_rows(admin, lambda ids: ids[:51] == newest, "the 51st after Load more")
        assert len(set(row_ids(admin))) == len(row_ids(admin)), "no row twice"
        assert admin.active().find_element(By.XPATH, "..").get_attribute("data-conversation-id") == ended[0], "the keyboard on the first new row"
        assert "cursor=" in admin.fetched("GET", "view=ended")[-1]["url"]

        # All (admins): paged the same way.
        show(admin, "tab-all")
        wait_rows(admin, lambda ids: ids == newest[:50], "a page of All, newest first")
        admin.click("#inbox-more")
        wait_rows(admin, lambda ids: len(ids) > 50 and theirs in ids, "All's next page, with Alan's open one")
        # A plain agent reads History too.
        show(alan, "tab-ended")
        wait_rows(alan, lambda ids: ids[:50] == newest[:50], "History for Alan")
    finally:
        billing.end(theirs)
        admin.set_availability("online")


def test_views_triage_and_tags_are_accessible_at_desktop_and_phone_width(admin_desk, visitors, world):
    """axe finds nothing serious, every control is named, nothing scrolls sideways, and the keyboard
    reaches the views, the triage bar and its menus (Esc closes them, focus back on their button)."""
    from test_accessibility import UNLABELLED, no_horizontal_scroll, tab_until
    from test_phone_layout import INNER_SCROLLERS, resize

    desk = admin_desk
    tags = world.admin.get(f"/v1/admin/apps/{world.app_id}/tags")
    world.admin.put(f"/v1/admin/apps/{world.app_id}/tags", {"tags": [{"name": "vip", "color": "#b3261e"}, {"name": "needs a very long tag name", "color": "#1e6bb3"}, {"name": "billing", "color": "#1a7f37"}]})
    cli = visitors.new("Triaged Tess", subject="Accessible triage")
    cli.wait_for(f"· {world.admin_name} joined")
    world.admin.put(f"/v1/conversations/{cli.conversation_id}/triage", {"tags": ["vip", "needs a very long tag name"], "priority": "urgent"})

    def clean(name):
        assert desk.accessibility_problems() == [], f"axe: {name}"
        assert desk.js(UNLABELLED) == [], f"named controls: {name}"
        assert no_horizontal_scroll(desk), f"no sideways scrolling: {name}"

    try:
        for width, height in ((1440, 900), (390, 844)):
            resize(desk, width, height)
            desk.js("location.hash = '#/inbox/mine'")
            row = desk.inbox_row(cli.conversation_id)
            desk.wait(lambda: row.find_elements(By.CSS_SELECTOR, ".priority"), message="the badge")
            clean(f"Mine at {width}")
            if width < 600:
                # One line of navigation: Unassigned, Mine, and the other views folded behind a button.
                assert desk.find(".sidebar").rect["height"] <= 64
                toggle = desk.visible("#views-menu-toggle")
                assert not desk.find("#tab-unread").is_displayed()
                toggle.click()
                desk.wait(lambda: toggle.get_attribute("aria-expanded") == "true" and desk.find("#tab-unread").is_displayed(), message="the views open")
                links = [link for link in desk.find_all("#view-links .nav-link") if link.is_displayed()]
                assert all(0 <= link.rect["x"] and link.rect["x"] + link.rect["width"] <= width for link in links)
                clean("the views menu")
                desk.js("arguments[0].focus()", links[0])
                desk.press(Keys.ESCAPE)
                desk.wait(lambda: toggle.get_attribute("aria-expanded") == "false", message="Esc folds it")
                assert desk.active() == toggle
                toggle.click()
                desk.click("#tab-snoozed")
                desk.wait(lambda: desk.find("#inbox-title").text == "Snoozed" and toggle.get_attribute("aria-expanded") == "false", message="Snoozed, the menu folded")
                assert desk.js(INNER_SCROLLERS) == []
            else:
                # Every view is a Tab away, in order.
                desk.js("arguments[0].focus()", desk.find("#tab-mine"))
                for view in ("tab-unread", "tab-waiting", "tab-snoozed", f"tab-agent-{world.alan['id']}", f"tab-queue-{world.support_queue}", "tab-ended", "tab-all"):
                    tab_until(desk, lambda element: element.get_attribute("id") == view, limit=12)
                desk.js("location.hash = '#/inbox/ended'")
                desk.wait(lambda: desk.find("#inbox-title").text == "History" and (desk.find_all("#inbox-list > li") or desk.find("#inbox-empty").text == "No ended conversations yet."), message="History")
                clean("History")

            desk.js("location.hash = arguments[0]", f"#/c/{cli.conversation_id}")
            desk.wait(lambda: desk.find("#triage-bar").is_displayed() and desk.find_all("#triage-tags .tag-chip"), message="the triage bar")
            clean(f"the conversation at {width}")
            for menu in ("tag-menu", "snooze-menu"):
                summary = desk.find(f"#{menu} summary")
                desk.js("arguments[0].focus()", summary)
                desk.press(Keys.ENTER)
                desk.wait(lambda: desk.js("return arguments[0].open", desk.find(f"#{menu}")), message=f"{menu} open")
                desk.press(Keys.TAB)
                assert desk.js("return arguments[0].contains(document.activeElement)", desk.find(f"#{menu}")), f"Tab goes into {menu}"
                clean(f"{menu} at {width}")
                desk.press(Keys.ESCAPE)
                desk.wait(lambda: not desk.js("return arguments[0].open", desk.find(f"#{menu}")), message=f"Esc closes {menu}")
                assert desk.active() == summary
            desk.find("#snooze-menu summary").click()
            desk.click('#snooze-menu [data-snooze="custom"]')
            desk.visible("#form-dialog")
            clean(f"the snooze dialog at {width}")
            desk.press(Keys.ESCAPE)
            desk.gone("#form-dialog")

            desk.js("location.hash = '#/admin/tags'")
            desk.wait(lambda: desk.find("#admin-body").get_attribute("aria-busy") == "false" and desk.find_all("#tags-list > li"), message="the tags page")
            clean(f"the tags page at {width}")
    finally:
        world.admin.put(f"/v1/admin/apps/{world.app_id}/tags", tags)
        desk.driver.set_window_size(1280, 900)
