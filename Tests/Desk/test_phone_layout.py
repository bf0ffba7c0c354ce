"""At phone width (390×844) the admin links fold behind one button instead of filling the top of the
screen, each view has one scroller (the page: no pane scrolls inside it) and nothing scrolls
sideways; at 1440×900 the three columns are as before."""
from selenium.webdriver.common.keys import Keys

from test_accessibility import no_horizontal_scroll

ADMIN_PAGES = 17

# Visible elements other than the page itself that scroll: overflow auto or scroll, with more
# content than room, either way.
INNER_SCROLLERS = """
return [...document.querySelectorAll('body *')].filter((e) => {
  if (!e.getClientRects().length) return false;
  const style = getComputedStyle(e);
  const y = /(auto|scroll)/.test(style.overflowY) && e.scrollHeight > e.clientHeight + 1;
  const x = /(auto|scroll)/.test(style.overflowX) && e.scrollWidth > e.clientWidth + 1;
  return x || y;
}).map((e) => e.id || e.className);
"""


def resize(desk, width, height):
    desk.driver.set_window_size(width, height)
    desk.wait(lambda: width - 30 < desk.js("return window.innerWidth") <= width, message=f"the window at {width}")


def admin_links(desk):
    return desk.find_all("#admin-links .nav-link")


def go_admin(desk, page):
    desk.js("location.hash = arguments[0]", f"#/admin/{page}")
    desk.wait(lambda: desk.find("#admin-body").get_attribute("aria-busy") == "false" and desk.find_all("#admin-body > *"), message=page)


def check_view(desk, name):
    nav = desk.find(".sidebar").rect
    assert nav["height"] <= 64, f"{name}: the navigation is one line, not {nav['height']}px"
    assert desk.js(INNER_SCROLLERS) == [], f"{name}: only the page scrolls"
    assert no_horizontal_scroll(desk), f"{name}: nothing scrolls sideways"
    assert desk.accessibility_problems() == [], f"{name}: axe"


def test_at_phone_width_admin_links_fold_into_a_menu_and_the_page_is_the_only_scroller(admin_desk, visitors, world):
    desk = admin_desk
    cli = visitors.new("Phoebe", subject="From my phone")
    cli.wait_for(f"· {world.admin_name} joined")
    for n in range(1, 21):
        cli.say(f"Line {n} of a long story that needs more than one screen to tell")
    resize(desk, 390, 844)

    # The inbox: the navigation is one line (tabs and the Admin button), the links folded away.
    desk.inbox_row(cli.conversation_id)
    toggle = desk.visible("#admin-menu-toggle")
    assert toggle.get_attribute("aria-expanded") == "false"
    assert toggle.get_attribute("aria-controls") == "admin-links"
    assert not any(link.is_displayed() for link in admin_links(desk))
    assert desk.find("#inbox").rect["y"] < 200, "the inbox starts near the top"
    check_view(desk, "inbox")

    # Open: every admin page, over the page and inside the window; Esc folds it back.
    toggle.click()
    desk.wait(lambda: toggle.get_attribute("aria-expanded") == "true", message="the menu open")
    links = [link for link in admin_links(desk) if link.is_displayed()]
    assert len(links) == ADMIN_PAGES
    assert all(0 <= link.rect["x"] and link.rect["x"] + link.rect["width"] <= 390 for link in links)
    check_view(desk, "the admin menu")
    desk.js("arguments[0].focus()", links[0])
    desk.press(Keys.ESCAPE)
    desk.wait(lambda: toggle.get_attribute("aria-expanded") == "false", message="Esc folds it")
    assert desk.active() == toggle
    # Following a link goes there and folds the menu.
    toggle.click()
    desk.click('#admin-links a[href="#/admin/agents"]')
    desk.wait(lambda: desk.find_all("#admin-body tbody tr"), message="the agents page")
    assert toggle.get_attribute("aria-expanded") == "false"
    assert not any(link.is_displayed() for link in admin_links(desk))
    check_view(desk, "admin agents")
    for page in ("push", "callbacks", "canned"):
        go_admin(desk, page)
        check_view(desk, f"admin {page}")

    # The conversation: the transcript grows with the page, the reply box stays in reach at the
    # bottom of the window, and the newest message is in sight above it.
    desk.js("location.hash = arguments[0]", f"#/c/{cli.conversation_id}")
    desk.wait(lambda: desk.find("#transcript").get_attribute("aria-busy") == "false", message="the transcript")
    last = desk.wait_for_item("Line 20 of a long story", kind="message")
    assert desk.js("return document.documentElement.scrollHeight > window.innerHeight"), "a transcript longer than the window"
    check_view(desk, "conversation")
    # Window coordinates (getBoundingClientRect), not the page's.
    composer = lambda: desk.js("const r = document.getElementById('composer').getBoundingClientRect(); "
                               "return {top: r.top, bottom: r.bottom, width: r.width, window: window.innerHeight}")
    desk.wait(lambda: abs(composer()["bottom"] - composer()["window"]) <= 2, message="the composer at the bottom of the window")
    message = desk.js("const r = arguments[0].getBoundingClientRect(); return [r.top, r.bottom]", last)
    assert 0 <= message[0] and message[1] <= composer()["top"] + 1, "the newest message is in sight above the composer"
    assert composer()["width"] <= 390
    # Scrolled up to read, the reply box is still at hand.
    desk.js("window.scrollTo(0, 0)")
    desk.wait(lambda: abs(composer()["bottom"] - composer()["window"]) <= 2, message="the composer stays at the bottom")
    desk.type_and_send("Answered from a phone")
    cli.wait_for(f"{world.admin_name}: Answered from a phone")

    # Desktop: unchanged. Three columns, every admin link in the sidebar, no menu button, and the
    # transcript scrolls on its own inside a page that does not.
    resize(desk, 1440, 900)
    desk.wait(lambda: not desk.find("#admin-menu-toggle").is_displayed(), message="no menu button")
    assert all(link.is_displayed() for link in admin_links(desk))
    nav = desk.find(".sidebar").rect
    inbox = desk.find("#inbox").rect
    assert nav["x"] + nav["width"] <= inbox["x"] + 1 and inbox["x"] + inbox["width"] <= desk.find("#conversation").rect["x"] + 1
    assert desk.find("#transcript").value_of_css_property("overflow-y") == "auto"
    desk.wait(lambda: desk.js("const t = document.getElementById('transcript'); return t.scrollHeight > t.clientHeight"), message="the transcript scrolls")
    assert desk.js("return document.documentElement.scrollHeight <= window.innerHeight + 1"), "the page itself does not scroll"
    assert no_horizontal_scroll(desk)
    desk.driver.set_window_size(1280, 900)
