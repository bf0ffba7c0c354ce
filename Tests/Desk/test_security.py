"""Sign-in and sign-out, the session cookie and CSRF header, the CSP, and user text as text."""
import json
import re
import urllib.request

from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys


def test_wrong_password_is_refused_then_the_right_one_signs_in(desks, world):
    desk = desks.new("admin")
    desk.open()
    desk.visible("#login-email").send_keys(world.admin_email)
    desk.find("#login-password").send_keys("not-the-password" + Keys.ENTER)
    error = desk.visible("#login-error")
    assert error.text == "Wrong email or password."
    assert error.get_attribute("role") == "alert"
    assert not desk.find("#desk").is_displayed()
    # The failed attempt is a 401 from the login route, which the test expects.
    desk.allow_console(r"/v1/desk/login - Failed to load resource: the server responded with a status of 401")

    password = desk.find("#login-password")
    password.clear()
    password.send_keys(world.admin_password + Keys.ENTER)
    desk.visible("#desk")
    desk.wait_connected()
    assert desk.find("#me-name").text == world.admin_name
    assert desk.find("#admin-nav").is_displayed()
    assert desk.driver.current_url.endswith("#/inbox/mine")


def test_logout_clears_the_session_and_a_reload_shows_the_login_form(admin_desk):
    desk = admin_desk
    assert desk.fetch("GET", "/v1/agent/me")["status"] == 200
    desk.find("#logout").click()
    desk.visible("#login-form")
    assert not desk.find("#desk").is_displayed()
    desk.driver.refresh()
    desk.visible("#login-form")
    assert not desk.find("#desk").is_displayed()
    # The cookie no longer opens anything.
    assert desk.fetch("GET", "/v1/agent/me")["status"] == 401
    assert desk.fetch("GET", "/v1/desk/session")["status"] == 204
    desk.allow_console(r"/v1/agent/me - Failed to load resource: the server responded with a status of 401")


def test_writes_without_the_csrf_header_are_refused_and_change_nothing(admin_desk, visitors, world):
    desk = admin_desk
    cli = visitors.new("Ada")
    cli.wait_for(f"· {world.admin_name} joined")
    conversation = cli.conversation_id

    refused = desk.fetch("PUT", "/v1/agent/availability", {"availability": "away"})
    assert refused["status"] == 403, refused
    assert json.loads(refused["body"])["error"]["code"] == "forbidden"
    wrong = desk.fetch("PUT", "/v1/agent/availability", {"availability": "away"}, {"X-Parley-CSRF": "forged"})
    assert wrong["status"] == 403
    me = json.loads(desk.fetch("GET", "/v1/agent/me")["body"])
    assert me["availability"] == "online"

    text = "sent by a forged request"
    refused = desk.fetch("POST", f"/v1/conversations/{conversation}/messages", {"client_message_id": "forged-1", "text": text})
    assert refused["status"] == 403
    events = world.admin.get(f"/v1/conversations/{conversation}/events")["events"]
    assert not any(e.get("text") == text for e in events)
    refused = desk.fetch("POST", f"/v1/conversations/{conversation}/end")
    assert refused["status"] == 403
    assert world.admin.get(f"/v1/conversations/{conversation}")["state"] == "assigned"
    desk.allow_console(r"Failed to load resource: the server responded with a status of 403")

    # The desk's own writes carry the header and work.
    desk.set_availability("away")
    assert world.admin.get("/v1/agent/me")["availability"] == "away"
    desk.set_availability("online")


def test_session_cookie_is_out_of_reach_of_scripts_and_the_desk_has_a_strict_csp(admin_desk, server):
    desk = admin_desk
    assert "parley_session" not in desk.js("return document.cookie")
    # Scoped to /v1: the desk's own pages never carry it (so WebDriver's get_cookies, which lists the
    # page's cookies, does not see it); DevTools lists it for the API's URLs.
    assert "parley_session" not in {cookie["name"] for cookie in desk.driver.get_cookies()}
    listed = desk.driver.execute_cdp_cmd("Network.getCookies", {"urls": [f"{server.base}/v1/agent/me"]})["cookies"]
    session = next(cookie for cookie in listed if cookie["name"] == "parley_session")
    assert session["httpOnly"] is True
    assert session["sameSite"] == "Strict"
    assert session["path"] == "/v1"
    # Nothing about the session is kept where scripts could read it later.
    assert desk.js("return window.localStorage.length") == 0

    with urllib.request.urlopen(f"{server.base}/desk/") as response:
        csp = response.headers["Content-Security-Policy"]
        body = response.read().decode()
    assert "script-src 'self'" in csp and "style-src 'self'" in csp and "'unsafe-inline'" not in csp
    assert "frame-ancestors 'none'" in csp
    # No inline script, style or handler in the page itself.
    assert "<style" not in body and " style=" not in body and " onclick=" not in body
    scripts = re.findall(r"<script\b([^>]*)>(.*?)</script>", body, re.S)
    assert scripts and all("src=" in attributes and not content.strip() for attributes, content in scripts)


def test_user_text_is_shown_as_text_never_as_markup(admin_desk, visitors, world):
    desk = admin_desk
    name = '<img src=x onerror="window.__pwned=1">'
    message = '<script>window.__pwned=2</script><b>bold?</b><img src=y onerror="window.__pwned=3">'
    cli = visitors.new(name, subject="<i>subject</i>")
    cli.wait_for(f"· {world.admin_name} joined")
    cli.say(message)

    row = desk.inbox_row(cli.conversation_id)
    desk.wait(lambda: name in row.text, message="the visitor's name, literally")
    assert "<i>subject</i>" in row.text
    desk.open_conversation(cli.conversation_id)
    item = desk.wait_for_item(message, kind="message")
    assert item.find_element(By.CSS_SELECTOR, ".item-text").text == message
    assert desk.find("#conversation-title").text == f"{name} — <i>subject</i>"

    for area in ("#inbox-list", "#transcript", ".conversation-header", "#visitor-panel", "#toasts"):
        for tag in ("img", "script", "b", "i"):
            assert not desk.find_all(f"{area} {tag}"), f"{tag} element in {area}"
    desk.wait(lambda: name in desk.find("#visitor-details").text, message="the visitor panel")
    assert desk.js("return window.__pwned") is None


def test_a_session_ended_elsewhere_brings_back_the_login_form_with_a_reason(desks, world):
    alan = desks.new("alan").login(world.alan_email, world.alan_password, online=False)
    # An admin sets Alan's password: every session of his ends, and his open socket is told so.
    world.admin.patch(f"/v1/admin/apps/{world.app_id}/agents/{world.alan['id']}", {"password": world.alan_password})
    error = alan.visible("#login-error", timeout=20)
    assert error.text == "Your session has ended. Sign in again."
    assert not alan.find("#desk").is_displayed()
    assert alan.fetch("GET", "/v1/agent/me")["status"] == 401
    alan.allow_console(r"/v1/agent/me - Failed to load resource: the server responded with a status of 401")
    alan.find("#login-email").send_keys(world.alan_email)
    alan.find("#login-password").send_keys(world.alan_password + Keys.ENTER)
    alan.visible("#desk")
    alan.wait_connected()
