"""Keyboard shortcuts: j/k and Alt+↓/↑ move through the list, r and n go to the composer, e and t
start ending and transferring, / opens the search (its field, or the Search page through the bus), ? opens the help sheet.
Single keys do nothing while typing in a field; Esc leaves the field."""
from selenium.webdriver.common.keys import Keys

# Listens on the desk's own bus (the same module instance: same URL) for the search shortcut.
# The page's own bus: the module at the address its main script came from (index.html names the
# desk's files under v/<version>/; another address would be another module with another bus).
LISTEN_FOR_SEARCH = """
const done = arguments[0];
import(new URL('bus.js', document.querySelector('script[type=module]').src).href).then((bus) => {
  window.__searchAsked = 0;
  bus.on('shortcut:search', () => { window.__searchAsked += 1; });
  done(true);
});
"""


def open_id(desk):
    return desk.find("#conversation").get_attribute("data-conversation-id") if desk.find("#conversation").is_displayed() else None


def row_ids(desk):
    return [row.get_attribute("data-conversation-id") for row in desk.find_all("#inbox-list > li")]


def wait_open(desk, conversation_id):
    desk.wait(lambda: open_id(desk) == conversation_id, message=f"{conversation_id} open")


def test_j_and_k_and_alt_arrows_move_through_the_list_but_not_while_typing(admin_desk, visitors, world):
    desk = admin_desk
    clis = [visitors.new(name) for name in ("First", "Second", "Third")]
    for cli in clis:
        cli.wait_for(f"· {world.admin_name} joined")
    desk.wait(lambda: set(cli.conversation_id for cli in clis) <= set(row_ids(desk)), message="three rows")
    order = row_ids(desk)

    desk.js("document.activeElement.blur()")
    desk.press("j")  # nothing open: the first row
    wait_open(desk, order[0])
    desk.press("j")
    wait_open(desk, order[1])
    # The row of the open conversation has the keyboard, so the next key goes on from there.
    assert desk.active().get_attribute("href").endswith(order[1])
    desk.press("k")
    wait_open(desk, order[0])
    desk.press("k")  # at the top: stays
    desk.chord(Keys.ALT, Keys.ARROW_DOWN)
    wait_open(desk, order[1])

    # In the reply box a "j" is a "j"; Alt+↓ still moves on (it types nothing).
    box = desk.composer()
    box.click()
    desk.press("jk")
    assert box.get_attribute("value") == "jk"
    assert open_id(desk) == order[1]
    desk.chord(Keys.ALT, Keys.ARROW_DOWN)
    wait_open(desk, order[2])
    desk.chord(Keys.ALT, Keys.ARROW_UP)
    wait_open(desk, order[1])
    assert desk.composer().get_attribute("value") == "jk", "the draft stays with its conversation"


def test_r_n_e_t_and_escape_in_the_open_conversation(chat, world):
    desk, cli = chat
    desk.find("#transcript").click()

    desk.press("n")
    desk.wait(lambda: desk.find("#mode-note").is_selected(), message="note mode")
    assert desk.active().get_attribute("id") == "composer-text"
    # Esc leaves the field, so the next single key is a shortcut again.
    desk.press(Keys.ESCAPE)
    desk.wait(lambda: desk.active().get_attribute("id") != "composer-text", message="focus out of the reply box")
    desk.press("r")
    desk.wait(lambda: desk.find("#mode-reply").is_selected(), message="reply mode")
    assert desk.active().get_attribute("id") == "composer-text"
    desk.press("Typed after r", Keys.ENTER)
    cli.wait_for(f"{world.admin_name}: Typed after r")
    desk.press(Keys.ESCAPE)
    desk.wait(lambda: desk.active().get_attribute("id") == "transcript", message="focus on the transcript")

    desk.press("t")
    desk.visible("#transfer-dialog")
    desk.press(Keys.ESCAPE)
    desk.gone("#transfer-dialog")
    assert desk.active().get_attribute("id") == "transcript", "focus back where it was"

    desk.press("e")
    dialog = desk.visible("#confirm-dialog")
    assert "End this conversation?" in dialog.text
    # A key pressed in the dialog is the dialog's: "e" again does not stack another one.
    desk.press("e")
    desk.click("#confirm-dialog [data-close]")
    desk.gone("#confirm-dialog")
    assert world.admin.get(f"/v1/conversations/{cli.conversation_id}")["state"] == "assigned"
    desk.press("e")
    desk.visible("#confirm-dialog")
    desk.click("#confirm-ok")
    cli.wait_for("· the conversation ended")


def test_slash_opens_the_search_or_focuses_its_field(admin_desk):
    desk = admin_desk
    assert desk.driver.execute_async_script(LISTEN_FOR_SEARCH)
    # No search field on screen: "/" is announced on the bus, and the Search page answers it.
    desk.js("document.activeElement.blur()")
    desk.press("/")
    desk.wait(lambda: desk.js("return window.__searchAsked") == 1, message="shortcut:search on the bus")
    desk.wait(lambda: desk.driver.current_url.endswith("#/search") and desk.active().get_attribute("id") == "search-q", message="the search field")
    assert desk.find("#search-q").get_attribute("value") == "", "the slash was not typed into it"

    # A search field on screen (marked data-shortcut="search"): "/" puts the keyboard there directly.
    desk.js("document.activeElement.blur()")
    desk.press("/")
    desk.wait(lambda: desk.active().get_attribute("id") == "search-q", message="focus in the search field")
    assert desk.find("#search-q").get_attribute("value") == ""
    assert desk.js("return window.__searchAsked") == 1, "not announced again"
    # In a text field, "/" is a slash.
    desk.press("a/b")
    assert desk.find("#search-q").get_attribute("value") == "a/b"


def test_question_mark_opens_a_help_sheet_listing_every_shortcut(admin_desk):
    desk = admin_desk
    opener = desk.find("#tab-queued")
    desk.js("arguments[0].focus()", opener)
    desk.press("?")
    dialog = desk.visible("#shortcuts-dialog")
    assert dialog.tag_name == "dialog" and desk.js("return arguments[0].open && arguments[0].matches(':modal')", dialog)
    assert desk.find("#" + dialog.get_attribute("aria-labelledby")).text == "Keyboard shortcuts"
    assert desk.js("return document.getElementById('shortcuts-dialog').contains(document.activeElement)"), "focus moved in"
    listed = desk.js("return [...document.querySelectorAll('#shortcuts-list dt')].map((dt) => dt.textContent)")
    for keys in ("j", "k", "Alt+↓", "Alt+↑", "r", "n", "e", "t", "/", "?", "Esc"):
        assert any(keys in entry.split(" or ") for entry in listed), f"{keys} is listed: {listed}"
    assert desk.accessibility_problems() == []
    desk.press(Keys.ESCAPE)
    desk.gone("#shortcuts-dialog")
    assert desk.active() == opener, "focus returns to where it was"

    # The top bar's button opens the same sheet for the mouse.
    desk.click("#shortcuts-help")
    desk.visible("#shortcuts-dialog")
    desk.click("#shortcuts-close")
    desk.gone("#shortcuts-dialog")
    assert desk.active().get_attribute("id") == "shortcuts-help"
