"""The website embed on a plain test page of another origin, at 390×844 and 1440×900: one script tag
adds the launcher; a page view opens no conversation, the first open of the launcher starts one; the
next page view resumes it at once, and the launcher counts unread replies while the chat is closed;
the close button in the chat closes it; messages are origin-checked both ways; axe-core checks the
website's page."""
import functools
import http.server
import os
import tempfile
import threading

import pytest

from chatsuite.page import DESKTOP, MOBILE
from conftest import screenshot

SIZES = [pytest.param(MOBILE, id="390x844"), pytest.param(DESKTOP, id="1440x900")]


@pytest.fixture
def website(world):
    """A plain website on another port (another origin) with the embed's one script tag."""
    folder = tempfile.mkdtemp(prefix="parley-embed-site-")
    with open(os.path.join(folder, "index.html"), "w") as file:
        file.write(f"""<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>Acme shop</title></head>
<body><main><h1>Acme shop</h1><p>Welcome to our shop.</p></main>
<script src="{world.base}/chat/embed.js" data-app="{world.app_id}" data-queue="{world.support}" data-name="Embed Emma" async></script>
</body></html>""")
    handler = functools.partial(QuietHandler, directory=folder)
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}/"
    httpd.shutdown()


class QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


def post_then_barrier(page, messages):
    """Posts `messages` to the window, then a sentinel; returns once the sentinel arrived, so every
    listener has seen the messages before (message events of one source are delivered in order)."""
    page.js_async("""
        const [messages, done] = arguments;
        window.addEventListener('message', function barrier(event) {
          if (event.data === 'barrier') { window.removeEventListener('message', barrier); done(); }
        });
        for (const message of messages) window.postMessage(message, '*');
        window.postMessage('barrier', '*');
    """, messages)


def launcher(page):
    return page.js("return document.querySelector('[data-parley-embed]').shadowRoot.querySelector('.launcher')")


def badge(page):
    return page.js("const b = document.querySelector('[data-parley-embed]').shadowRoot.querySelector('.badge'); return b.hidden ? '' : b.textContent")


def frame(page):
    return page.js("return document.querySelector('[data-parley-embed]').shadowRoot.querySelector('iframe')")


def open_conversations(world):
    """The ids of the conversations open (queued or assigned) in Support, as the agents' API lists them."""
    listed = world.admin.get(f"/v1/conversations?view=queue&queue_id={world.support}&limit=500")["conversations"]
    return {conversation["id"] for conversation in listed}


def in_frame(page, action):
    """Runs `action()` inside the chat's frame and comes back to the website."""
    page.driver.switch_to.frame(frame(page))
    try:
        return action()
    finally:
        page.driver.switch_to.default_content()


def check_website(page, name):
    """The website with the embed: nothing wider than the window, a screenshot, and axe-core (no
    serious or critical violation) on the website's page, the launcher in its shadow root included.
    axe reads the page's style sheets again with XHR, which CORS refuses for the chat server's
    embed.css (the launcher's own <link> needs no CORS): that refusal is axe's, not the embed's."""
    page.allow_console(r"Access to XMLHttpRequest at '[^']*/chat/css/embed\.css' from origin '[^']*' has been blocked by CORS policy")
    page.allow_console(r"/chat/css/embed\.css - Failed to load resource: net::ERR_FAILED")
    assert page.js("return document.documentElement.scrollWidth <= window.innerWidth + 1"), f"{name}: horizontal overflow"
    screenshot(page, name)
    bad = page.accessibility_problems()
    assert not bad, f"axe on {name}: {bad}"


@pytest.mark.parametrize("size", SIZES)
def test_the_embed_starts_the_chat_on_open_and_counts_unread_across_page_views(pages, world, agent, website, size):
    before = open_conversations(world)
    page = pages.new("website", size=size, channels=())
    page.driver.get(website)
    page.wait(lambda: launcher(page) is not None, message="the launcher")
    page.allow_console(r"favicon.ico")

    # A page view is not a chat: the page loads hidden, makes its session and waits for the launcher;
    # the server has no new conversation and no agent was given one.
    def settled():
        # Waiting for the launcher, or (what a page view must not do) in a chat already.
        page.wait(lambda: page.find("body").get_attribute("data-start") == "on-open" or page.screen() in ("queued", "chatting"),
                  message="the page waiting for the launcher")
        # A call posted by anyone but the embedder (here the chat's own window) does not open it.
        post_then_barrier(page, [{"parley": 1, "call": "set_visible", "visible": True}])
        return page.screen(), page.conversation_id(), page.find("body").get_attribute("data-start")
    state = in_frame(page, settled)
    assert open_conversations(world) == before, "a page view opened a conversation"
    assert state == ("loading", None, "on-open")
    assert not frame(page).is_displayed() and launcher(page).get_attribute("aria-expanded") == "false"
    check_website(page, "embed-closed")

    # Opening the launcher starts it.
    launcher(page).click()
    page.wait(lambda: frame(page).is_displayed(), message="the chat frame open")
    if size == MOBILE:
        rect = page.js("const r = arguments[0].getBoundingClientRect(); return [r.left, r.top, r.width, r.height]", frame(page))
        assert rect == [0, 0, 390, 844], f"the chat fills the phone's screen: {rect}"

    def started():
        page.wait_screen("chatting")
        page.wait_subscribed()
        return page.conversation_id()
    conversation = in_frame(page, started)
    assert open_conversations(world) == before | {conversation}
    check_website(page, "embed-open")
    visitor = world.admin.get(f"/v1/visitors/{world.admin.get(f'/v1/conversations/{conversation}')['visitor_id']}")
    assert visitor.get("name") == "Embed Emma", "the embed's data-name reached the chat as customer data"

    # The chat's own close button (shown by the embed) closes the frame.
    in_frame(page, lambda: page.click("#close-button"))
    page.wait(lambda: not frame(page).is_displayed(), message="the frame closed")
    assert launcher(page).get_attribute("aria-expanded") == "false"

    # The next page view resumes the conversation at once (no open): replies count on the launcher.
    page.driver.refresh()
    page.wait(lambda: launcher(page) is not None, message="the launcher after the reload")

    def resumed():
        page.wait_screen("chatting")
        page.wait_subscribed()
        return page.conversation_id()
    assert in_frame(page, resumed) == conversation
    agent.subscribe(conversation)
    agent.say(conversation, "Hello from support")
    agent.say(conversation, "Are you there?")
    page.wait(lambda: badge(page) == "2", message="the unread badge at 2")
    assert "2 unread" in launcher(page).get_attribute("aria-label")
    assert not frame(page).is_displayed()
    assert open_conversations(world) == before | {conversation}, "the reload opened another conversation"
    check_website(page, "embed-closed-unread")

    # A message from the website itself is not the chat's: the badge ignores it.
    post_then_barrier(page, [{"parley": 1, "event": "unread_changed", "count": 9}])
    assert badge(page) == "2"

    # Open: the chat reads them, the badge clears.
    launcher(page).click()
    page.wait(lambda: frame(page).is_displayed(), message="the chat frame open")
    page.wait(lambda: badge(page) == "", message="the badge cleared once read")
    in_frame(page, lambda: page.wait_message("Are you there?", role="agent"))
    screenshot(page, "embed-open-read")
    world.admin.post(f"/v1/conversations/{conversation}/end")


def test_the_chat_page_ignores_calls_from_other_origins(pages, world, agent, website):
    page = pages.new("website", size=DESKTOP, channels=())
    page.driver.get(website)
    page.wait(lambda: launcher(page) is not None, message="the launcher")
    page.allow_console(r"favicon.ico")
    launcher(page).click()
    page.driver.switch_to.frame(frame(page))
    page.wait_screen("chatting")
    page.wait(lambda: page.find("#close-button").is_displayed(), message="the close button the embed asked for")
    # A message posted to the chat by itself (so not from its embedder) changes nothing.
    post_then_barrier(page, [{"parley": 1, "call": "show_close_button", "visible": False}, {"parley": 1, "call": "close_chat"}])
    assert page.find("#close-button").is_displayed() and page.screen() == "chatting"
    world.admin.post(f"/v1/conversations/{page.conversation_id()}/end")
