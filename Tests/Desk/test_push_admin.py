"""The Push admin page, on a parleyd of its own that may reach loopback (--allow-private-outbound):
the APNs key (a bad one refused with the server's words, a real one shown as its ids and never
again as its text), the Firebase service account from its JSON, previews off, the latest pushes
with their attempts, and removing a provider. Real keys are made here with `cryptography`; the
service account's token_uri is a dead port, so the push is tried, gets no token and waits for its
retry."""
import json
import uuid

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec, rsa
from selenium.webdriver.common.by import By

from harness.browser import Desk, make_driver
from harness.http import API
from test_admin import confirm, go

TEAM_ID = "TEAM123456"
KEY_ID = "KEY1234567"
TOPIC = "com.example.parley"
DEVICE_TOKEN = "fcm-token-0123456789abcdef"


def pkcs8(key):
    return key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()).decode()


def key_body(pem):
    """The base64 lines of a PEM, which must never come back from the server or stay in the page."""
    return "".join(line for line in pem.splitlines() if not line.startswith("-----"))


def shown_error(desk, css):
    element = desk.find(css)
    return element.text if element.is_displayed() and element.text else None


def type_into(desk, css, text):
    field = desk.find(css)
    field.clear()
    field.send_keys(text)


def delivery_row(desk, device_id):
    """Reloads the list; the device's row once it has been tried and has a last error."""
    desk.click("#push-deliveries-reload")
    desk.wait(lambda: desk.find("#admin-body").get_attribute("aria-busy") == "false", message="the reload")
    rows = desk.find_all(f'#push-deliveries tr[data-device-id="{device_id}"]')
    if rows and rows[0].find_elements(By.CSS_SELECTOR, "td")[5].text not in ("", "—"):
        return rows[0]
    return None


def test_admin_sets_up_push_and_sees_deliveries(own_server, desks, tmp_path):
    server = own_server("push", ["--allow-private-outbound", "--push-delay", "0"])
    demo = server.demo
    desk = Desk(make_driver(), server.base, "push-desk")
    desks.opened.append(desk)  # console checked and browser closed like the others
    desk.allow_console(r"/push/apns - Failed to load resource: the server responded with a status of 400")
    # Offline: the visitor's conversation below waits in the queue for the admin to accept it.
    desk.login(demo["email"], demo["password"], online=False)
    go(desk, "push")
    assert "Not set up" in desk.find("#push-apns-status").text and "Not set up" in desk.find("#push-fcm-status").text

    login = API(server.base).post("/v1/agent/login", {"email": demo["email"], "password": demo["password"]})
    admin = API(server.base, login["token"])
    base = f"/v1/admin/apps/{demo['app_id']}/push"

    # A key that is no key: the server's words, nothing stored.
    type_into(desk, "#push-apns-team-id", TEAM_ID)
    type_into(desk, "#push-apns-key-id", KEY_ID)
    type_into(desk, "#push-apns-topic", TOPIC)
    type_into(desk, "#push-apns-key", "-----BEGIN PRIVATE KEY-----\nbm90IGEga2V5\n-----END PRIVATE KEY-----\n")
    desk.click("#push-apns-save")
    error = desk.wait(lambda: shown_error(desk, "#push-apns-error"), message="the refusal")
    assert error == "Not saved: private_key: not a P-256 private key (Apple's .p8 file)", error
    assert "apns" not in admin.get(base)

    # A real .p8, chosen as a file: read in the browser, sent once, shown as its ids only.
    apns_pem = pkcs8(ec.generate_private_key(ec.SECP256R1()))
    p8 = tmp_path / f"AuthKey_{KEY_ID}.p8"
    p8.write_text(apns_pem)
    desk.find("#push-apns-key-file").send_keys(str(p8))
    desk.wait(lambda: "BEGIN PRIVATE KEY" in desk.find("#push-apns-key").get_attribute("value"), message="the file read into the box")
    desk.click("#push-apns-save")
    status = desk.wait(lambda: (lambda text: text if TEAM_ID in text else None)(desk.find("#push-apns-status").text),
                       message="the APNs key set up")
    assert KEY_ID in status and TOPIC in status
    assert desk.find("#push-apns-key").get_attribute("value") == "", "the key is not left in the form"
    assert key_body(apns_pem)[:40] not in desk.driver.page_source
    settings = admin.get(base)
    assert settings["apns"]["team_id"] == TEAM_ID and settings["apns"]["key_id"] == KEY_ID and settings["apns"]["topic"] == TOPIC
    assert "PRIVATE KEY" not in json.dumps(settings) and key_body(apns_pem)[:40] not in json.dumps(settings)

    # Not JSON: refused in the browser, nothing sent.
    type_into(desk, "#push-fcm-account", "{not json")
    desk.click("#push-fcm-save")
    error = desk.wait(lambda: shown_error(desk, "#push-fcm-error"), message="the JSON refusal")
    assert error.startswith("Not saved: the service account must be the JSON key file's object"), error
    assert "fcm" not in admin.get(base)

    # The service account's JSON, typed: its project and email shown, the key never.
    fcm_pem = pkcs8(rsa.generate_private_key(public_exponent=65537, key_size=2048))
    account = {
        "type": "service_account", "project_id": "parley-push-test", "private_key_id": "0123456789abcdef",
        "private_key": fcm_pem, "client_email": "parley@parley-push-test.iam.gserviceaccount.com",
        "token_uri": "http://127.0.0.1:9/token",
    }
    type_into(desk, "#push-fcm-account", json.dumps(account))
    desk.click("#push-fcm-save")
    status = desk.wait(lambda: (lambda text: text if "parley-push-test" in text else None)(desk.find("#push-fcm-status").text),
                       message="the service account set up")
    assert account["client_email"] in status
    assert desk.find("#push-fcm-account").get_attribute("value") == ""
    assert key_body(fcm_pem)[:40] not in desk.driver.page_source
    settings = admin.get(base)
    assert settings["fcm"]["project_id"] == "parley-push-test" and settings["fcm"]["client_email"] == account["client_email"]
    assert "PRIVATE KEY" not in json.dumps(settings)

    # Previews off.
    assert desk.find("#push-previews").is_selected() and settings["previews"] is True
    desk.click("#push-previews")
    desk.wait(lambda: admin.get(base)["previews"] is False, message="previews off on the server")
    desk.wait(lambda: desk.find("#admin-body").get_attribute("aria-busy") == "false" and not desk.find("#push-previews").is_selected(),
              message="the box unticked after the reload")

    # A visitor with an Android device; the admin accepts and writes: one push, tried, no token.
    device_id = str(uuid.uuid4())
    session = API(server.base).post("/v1/visitor/session", {"app_id": demo["app_id"], "device_id": device_id, "name": "Pia"})
    visitor = API(server.base, session["token"])
    visitor.put(f"/v1/push/devices/{device_id}", {"provider": "fcm", "token": DEVICE_TOKEN})
    conversation = visitor.post("/v1/conversations", {"subject": "Push"})
    admin.post(f"/v1/conversations/{conversation['id']}/accept")
    admin.post(f"/v1/conversations/{conversation['id']}/messages", {"client_message_id": str(uuid.uuid4()), "text": "Your parcel left today"})

    row = desk.wait(lambda: delivery_row(desk, device_id), timeout=30, message="the push tried, with its error")
    assert len(desk.find_all(f'#push-deliveries tr[data-device-id="{device_id}"]')) == 1, "one push for the one device"
    cells = [cell.text for cell in row.find_elements(By.CSS_SELECTOR, "td")]
    assert cells[0] == "Message" and cells[1] == device_id and cells[2] == conversation["id"], cells
    assert row.get_attribute("data-status") == "pending" and cells[3].startswith("Pending"), cells
    assert cells[4].startswith("1 attempt") or cells[4].endswith("attempts"), cells
    row.find_element(By.CSS_SELECTOR, "summary").click()
    attempts = desk.wait(lambda: [item.text for item in row.find_elements(By.CSS_SELECTOR, ".push-attempts > li") if item.is_displayed()],
                         message="the attempts shown")
    assert "no answer" in attempts[0] and " ms" in attempts[0], attempts
    assert cells[5] and cells[5] in attempts[-1], (cells[5], attempts)
    listed = admin.get(f"{base}/deliveries?limit=50")["deliveries"]
    assert [delivery["device_id"] for delivery in listed] == [device_id] and listed[0]["last_error"] == cells[5]

    # Remove the service account, once confirmed.
    desk.click("#push-fcm-remove")
    confirm(desk, "Remove the Firebase service account?")
    desk.wait(lambda: "Not set up" in desk.find("#push-fcm-status").text, message="the service account gone")
    settings = admin.get(base)
    assert "fcm" not in settings and settings["apns"]["key_id"] == KEY_ID
