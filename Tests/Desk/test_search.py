"""Search (the top bar's Search, or "/"): messages with every word, case and accents ignored, newest
first, their snippets with the matching words marked (text nodes and <mark>s only); conversations by
the visitor's name or a subject; filters; the server's 400 by the field it names; "Load more"
through next_cursor; a result opens its conversation at the message. The corpus is made over HTTP
with a word of its own, so only its messages can match."""
import uuid

from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys

from harness.conversations import HTTPVisitor
from test_accessibility import no_horizontal_scroll

# The snippet as the page shows it, split into plain text and marks, from the DOM itself: every
# child of the snippet must be a text node or a <mark> holding one text node (no other markup).
SNIPPET_PARTS = """
return [...arguments[0].childNodes].map((node) => {
  if (node.nodeType === Node.TEXT_NODE) return ['text', node.data];
  if (node.nodeName === 'MARK' && node.childNodes.length === 1 && node.firstChild.nodeType === Node.TEXT_NODE) return ['mark', node.data ?? node.textContent];
  return ['other', node.outerHTML];
});
"""


def unique_word():
    return "qz" + uuid.uuid4().hex[:8]


def open_search(desk):
    desk.click("#search-link")
    desk.wait(lambda: desk.find("#search").is_displayed() and desk.active().get_attribute("id") == "search-q", message="the search page, its field focused")


def searched(desk):
    return len(desk.fetched("GET", "/v1/desk/search"))


def wait_answer(desk, after):
    """Waits until a search request newer than `after` (a count of them) was answered and shown."""
    desk.wait(lambda: searched(desk) > after and desk.find("#search-results").get_attribute("aria-busy") == "false", message="the search's answer")


def search(desk, text, scope="messages"):
    """Types a query and searches; returns the hits once the answer is on the page."""
    scope_button = desk.find(f"#search-scope-{scope}")
    if not scope_button.is_selected():
        # Another scope searches again by itself: let that answer land first.
        before = searched(desk)
        scope_button.click()
        if desk.find("#search-q").get_attribute("value"):
            wait_answer(desk, before)
    before = searched(desk)
    field = desk.find("#search-q")
    field.clear()
    field.send_keys(text + Keys.ENTER)
    wait_answer(desk, before)
    return desk.find_all("#search-results > li")


def hit_view(desk, item):
    """(conversation id, seq or None, the snippet's parts) of one result."""
    snippet = item.find_element(By.CSS_SELECTOR, ".search-hit-snippet")
    return item.get_attribute("data-conversation-id"), item.get_attribute("data-seq"), [tuple(part) for part in desk.js(SNIPPET_PARTS, snippet)]


def wait_results(desk, count):
    return desk.wait(lambda: (lambda items: items if len(items) == count and desk.find("#search-results").get_attribute("aria-busy") == "false" else None)(
        desk.find_all("#search-results > li")), message=f"{count} results")


def test_messages_are_found_across_case_and_accents_with_their_words_marked(admin_desk, world):
    desk = admin_desk
    desk.set_availability("away")  # the corpus stays queued: nothing is routed to the admin
    word = unique_word()
    zoe = HTTPVisitor(world, "Zoë Ärger", email=f"zoe.{word}@example.com")
    bob = HTTPVisitor(world, "Bob Dessert")
    first = zoe.open(subject="Crème order")
    second = bob.open(subject=f"Dessert {word}")
    try:
        one = zoe.say(first, f"Ich möchte eine CRÈME brûlée {word}")
        # Filler between: the first match is far above the conversation's bottom.
        for n in range(30):
            zoe.say(first, f"Filler line {n} about nothing at all")
        two = zoe.say(first, f"the creme was cold, {word}!")
        three = zoe.say(first, f"Cremerie {word} closed")
        zoe.say(first, f"nothing sweet {word}")          # lacks "creme"
        zoe.say(first, "crème without the other word")   # lacks the word
        four = bob.say(second, f"une crème {word}")
        assert bob.end(second) == 200

        open_search(desk)
        hits = search(desk, f"creme {word.upper()}")
        views = [hit_view(desk, item) for item in hits]
        # Exactly the four messages holding both words, newest first, each word marked where it is.
        assert views == [
            (second, str(four), [("text", "une "), ("mark", "crème"), ("text", " "), ("mark", word)]),
            (first, str(three), [("mark", "Cremerie"), ("text", " "), ("mark", word), ("text", " closed")]),
            (first, str(two), [("text", "the "), ("mark", "creme"), ("text", " was cold, "), ("mark", word), ("text", "!")]),
            (first, str(one), [("text", "Ich möchte eine "), ("mark", "CRÈME"), ("text", " brûlée "), ("mark", word)]),
        ], views
        assert desk.find("#search-status").text == "4 results."
        assert not desk.find("#search-more").is_displayed()
        # Each result names the visitor, the conversation's state and who wrote it.
        assert "Bob Dessert" in hits[0].text and hits[0].find_element(By.CSS_SELECTOR, ".state").text == "Ended"
        assert "Zoë Ärger" in hits[3].text and hits[3].find_element(By.CSS_SELECTOR, ".state").text == "Queued"
        assert "Message from Zoë Ärger" in hits[3].text

        # A filter narrows at once: only ended conversations.
        desk.find(".search-filters > summary").click()
        desk.click("#search-state-ended")
        wait_results(desk, 1)
        assert hit_view(desk, desk.find("#search-results > li"))[:2] == (second, str(four))
        desk.click("#search-state-ended")
        wait_results(desk, 4)
        desk.find(".search-filters > summary").click()

        # Conversations: by the visitor's name, email or a subject (substrings), the latest activity first.
        # (Not "Ärger": SQLite folds only ASCII, so a capital Ä is never found: SERVER-REQUESTS.md 5.)
        hits = search(desk, "Zoë", scope="conversations")
        zoes = [item for item in hits if item.get_attribute("data-conversation-id") == first]
        assert len(zoes) == 1 and zoes[0].get_attribute("data-field") == "visitor.name"
        assert hit_view(desk, zoes[0])[2] == [("mark", "Zoë"), ("text", " Ärger")]
        assert "Visitor's name" in zoes[0].text
        hits = search(desk, word, scope="conversations")
        assert [(item.get_attribute("data-conversation-id"), item.get_attribute("data-field")) for item in hits] == [(second, "subject"), (first, "visitor.email")]
        assert hit_view(desk, hits[0])[2] == [("text", "Dessert "), ("mark", word)]
        assert hit_view(desk, hits[1])[2] == [("text", "zoe."), ("mark", word), ("text", "@example.com")]
        assert "Visitor's email" in hits[1].text

        # A result opens its conversation at the message, scrolled into view and marked.
        hits = search(desk, f"creme {word}")
        hits[3].find_element(By.CSS_SELECTOR, "a").click()
        desk.wait(lambda: desk.find("#conversation").get_attribute("data-conversation-id") == first and desk.find("#conversation").is_displayed(), message="the conversation")
        found = desk.wait(lambda: desk.find_all(f'#transcript > li[data-seq="{one}"].is-found'), message="the message marked")[0]
        desk.wait(lambda: desk.js("""const item = arguments[0].getBoundingClientRect(), list = document.getElementById('transcript').getBoundingClientRect();
                                     return item.top >= list.top - 1 && item.bottom <= list.bottom + 1""", found), message="the message in sight")
        last = desk.transcript_items("message")[-1]
        assert not desk.js("""const item = arguments[0].getBoundingClientRect(), list = document.getElementById('transcript').getBoundingClientRect();
                              return item.top >= list.top && item.bottom <= list.bottom""", last), "not the bottom of the conversation"
        # Back: the search is still there.
        desk.driver.back()
        desk.wait(lambda: desk.find("#search").is_displayed() and len(desk.find_all("#search-results > li")) == 4, message="the results again")
    finally:
        zoe.end(first)
        bob.end(second)
        desk.set_availability("online")


def test_load_more_follows_the_cursor_and_a_400_is_shown_by_its_field(admin_desk, world):
    desk = admin_desk
    desk.allow_console(r"/v1/desk/search\?\S+ - Failed to load resource: the server responded with a status of 400")
    desk.set_availability("away")
    word = unique_word()
    visitor = HTTPVisitor(world, "Paging Pia")
    conversation = visitor.open(subject="Many pages")
    try:
        seqs = [visitor.say(conversation, f"note {n} {word}") for n in range(25)]
        # "/" from the inbox opens the search with the keyboard in the field.
        desk.js("document.activeElement.blur()")
        desk.press("/")
        desk.wait(lambda: desk.find("#search").is_displayed() and desk.active().get_attribute("id") == "search-q", message="/ opens the search")
        assert desk.driver.current_url.endswith("#/search")

        search(desk, word)
        first_page = [item.get_attribute("data-seq") for item in desk.find_all("#search-results > li")]
        assert first_page == [str(seq) for seq in reversed(seqs)][:20]
        assert desk.find("#search-status").text == "20 results, more to load."
        more = desk.visible("#search-more")
        desk.js("arguments[0].focus()", more)
        desk.press(Keys.ENTER)
        items = wait_results(desk, 25)
        assert [item.get_attribute("data-seq") for item in items] == [str(seq) for seq in reversed(seqs)]
        assert not desk.find("#search-more").is_displayed(), "the last page has no cursor"
        assert desk.find("#search-status").text == "25 results."
        # The keyboard goes on from the first new result.
        assert desk.active().find_element(By.XPATH, "..").get_attribute("data-seq") == str(seqs[4])
        fetched = [request["url"] for request in desk.fetched("GET", "/v1/desk/search")]
        assert "cursor=" in fetched[-1] and "cursor=" not in fetched[-2]

        # The server's 400 names q: it is shown by the field, which is marked; nothing else is listed.
        search(desk, "x" * 201)
        error = desk.visible("#search-q-error")
        assert error.text.startswith("q:"), error.text
        assert desk.find("#search-q").get_attribute("aria-invalid") == "true"
        assert "search-q-error" in desk.find("#search-q").get_attribute("aria-describedby")
        assert len(desk.find_all("#search-results > li")) == 25, "the previous results stay"
        # A valid search clears it.
        search(desk, word)
        desk.gone("#search-q-error")
        assert desk.find("#search-q").get_attribute("aria-invalid") is None
        # A rating filter the corpus does not meet: nothing.
        desk.find(".search-filters > summary").click()
        desk.find("#search-rating").find_element(By.CSS_SELECTOR, 'option[value="5"]').click()
        desk.wait(lambda: desk.find("#search-status").text == f"Nothing found for “{word}”.", message="nothing rated 5")
        assert desk.find_all("#search-results > li") == []
        assert "rating=5" in desk.fetched("GET", "/v1/desk/search")[-1]["url"]
    finally:
        visitor.end(conversation)
        desk.set_availability("online")


def test_the_search_page_is_accessible_at_desktop_and_phone_width(admin_desk, world):
    desk = admin_desk
    desk.set_availability("away")
    word = unique_word()
    visitor = HTTPVisitor(world, "Axe Search " + "Long" * 12)
    conversation = visitor.open(subject="Readable results")
    try:
        visitor.say(conversation, f"{word} " + "averyveryverylongwordwithoutspaces" * 4)
        for width, height in ((1440, 900), (390, 844)):
            desk.driver.set_window_size(width, height)
            desk.wait(lambda: desk.js("return window.innerWidth") <= width, message="the resize")
            desk.js("location.hash = '#/inbox/mine'")
            desk.wait(lambda: desk.find("#inbox").is_displayed(), message="the inbox")
            open_search(desk)
            desk.find(".search-filters > summary").click()
            search(desk, word)
            wait_results(desk, 1)
            assert desk.accessibility_problems() == [], f"search at {width}"
            assert no_horizontal_scroll(desk), f"no sideways scrolling at {width}"
            # Keyboard: from the field, Tab reaches the scope, the filters and the result.
            reached = set()
            for _ in range(30):
                desk.press(Keys.TAB)
                reached.add(desk.active().get_attribute("id") or desk.active().get_attribute("class"))
                if "search-hit-link" in reached:
                    break
            assert {"search-submit", "search-scope-messages", "search-queue", "search-rating", "search-hit-link"} <= reached, reached
            desk.find(".search-filters > summary").click()
    finally:
        visitor.end(conversation)
        desk.driver.set_window_size(1280, 900)
        desk.set_availability("online")
