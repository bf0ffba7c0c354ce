"""Files in the desk: attach by button, drop and paste; what waits in the composer and what Send does
with it (the text is the caption); image previews and file cards; downloads byte for byte; refusals
from the app's policy before sending and from the server after; cancel; a retry after a network
failure with the same client_message_id; the admin page; and the desk's own type check agreeing with
the server's. The visitor's side is checked over HTTP with the visitor's token (`parley chat` shows
only a file's caption)."""
import base64
import hashlib
import json
import struct
import urllib.error
import urllib.parse
import urllib.request
import uuid
import zlib

from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys

from test_accessibility import UNLABELLED
from test_admin import go
from test_forms import type_into, visitor_api

# MARK: - Files


def png(width, height, rgb=(36, 87, 197)):
    """A real PNG (8-bit RGB), so the browser decodes it and reports its natural size."""
    raw = b"".join(b"\x00" + bytes(rgb) * width for _ in range(height))

    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b""))


PDF = b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n1 0 obj << /Type /Catalog >> endobj\ntrailer << /Root 1 0 R >>\n%%EOF\n"
SVG = b'<svg xmlns="http://www.w3.org/2000/svg" onload="window.__pwned=4"><script>window.__pwned=5</script></svg>'


def sha256(data):
    return hashlib.sha256(data).hexdigest()


def js_file(name, data, type=""):
    return {"name": name, "b64": base64.b64encode(data).decode(), "type": type}


# Builds Files in the page from {name, b64, type}.
MAKE_FILES = """
const makeFiles = (specs) => specs.map((spec) => new File([Uint8Array.from(atob(spec.b64), (c) => c.charCodeAt(0))], spec.name, { type: spec.type }));
"""


def drag_over(desk, files):
    """Drags files over the conversation (dragenter, dragover) without dropping them."""
    desk.js(MAKE_FILES + """
        const transfer = new DataTransfer();
        for (const file of makeFiles(arguments[0])) transfer.items.add(file);
        window.__parleyDrag = transfer;
        const zone = document.getElementById('transcript');
        for (const type of ['dragenter', 'dragover']) zone.dispatchEvent(new DragEvent(type, { bubbles: true, cancelable: true, dataTransfer: transfer }));
    """, files)


def drop(desk, files):
    """Drops files on the transcript as a person dragging them from a file manager would."""
    drag_over(desk, files)
    desk.js("""
        const zone = document.getElementById('transcript');
        zone.dispatchEvent(new DragEvent('drop', { bubbles: true, cancelable: true, dataTransfer: window.__parleyDrag }));
    """)


def paste(desk, files, text=None):
    """Pastes files (and optionally text) into the reply box; returns whether the desk took over the paste."""
    return desk.js(MAKE_FILES + """
        const transfer = new DataTransfer();
        for (const file of makeFiles(arguments[0])) transfer.items.add(file);
        if (arguments[1] !== null) transfer.setData('text/plain', arguments[1]);
        const box = document.getElementById('composer-text');
        box.focus();
        const event = new ClipboardEvent('paste', { bubbles: true, cancelable: true, clipboardData: transfer });
        box.dispatchEvent(event);
        return event.defaultPrevented;
    """, files, text)


# MARK: - The desk


def staged(desk):
    return [element.text for element in desk.find_all("#composer-files .attachment-name")]


def wait_staged(desk, names):
    return desk.wait(lambda: staged(desk) == names, message=f"files waiting in the composer: {names}")


def file_item(desk, name, timeout=20):
    """The stored message (transcript item) whose attachment is named `name`."""
    def find():
        for item in desk.transcript_items("message"):
            names = item.find_elements(By.CSS_SELECTOR, ".attachment .attachment-name")
            if names and names[0].text == name:
                return item
        return None
    return desk.wait(find, timeout, f"a message with the file {name!r}")


def refusal(desk):
    return desk.wait(lambda: (lambda box: box.text if box.is_displayed() and box.text else None)(desk.find("#composer-refusal")),
                     message="the composer's refusal")


def fetch_hash(desk, url):
    """Downloads a URL inside the page (the session cookie only) and returns its status and SHA-256."""
    return desk.driver.execute_async_script("""
        const [url, done] = arguments;
        fetch(url, { credentials: 'same-origin' })
          .then(async (response) => {
            const digest = await crypto.subtle.digest('SHA-256', await response.arrayBuffer());
            done({ status: response.status, sha256: [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, '0')).join(''),
                   disposition: response.headers.get('Content-Disposition') });
          })
          .catch((error) => done({ status: 0, sha256: String(error) }));
    """, url)


# MARK: - The visitor and the server over HTTP


def raw_upload(api, conversation, name, data, client_message_id=None, caption=None):
    """POST …/attachments as a client other than the desk: (status, body)."""
    query = {"name": name, "client_message_id": client_message_id or str(uuid.uuid4())}
    if caption:
        query["caption"] = caption
    request = urllib.request.Request(f"{api.base}/v1/conversations/{conversation}/attachments?{urllib.parse.urlencode(query, quote_via=urllib.parse.quote)}",
                                     data=data, method="POST")
    request.add_header("Content-Type", "application/octet-stream")
    request.add_header("Authorization", f"Bearer {api.token}")
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read() or b"null")


def download(api, conversation, attachment_id):
    request = urllib.request.Request(f"{api.base}/v1/conversations/{conversation}/attachments/{attachment_id}")
    request.add_header("Authorization", f"Bearer {api.token}")
    with urllib.request.urlopen(request, timeout=30) as response:
        return response.read()


def file_messages(api, conversation):
    events = api.get(f"/v1/conversations/{conversation}/events?after=0&limit=500")["events"]
    return [event for event in events if event["type"] == "message" and event.get("attachment")]


def said_with_file(world, caption):
    """A CLI line with the agent's caption: `Name: caption`, or, from a CLI that knows files,
    `Name sent a file NAME (SIZE, TYPE); /save N keeps it: caption`."""
    return lambda line: line.startswith(world.admin_name) and line.endswith(caption)


class Policy:
    """Sets the app's attachment policy for a test and puts the previous one back."""

    def __init__(self, world):
        self.world = world
        self.path = f"/v1/admin/apps/{world.app_id}/attachments"
        self.previous = world.admin.get(self.path)

    def set(self, **changes):
        return self.world.admin.put(self.path, {**self.previous, **changes})

    def restore(self):
        self.world.admin.put(self.path, self.previous)


# MARK: - Tests


def test_a_file_chosen_with_the_button_waits_then_goes_with_the_text_as_caption(chat, world, tmp_path):
    desk, cli = chat
    attach = desk.find("#composer-attach")
    assert attach.accessible_name == "Attach files" and attach.is_enabled()
    # Keyboard: Tab from the reply box reaches the button, with a visible ring, and Enter opens the
    # file chooser (counted here instead: a headless browser shows none).
    desk.js("""
        window.__fileChoosers = 0;
        const click = HTMLInputElement.prototype.click;
        HTMLInputElement.prototype.click = function () {
          if (this.type === 'file') window.__fileChoosers += 1;
          else click.call(this);
        };
    """)
    desk.composer().click()
    ActionChains(desk.driver).send_keys(Keys.TAB).perform()
    assert desk.driver.switch_to.active_element == attach
    assert attach.value_of_css_property("outline-style") == "solid"
    ActionChains(desk.driver).send_keys(Keys.ENTER).perform()
    desk.wait(lambda: desk.js("return window.__fileChoosers") == 1, message="the file chooser by keyboard")
    path = tmp_path / "invoice-42.pdf"
    path.write_bytes(PDF)
    desk.find("#composer-file-input").send_keys(str(path))
    wait_staged(desk, ["invoice-42.pdf"])
    assert "PDF document" in desk.find("#composer-files").text
    assert desk.find("#composer-files-hint").text == "Send sends this file; any text in the reply box goes with it as its caption."
    assert desk.js(UNLABELLED) == []
    # Waiting is not sending: nothing reached the server.
    visitor = cli.http()
    assert file_messages(visitor, cli.conversation_id) == []

    desk.type_and_send("Your invoice, as promised")
    item = file_item(desk, "invoice-42.pdf")
    assert staged(desk) == [] and desk.composer().get_attribute("value") == ""
    card = item.find_element(By.CSS_SELECTOR, ".attachment-card")
    assert card.get_attribute("data-content-type") == "application/pdf"
    assert card.find_element(By.CSS_SELECTOR, ".attachment-meta").text == f"{len(PDF)} B · PDF document"
    assert item.find_element(By.CSS_SELECTOR, ".item-text").text == "Your invoice, as promised"
    assert not item.find_elements(By.CSS_SELECTOR, "img.attachment-preview")
    link = card.find_element(By.CSS_SELECTOR, "a")
    assert link.text == "Download" and link.get_attribute("download") == "invoice-42.pdf"
    assert link.get_attribute("aria-label") == f"Download invoice-42.pdf, {len(PDF)} B"

    # The visitor has it: the caption in the CLI, the file over HTTP, byte for byte.
    cli.wait_for(said_with_file(world, "Your invoice, as promised"))
    [message] = file_messages(visitor, cli.conversation_id)
    assert message["text"] == "Your invoice, as promised" and message["author"]["role"] == "agent"
    assert message["attachment"]["name"] == "invoice-42.pdf" and message["attachment"]["sha256"] == sha256(PDF)
    assert download(visitor, cli.conversation_id, message["attachment"]["id"]) == PDF
    # And the desk's download link gives the same bytes with the session cookie alone.
    fetched = fetch_hash(desk, link.get_attribute("href"))
    assert fetched["status"] == 200 and fetched["sha256"] == sha256(PDF)
    assert fetched["disposition"].startswith("attachment;")


def test_a_dropped_image_is_previewed_and_a_pasted_file_is_sent(chat, world):
    desk, cli = chat
    image = png(40, 30)
    drag_over(desk, [js_file("screenshot.png", image, "image/png")])
    desk.wait(lambda: "is-dropping" in desk.find("#conversation").get_attribute("class"), message="the drop zone")
    drop(desk, [js_file("screenshot.png", image, "image/png")])
    assert "is-dropping" not in desk.find("#conversation").get_attribute("class")
    wait_staged(desk, ["screenshot.png"])

    # A screenshot pasted from the clipboard has no name: it gets one from its type.
    assert paste(desk, [js_file("", b"Order 42: 3 items\n", "")]) is True
    desk.wait(lambda: len(staged(desk)) == 2, message="the pasted file waiting")
    pasted = staged(desk)[1]
    assert pasted.startswith("pasted-") and pasted.endswith(".txt"), pasted
    assert desk.find("#composer-files-hint").text.startswith("Send sends these 2 files, one message each;")
    desk.find("#composer-send").click()

    item = file_item(desk, "screenshot.png")
    preview = item.find_element(By.CSS_SELECTOR, ".attachment-image img.attachment-preview")
    desk.wait(lambda: desk.js("return arguments[0].complete && arguments[0].naturalWidth", preview) == 40, message="the decoded preview")
    assert desk.js("return arguments[0].naturalHeight", preview) == 30
    assert preview.get_attribute("alt") == "screenshot.png"
    # Bounded: never wider than its column, never taller than 14rem.
    assert preview.size["height"] <= 14 * 16
    text_item = file_item(desk, pasted)
    assert text_item.find_element(By.CSS_SELECTOR, ".attachment-card").get_attribute("data-content-type") == "text/plain"
    assert not text_item.find_elements(By.CSS_SELECTOR, ".item-text"), "no caption, no empty bubble"

    # A click opens the full image in a dialog, with its download link; Esc closes it.
    item.find_element(By.CSS_SELECTOR, ".attachment-open").click()
    dialog = desk.visible("#image-dialog")
    assert desk.find("#image-dialog-title").text == "screenshot.png"
    full = desk.find("#image-dialog-image")
    desk.wait(lambda: desk.js("return arguments[0].complete && arguments[0].naturalWidth", full) == 40, message="the full image")
    assert desk.find("#image-dialog-download").get_attribute("download") == "screenshot.png"
    dialog.send_keys(Keys.ESCAPE)
    desk.gone("#image-dialog")

    visitor = cli.http()
    messages = file_messages(visitor, cli.conversation_id)
    assert [m["attachment"]["name"] for m in messages] == ["screenshot.png", pasted]
    assert [m["attachment"]["content_type"] for m in messages] == ["image/png", "text/plain"]
    assert len({m["client_message_id"] for m in messages}) == 2, "a fresh client_message_id per file"
    assert download(visitor, cli.conversation_id, messages[0]["attachment"]["id"]) == image
    assert fetch_hash(desk, preview.get_attribute("src"))["sha256"] == sha256(image)
    # The inbox row says what came last.
    desk.wait(lambda: f"You: File: {pasted}" in desk.inbox_row(cli.conversation_id).text, message="the inbox preview")


def test_visitor_files_show_as_preview_or_card_and_names_and_svgs_stay_inert(chat, world):
    desk, cli = chat
    visitor = cli.http()
    policy = Policy(world)
    hostile = '<img src=x onerror="window.__pwned=1">.png'
    try:
        status, answer = raw_upload(visitor, cli.conversation_id, hostile, png(8, 8), caption="<b>look</b>")
        assert status == 201, answer
        status, answer = raw_upload(visitor, cli.conversation_id, "contract.pdf", PDF)
        assert status == 201, answer
        # An admin who allows every type still never gets an SVG rendered by the desk: it is a card.
        policy.set(allowed_types=["*/*"])
        status, answer = raw_upload(visitor, cli.conversation_id, "logo.svg", SVG)
        assert status == 201 and answer["event"]["attachment"]["content_type"] == "image/svg+xml", answer
    finally:
        policy.restore()

    image_item = file_item(desk, hostile)
    assert image_item.get_attribute("data-role") == "visitor"
    preview = image_item.find_element(By.CSS_SELECTOR, "img.attachment-preview")
    desk.wait(lambda: desk.js("return arguments[0].complete && arguments[0].naturalWidth", preview) == 8, message="the visitor's image")
    assert image_item.find_element(By.CSS_SELECTOR, ".item-text").text == "<b>look</b>"
    pdf_card = file_item(desk, "contract.pdf").find_element(By.CSS_SELECTOR, ".attachment-card")
    assert "PDF document" in pdf_card.text and f"{len(PDF)} B" in pdf_card.text
    svg_item = file_item(desk, "logo.svg")
    assert svg_item.find_elements(By.CSS_SELECTOR, ".attachment-card") and not svg_item.find_elements(By.CSS_SELECTOR, "img.attachment-preview")
    assert "image/svg+xml" in svg_item.text

    # The only elements user input made are the one <img> preview (of a PNG) and text; the other
    # images are the desk's own file icon.
    sources = desk.js("return [...document.querySelectorAll('#transcript img')].map((image) => image.getAttribute('src'))")
    assert [source for source in sources if source != "img/file.svg"] == [preview.get_attribute("src").removeprefix(world.base)], sources
    assert not desk.find_all("#transcript b, #transcript script")
    assert desk.js("return window.__pwned") is None
    fetched = fetch_hash(desk, svg_item.find_element(By.CSS_SELECTOR, "a").get_attribute("href"))
    assert fetched["sha256"] == sha256(SVG) and fetched["disposition"].startswith("attachment;")


def test_refusals_before_sending_and_from_the_server_leave_the_conversation_unchanged(chat, world):
    desk, cli = chat
    desk.allow_console(r"/attachments\?\S+ - Failed to load resource: the server responded with a status of (413|415)")
    visitor = cli.http()
    policy = Policy(world)
    try:
        # Set before the desk first needs the policy (it asks when a file arrives, then keeps it a minute).
        policy.set(max_bytes=1000)
        drop(desk, [js_file("big.txt", b"x" * 2000, "text/plain")])
        assert refusal(desk) == "Not attached: big.txt: a file may have at most 1.0 KB (1000 bytes)."
        assert staged(desk) == []
        # A program is refused by type, whatever its name claims; a lying name by its content.
        drop(desk, [js_file("setup.exe", b"MZ\x90\x00" + bytes(100), ""), js_file("photo.png", PDF, "image/png"),
                    js_file("fine.txt", b"fine\n", "text/plain")])
        desk.wait(lambda: "setup.exe" in refusal(desk), message="the new refusals")
        assert refusal(desk).split("\n") == [
            "Not attached: setup.exe: files of type application/x-msdownload are not accepted.",
            "Not attached: photo.png: the file's content is application/pdf, but its name says image/png.",
        ]
        wait_staged(desk, ["fine.txt"])
        desk.find('#composer-files button[aria-label="Remove fine.txt"]').click()
        desk.wait(lambda: not desk.find("#composer-files").is_displayed(), message="the file removed")

        # The policy changes after the desk read it: the desk lets a PDF wait, the server refuses it.
        drop(desk, [js_file("terms.pdf", PDF, "application/pdf")])
        wait_staged(desk, ["terms.pdf"])
        policy.set(max_bytes=1000, blocked_types=["application/pdf"])
        desk.type_and_send("Our terms")
        failed = desk.wait(lambda: desk.find_all('#transcript [data-kind="upload"].is-failed'), message="the refused file")[0]
        assert "Not sent: files of type application/pdf are not accepted" in failed.text
        assert not failed.find_elements(By.CSS_SELECTOR, "[data-upload-retry]"), "a refusal is not retried"
        assert "Our terms" in failed.text
        desk.wait(lambda: "not sent" in desk.find("#upload-status").get_attribute("textContent"), message="the announcement")
        failed.find_element(By.CSS_SELECTOR, "[data-upload-cancel]").click()
        desk.wait(lambda: not desk.find_all('#transcript [data-kind="upload"]'), message="the refused file dismissed")
        # The refusal made the desk ask again: the same PDF is now refused before sending.
        drop(desk, [js_file("terms.pdf", PDF, "application/pdf")])
        desk.wait(lambda: "terms.pdf: files of type application/pdf are not accepted" in refusal(desk), message="the refreshed policy")
        # Smaller again behind the desk's back: the server's 413, in its words.
        drop(desk, [js_file("notes.txt", b"n" * 900, "text/plain")])
        wait_staged(desk, ["notes.txt"])
        policy.set(max_bytes=500, blocked_types=["application/pdf"])
        desk.find("#composer-send").click()
        failed = desk.wait(lambda: desk.find_all('#transcript [data-kind="upload"].is-failed'), message="the file over the new limit")[0]
        assert "Not sent: a file may have at most 500 B (500 bytes)" in failed.text
        failed.find_element(By.CSS_SELECTOR, 'button[aria-label="Dismiss notes.txt"]').click()
        desk.wait(lambda: not desk.find_all('#transcript [data-kind="upload"]'), message="the refused file dismissed")

        # Internal notes carry no files.
        desk.set_mode("note")
        drop(desk, [js_file("fine.txt", b"fine\n", "text/plain")])
        desk.wait(lambda: "Internal notes cannot carry files" in refusal(desk), message="the note refusal")
        assert not desk.find("#composer-attach").is_enabled()
        desk.set_mode("reply")
    finally:
        policy.restore()

    # Nothing of it reached the visitor: a later reply does, no file did.
    desk.type_and_send("After the refusals")
    cli.wait_for(f"{world.admin_name}: After the refusals")
    assert file_messages(visitor, cli.conversation_id) == []
    assert "Our terms" not in cli.text()


def test_a_slow_upload_shows_progress_and_can_be_cancelled(chat, world):
    desk, cli = chat
    big = b"".join(f"line {n:07d} of a long log file\n".encode() for n in range(40_000))  # ≈ 1.3 MB of text
    desk.driver.execute_cdp_cmd("Network.enable", {})
    desk.driver.execute_cdp_cmd("Network.emulateNetworkConditions", {
        "offline": False, "latency": 0, "downloadThroughput": -1, "uploadThroughput": 100 * 1024})
    try:
        drop(desk, [js_file("server.log", big, "text/plain")])
        wait_staged(desk, ["server.log"])
        desk.find("#composer-send").click()
        item = desk.visible('#transcript [data-kind="upload"]')
        bar = item.find_element(By.CSS_SELECTOR, "progress")
        assert bar.get_attribute("aria-label") == "Sending server.log"
        desk.wait(lambda: 0 < float(bar.get_attribute("value")) < len(big), message="progress under way")
        desk.wait(lambda: item.find_element(By.CSS_SELECTOR, ".upload-percent").text.endswith(" %"), message="the percentage")
        cancel = item.find_element(By.CSS_SELECTOR, 'button[aria-label="Cancel sending server.log"]')
        cancel.click()
        desk.wait(lambda: not desk.find_all('#transcript [data-kind="upload"]'), message="the cancelled file to go")
        desk.wait(lambda: desk.find("#upload-status").get_attribute("textContent") == "Sending server.log cancelled.", message="the announcement")
    finally:
        desk.driver.execute_cdp_cmd("Network.emulateNetworkConditions", {
            "offline": False, "latency": 0, "downloadThroughput": -1, "uploadThroughput": -1})
    desk.type_and_send("After the cancelled file")
    cli.wait_for(f"{world.admin_name}: After the cancelled file")
    assert file_messages(cli.http(), cli.conversation_id) == []


def test_a_retry_after_a_network_failure_sends_the_same_message_once(chat, world):
    desk, cli = chat
    desk.allow_console(r"/attachments\?\S+ - Failed to load resource: net::ERR_BLOCKED_BY_CLIENT")
    # Record the desk's upload URLs (the client_message_id is in the query).
    desk.js("""
        window.__uploadURLs = [];
        const open = XMLHttpRequest.prototype.open;
        XMLHttpRequest.prototype.open = function (method, url) {
          window.__uploadURLs.push(String(url));
          return open.apply(this, arguments);
        };
    """)
    desk.driver.execute_cdp_cmd("Network.enable", {})
    desk.driver.execute_cdp_cmd("Network.setBlockedURLs", {"urls": ["*/attachments?*"]})
    try:
        drop(desk, [js_file("receipt.png", png(4, 4), "image/png")])
        wait_staged(desk, ["receipt.png"])
        desk.type_and_send("The receipt")
        failed = desk.wait(lambda: desk.find_all('#transcript [data-kind="upload"].is-failed'), message="the failed upload")[0]
        assert "Not sent: no connection to the server." in failed.text
    finally:
        desk.driver.execute_cdp_cmd("Network.setBlockedURLs", {"urls": []})
    failed.find_element(By.CSS_SELECTOR, 'button[aria-label="Retry sending receipt.png"]').click()
    item = file_item(desk, "receipt.png")
    assert item.find_element(By.CSS_SELECTOR, ".item-text").text == "The receipt"
    assert not desk.find_all('#transcript [data-kind="upload"]')

    urls = desk.js("return window.__uploadURLs")
    ids = [urllib.parse.parse_qs(urllib.parse.urlsplit(url).query)["client_message_id"][0] for url in urls if "/attachments?" in url]
    assert len(ids) == 2 and ids[0] == ids[1], ids
    cli.wait_for(said_with_file(world, "The receipt"))
    messages = file_messages(cli.http(), cli.conversation_id)
    assert [m["client_message_id"] for m in messages] == [ids[0]]


def save_and_reload(desk):
    """Saves the Attachments page and waits for the page rebuilt from the saved policy."""
    old = desk.find("#attachments-save")
    old.click()
    desk.wait(lambda: desk.find("#attachments-save") != old and desk.find("#admin-body").get_attribute("aria-busy") == "false",
              message="the page reloaded after saving")


def test_admin_sets_the_attachment_policy_and_sees_the_servers_400(admin_desk, world):
    desk = admin_desk
    desk.allow_console(r"/attachments - Failed to load resource: the server responded with a status of 400")
    policy = Policy(world)
    visitor = visitor_api(world)
    try:
        go(desk, "attachments")
        assert desk.find("#admin-title").text == "Attachments"
        assert desk.js(UNLABELLED) == []
        assert desk.find("#attachments-enabled").is_selected()
        assert round(float(desk.find("#attachments-max-mb").get_attribute("value")) * 1_000_000) == policy.previous["max_bytes"]
        assert desk.find("#attachments-allowed").get_attribute("value").split("\n") == policy.previous["allowed_types"]

        # A type the server does not take: its 400 is shown, and nothing changes.
        type_into(desk, "#attachments-allowed", "image/*\nnot a type")
        desk.find("#attachments-save").click()
        error = desk.visible("#attachments-error")
        assert error.text.startswith("Not saved:") and "allowed_types" in error.text and "not a type" in error.text, error.text
        assert world.admin.get(policy.path) == policy.previous

        type_into(desk, "#attachments-max-mb", "2.5")
        assert desk.find("#attachments-max-mb-hint").text.startswith("2,500,000 bytes (2.5 MB).")
        type_into(desk, "#attachments-allowed", "image/*\napplication/pdf\n")
        type_into(desk, "#attachments-blocked", "image/gif")
        save_and_reload(desk)
        expected = {"enabled": True, "max_bytes": 2_500_000, "allowed_types": ["image/*", "application/pdf"], "blocked_types": ["image/gif"]}
        assert visitor.get("/v1/attachments/policy") == expected
        assert not desk.find("#attachments-error").is_displayed()
        assert desk.find("#attachments-max-mb").get_attribute("value") == "2.5"

        # Off: served as off, and shown so after the page reloads.
        desk.find("#attachments-enabled").click()
        save_and_reload(desk)
        assert visitor.get("/v1/attachments/policy")["enabled"] is False
        assert not desk.find("#attachments-enabled").is_selected()
    finally:
        policy.restore()


# Files whose fate the desk predicts with its own copy of the server's checks (js/file-type.js,
# js/attachment-policy.js): each goes to the server too, and both must say the same.
SAMPLES = [
    ("shot.png", png(2, 2)),
    ("report.pdf", PDF),
    ("notes.txt", "héllo wörld\n".encode()),
    ("table.csv", b"a,b\n1,2\n"),
    ("letter.docx", b"PK\x03\x04" + bytes(60)),
    ("archive.zip", b"PK\x05\x06" + bytes(18)),
    ("song.mp3", b"ID3\x04\x00" + bytes(40)),
    ("clip.mov", b"\x00\x00\x00\x14ftypqt  " + bytes(20)),
    ("photo.png", PDF),
    ("invoice.pdf", b"MZ\x90\x00" + bytes(60)),
    ("tool", b"\x7fELF" + bytes(60)),
    ("page.html", b"\xef\xbb\xbf  <!DOCTYPE html><p>hi</p>"),
    ("drawing", SVG),
    ("backup.gz", b"\x1f\x8b\x08\x00" + bytes(20)),
    ("blob.bin", bytes(range(256))),
    ("empty.txt", b""),
    ("right\u202eexe.txt", b"plain\n"),
]


def test_the_desks_own_check_agrees_with_the_server(admin_desk, world):
    desk = admin_desk
    verdicts = desk.driver.execute_async_script(MAKE_FILES + """
        const [specs, done] = arguments;
        (async () => {
          const { checkFile, currentPolicy } = await import('/desk/js/attachment-policy.js');
          const policy = await currentPolicy();
          const results = [];
          for (const file of makeFiles(specs)) results.push(await checkFile(file, policy));
          return results.map(({ name, type, refusal }) => ({ name, type, refusal }));
        })().then(done, (error) => done(String(error)));
    """, [js_file(name, data) for name, data in SAMPLES])
    assert isinstance(verdicts, list), verdicts

    visitor = visitor_api(world, name="Sampler")
    conversation = visitor.post("/v1/conversations", {"queue_id": world.support_queue, "subject": "Samples"})["id"]
    try:
        for (name, data), verdict in zip(SAMPLES, verdicts):
            status, answer = raw_upload(visitor, conversation, name, data)
            if status == 201:
                assert verdict["refusal"] is None, (name, verdict)
                assert verdict["type"] == answer["event"]["attachment"]["content_type"], (name, verdict, answer)
            else:
                assert verdict["refusal"] and verdict["refusal"] in answer["error"]["message"], (name, status, verdict, answer)
    finally:
        visitor.post(f"/v1/conversations/{conversation}/end")
