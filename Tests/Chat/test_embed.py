"""The website embed on a plain test page of another origin: one script tag adds the launcher, the chat
opens in an iframe, the launcher counts unread replies while the chat is closed, the close button in
the chat closes it, and messages are origin-checked both ways."""
import functools
import http.server
import os
import tempfile
import threading

import pytest

from chatsuite.page import DESKTOP
from conftest import screenshot


@pytest.fixture
def website(world):
    """A plain website on another port (another origin) with the embed's one script tag."""
    folder = tempfile.mkdtemp(prefix="parley-embed-site-")
    with open(os.path.join(folder, "index.html"), "w") as file:
        file.write(f"""<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Acme shop</title></head>
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


def test_the_embed_opens_the_chat_and_counts_unread(pages, world, agent, website):
    page = pages.new("website", size=DESKTOP, channels=())
    page.driver.get(website)
    page.wait(lambda: launcher(page) is not None, message="the launcher")
    page.allow_console(r"favicon.ico")
    # The chat loads in the background: it starts, the agent joins; the launcher says nothing yet.
    page.driver.switch_to.frame(frame(page))
    page.wait_screen("chatting")
    page.wait_subscribed()
    conversation = page.conversation_id()
    page.driver.switch_to.default_content()
    agent.subscribe(conversation)
    visitor = world.admin.get(f"/v1/visitors/{world.admin.get(f'/v1/conversations/{conversation}')['visitor_id']}")
    assert visitor.get("name") == "Embed Emma", "the embed's data-name reached the chat as customer data"

    # Closed: replies are unread, and the launcher counts them.
    agent.say(conversation, "Hello from support")
    agent.say(conversation, "Are you there?")
    page.wait(lambda: badge(page) == "2", message="the unread badge at 2")
    assert "2 unread" in launcher(page).get_attribute("aria-label")
    screenshot(page, "embed-closed-unread")

    # A message from the website itself is not the chat's: the badge ignores it.
    post_then_barrier(page, [{"parley": 1, "event": "unread_changed", "count": 9}])
    assert badge(page) == "2"

    # Open: the chat reads them, the badge clears.
    launcher(page).click()
    page.wait(lambda: frame(page).is_displayed(), message="the chat frame open")
    page.wait(lambda: badge(page) == "", message="the badge cleared once read")
    screenshot(page, "embed-open")

    # The chat's own close button (shown by the embed) closes the frame.
    page.driver.switch_to.frame(frame(page))
    page.click("#close-button")
    page.driver.switch_to.default_content()
    page.wait(lambda: not frame(page).is_displayed(), message="the frame closed")
    assert launcher(page).get_attribute("aria-expanded") == "false"


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
