"""The desk survives a server restart: a visible banner while disconnected, then it reconnects by
itself and resumes each conversation after the last seq it had, so nothing is missed or doubled."""
from selenium.webdriver.common.by import By


def message_items(desk):
    return [(int(item.get_attribute("data-seq")), item.find_element(By.CSS_SELECTOR, ".item-text").text)
            for item in desk.transcript_items("message")]


def test_restart_shows_a_banner_then_resumes_with_no_gap_and_no_duplicate(chat, server, world):
    desk, cli = chat
    cli.say("Before the restart")
    desk.wait_for_item("Before the restart", kind="message")
    assert not desk.find("#connection-banner").is_displayed()
    # While the server is down the browser logs its failed attempts; those are expected here.
    desk.allow_console(r"WebSocket connection to 'ws://.*/v1/realtime' failed")
    desk.allow_console(r"net::ERR_CONNECTION_REFUSED")

    seq_before = max(seq for seq, _ in message_items(desk))
    subscribes_before = len(desk.sent_frames("subscribe"))
    mark = cli.mark()
    server.stop()
    banner = desk.visible("#connection-banner")
    assert banner.text == "Reconnecting…"
    assert banner.get_attribute("role") == "status"
    assert desk.find("body").get_attribute("data-connection") == "down"
    # The banner floats: the composer's Send stays where it was, inside the window.
    send = desk.find("#composer-send").rect
    assert send["y"] + send["height"] <= desk.js("return window.innerHeight"), "Send is pushed out of sight"
    cli.wait_for("· connection lost", start=mark)

    # Typed while nothing is reachable: the CLI keeps them in its outbox and sends them on reconnect.
    during = [f"Sent while the server was down #{n}" for n in (1, 2, 3)]
    for text in during:
        cli.say(text)
    server.start()

    desk.gone("#connection-banner", timeout=30)
    desk.wait(lambda: desk.find("body").get_attribute("data-connection") == "ready", message="reconnected")
    for text in during:
        desk.wait_for_item(text, kind="message", timeout=30)
    # It resumed after what it had (with the epoch it had), rather than replaying from the start.
    resumed = [frame for frame in desk.sent_frames("subscribe")[subscribes_before:] if frame["conversation_id"] == cli.conversation_id]
    assert resumed, "the desk subscribed again after reconnecting"
    assert resumed[0]["after_seq"] >= seq_before
    assert resumed[0]["epoch"]

    shown = message_items(desk)
    texts = [text for _, text in shown]
    assert [text for text in texts if text in during] == during, "in order, each exactly once"
    assert texts.count("Before the restart") == 1
    seqs = [seq for seq, _ in shown]
    assert seqs == sorted(set(seqs)), "no duplicate seq, ascending"
    # Exactly the server's messages: nothing missed, nothing extra.
    stored = [(e["seq"], e["text"]) for e in world.admin.get(f"/v1/conversations/{cli.conversation_id}/events?limit=500")["events"]
              if e["type"] == "message"]
    desk.wait(lambda: message_items(desk) == stored, message="the transcript to equal the server's messages")

    # Live in both directions after the resume.
    desk.type_and_send("Back after the restart")
    cli.wait_for(f"{world.admin_name}: Back after the restart")
    cli.say("Still here")
    desk.wait_for_item("Still here", kind="message")
