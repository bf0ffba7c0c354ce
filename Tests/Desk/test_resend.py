"""A reply that failed for want of a connection is sent again by itself once the desk is connected
again, with the same client_message_id: the visitor gets it once and the desk shows it once, also
when the first attempt did reach the server and only its answer was lost."""
import json

from selenium.webdriver.common.by import By


def shown(desk, text):
    """(stored messages, replies still pending) with this text in the transcript."""
    stored = [item for item in desk.transcript_items("message") if item.find_element(By.CSS_SELECTOR, ".item-text").text == text]
    pending = [item for item in desk.transcript_items("pending") if text in item.text]
    return len(stored), len(pending)


def client_ids(desk, text):
    """The client_message_id of every POST of this reply the page made."""
    return [json.loads(request["body"])["client_message_id"] for request in desk.fetched("POST", "/messages")
            if request["body"] and json.loads(request["body"]).get("text") == text]


def stored(world, cli, text):
    return [event for event in world.admin.get(f"/v1/conversations/{cli.conversation_id}/events?limit=500")["events"]
            if event["type"] == "message" and event.get("text") == text]


def check_sent_once(desk, cli, world, text):
    line = f"{world.admin_name}: {text}"
    cli.wait_for(line, timeout=40)
    desk.wait(lambda: shown(desk, text) == (1, 0), timeout=30, message="the reply shown once, sent")
    ids = client_ids(desk, text)
    assert len(ids) == 2 and len(set(ids)) == 1, f"sent twice with one client_message_id: {ids}"
    events = stored(world, cli, text)
    assert len(events) == 1 and events[0]["client_message_id"] == ids[0]
    # A later reply reaches the visitor: anything before it would have too.
    desk.type_and_send(f"After: {text}")
    cli.wait_for(f"{world.admin_name}: After: {text}")
    assert cli.text().count(line) == 1, "the visitor got it once"
    assert shown(desk, text) == (1, 0)


def test_a_reply_sent_while_the_server_is_down_goes_by_itself_on_reconnect(chat, server, world):
    desk, cli = chat
    desk.allow_console(r"WebSocket connection to 'ws://.*/v1/realtime' failed")
    desk.allow_console(r"net::ERR_CONNECTION_REFUSED")
    text = "Written while the server was away"
    server.stop()
    desk.visible("#connection-banner")
    desk.type_and_send(text)
    failed = desk.wait(lambda: desk.find_all('#transcript [data-kind="pending"].is-failed'), message="the failed reply")[0]
    assert "sent again by itself once the desk is reconnected" in failed.text
    server.start()
    desk.gone("#connection-banner", timeout=30)
    check_sent_once(desk, cli, world, text)


def test_a_reply_whose_answer_was_lost_is_sent_again_and_stored_once(chat, world):
    desk, cli = chat
    text = "The answer to this one is lost"
    # The connection breaks just after the request went out: the server stores the reply, but the
    # page gets neither the HTTP answer nor the event on its socket.
    desk.hold_frames()
    desk.lose_answer_of("POST", "/messages")
    desk.type_and_send(text)
    cli.wait_for(f"{world.admin_name}: {text}")
    desk.wait(lambda: desk.find_all('#transcript [data-kind="pending"].is-failed'), message="the reply marked failed")
    assert shown(desk, text) == (0, 1)
    desk.discard_held_frames()
    assert desk.drop_sockets() >= 1
    check_sent_once(desk, cli, world, text)
