"""Placeholders in canned responses: filled from the visitor, the agent, the conversation and the
attributes (the conversation's before the visitor's) when the response is inserted; one without a
value stays in the text, is pointed out, and keeps the reply from being sent until it is gone."""
import uuid

from selenium.webdriver.common.keys import Keys

from harness.http import API

TEMPLATE = ("Hello {{visitor.name}}, this is {{agent.name}} about {{ conversation.id }} on the {{attributes.plan}} plan "
            "({{attributes.region}}). We write to {{visitor.email}}. Your code: {{attributes.coupon}}. Call us {{visitor.phone}}")


def test_a_canned_response_fills_its_placeholders_and_refuses_to_send_unfilled_ones(desks, world):
    canned = world.admin.post(f"/v1/admin/apps/{world.app_id}/canned-responses",
                              {"shortcut": "greet", "title": "Personal greeting", "text": TEMPLATE})
    visitor = None
    try:
        # A visitor over HTTP, so the conversation can carry attributes of its own: "plan" is set on
        # both (the conversation's wins), "region" on the visitor only, "coupon" nowhere.
        session = API(world.base).post("/v1/visitor/session", {
            "app_id": world.app_id, "device_id": str(uuid.uuid4()), "name": "Ada Lovelace", "email": "ada@example.com",
            "attributes": {"plan": "pro", "region": "EU"}})
        visitor = API(world.base, session["token"])
        conversation = visitor.post("/v1/conversations", {"subject": "Placeholders", "attributes": {"plan": "enterprise"}})
        conversation_id = conversation["id"]

        desk = desks.new("admin").login(world.admin_email, world.admin_password)
        desk.open_conversation(conversation_id)
        desk.wait(lambda: "ada@example.com" in desk.find("#visitor-details").text, message="the visitor panel")
        desk.wait(lambda: desk.composer().is_enabled(), message="the composer")

        box = desk.composer()
        box.send_keys("/greet")
        desk.visible('#canned-list [data-shortcut="greet"]')
        box.send_keys(Keys.ENTER)
        desk.gone("#canned-list")
        expected = (f"Hello Ada Lovelace, this is {world.admin_name} about {conversation_id} on the enterprise plan (EU). "
                    "We write to ada@example.com. Your code: {{attributes.coupon}}. Call us {{visitor.phone}}")
        assert box.get_attribute("value") == expected

        # Pointed out under the box, the box marked, the first one selected to be typed over.
        warning = desk.visible("#placeholder-warning")
        assert warning.get_attribute("role") == "alert"
        assert [mark.text for mark in warning.find_elements("css selector", "mark")] == ["{{attributes.coupon}}", "{{visitor.phone}}"]
        assert box.get_attribute("aria-invalid") == "true"
        assert "placeholder-warning" in box.get_attribute("aria-describedby").split()
        start = expected.index("{{attributes.coupon}}")
        assert desk.js("return [arguments[0].selectionStart, arguments[0].selectionEnd]", box) == [start, start + len("{{attributes.coupon}}")]

        # Enter does not send it: it says so and the text stays.
        box.send_keys("WELCOME")
        box.send_keys(Keys.ENTER)
        desk.wait(lambda: warning.text.startswith("Not sent: fill in or remove {{visitor.phone}}"), message="the refusal")
        assert box.get_attribute("value") == expected.replace("{{attributes.coupon}}", "WELCOME")
        assert not desk.find_all('#transcript [data-kind="pending"]')
        # …and selects the one left, so typing replaces it.
        box.send_keys("on request")
        desk.gone("#placeholder-warning")
        assert box.get_attribute("aria-invalid") is None
        box.send_keys(Keys.ENTER)

        sent = expected.replace("{{attributes.coupon}}", "WELCOME").replace("{{visitor.phone}}", "on request")
        desk.wait_for_item("Call us on request", kind="message")
        messages = [event["text"] for event in visitor.get(f"/v1/conversations/{conversation_id}/events?limit=500")["events"]
                    if event["type"] == "message"]
        assert messages == [sent], "the visitor got the filled text, once, and nothing with {{…}}"
    finally:
        if visitor is not None:
            try:
                visitor.post(f"/v1/conversations/{conversation_id}/end")
            except Exception:
                pass
        world.admin.request("DELETE", f"/v1/admin/apps/{world.app_id}/canned-responses/{canned['id']}")
