"""Verified identity: an admin sets the app's identity options in the desk; a user the app proves
signs in, and the visitor panel marks what is verified."""
import hashlib
import hmac
import uuid

from harness.http import API
from test_admin import go
from test_forms import open_by_route, type_into


def test_admin_sets_identity_options_and_the_desk_marks_a_verified_user(admin_desk, world):
    desk = admin_desk
    desk.allow_console(r"/identity - Failed to load resource: the server responded with a status of 400")
    path = f"/v1/admin/apps/{world.app_id}/identity"
    previous = world.admin.get(path)
    try:
        go(desk, "identity")
        # Requiring verification with no way to verify: the server's 400 shows and nothing changes.
        desk.find("#identity-required").click()
        desk.find("#identity-save").click()
        error = desk.visible("#identity-error")
        assert error.text.startswith("Not saved:") and "require_verification" in error.text, error.text
        assert world.admin.get(path) == previous

        desk.find("#identity-required").click()
        desk.find("#identity-hash").click()
        type_into(desk, "#identity-cache", "120")
        desk.find("#identity-save").click()
        desk.wait(lambda: world.admin.get(path).get("identity_hash") is True, message="the saved identity settings")
        assert world.admin.get(path)["auth_service_cache_seconds"] == 120
        desk.wait(lambda: desk.find("#identity-hash").is_selected(), message="the reloaded page")

        # The app's backend signs its user with the app's secret key.
        secret = world.admin.post(f"/v1/admin/apps/{world.app_id}/rotate-key")["secret_key"]
        user_hash = hmac.new(secret.encode(), b"user-77", hashlib.sha256).hexdigest()
        session = API(world.base).post("/v1/visitor/session", {
            "app_id": world.app_id, "device_id": str(uuid.uuid4()), "name": "Vera", "user_id": "user-77", "user_hash": user_hash})
        assert session["visitor"]["user_id"] == "user-77"
        status, body = API(world.base).exchange("POST", "/v1/visitor/session", {
            "app_id": world.app_id, "device_id": str(uuid.uuid4()), "user_id": "user-78", "user_hash": user_hash})
        assert status == 401 and body["error"]["code"] == "unauthorized"

        visitor = API(world.base, session["token"])
        conversation = visitor.post("/v1/conversations", {"queue_id": world.support_queue, "subject": "Verified"})
        open_by_route(desk, conversation["id"])
        details = desk.wait(lambda: (lambda text: text if "user-77" in text else None)(desk.find("#visitor-details").text),
                            message="the verified user in the visitor panel")
        assert "User id" in details and "verified" in details, details
        # The claimed name is shown, unmarked: only the user id was proved.
        name_row = desk.js("""return [...document.querySelectorAll('#visitor-details dd')]
                              .map((dd) => dd.textContent).find((text) => text.startsWith('Vera'))""")
        assert name_row == "Vera", name_row
    finally:
        world.admin.put(path, previous)
