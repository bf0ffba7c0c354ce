"""The desk's live preview of the chat page: the Appearance and Forms admin pages show /chat/ in
preview mode, fed the unsaved values by postMessage; nothing is written to the server."""
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support.ui import Select

from conftest import ARTIFACTS, screenshot
from harness.browser import Desk, make_driver


def open_admin(desk, page):
    desk.js("location.hash = arguments[0]", f"#/admin/{page}")
    desk.wait(lambda: desk.find("#admin-body").get_attribute("aria-busy") == "false" and desk.find("#admin").is_displayed(),
              message=f"the {page} page")


def in_preview(desk, read):
    """Runs `read()` inside the preview's frame and returns what it returned."""
    desk.driver.switch_to.frame(desk.find("#chat-preview"))
    try:
        return read()
    finally:
        desk.driver.switch_to.default_content()


def test_appearance_and_forms_show_a_live_preview(world, server):
    desk = Desk(make_driver(1440, 900), server.base, "admin")
    try:
        desk.login(world.admin_email, world.admin_password, online=False)
        # An app-wide form not defined yet answers 404: how the forms page learns it.
        desk.allow_console(r"/forms/(pre_chat|post_chat) - Failed to load resource: the server responded with a status of 404")
        before = world.admin.get(f"/v1/admin/apps/{world.app_id}/appearance")
        open_admin(desk, "appearance")
        title = desk.find("#appearance-title")
        title.send_keys(Keys.CONTROL, "a")
        title.send_keys("Preview help desk")
        color = desk.find("#appearance-color")
        color.send_keys(Keys.CONTROL, "a")
        color.send_keys("#AA2200")
        desk.wait(lambda: in_preview(desk, lambda: desk.find("#title").text) == "Preview help desk", message="the title in the preview")
        accent = in_preview(desk, lambda: desk.js("return getComputedStyle(document.documentElement).getPropertyValue('--accent').trim()"))
        assert accent.lower() == "#aa2200"
        assert in_preview(desk, lambda: desk.find("#transcript .welcome").text) == "Hi! How can we help?"
        screenshot(desk, "desk-appearance-preview")
        assert world.admin.get(f"/v1/admin/apps/{world.app_id}/appearance") == before, "the preview writes nothing"

        open_admin(desk, "forms")
        Select(desk.find("#form-kind")).select_by_value("post_chat")
        desk.wait(lambda: desk.find("#admin-body").get_attribute("aria-busy") == "false", message="the forms page")
        desk.find("#form-add-field").click()
        label = desk.visible("#form-field-0-label-en")
        label.send_keys("How likely are you to come back?")
        Select(desk.find("#form-field-0-kind")).select_by_value("rating")
        desk.wait(lambda: in_preview(desk, lambda: [f.get_attribute("data-kind") for f in desk.find_all(".chat-form .field")]) == ["rating"],
                  message="the rating field in the preview")
        assert "How likely are you to come back?" in in_preview(desk, lambda: desk.find(".chat-form").text)
        screenshot(desk, "desk-forms-preview")
        problems = desk.console_problems()
        assert not problems, problems
    except BaseException:
        desk.save_artifacts(ARTIFACTS, "desk-preview")
        raise
    finally:
        desk.quit()
