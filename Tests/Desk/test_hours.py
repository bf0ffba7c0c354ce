"""Business hours: an admin sets a queue's hours in the desk; the server stores exactly them; its 400
(overlapping intervals) shows; removing them makes the queue always open again."""
from test_admin import confirm, go
from test_forms import choose, type_into, wait_page


def test_admin_sets_and_removes_a_queues_business_hours(admin_desk, world):
    desk = admin_desk
    desk.allow_console(r"/hours - Failed to load resource: the server responded with a status of 400")
    path = f"/v1/admin/apps/{world.app_id}/queues/{world.billing_queue}/hours"
    try:
        go(desk, "hours")
        choose(desk, "#hours-queue", world.billing_queue)
        wait_page(desk)
        assert desk.visible("#hours-status").text == "No hours: always open."
        type_into(desk, "#hours-zone", "Europe/Berlin")
        type_into(desk, "#hours-monday", "9 to 5")
        desk.find("#hours-save").click()
        assert "monday: “9 to 5” is not a time range" in desk.visible("#hours-error").text

        type_into(desk, "#hours-monday", "09:00-12:00, 11:00-13:00")
        desk.find("#hours-save").click()
        desk.wait(lambda: "weekly.monday" in desk.find("#hours-error").text, message="the server's 400 about the overlap")
        assert world.admin.status_of("GET", path) == 204

        type_into(desk, "#hours-monday", "09:00-12:00, 13:00-17:00")
        type_into(desk, "#hours-saturday", "10:00-14:00")
        type_into(desk, "#hours-holidays", "2026-12-25, 2026-12-26")
        desk.find("#hours-save").click()
        desk.wait(lambda: desk.find("#hours-status").text == "Open during the hours below.", message="the saved hours")
        saved = world.admin.get(path)
        assert saved["time_zone"] == "Europe/Berlin"
        assert saved["weekly"]["monday"] == [{"start": 540, "end": 720}, {"start": 780, "end": 1020}]
        assert saved["weekly"]["saturday"] == [{"start": 600, "end": 840}]
        assert saved["weekly"].get("tuesday", []) == []
        assert saved["holidays"] == ["2026-12-25", "2026-12-26"]
        assert desk.find("#hours-monday").get_attribute("value") == "09:00-12:00, 13:00-17:00"

        desk.find("#hours-delete").click()
        confirm(desk, "Remove the hours of “Billing”?")
        desk.wait(lambda: desk.find("#hours-status").text == "No hours: always open.", message="the removed hours")
        assert world.admin.status_of("GET", path) == 204
    finally:
        world.admin.exchange("DELETE", path)
