"""The Webhooks admin page, on a parleyd of its own that may reach loopback (--allow-private-outbound),
delivering to a small receiver in this process: create (the secret shown once), deliveries with their
request and attempts, resend, disable and enable, rotate, delete."""
import json
import threading
import uuid
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from selenium.webdriver.common.by import By

from harness.browser import Desk, make_driver
from harness.http import API
from test_admin import confirm, fill_form, go, read_secret, submit_form


class Receiver:
    """Answers the first hook with 500, the others with 200; keeps what it got."""

    def __init__(self):
        self.hooks = []
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def do_POST(self):
                body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                receiver.hooks.append({"id": self.headers.get("webhook-id"), "signature": self.headers.get("webhook-signature"),
                                       "body": json.loads(body)})
                status = 500 if len(receiver.hooks) == 1 else 200
                self.send_response(status)
                self.send_header("Content-Length", "2")
                self.end_headers()
                self.wfile.write(b"no" if status == 500 else b"ok")

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/hook"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def stop(self):
        self.server.shutdown()


def endpoint_text(desk, url):
    """The text of the endpoint's row in the list, or "" while the page reloads."""
    return next((row.text for row in desk.find_all("#admin-body tr[data-webhook-id]") if url in row.text), "")


@pytest.fixture
def receiver():
    receiver = Receiver()
    yield receiver
    receiver.stop()


def test_admin_manages_webhooks_and_sees_deliveries(receiver, own_server, desks):
    server = own_server("webhooks", ["--allow-private-outbound", "--webhook-first-retry", "0.3"])
    demo = server.demo
    desk = Desk(make_driver(), server.base, "webhook-desk")
    desks.opened.append(desk)  # console checked and browser closed like the others
    desk.login(demo["email"], demo["password"])
    go(desk, "webhooks")

    desk.find("#webhook-create").click()
    fill_form(desk, {"url": receiver.url, "events": ["Message written"], "description": "CRM"})
    submit_form(desk)
    secret = read_secret(desk)
    assert secret.startswith("whsec_")
    assert desk.find("#secret-value").text == "", "the secret is not left in the page"
    row = desk.wait(lambda: next((row for row in desk.find_all("#admin-body tr[data-webhook-id]") if receiver.url in row.text), None),
                    message="the new endpoint's row")
    assert "message.created" in row.text and "Enabled" in row.text

    login = API(server.base).post("/v1/agent/login", {"email": demo["email"], "password": demo["password"]})
    admin = API(server.base, login["token"])
    base = f"/v1/admin/apps/{demo['app_id']}/webhooks"
    listed = admin.get(base)["webhooks"]
    assert [endpoint["url"] for endpoint in listed] == [receiver.url]
    assert secret[6:] not in json.dumps(listed), "never shown again"

    # A visitor writes: the first attempt is refused, the retry is taken.
    session = API(server.base).post("/v1/visitor/session", {"app_id": demo["app_id"], "device_id": str(uuid.uuid4()), "name": "Wes"})
    visitor = API(server.base, session["token"])
    conversation = visitor.post("/v1/conversations", {"subject": "Hooks"})
    visitor.post(f"/v1/conversations/{conversation['id']}/messages", {"client_message_id": str(uuid.uuid4()), "text": "Ping the CRM"})

    def delivered_row():
        desk.find(f'#admin-body button[aria-label="Deliveries to {receiver.url}"]').click()
        desk.wait(lambda: desk.find("#admin-body").get_attribute("aria-busy") == "false", message="the reload")
        rows = desk.find_all('#webhook-deliveries tr[data-status="delivered"]')
        return rows[0] if rows else None

    delivery = desk.wait(delivered_row, timeout=30, message="a delivered delivery")
    cells = [cell.text for cell in delivery.find_elements(By.CSS_SELECTOR, "td")]
    assert cells[0] == "message.created" and cells[1] == "delivered" and cells[2] == "2", cells
    assert cells[3].startswith("HTTP 200")
    delivery.find_element(By.CSS_SELECTOR, "summary").click()
    request = delivery.find_element(By.CSS_SELECTOR, "pre.webhook-request").text
    assert "Ping the CRM" in request and json.loads(request)["type"] == "message.created"
    attempts = [item.text for item in delivery.find_elements(By.CSS_SELECTOR, ".webhook-attempts > li")]
    assert "HTTP 500" in attempts[0] and "HTTP 200" in attempts[1], attempts
    assert len(receiver.hooks) == 2 and receiver.hooks[0]["id"] == receiver.hooks[1]["id"]

    # Resend: the same webhook-id once more.
    delivery.find_element(By.CSS_SELECTOR, "button").click()
    desk.wait(lambda: len(receiver.hooks) == 3, timeout=20, message="the resent hook")
    assert receiver.hooks[2]["id"] == receiver.hooks[0]["id"]

    # Disable, enable, rotate (both secrets sign during the overlap), delete.
    desk.click(f'#admin-body button[aria-label="Disable {receiver.url}"]')
    desk.wait(lambda: "Disabled: disabled by an admin" in endpoint_text(desk, receiver.url), message="the disabled endpoint")
    desk.click(f'#admin-body button[aria-label="Enable {receiver.url}"]')
    desk.wait(lambda: "Enabled" in endpoint_text(desk, receiver.url), message="the enabled endpoint")
    desk.click(f'#admin-body button[aria-label="Rotate the secret of {receiver.url}"]')
    confirm(desk, "Rotate the signing secret?")
    rotated = read_secret(desk)
    assert rotated.startswith("whsec_") and rotated != secret
    assert admin.get(base)["webhooks"][0].get("previous_secret_expires_at")
    desk.click(f'#admin-body button[aria-label="Delete {receiver.url}"]')
    confirm(desk, "Delete this endpoint?")
    desk.wait(lambda: not desk.find_all("#admin-body tr[data-webhook-id]"), message="the endpoint gone")
    assert admin.get(base)["webhooks"] == []
