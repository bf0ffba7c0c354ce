"""Keyboard alone, labelled controls, visible focus, dialogs that manage focus, and a layout that
holds at 200 % zoom."""
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys

# Every visible control with no accessible name (label, aria-label(ledby), or text for buttons/links).
UNLABELLED = """
const visible = (e) => e.getClientRects().length > 0 && getComputedStyle(e).visibility !== 'hidden';
const named = (e) => {
  if (e.getAttribute('aria-label')?.trim()) return true;
  const by = e.getAttribute('aria-labelledby');
  if (by && by.split(/\\s+/).some((id) => document.getElementById(id)?.textContent.trim())) return true;
  if (e.labels && [...e.labels].some((l) => l.textContent.trim())) return true;
  if ((e.tagName === 'BUTTON' || e.tagName === 'A') && e.textContent.trim()) return true;
  return false;
};
return [...document.querySelectorAll('input:not([type=hidden]), select, textarea, button, a[href]')]
  .filter(visible).filter((e) => !named(e)).map((e) => e.outerHTML.slice(0, 120));
"""


def active(desk):
    return desk.driver.switch_to.active_element


def press(desk, *keys):
    ActionChains(desk.driver).send_keys(*keys).perform()


def tab_until(desk, predicate, limit=60, backwards=False):
    """Presses Tab (or Shift+Tab) until the focused element matches; fails after `limit` presses."""
    for _ in range(limit):
        if backwards:
            ActionChains(desk.driver).key_down(Keys.SHIFT).send_keys(Keys.TAB).key_up(Keys.SHIFT).perform()
        else:
            press(desk, Keys.TAB)
        if predicate(active(desk)):
            return active(desk)
    raise AssertionError(f"no focusable element matched after {limit} Tab presses")


def test_keyboard_alone_signs_in_opens_a_conversation_replies_and_uses_dialogs(desks, visitors, world):
    desk = desks.new("admin")
    desk.open()
    desk.visible("#login-form")
    # The form is ready to type into, and Tab goes email → password → Sign in.
    desk.wait(lambda: active(desk).get_attribute("id") == "login-email", message="focus in the email field")
    press(desk, world.admin_email, Keys.TAB)
    assert active(desk).get_attribute("id") == "login-password"
    press(desk, world.admin_password, Keys.TAB)
    assert active(desk).get_attribute("id") == "login-submit"
    press(desk, Keys.ENTER)
    desk.visible("#desk")
    desk.wait_connected()

    # Logical order: top bar, then navigation, then the inbox.
    order = []
    for _ in range(10):
        press(desk, Keys.TAB)
        order.append(active(desk).get_attribute("id") or active(desk).get_attribute("class"))
    assert order.index("replies-link") < order.index("availability") < order.index("logout") < order.index("tab-queued") < order.index("tab-mine")

    # Availability by keyboard.
    tab_until(desk, lambda e: e.get_attribute("id") == "availability", backwards=True)
    # Options: Online, Away, Offline. Arrow keys change a closed select.
    press(desk, Keys.DOWN if desk.find("#availability").get_attribute("value") == "online" else Keys.UP)
    desk.wait(lambda: desk.find("body").get_attribute("data-availability") == "away", message="away by keyboard")
    assert world.admin.get("/v1/agent/me")["availability"] == "away"
    press(desk, Keys.UP)
    desk.wait(lambda: desk.find("body").get_attribute("data-availability") == "online", message="online by keyboard")
    assert world.admin.get("/v1/agent/me")["availability"] == "online"

    cli = visitors.new("Ada", subject="Keyboard only")
    cli.wait_for(f"· {world.admin_name} joined")
    desk.inbox_row(cli.conversation_id)
    link = tab_until(desk, lambda e: e.get_attribute("href") and e.get_attribute("href").endswith(cli.conversation_id))
    # Keyboard focus is visible.
    assert link.value_of_css_property("outline-style") == "solid"
    press(desk, Keys.ENTER)
    desk.wait(lambda: desk.find("#conversation").get_attribute("data-conversation-id") == cli.conversation_id, message="opened")

    tab_until(desk, lambda e: e.get_attribute("id") == "composer-text")
    press(desk, "Typed without a mouse", Keys.ENTER)
    cli.wait_for(f"{world.admin_name}: Typed without a mouse")

    # The transfer dialog: focus moves in, Esc closes it and focus returns to the button.
    transfer = tab_until(desk, lambda e: e.get_attribute("id") == "transfer", backwards=True)
    assert transfer.value_of_css_property("outline-style") == "solid"
    assert transfer.value_of_css_property("outline-width") == "3px"
    press(desk, Keys.ENTER)
    desk.visible("#transfer-dialog")
    desk.wait(lambda: desk.js("return document.getElementById('transfer-dialog').contains(document.activeElement)"), message="focus in the dialog")
    press(desk, Keys.ESCAPE)
    desk.gone("#transfer-dialog")
    assert active(desk).get_attribute("id") == "transfer"

    # End by keyboard: the confirmation starts on Cancel (Enter must not end it by accident).
    end = tab_until(desk, lambda e: e.get_attribute("id") == "end")
    press(desk, Keys.ENTER)
    desk.visible("#confirm-dialog")
    assert active(desk).text == "Cancel"
    press(desk, Keys.TAB)
    assert active(desk).get_attribute("id") == "confirm-ok"
    press(desk, Keys.ENTER)
    cli.wait_for("· the conversation ended")
    assert end is not None


def test_every_visible_control_has_an_accessible_name(admin_desk, visitors, world):
    desk = admin_desk
    cli = visitors.new("Ada", subject="Labels")
    cli.wait_for(f"· {world.admin_name} joined")
    desk.open_conversation(cli.conversation_id)
    desk.wait(lambda: desk.find("#visitor-details").text, message="the visitor panel")
    assert desk.js(UNLABELLED) == []

    desk.find("#transfer").click()
    desk.wait(lambda: desk.find_all('#transfer-dialog input[name="target"]'), message="transfer choices")
    assert desk.js(UNLABELLED) == []
    press(desk, Keys.ESCAPE)
    desk.gone("#transfer-dialog")

    for page in ("agents", "queues", "canned", "app"):
        desk.open(f"#/admin/{page}")
        desk.wait(lambda: desk.find("#admin-body").get_attribute("aria-busy") == "false" and desk.find_all("#admin-body > *"), message=page)
        assert desk.js(UNLABELLED) == [], page
    desk.find("#admin-body .toolbar button, #admin-body .card button").click()
    desk.visible("#form-dialog")
    assert desk.js(UNLABELLED) == []


def emulate_zoom_200(desk):
    """What 200 % zoom does to a 1280×900 window: a 640×450 CSS-pixel viewport at twice the density."""
    desk.driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", {"width": 640, "height": 450, "deviceScaleFactor": 2, "mobile": False})


def no_horizontal_scroll(desk):
    return desk.js("return document.documentElement.scrollWidth <= window.innerWidth + 1")


def test_at_200_percent_zoom_panels_stack_and_everything_stays_usable(admin_desk, visitors, world):
    desk = admin_desk
    emulate_zoom_200(desk)
    cli = visitors.new("Ada", subject="Zoomed in")
    cli.wait_for(f"· {world.admin_name} joined")

    row = desk.inbox_row(cli.conversation_id)
    nav = desk.find(".sidebar").rect
    inbox = desk.find("#inbox").rect
    assert nav["y"] + nav["height"] <= inbox["y"] + 1, "the navigation sits above the inbox"
    assert inbox["width"] >= 600, "the inbox takes the full width"
    assert no_horizontal_scroll(desk)

    row.find_element(By.CSS_SELECTOR, "a").click()
    desk.wait(lambda: desk.find("#conversation").is_displayed(), message="the conversation")
    # One column: the inbox steps aside for the conversation, with a way back.
    assert not desk.find("#inbox").is_displayed()
    assert desk.find("#back-link").is_displayed()
    assert no_horizontal_scroll(desk)
    box = desk.composer()
    desk.js("arguments[0].scrollIntoView({block: 'center'})", box)
    box.send_keys("Readable when zoomed", Keys.ENTER)
    cli.wait_for(f"{world.admin_name}: Readable when zoomed")
    panel = desk.find("#visitor-panel").rect
    conversation = desk.find("#conversation").rect
    assert panel["y"] >= conversation["y"] + conversation["height"] - 1, "the visitor panel is under the conversation"

    desk.find("#back-link").click()
    desk.wait(lambda: desk.find("#inbox").is_displayed(), message="back to the inbox")

    desk.open("#/admin/agents")
    desk.wait(lambda: desk.find_all("#admin-body tbody tr"), message="the agents table")
    assert no_horizontal_scroll(desk)


def test_axe_finds_nothing_serious_on_the_desk_views(admin_desk, visitors, world):
    """axe-core on the views an agent and an admin use, at desktop and phone size: no serious or
    critical violation (the transcript keeps its list meaning; every view has a level-one heading)."""
    desk = admin_desk
    cli = visitors.new("Axel", subject="Accessibility")
    cli.wait_for(f"· {world.admin_name} joined")
    cli.say("Is this readable by a screen reader?")
    for width, height in ((1440, 900), (390, 844)):
        desk.driver.set_window_size(width, height)
        desk.js("location.hash = arguments[0]", "#/inbox/mine")
        desk.wait(lambda: desk.find_all(f'#inbox-list li[data-conversation-id="{cli.conversation_id}"]'), message="the inbox")
        assert desk.accessibility_problems() == [], f"the inbox at {width}×{height}"
        desk.open_conversation(cli.conversation_id)
        desk.wait_for_item("Is this readable by a screen reader?", kind="message")
        assert desk.accessibility_problems() == [], f"the conversation at {width}×{height}"
        assert desk.js("return [...document.querySelectorAll('h1')].some((h) => h.getClientRects().length > 0)"), "a level-one heading is rendered"
        for page in ("push", "webhooks", "agents"):
            desk.js("location.hash = arguments[0]", f"#/admin/{page}")
            desk.wait(lambda: desk.find("#admin-body").get_attribute("aria-busy") == "false" and desk.find_all("#admin-body > *"), message=page)
            assert desk.accessibility_problems() == [], f"admin {page} at {width}×{height}"
    desk.driver.set_window_size(1280, 900)
