"""Admin pages, driven through the UI and checked against the server."""
from selenium.common.exceptions import ElementClickInterceptedException
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys

from harness.http import API


def go(desk, page):
    link = desk.find(f'#admin-nav a[href="#/admin/{page}"]')
    try:
        link.click()
    except ElementClickInterceptedException:
        # Toasts sit over the navigation, bottom left (never over a page's buttons): a person dismisses them.
        for close in desk.find_all("#toasts .toast-close"):
            close.click()
        desk.wait(lambda: not desk.find_all("#toasts .toast"), message="the toasts dismissed")
        link.click()
    desk.wait(lambda: desk.find("#admin-body").get_attribute("aria-busy") == "false" and desk.find("#admin").is_displayed(),
              message=f"the {page} page")


def fill_form(desk, values):
    """Fills the form dialog: text fields by name, checkbox lists by the labels to tick."""
    dialog = desk.visible("#form-dialog")
    for name, value in values.items():
        if isinstance(value, list):
            for box in dialog.find_elements(By.CSS_SELECTOR, f'input[name="{name}"]'):
                label = dialog.find_element(By.CSS_SELECTOR, f'label[for="{box.get_attribute("id")}"]').text
                if (label in value) != box.is_selected():
                    box.click()
        else:
            field = dialog.find_element(By.CSS_SELECTOR, f'[name="{name}"]')
            if field.tag_name == "select":
                field.find_element(By.CSS_SELECTOR, f'option[value="{value}"]').click()
            else:
                field.clear()
                field.send_keys(str(value))
    return dialog


def submit_form(desk):
    desk.find("#form-dialog-submit").click()
    desk.gone("#form-dialog")


def read_secret(desk):
    dialog = desk.visible("#secret-dialog")
    value = desk.wait(lambda: desk.find("#secret-value").text, message="the secret")
    dialog.find_element(By.CSS_SELECTOR, 'button[type="submit"]').click()
    desk.gone("#secret-dialog")
    return value


def confirm(desk, expected_title):
    desk.visible("#confirm-dialog")
    assert desk.find("#confirm-title").text == expected_title
    desk.find("#confirm-ok").click()
    desk.gone("#confirm-dialog")


def agent_row(desk, email):
    return desk.visible(f'tr[data-email="{email}"]')


def test_admin_creates_edits_disables_and_resets_an_agent(admin_desk, world):
    desk = admin_desk
    api = API(world.base)
    go(desk, "agents")
    desk.click("#admin-body .toolbar button")
    fill_form(desk, {"name": "Katherine Johnson", "email": "katherine@desk.test", "capacity": 2, "queue_ids": ["Billing"]})
    submit_form(desk)
    password = read_secret(desk)
    assert len(password) >= 8
    row = agent_row(desk, "katherine@desk.test")
    assert "Billing" in row.text and "Support" not in row.text
    created = api.post("/v1/agent/login", {"email": "katherine@desk.test", "password": password})["agent"]
    assert created["capacity"] == 2 and created["queue_ids"] == [world.billing_queue] and created["role"] == "agent"

    # Edit: capacity, role, queues.
    desk.click('button[aria-label="Edit katherine@desk.test"]')
    fill_form(desk, {"capacity": 4, "role": "admin", "queue_ids": ["Support", "Billing"]})
    submit_form(desk)
    desk.wait(lambda: "Admin" in agent_row(desk, "katherine@desk.test").text, message="the new role")
    updated = world.admin.get(f"/v1/admin/apps/{world.app_id}/agents/{created['id']}")
    assert updated["capacity"] == 4 and updated["role"] == "admin" and set(updated["queue_ids"]) == {world.support_queue, world.billing_queue}

    # Disable: signing in is refused; enable: it works again.
    desk.click('button[aria-label="Disable katherine@desk.test"]')
    confirm(desk, "Disable Katherine Johnson?")
    desk.wait(lambda: "Disabled" in agent_row(desk, "katherine@desk.test").text, message="Disabled")
    assert api.status_of("POST", "/v1/agent/login", {"email": "katherine@desk.test", "password": password}) == 401
    desk.click('button[aria-label="Enable katherine@desk.test"]')
    desk.wait(lambda: "Disabled" not in agent_row(desk, "katherine@desk.test").text, message="enabled again")
    assert api.status_of("POST", "/v1/agent/login", {"email": "katherine@desk.test", "password": password}) == 200

    # Reset password: the new one is shown once and works; the old one does not.
    desk.click('button[aria-label="Reset password of katherine@desk.test"]')
    confirm(desk, "Reset the password of Katherine Johnson?")
    new_password = read_secret(desk)
    assert new_password != password
    assert desk.find("#secret-value").text == "", "the secret is not left in the page"
    assert api.status_of("POST", "/v1/agent/login", {"email": "katherine@desk.test", "password": password}) == 401
    assert api.status_of("POST", "/v1/agent/login", {"email": "katherine@desk.test", "password": new_password}) == 200


def test_duplicate_email_is_reported_in_the_form(admin_desk, world):
    desk = admin_desk
    go(desk, "agents")
    desk.click("#admin-body .toolbar button")
    fill_form(desk, {"name": "Someone", "email": world.alan_email})
    desk.find("#form-dialog-submit").click()
    error = desk.visible("#form-dialog-error")
    assert error.text  # the server's message, shown in the dialog that stays open
    assert desk.find("#form-dialog").is_displayed()
    desk.allow_console(r"Failed to load resource: the server responded with a status of 409")
    desk.find("#form-dialog [data-close]").click()
    desk.gone("#form-dialog")


def test_admin_manages_queues_and_canned_responses(admin_desk, world):
    desk = admin_desk
    go(desk, "queues")
    desk.click("#admin-body .toolbar button")
    fill_form(desk, {"name": "VIP"})
    submit_form(desk)
    desk.wait(lambda: any(row.text.startswith("VIP") for row in desk.find_all("#admin-body tbody tr")), message="the VIP queue row")
    queues = world.admin.get(f"/v1/admin/apps/{world.app_id}/queues")["queues"]
    vip = next(queue for queue in queues if queue["name"] == "VIP")
    desk.click(f'tr[data-queue-id="{vip["id"]}"] button')
    fill_form(desk, {"name": "VIP customers"})
    submit_form(desk)
    desk.wait(lambda: desk.find(f'tr[data-queue-id="{vip["id"]}"]').text.startswith("VIP customers"), message="renamed")

    go(desk, "canned")
    desk.click("#admin-body .toolbar button")
    fill_form(desk, {"shortcut": "thanks", "title": "Thank you", "text": "Thank you for your patience!"})
    submit_form(desk)
    listed = world.admin.get("/v1/canned-responses")["canned_responses"]
    thanks = next(item for item in listed if item["shortcut"] == "thanks")
    assert thanks["text"] == "Thank you for your patience!"
    desk.visible(f'tr[data-canned-id="{thanks["id"]}"]')

    # A shortcut the server refuses (taken) leaves the dialog open with its message.
    desk.click("#admin-body .toolbar button")
    fill_form(desk, {"shortcut": "thanks", "title": "Again", "text": "Duplicate"})
    desk.find("#form-dialog-submit").click()
    assert desk.visible("#form-dialog-error").text
    desk.allow_console(r"Failed to load resource: the server responded with a status of 409")
    desk.find("#form-dialog [data-close]").click()
    desk.gone("#form-dialog")

    desk.click(f'tr[data-canned-id="{thanks["id"]}"] button[aria-label="Edit /thanks"]')
    fill_form(desk, {"text": "Thanks a lot for waiting!"})
    submit_form(desk)
    desk.wait(lambda: "Thanks a lot for waiting!" in desk.find(f'tr[data-canned-id="{thanks["id"]}"]').text, message="edited")

    # The composer offers it at once (the desk refreshed its list).
    desk.click(f'tr[data-canned-id="{thanks["id"]}"] button[aria-label="Delete /thanks"]')
    confirm(desk, "Delete /thanks?")
    desk.wait(lambda: not desk.find_all(f'tr[data-canned-id="{thanks["id"]}"]'), message="the row to go")
    assert all(item["shortcut"] != "thanks" for item in world.admin.get("/v1/canned-responses")["canned_responses"])


def test_admin_renames_the_app_and_rotates_its_key(admin_desk, world):
    desk = admin_desk
    go(desk, "app")
    original = world.admin.get(f"/v1/admin/apps/{world.app_id}")["name"]
    desk.click("#admin-body .card button")
    fill_form(desk, {"name": "Desk Test Shop"})
    submit_form(desk)
    desk.wait(lambda: desk.find("#app-card-title").text == "Desk Test Shop", message="the new name")
    assert world.admin.get(f"/v1/admin/apps/{world.app_id}")["name"] == "Desk Test Shop"
    world.admin.patch(f"/v1/admin/apps/{world.app_id}", {"name": original})

    # Rotating asks first; cancelling changes nothing.
    desk.click("#rotate-key")
    desk.visible("#confirm-dialog")
    desk.find("#confirm-dialog").send_keys(Keys.ESCAPE)
    desk.gone("#confirm-dialog")
    desk.click("#rotate-key")
    confirm(desk, "Rotate the secret key?")
    key = read_secret(desk)
    assert key.startswith("sk_") and len(key) > 20


def test_plain_agents_get_no_admin_pages(desks, world):
    alan = desks.new("alan").login(world.alan_email, world.alan_password, online=False)
    assert not alan.find("#admin-nav").is_displayed()
    assert not alan.find("#tab-all-item").is_displayed()
    alan.open("#/admin/agents")
    alan.wait(lambda: alan.driver.current_url.endswith("#/inbox/mine"), message="a redirect to the inbox")
    assert not alan.find("#admin").is_displayed()
