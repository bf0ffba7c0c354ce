"""The Transcript menu: the HTML document and plain text as plain links (the session cookie is the
only credential), and "Email transcript…" showing the server's answer."""
import uuid

from selenium.webdriver.common.by import By

from harness.browser import Desk, make_driver
from harness.http import API
from test_forms import open_by_route


def open_menu(desk):
    desk.find("#transcript-menu summary").click()
    desk.visible("#transcript-html")


def test_transcript_links_return_the_document_with_the_session_cookie(chat, world):
    desk, cli = chat
    desk.type_and_send("Your parcel left today <3")
    cli.wait_for("Your parcel left today <3")
    cli.say("Thanks & bye")
    desk.wait_for_item("Thanks & bye")
    conversation = cli.conversation_id

    open_menu(desk)
    html_link = desk.find("#transcript-html").get_attribute("href")
    text_link = desk.find("#transcript-text").get_attribute("href")
    assert f"/v1/conversations/{conversation}/transcript" in html_link and "format=text" in text_link
    assert desk.find("#transcript-download").get_attribute("download") == f"transcript-{conversation}.html"

    # A plain navigation, as a click in a new tab does: only the cookie goes along. (The tab asks
    # for /favicon.ico, which parleyd does not serve.)
    desk.allow_console(r"/favicon.ico - Failed to load resource: the server responded with a status of 404")
    desk_window = desk.driver.current_window_handle
    desk.driver.switch_to.new_window("tab")
    try:
        desk.driver.get(html_link)
        desk.wait(lambda: "Thanks &amp; bye" in desk.driver.page_source, message="the HTML transcript")
        assert "Your parcel left today &lt;3" in desk.driver.page_source
        assert not desk.driver.find_elements(By.CSS_SELECTOR, "script")
        desk.driver.get(text_link)
        body = desk.wait(lambda: desk.driver.find_element(By.TAG_NAME, "body").text, message="the text transcript")
        assert "Thanks & bye" in body and "Your parcel left today <3" in body
    finally:
        desk.driver.close()
        desk.driver.switch_to.window(desk_window)
    # Without the cookie the same link is refused.
    assert API(world.base).status_of("GET", html_link.removeprefix(world.base.rstrip("/"))) == 401


def test_email_transcript_is_not_offered_by_a_server_without_mail(chat):
    """This server runs without SMTP: the desk's session says so and the menu has no email action."""
    desk, cli = chat
    open_menu(desk)
    assert not desk.find("#transcript-email").is_displayed()
    assert desk.find("#transcript-menu").text.strip(), "the rest of the menu is there"


def test_email_transcript_is_queued_on_a_server_that_sends_mail(own_server, desks):
    """A second parleyd with --smtp (pointing at a closed port: the 202 only says "queued", the
    mailer's retries happen later): the dialog closes and the toast names the address and status."""
    server = own_server("mail", ["--smtp", "smtp://127.0.0.1:9", "--mail-from", "Parley <desk@example.com>"])
    demo = server.demo
    desk = Desk(make_driver(), server.base, "mail-desk")
    desks.opened.append(desk)  # console checked and browser closed like the others
    desk.login(demo["email"], demo["password"])
    session = API(server.base).post("/v1/visitor/session", {"app_id": demo["app_id"], "device_id": str(uuid.uuid4()), "name": "Mae",
                                                            "email": "mae@example.org"})
    visitor = API(server.base, session["token"])
    conversation = visitor.post("/v1/conversations", {"subject": "Mail me"})
    visitor.post(f"/v1/conversations/{conversation['id']}/messages", {"client_message_id": str(uuid.uuid4()), "text": "Please send this"})
    open_by_route(desk, conversation["id"])

    desk.allow_console(r"transcript/email - Failed to load resource: the server responded with a status of 400")
    open_menu(desk)
    desk.find("#transcript-email").click()
    field = desk.visible("#form-dialog").find_element(By.CSS_SELECTOR, 'input[name="email"]')
    assert field.get_attribute("value") == "mae@example.org", "the visitor's own address, pre-filled"
    field.clear()
    field.send_keys("not an address")
    desk.find("#form-dialog-submit").click()
    assert desk.visible("#form-dialog-error").text.startswith("Not sent: email:")
    field.clear()
    field.send_keys("Mae@Example.COM")
    desk.find("#form-dialog-submit").click()
    desk.gone("#form-dialog")
    toast = desk.wait(lambda: next((item.text for item in desk.find_all("#toasts .toast") if "Transcript email" in item.text), None),
                      message="the queued toast")
    assert "Transcript email to Mae@example.com queued (pending)." in toast, toast
    login = API(server.base).post("/v1/agent/login", {"email": demo["email"], "password": demo["password"]})
    emails = API(server.base, login["token"]).get(f"/v1/conversations/{conversation['id']}/transcript/emails")["emails"]
    assert [email["recipient"] for email in emails] == ["Mae@example.com"]
