"""Forms: an admin defines one in the desk and chats are served it; a visitor's answers show in the
visitor panel with the form's labels. Everything happens in the Billing queue, so the CLI visitors
of the other tests (Support) never meet a required form."""
import uuid

from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support.ui import Select

from harness.http import API
from test_admin import confirm, go


def visitor_api(world, name="Grace"):
    session = API(world.base).post("/v1/visitor/session", {"app_id": world.app_id, "device_id": str(uuid.uuid4()), "name": name})
    return API(world.base, session["token"])


def open_by_route(desk, conversation_id):
    desk.js("location.hash = arguments[0]", f"#/c/{conversation_id}")
    desk.wait(lambda: desk.find("#conversation").get_attribute("data-conversation-id") == conversation_id and desk.find("#conversation").is_displayed(),
              message=f"conversation {conversation_id} open")


def forms_path(world, kind="pre_chat"):
    return f"/v1/admin/apps/{world.app_id}/forms/{kind}?queue={world.billing_queue}"


def choose(desk, css, value):
    Select(desk.find(css)).select_by_value(value)


def wait_page(desk):
    desk.wait(lambda: desk.find("#admin-body").get_attribute("aria-busy") == "false", message="the admin page")


def type_into(desk, css, text):
    """Replaces a field's text as a person does (select all, type): no intermediate empty value."""
    field = desk.find(css)
    field.send_keys(Keys.CONTROL, "a")
    field.send_keys(text)


def add_field(desk, index, kind, label, key=None):
    """Adds field `index` (0-based) with the editor's "Add field": its kind, English label and key."""
    desk.find("#form-add-field").click()
    type_into(desk, f"#form-field-{index}-label-en", label)
    if key:
        type_into(desk, f"#form-field-{index}-key", key)
    choose(desk, f"#form-field-{index}-kind", kind)


def test_admin_defines_a_pre_chat_form_that_chats_are_served(admin_desk, world):
    desk = admin_desk
    # No form yet answers 404, the refused definition 400: expected failed requests.
    desk.allow_console(r"/forms/pre_chat\?queue=\S+ - Failed to load resource: the server responded with a status of (404|400)")
    desk.allow_console(r"/forms/pre_chat - Failed to load resource: the server responded with a status of 404")
    visitor = visitor_api(world)
    assert visitor.get(f"/v1/forms?queue={world.billing_queue}").get("pre_chat") is None
    try:
        go(desk, "forms")
        choose(desk, "#form-kind", "pre_chat")
        wait_page(desk)
        choose(desk, "#form-scope", world.billing_queue)
        wait_page(desk)
        assert "Not defined for this queue" in desk.visible("#form-status").text

        type_into(desk, "#form-languages", "en, de\n")
        desk.wait(lambda: desk.find("#form-languages").get_attribute("value") == "en, de", message="the languages")
        add_field(desk, 0, "email", "Your email", key="email")
        type_into(desk, "#form-field-0-label-de", "Ihre E-Mail")
        desk.find("#form-field-0-required").click()
        add_field(desk, 1, "select", "Topic")  # no key: made from the label
        # A select without options is refused by the server: its message shows, nothing is saved.
        desk.find("#form-save").click()
        error = desk.visible("#form-editor-error")
        assert "Not saved" in error.text and "fields[1]" in error.text, error.text
        assert world.admin.status_of("GET", forms_path(world)) == 404

        type_into(desk, "#form-field-1-options", "billing = Billing\ntech = Technical")
        desk.find("#form-field-1-up").click()  # Topic first
        desk.wait(lambda: desk.find("#form-field-0-label-en").get_attribute("value") == "Topic", message="the field moved up")
        add_field(desk, 2, "phone", "Phone", key="phone")
        type_into(desk, "#form-field-2-calling-code", "49")
        desk.find("#form-save").click()
        desk.wait(lambda: "Saved: 3 fields." in desk.find("#form-status").text, message="the saved form")

        served = visitor.get(f"/v1/forms?queue={world.billing_queue}")["pre_chat"]
        fields = served["fields"]
        assert [field["key"] for field in fields] == ["topic", "email", "phone"]
        assert [field["kind"] for field in fields] == ["select", "email", "phone"]
        assert fields[0]["options"] == [{"value": "billing", "label": {"en": "Billing"}}, {"value": "tech", "label": {"en": "Technical"}}]
        assert fields[1]["label"] == {"en": "Your email", "de": "Ihre E-Mail"} and fields[1]["required"] is True
        assert fields[0].get("required", False) is False
        assert fields[2]["default_calling_code"] == "49"
        # The app-wide form is untouched: the Support queue's chats get none.
        assert visitor.get(f"/v1/forms?queue={world.support_queue}").get("pre_chat") is None

        desk.find("#form-delete").click()
        confirm(desk, "Delete the pre-chat form?")
        desk.wait(lambda: "Not defined for this queue" in desk.find("#form-status").text, message="the deleted form")
        assert visitor.get(f"/v1/forms?queue={world.billing_queue}").get("pre_chat") is None
    finally:
        world.admin.request("DELETE", forms_path(world), expect=204)


PRE_CHAT = {"kind": "pre_chat", "fields": [
    {"key": "topic", "kind": "select", "required": True, "label": {"en": "Topic"},
     "options": [{"value": "billing", "label": {"en": "Billing question"}}]},
    {"key": "email", "kind": "email", "required": True, "label": {"en": "Email address"}},
    {"key": "order", "kind": "single_line", "label": {"en": "Order"}},
    {"key": "newsletter", "kind": "checkbox", "label": {"en": "Newsletter"}},
]}
UNAVAILABLE = {"kind": "unavailable", "fields": [{"key": "message", "kind": "multi_line", "required": True, "label": {"en": "Your message"}}]}


def answer_rows(desk, kind):
    section = desk.visible(f'#visitor-forms section[data-form-kind="{kind}"]')
    terms = [term.text for term in section.find_elements(By.CSS_SELECTOR, "dt")]
    values = [value.text for value in section.find_elements(By.CSS_SELECTOR, "dd")]
    return section, list(zip(terms, values))


def test_form_answers_show_in_the_visitor_panel(admin_desk, world):
    desk = admin_desk
    world.admin.put(forms_path(world), PRE_CHAT)
    world.admin.put(forms_path(world, "unavailable"), UNAVAILABLE)
    visitor = visitor_api(world, "Grace Hopper")
    opened = []
    try:
        conversation = visitor.post("/v1/conversations", {"queue_id": world.billing_queue, "subject": "Invoice", "form_answers": {
            "topic": "billing", "email": "Grace@EXAMPLE.com", "order": "<b>#42</b>", "newsletter": True}})
        opened.append(conversation["id"])
        open_by_route(desk, conversation["id"])
        section, rows = desk.wait(lambda: (lambda found: found if len(found[1]) == 4 else None)(answer_rows(desk, "pre_chat")),
                                  message="the pre-chat answers")
        assert section.find_element(By.CSS_SELECTOR, "h4").text.startswith("Pre-chat")
        # Labels from the form, in its order; the option's label; the stored (normalised) email; markup as text.
        assert rows == [("Topic", "Billing question"), ("Email address", "Grace@example.com"), ("Order", "<b>#42</b>"), ("Newsletter", "Yes")]
        assert not desk.find_all("#visitor-forms b")

        # Nobody of Billing is online: an offline message, labelled as one.
        offline = visitor.post("/v1/conversations", {"queue_id": world.billing_queue, "offline": True, "form_answers": {"message": "Call me back"}})
        opened.append(offline["id"])
        open_by_route(desk, offline["id"])
        section, rows = answer_rows(desk, "unavailable")
        assert section.find_element(By.CSS_SELECTOR, "h4").text.startswith("Offline message")
        assert rows == [("Your message", "Call me back")]
        assert not desk.find_all('#visitor-forms section[data-form-kind="pre_chat"]')
    finally:
        for conversation_id in opened:
            visitor.exchange("POST", f"/v1/conversations/{conversation_id}/end")
        world.admin.request("DELETE", forms_path(world), expect=204)
        world.admin.request("DELETE", forms_path(world, "unavailable"), expect=204)


def test_a_long_label_leaves_its_answer_room(admin_desk, world):
    """A long question wraps above its answer, and the answer has the panel's width (an automatic
    label column once squeezed answers into letter-wide columns)."""
    desk = admin_desk
    label = "Please describe, in as much detail as you can, what you were doing when the problem first appeared"
    world.admin.put(forms_path(world), {"kind": "pre_chat", "fields": [{"key": "story", "kind": "single_line", "label": {"en": label}}]})
    visitor = visitor_api(world, "Lena Long")
    opened = []
    try:
        conversation = visitor.post("/v1/conversations", {"queue_id": world.billing_queue, "form_answers": {"story": "Checking out my basket"}})
        opened.append(conversation["id"])
        open_by_route(desk, conversation["id"])
        section, rows = desk.wait(lambda: (lambda found: found if found[1] else None)(answer_rows(desk, "pre_chat")), message="the answer")
        assert rows == [(label, "Checking out my basket")]
        term = section.find_element(By.CSS_SELECTOR, "dt").rect
        value = section.find_element(By.CSS_SELECTOR, "dd").rect
        panel = section.rect
        assert value["y"] >= term["y"] + term["height"] - 1, "the answer is under its question"
        assert value["width"] >= 0.9 * panel["width"], (value, panel)
        assert value["height"] <= 2.5 * 20, "the answer reads on a line or two, not a letter per line"
    finally:
        for conversation_id in opened:
            visitor.exchange("POST", f"/v1/conversations/{conversation_id}/end")
        world.admin.request("DELETE", forms_path(world), expect=204)

