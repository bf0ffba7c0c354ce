"""The link policy: an admin sets where chat links go in the desk (a bad host's 400 shown, nothing
changed); visitors read what was saved."""
import uuid

from harness.http import API
from test_admin import go
from test_forms import type_into


def test_admin_sets_the_link_policy_and_visitors_read_it(admin_desk, world):
    desk = admin_desk
    desk.allow_console(r"/link-policy - Failed to load resource: the server responded with a status of 400")
    path = f"/v1/admin/apps/{world.app_id}/link-policy"
    previous = world.admin.get(path)
    try:
        go(desk, "links")
        # The defaults: nothing inside, other links outside, embeddable anywhere.
        assert desk.find("#links-inside").get_attribute("value") == ""
        assert desk.find("#links-other-outside").is_selected() and not desk.find("#links-other-block").is_selected()

        # A URL where a host belongs: the server's 400 names the field and nothing changes.
        type_into(desk, "#links-inside", "https://help.example.com/")
        desk.click("#links-save")
        error = desk.visible("#links-error")
        assert error.text.startswith("Not saved:") and "inside_hosts" in error.text, error.text
        assert world.admin.get(path) == previous

        # Hosts, a wildcard, blocked other links and one embedding site: saved, shown after a reload.
        type_into(desk, "#links-inside", "help.example.com\n*.docs.example.com\n")
        desk.click("#links-other-block")
        type_into(desk, "#links-embed", "https://www.example.com")
        desk.click("#links-save")
        expected = {"inside_hosts": ["help.example.com", "*.docs.example.com"], "other_links": "block",
                    "embed_origins": ["https://www.example.com"]}
        desk.wait(lambda: world.admin.get(path) == expected, message="the saved link policy")
        desk.wait(lambda: desk.find("#links-inside").get_attribute("value") == "help.example.com\n*.docs.example.com",
                  message="the reloaded page")
        assert desk.find("#links-other-block").is_selected()

        # A visitor of the app reads the same policy.
        session = API(world.base).post("/v1/visitor/session", {"app_id": world.app_id, "device_id": str(uuid.uuid4())})
        assert API(world.base, session["token"]).get("/v1/link-policy") == expected
    finally:
        world.admin.put(path, previous)
