"""Appearance: an admin sets it in the desk and chats are served it by GET /v1/appearance."""
from test_admin import go
from test_forms import type_into, visitor_api


def test_admin_sets_the_appearance_that_chats_are_served(admin_desk, world):
    desk = admin_desk
    desk.allow_console(r"/appearance - Failed to load resource: the server responded with a status of 400")
    path = f"/v1/admin/apps/{world.app_id}/appearance"
    previous = world.admin.get(path)
    try:
        go(desk, "appearance")
        type_into(desk, "#appearance-title", "Acme help")
        type_into(desk, "#appearance-languages", "en, de\n")
        desk.wait(lambda: desk.find_all("#appearance-welcome-de"), message="the German welcome field")
        type_into(desk, "#appearance-welcome-en", "Hi! How can we help?")
        type_into(desk, "#appearance-welcome-de", "Hallo!")
        type_into(desk, "#appearance-visitor-name", "You")
        # A colour that is not #RRGGBB: the server's 400 shows and nothing changes.
        type_into(desk, "#appearance-color", "blue")
        desk.find("#appearance-save").click()
        error = desk.visible("#appearance-error")
        assert error.text.startswith("Not saved:") and "theme_color" in error.text, error.text
        assert world.admin.get(path) == previous

        type_into(desk, "#appearance-color", "#1A73E8")
        desk.find("#appearance-save").click()
        desk.wait(lambda: world.admin.get(path).get("title") == "Acme help", message="the saved appearance")
        served = visitor_api(world).get("/v1/appearance")
        assert served["title"] == "Acme help"
        assert served["welcome_message"] == {"en": "Hi! How can we help?", "de": "Hallo!"}
        assert served["theme_color"].upper() == "#1A73E8" and served["visitor_display_name"] == "You"
        assert "avatar_url" not in served or served["avatar_url"] is None
        # The page shows what was saved after a reload.
        desk.wait(lambda: desk.find("#appearance-title").get_attribute("value") == "Acme help", message="the reloaded page")
        assert desk.find("#appearance-welcome-de").get_attribute("value") == "Hallo!"
    finally:
        world.admin.put(path, previous)
