"""The bridge, checked from the host's side with the recorder standing in for the app: one scripted
chat records every page → host event on every channel (ours and Cisco's, iOS and Android), checked
against (or, with PARLEY_UPDATE_FIXTURES=1, written to) the fixture ParleyKit's ChatBridge tests read;
every host → page call of host-calls.json is evaluated in the page and its effect checked; customer
data with a user token starts a verified session."""
import base64
import hashlib
import hmac
import json
import os
import time
import urllib.request

from test_chat import start_chat

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
FIXTURES = os.path.join(ROOT, "Tests", "ParleyKitTests", "Fixtures", "ChatBridge")
ALL_CHANNELS = ("ios", "android", "ios-cisco", "android-cisco")


def shape(value):
    """What a fixture pins of a body: event names and handler names exactly, other values by type."""
    if isinstance(value, str) and value.startswith("{"):
        return {"json": shape(json.loads(value))}
    if isinstance(value, dict):
        return {key: (value[key] if key in ("parley", "event") else shape(value[key])) for key in sorted(value)}
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, (int, float)):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return [shape(item) for item in value]
    return "null"


def test_one_scripted_chat_records_every_event_on_every_channel(pages, world, agent):
    page, conversation = start_chat(pages, world, agent, channels=ALL_CHANNELS)
    # Cisco's Android host answers customer data synchronously; the page uses it.
    page.wait_bridge("chat_started")
    agent.say(conversation, "Have a look: https://outside.example/help")
    page.wait_message("Have a look", role="agent")
    page.wait_bridge("unread_changed")
    page.find("#transcript a[href='https://outside.example/help']").click()
    assert page.wait_bridge("open_url")["url"] == "https://outside.example/help"

    pdf = b"%PDF-1.4\n%%EOF\n"
    request = urllib.request.Request(f"{world.base}/v1/conversations/{conversation}/attachments?name=guide.pdf&client_message_id=0d3c9a4e-2222-4b4b-8c8c-abcdefabcdef",
                                     data=pdf, method="POST", headers={"Authorization": f"Bearer {agent.token}", "Content-Type": "application/pdf"})
    urllib.request.urlopen(request).close()
    page.wait(lambda: next((m for m in page.messages("agent") if "guide.pdf" in m.text), None), message="the file card")
    page.click("#transcript li[data-role=agent] .file-card button")
    page.wait_bridge("download_attachment")

    page.call({"parley": 1, "call": "show_close_button", "visible": True})
    page.click("#close-button")
    page.wait_bridge("chat_closed")
    page.call({"parley": 1, "call": "close_chat"})
    page.wait_screen("ended")
    page.wait_bridge("chat_ended")
    page.click("#save-transcript")
    page.wait_bridge("save_transcript")
    page.click("#print-transcript")
    page.wait_bridge("print_transcript")
    page.wait(lambda: any(e["handler"] == "printTranscript" for e in page.bridge()), message="Cisco's printTranscript")

    recorded = page.bridge()
    path = os.path.join(FIXTURES, "page-to-host.json")
    if os.environ.get("PARLEY_UPDATE_FIXTURES") == "1":
        with open(path, "w") as file:
            json.dump(recorded, file, indent=2, ensure_ascii=False)
            file.write("\n")
    with open(path) as file:
        expected = json.load(file)
    got = [(e["channel"], e["handler"], shape(e["body"])) for e in recorded]
    want = [(e["channel"], e["handler"], shape(e["body"])) for e in expected]
    assert got == want, "the page's bridge messages differ from the fixture (PARLEY_UPDATE_FIXTURES=1 rewrites it):\n" + \
        "\n".join(f"{g} != {w}" for g, w in zip(got, want) if g != w)

    # Every event of the contract, with its fields, on our two channels.
    ios = {e["body"]["event"]: e["body"] for e in recorded if e["channel"] == "ios"}
    android = {json.loads(e["body"])["event"] for e in recorded if e["channel"] == "android"}
    contract = {"page_ready": {"locale"}, "customer_data_requested": set(), "chat_started": {"conversation_id"}, "chat_closed": set(),
                "chat_ended": {"conversation_id"}, "save_transcript": {"conversation_id", "file_name", "html"},
                "print_transcript": {"conversation_id", "html"}, "open_url": {"url"}, "unread_changed": {"count"},
                "download_attachment": {"conversation_id", "attachment_id", "file_name", "content_type", "size", "url", "authorization"}}
    for event, fields in contract.items():
        assert event in ios and event in android, f"{event} missing"
        assert set(ios[event]) == {"parley", "event"} | fields, event
        assert ios[event]["parley"] == 1
    cisco = {(e["channel"], e["handler"]) for e in recorded if "cisco" in e["channel"]}
    assert cisco == {("ios-cisco", h) for h in ("IOSChatStarted", "IOSSetSessionId", "IOSChatClosed", "IOSChatEnded", "IOSGetCustomerData",
                                                 "IOSSaveTranscript", "IOSPrintTranscript", "IOSDownloadAttachment")} | \
        {("android-cisco", h) for h in ("onChatStarted", "setSid", "onChatClosed", "onChatEnded", "getCustomerData", "saveTranscript", "printTranscript")}
    started = [e for e in recorded if e["handler"] in ("IOSChatStarted", "IOSSetSessionId", "setSid")]
    assert all(e["body"] == conversation for e in started)


def visitor_of(world, page):
    conversation = world.admin.get(f"/v1/conversations/{page.conversation_id()}")
    return world.admin.get(f"/v1/visitors/{conversation['visitor_id']}")


def test_every_host_call_of_the_fixture_has_its_effect(pages, world, agent):
    with open(os.path.join(FIXTURES, "host-calls.json")) as file:
        calls = json.load(file)
    for entry in calls:
        if entry["call"] is not None:
            compact = json.dumps(entry["call"], sort_keys=True, separators=(",", ":"), ensure_ascii=False)
            assert entry["script"] == f"window.Parley.receive({compact})"
        else:
            assert entry["script"].startswith("window.MobileInterface.")

    page, conversation = start_chat(pages, world, agent, channels=("ios",))
    for entry in calls:
        name = entry["call"]["call"] if entry["call"] else entry["script"].split(".")[2].split("(")[0]
        if name in ("close_chat", "CloseChat") or (entry["call"] and "user_token" in entry["call"]):
            continue  # these end the page's chat: checked below, each on its own page
        page.js(entry["script"])
        if name == "show_close_button":
            visible = entry["call"]["visible"]
            page.wait(lambda: page.find("#close-button").is_displayed() == visible, message=entry["effect"])
        elif name == "ShowCloseButton":
            page.wait(lambda: page.find("#close-button").is_displayed(), message=entry["effect"])
        elif name == "set_locale":
            page.wait(lambda: page.js("return document.documentElement.lang") == "de" and page.find("#send").text == "Senden", message=entry["effect"])
        elif name in ("customer_data", "OnCustomerDataReceived"):
            page.wait(lambda: visitor_of(world, page).get("name") == "Ada Lovelace", message=entry["effect"])
            visitor = visitor_of(world, page)
            assert visitor.get("email") == "ada@example.com"
            if entry["call"]:
                assert visitor.get("attributes", {}).get("plan") == "pro"
        else:
            raise AssertionError(f"no check for {name}")

    for entry in [e for e in calls if e["script"].endswith("CloseChat()") or (e["call"] and e["call"]["call"] == "close_chat")]:
        other, _ = start_chat(pages, world, agent, channels=("ios",), label=entry["script"][:20])
        other.js(entry["script"])
        other.wait_screen("ended")
        other.wait_bridge("chat_ended")

    # The refused token: the host answers the page's request with the fixture's call (what its
    # script does: window.Parley.receive(call)), before the page would give up waiting.
    bad = next(e for e in calls if e["call"] and "user_token" in e["call"])
    answer = {key: value for key, value in bad["call"].items() if key not in ("parley", "call")}
    refused = pages.new("bad token", channels=("ios",), customer=answer)
    refused.open(world.app_id, world.support)
    refused.wait_screen("error")
    assert refused.conversation_id() is None
    assert not refused.find_all("#retry"), "a refused identity is final"
    refused.allow_console(r"v1/visitor/session - Failed to load resource: the server responded with a status of 401")


def hs256(claims, key):
    encode = lambda data: base64.urlsafe_b64encode(data).rstrip(b"=").decode()
    head = encode(json.dumps({"alg": "HS256", "typ": "JWT"}).encode())
    body = encode(json.dumps(claims).encode())
    signature = hmac.new(key.encode(), f"{head}.{body}".encode(), hashlib.sha256).digest()
    return f"{head}.{body}.{encode(signature)}"


def test_customer_data_with_a_user_token_starts_a_verified_session(pages, world, agent):
    secret = world.admin.post(f"/v1/admin/apps/{world.app_id}/rotate-key")["secret_key"]
    world.admin.put(f"/v1/admin/apps/{world.app_id}/identity", {"secret_key_tokens": True})
    now = int(time.time())
    token = hs256({"sub": "user-42", "aud": world.app_id, "exp": now + 600, "iat": now, "name": "Verified Vera"}, secret)
    page = pages.new(channels=("ios",), customer={"user_token": token})
    page.open(world.app_id, world.support)
    page.wait_screen("chatting")
    visitor = visitor_of(world, page)
    assert visitor.get("user_id") == "user-42" and visitor.get("name") == "Verified Vera"
