"""Nothing lost, nothing twice: what the visitor sends waits in IndexedDB until the server has it,
across network loss, a reload and a server restart, and the transcript resumes by seq with no gap; a
message that failed shows Retry, which sends it once."""
from selenium.webdriver.common.by import By

from chatsuite.agent import reconnect
from conftest import screenshot
from test_chat import start_chat


def visitor_texts(agent, conversation):
    return [e["text"] for e in agent.events(conversation) if e["type"] == "message" and e["author"]["role"] == "visitor"]


def test_network_loss_then_back_delivers_each_message_once(pages, world, agent):
    page, conversation = start_chat(pages, world, agent)
    page.set_offline(True)
    page.type_and_send("sent while offline 1")
    page.type_and_send("sent while offline 2")
    page.wait(lambda: page.wait_message("offline 2").get_attribute("data-state") in ("sending", "failed"), message="pending while offline")
    assert page.js("return new Promise((done) => { const r = indexedDB.open('parley-chat'); r.onsuccess = () => { const q = r.result.transaction('outbox').objectStore('outbox').count(); q.onsuccess = () => done(q.result); }; })") == 2
    page.set_offline(False)
    page.wait(lambda: all(page.wait_message(t).get_attribute("data-state") in ("sent", "read") for t in ("offline 1", "offline 2")),
              timeout=30, message="both delivered after the network came back")
    assert visitor_texts(agent, conversation) == ["sent while offline 1", "sent while offline 2"]
    page.allow_console(r"ERR_INTERNET_DISCONNECTED|Failed to fetch|WebSocket connection")


def test_a_reload_with_messages_waiting_sends_them_once(pages, world, agent):
    page, conversation = start_chat(pages, world, agent)
    page.type_and_send("before the reload")
    page.wait(lambda: page.wait_message("before the reload").get_attribute("data-state") in ("sent", "read"), message="first delivered")
    # The send route fails (as a dead network would): the message stays in the outbox across the reload.
    page.driver.execute_cdp_cmd("Network.setBlockedURLs", {"urls": ["*/messages"]})
    page.type_and_send("waiting in the outbox")
    page.wait(lambda: page.wait_message("waiting in the outbox").get_attribute("data-state") == "failed", message="the send failed")
    page.driver.refresh()
    page.wait_screen("chatting")
    page.wait_subscribed()
    page.wait_message("waiting in the outbox")
    page.driver.execute_cdp_cmd("Network.setBlockedURLs", {"urls": []})
    page.wait(lambda: page.wait_message("waiting in the outbox").get_attribute("data-state") in ("sent", "read"), timeout=30,
              message="delivered after the reload")
    assert visitor_texts(agent, conversation) == ["before the reload", "waiting in the outbox"]
    # The reloaded transcript is the server's, each message once.
    assert page.message_texts("visitor").count("before the reload") == 1
    page.allow_console(r"/messages - Failed to load resource: net::ERR_BLOCKED_BY_CLIENT")


def test_a_failed_message_shows_retry_and_retry_sends_it_once(pages, world, agent):
    page, conversation = start_chat(pages, world, agent)
    page.allow_console(r"/messages - Failed to load resource: net::ERR_BLOCKED_BY_CLIENT")
    # The send route fails while blocked, so no resend of the page's own can succeed.
    page.driver.execute_cdp_cmd("Network.setBlockedURLs", {"urls": ["*/messages"]})
    page.type_and_send("sent by Retry")
    # The page tries again by itself, further apart each time (0.5 s doubling, ±20 %): once five tries
    # failed the next is at least 6.4 s away, so what sends the message below is the Retry button.
    tries = lambda: len(page.fetched("POST", f"/v1/conversations/{conversation}/messages"))

    def failed_with_retry():
        item = page.wait_message("sent by Retry")
        return tries() >= 5 and item.get_attribute("data-state") == "failed" and item.find_elements(By.CSS_SELECTOR, ".retry")
    page.wait(failed_with_retry, timeout=30, message="five failed tries, the message not sent, with Retry")
    item = page.wait_message("sent by Retry")
    assert "Not sent" in item.find_element(By.CSS_SELECTOR, ".status.failed").text
    assert item.find_element(By.CSS_SELECTOR, ".retry").text == "Retry"
    screenshot(page, "message-failed-retry")
    assert visitor_texts(agent, conversation) == []

    page.driver.execute_cdp_cmd("Network.setBlockedURLs", {"urls": []})
    before = tries()
    page.click("#transcript .retry")
    page.wait(lambda: page.wait_message("sent by Retry").get_attribute("data-state") in ("sent", "read"), timeout=5,
              message="sent by Retry (before the page's own next try)")
    assert tries() == before + 1, "Retry sent it with one request"
    assert not page.find_all("#transcript .retry")
    assert visitor_texts(agent, conversation) == ["sent by Retry"]
    assert page.message_texts("visitor").count("sent by Retry") == 1


def test_server_restart_resumes_by_seq_with_no_gap(pages, world, agent, server):
    page, conversation = start_chat(pages, world, agent)
    agent.say(conversation, "before the restart")
    page.wait_message("before the restart", role="agent")
    server.restart()
    reconnect(agent)
    page.type_and_send("written while the server was away")
    for n in range(1, 4):
        agent.say(conversation, f"missed reply {n}")
    for n in range(1, 4):
        page.wait_message(f"missed reply {n}", role="agent", timeout=30)
    page.wait(lambda: page.wait_message("while the server was away").get_attribute("data-state") in ("sent", "read"), timeout=30,
              message="the visitor's message delivered")
    last_seq = agent.api.get(f"/v1/conversations/{conversation}")["last_seq"]
    page.wait(lambda: page.find("body").get_attribute("data-last-seq") == str(last_seq), message="every event up to the last seq")
    assert page.message_texts("agent") == ["before the restart", "missed reply 1", "missed reply 2", "missed reply 3"]
    assert visitor_texts(agent, conversation) == ["written while the server was away"]
    page.allow_console(r"WebSocket connection|Failed to load resource|ERR_CONNECTION_REFUSED")
