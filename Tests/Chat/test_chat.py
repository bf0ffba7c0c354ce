"""A whole chat as a visitor in the page, with the admin as the agent over HTTP and a socket:
joined, typing both ways, delivery states and read receipts both ways, links, long and multi-line
text, emoji, files both ways, ending, the agent leaving (a transfer, the end), and the transcript
(email, save, print)."""
import base64

from selenium.webdriver.common.by import By

from conftest import screenshot


def start_chat(pages, world, agent, size=None, channels=("ios",), label="visitor"):
    page = pages.new(label, **({"size": size} if size else {}), channels=channels)
    page.open(world.app_id, world.support)
    page.wait_screen("chatting")
    page.wait_subscribed()
    conversation = page.conversation_id()
    agent.subscribe(conversation)
    page.wait(lambda: any("joined" in notice for notice in page.notices()), message="the joined notice")
    return page, conversation


def test_a_chat_from_hello_to_transcript(pages, world, agent):
    page, conversation = start_chat(pages, world, agent)
    assert page.find("#title").text == "Acme help"
    assert page.find("#transcript .welcome").text == "Hi! How can we help?"
    assert page.wait_bridge("chat_started")["conversation_id"] == conversation

    # Typing, visitor → agent.
    page.js("const box = document.getElementById('composer-text'); box.value = 'Hel'; box.dispatchEvent(new Event('input', {bubbles: true}))")
    agent.wait_typing(conversation, True)

    # A multi-line message with emoji and a link: sent, then stored once.
    text = "Hello 👋 my order\nnever came: https://shop.example/orders/42."
    page.type_and_send(text)
    item = page.wait_message("never came")
    page.wait(lambda: item.get_attribute("data-state") == "sent", message="the message sent")
    link = item.find_element(By.CSS_SELECTOR, "a")
    assert link.get_attribute("href") == "https://shop.example/orders/42"
    assert link.text == "https://shop.example/orders/42"
    stored = agent.wait_event(conversation, lambda e: e["type"] == "message" and e["author"]["role"] == "visitor", what="the visitor's message")
    assert stored["text"] == text
    agent.wait_typing(conversation, False)

    # Read receipt, agent → visitor.
    agent.read(conversation, stored["seq"])
    page.wait(lambda: page.wait_message("never came").get_attribute("data-state") == "read", message="the Read receipt")

    # Typing, agent → visitor; then the reply (a javascript: URL stays text).
    agent.typing(conversation, True)
    page.wait(lambda: page.find("#typing").is_displayed() and "typing" in page.find("#typing").text, message="the agent typing")
    reply = agent.say(conversation, "Sorry! Track it here: https://track.example/42 (not javascript:alert(1))")
    page.wait_message("Track it here", role="agent")
    page.wait(lambda: not page.find("#typing").is_displayed(), message="typing hidden by the reply")
    links = page.wait_message("Track it here").find_elements(By.CSS_SELECTOR, "a")
    assert [a.get_attribute("href") for a in links] == ["https://track.example/42"]

    # Read receipt, visitor → agent (the page is on screen).
    agent.wait_event(conversation, lambda e: e["type"] == "read" and e["author"]["role"] == "visitor" and e["read_seq"] >= reply["seq"],
                     what="the visitor's read receipt")

    # Long text wraps inside the bubble, without a horizontal scroll.
    long_text = "word " * 1200 + "end-of-long-text"
    page.type_and_send(long_text)
    page.wait_message("end-of-long-text")
    assert page.js("return document.documentElement.scrollWidth <= window.innerWidth")
    screenshot(page, "chatting")

    # The visitor ends the chat (confirmed in a dialog): ended, then the transcript.
    page.click("#end-chat")
    page.click("#end-confirm")
    page.wait_screen("ended")
    assert page.wait_bridge("chat_ended")["conversation_id"] == conversation
    screenshot(page, "ended")
    page.click("#save-transcript")
    saved = page.wait_bridge("save_transcript")
    assert saved["conversation_id"] == conversation and saved["file_name"].endswith(".html")
    assert "never came" in saved["html"] and "<html" in saved["html"].lower()
    page.click("#print-transcript")
    assert "Track it here" in page.wait_bridge("print_transcript")["html"]
    # Email: this parleyd has no SMTP, so the page says email is not available (409 from the server).
    page.find("#transcript-email").send_keys("ada@example.com")
    page.click(".email-form button")
    page.wait(lambda: "not available" in page.find(".email-status").text, message="the email answer")
    page.allow_console(r"transcript/email - Failed to load resource: the server responded with a status of 409")

    events = agent.events(conversation)
    texts = [e["text"] for e in events if e["type"] == "message" and e["author"]["role"] == "visitor"]
    assert texts == [text, long_text], "every message stored exactly once, in order"


def test_files_both_ways(pages, world, agent, tmp_path):
    page, conversation = start_chat(pages, world, agent)
    # The visitor attaches a PNG through the real file input.
    png = base64.b64decode("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==")
    path = tmp_path / "dot.png"
    path.write_bytes(png)
    page.find("#file-input").send_keys(str(path))
    page.wait(lambda: next((m for m in page.messages("visitor") if "dot.png" in m.text and m.get_attribute("data-state") in ("sent", "read")), None),
              message="the file in the transcript, sent")
    page.wait(lambda: page.js("const img = document.querySelector('#transcript img.file-image'); return img && img.complete && img.naturalWidth === 1"),
              message="the stored image to decode")
    stored = agent.wait_event(conversation, lambda e: bool(e.get("attachment")), what="the visitor's file")
    assert stored["attachment"]["name"] == "dot.png" and stored["attachment"]["content_type"] == "image/png"

    # The agent sends a PDF: a card with Download, which hands the host a URL and the authorization.
    import urllib.request
    pdf = b"%PDF-1.4\n1 0 obj<<>>endobj\ntrailer<<>>\n%%EOF\n"
    request = urllib.request.Request(f"{world.base}/v1/conversations/{conversation}/attachments?name=invoice.pdf&client_message_id=6f1c7a9e-1111-4a4a-9b9b-123456789abc",
                                     data=pdf, method="POST", headers={"Authorization": f"Bearer {agent.token}", "Content-Type": "application/pdf"})
    with urllib.request.urlopen(request) as response:
        assert response.status == 201
    card = page.wait(lambda: next((m for m in page.messages("agent") if "invoice.pdf" in m.text), None), message="the agent's file card")
    card.find_element(By.CSS_SELECTOR, "button").click()
    download = page.wait_bridge("download_attachment")
    assert download["file_name"] == "invoice.pdf" and download["content_type"] == "application/pdf" and download["size"] == len(pdf)
    assert download["authorization"].startswith("Bearer pv1.")
    fetched = urllib.request.Request(download["url"], headers={"Authorization": download["authorization"]})
    with urllib.request.urlopen(fetched) as response:
        assert response.read() == pdf


def test_keyboard_only(pages, world, agent):
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.common.keys import Keys

    page, conversation = start_chat(pages, world, agent, size=(1440, 900))
    keys = ActionChains(page.driver)

    def tab_to(element_id, limit=15):
        for _ in range(limit):
            if page.js("return document.activeElement && document.activeElement.id") == element_id:
                return
            ActionChains(page.driver).send_keys(Keys.TAB).perform()
        raise AssertionError(f"Tab never reached #{element_id}")

    page.js("document.activeElement && document.activeElement.blur()")
    tab_to("composer-text")
    # Focus is visible: the composer draws an outline.
    assert page.js("return getComputedStyle(document.activeElement).outlineStyle") != "none"
    keys.send_keys("first line").key_down(Keys.SHIFT).send_keys(Keys.ENTER).key_up(Keys.SHIFT).send_keys("second line").send_keys(Keys.ENTER).perform()
    page.wait_message("second line")
    assert agent.wait_event(conversation, lambda e: e["type"] == "message" and e["author"]["role"] == "visitor")["text"] == "first line\nsecond line"

    # Shift+Tab from the composer reaches the header's End chat.
    for _ in range(15):
        if page.js("return document.activeElement.id") == "end-chat":
            break
        ActionChains(page.driver).key_down(Keys.SHIFT).send_keys(Keys.TAB).key_up(Keys.SHIFT).perform()
    assert page.js("return document.activeElement.id") == "end-chat"
    ActionChains(page.driver).send_keys(Keys.ENTER).perform()
    page.wait(lambda: page.js("return document.getElementById('end-dialog').open"), message="the end dialog")
    tab_to("end-confirm")
    ActionChains(page.driver).send_keys(Keys.ENTER).perform()
    page.wait_screen("ended")


def test_the_agent_leaving_by_transfer_and_by_ending_is_shown(pages, world, agent):
    page, conversation = start_chat(pages, world, agent)
    left = f"{world.admin_name} left the chat"
    agent.say(conversation, "Let me pass you to a colleague")
    page.wait_message("pass you to a colleague", role="agent")

    # The agent transfers the chat to a queue nobody of theirs serves: they leave, the visitor waits again.
    moved = agent.api.post(f"/v1/conversations/{conversation}/transfer", {"queue_id": world.waiting})
    assert moved["state"] == "queued"
    page.wait(lambda: left in page.notices() and "Waiting for another agent…" in page.notices(), message="the left and waiting notices")
    assert page.notices().index(left) < page.notices().index("Waiting for another agent…")
    screenshot(page, "agent-left-transferred")

    # An agent takes it, then ends it: they leave again, and the chat is over.
    agent.api.post(f"/v1/conversations/{conversation}/accept")
    page.wait(lambda: page.notices().count(f"{world.admin_name} joined the chat") == 2, message="the agent joined again")
    agent.api.post(f"/v1/conversations/{conversation}/end")
    page.wait_screen("ended")
    page.wait(lambda: page.notices().count(left) == 2 and "The chat has ended." in page.notices(), message="the left and ended notices")
    reasons = [e["reason"] for e in agent.events(conversation) if e["type"] == "participant_left"]
    assert reasons == ["transferred", "ended"]
    screenshot(page, "agent-left-ended")
