"""Links in message text: http(s) and mailto URLs are links that open in a new tab without an opener
or referrer; every other scheme, markup-looking text and the words around a link stay plain text,
exactly as written."""
from selenium.webdriver.common.by import By

LINKS = ("Docs at https://example.com/path?q=1&r=<b>2</b>, or (see https://en.wikipedia.org/wiki/Parley_(disambiguation)). "
         "Mail mailto:ada@example.com! HTTPS://EXAMPLE.ORG/UP")
SCHEMES = ("javascript:alert(document.cookie) data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg== "
           "vbscript:msgbox(1) file:///etc/passwd JAVASCRIPT:alert(1) mailto:javascript:alert(1) ftp://files.example/x")
TRICKS = ('https://bank.example@evil.example/login and <a href="http://evil.example"onmouseover="alert(1)">click</a> '
          "and <img src=x onerror=alert(1)> https://ok.example/a'b")


def anchors(item):
    return [(a.get_attribute("href"), a.text, a.get_attribute("target"), a.get_attribute("rel"))
            for a in item.find_elements(By.CSS_SELECTOR, ".item-text a")]


def text_of(desk, item):
    return desk.js("return arguments[0].querySelector('.item-text').textContent", item)


def only_links_inside(desk, item):
    """Every element inside the text is a link (no markup made from the message)."""
    return desk.js("return [...arguments[0].querySelectorAll('.item-text *')].every((e) => e.tagName === 'A')", item)


def test_urls_in_messages_are_safe_links_and_everything_else_stays_text(chat, world):
    desk, cli = chat
    for text in (LINKS, SCHEMES, TRICKS):
        cli.say(text)

    item = desk.wait_for_item("Docs at", kind="message")
    assert text_of(desk, item) == LINKS, "the text is shown exactly as sent"
    assert only_links_inside(desk, item)
    blank = ("_blank", "noopener noreferrer")
    assert anchors(item) == [
        ("https://example.com/path?q=1&r=", "https://example.com/path?q=1&r=", *blank),
        ("https://en.wikipedia.org/wiki/Parley_(disambiguation)", "https://en.wikipedia.org/wiki/Parley_(disambiguation)", *blank),
        ("mailto:ada@example.com", "mailto:ada@example.com", *blank),
        ("https://example.org/UP", "HTTPS://EXAMPLE.ORG/UP", *blank),
    ]

    item = desk.wait_for_item("javascript:alert(document.cookie)", kind="message")
    assert text_of(desk, item) == SCHEMES
    assert anchors(item) == [], "no other scheme becomes a link"

    item = desk.wait_for_item("bank.example@evil.example", kind="message")
    assert text_of(desk, item) == TRICKS
    assert only_links_inside(desk, item), "no <a> or <img> made from the message's markup"
    # A user name in a URL (one host shown, another visited) stays text.
    assert anchors(item) == [("http://evil.example/", "http://evil.example", *blank), ("https://ok.example/a", "https://ok.example/a", *blank)]
    assert desk.js("return document.querySelectorAll('#transcript img[src=\"x\"], #transcript [onerror], #transcript [onmouseover]').length") == 0

    # The agent's own replies and internal notes get links too.
    desk.type_and_send("Our refund page: https://example.com/refunds.")
    cli.wait_for(f"{world.admin_name}: Our refund page: https://example.com/refunds.")
    reply = desk.wait(lambda: [i for i in desk.transcript_items("message")
                               if i.get_attribute("data-role") == "agent" and "refund page" in i.text], message="the reply")[0]
    assert anchors(reply) == [("https://example.com/refunds", "https://example.com/refunds", *blank)]
    desk.set_mode("note")
    desk.type_and_send("Ticket: https://tracker.example/T-7")
    note = desk.wait_for_item("Ticket:", kind="note")
    assert anchors(note) == [("https://tracker.example/T-7", "https://tracker.example/T-7", *blank)]
