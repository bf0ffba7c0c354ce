"""Data masking: an admin sets the app's masking rules in the desk (a bad pattern's 400 shown,
nothing changed); a visitor's card number and order reference are masked on the device before they
are sent, and an agent's reply is masked by the server: the desk and the CLI show only the masked form."""
from test_admin import go
from test_forms import open_by_route, type_into


def press(desk, css):
    """Clicks a control of the page after dismissing the toasts (the assignment's) that may cover it, as a person would."""
    for close in desk.find_all("#toasts .toast-close"):
        close.click()
    desk.wait(lambda: not desk.find_all("#toasts .toast"), message="the toasts dismissed")
    desk.click(css)


def test_admin_sets_masking_rules_and_both_sides_see_only_the_masked_text(chat, world):
    desk, cli = chat
    desk.allow_console(r"/masking - Failed to load resource: the server responded with a status of 400")
    path = f"/v1/admin/apps/{world.app_id}/masking"
    previous = world.admin.get(path)
    try:
        go(desk, "masking")
        # Every built-in is on by default; there is no custom rule.
        assert desk.find("#masking-cards").is_selected() and desk.find("#masking-ssns").is_selected() and desk.find("#masking-ibans").is_selected()
        desk.visible("#masking-no-rules")

        # A pattern that could take exponential time: the server's 400 shows and nothing changes.
        press(desk, "#masking-add-rule")
        type_into(desk, "#masking-rule-0-name", "Order references")
        type_into(desk, "#masking-rule-0-pattern", "(ORD-\\d+)+x")
        type_into(desk, "#masking-rule-0-replacement", "ORD-••••••")
        press(desk, "#masking-save")
        error = desk.visible("#masking-error")
        assert error.text.startswith("Not saved:") and "custom[0].pattern" in error.text and "exponential" in error.text, error.text
        assert world.admin.get(path) == previous

        # Fixed, and IBANs turned off: saved, and the reloaded page shows it.
        type_into(desk, "#masking-rule-0-pattern", "ORD-\\d{6}")
        press(desk, "#masking-ibans")
        press(desk, "#masking-save")
        desk.wait(lambda: world.admin.get(path)["custom"] == [{"name": "Order references", "pattern": "ORD-\\d{6}", "replacement": "ORD-••••••"}],
                  message="the saved masking rules")
        saved = world.admin.get(path)
        assert saved["ibans"] is False and saved["card_numbers"] is True
        desk.wait(lambda: desk.find("#masking-rule-0-pattern").get_attribute("value") == "ORD-\\d{6}", message="the reloaded page")
        assert not desk.find("#masking-ibans").is_selected()

        # The visitor (ParleyKit in `parley chat`) masks before sending: the CLI says what was sent,
        # the desk shows only that. The CLI read the new rules when it next connected, so the
        # built-in card rule is what applies for sure; the server applies the custom one in any case.
        cli.say("My card is 4111 1111 1111 1111 and my order ORD-123456")
        cli.wait_for("· sent masked: My card is •••• •••• •••• 1111")
        open_by_route(desk, cli.conversation_id)
        received = desk.wait_for_item("My card is •••• •••• •••• 1111 and my order ORD-••••••", kind="message")
        assert "4111 1111 1111 1111" not in received.text and "123456" not in received.text

        # The agent's reply from the desk is masked by the server; the stored message replaces the
        # pending one in the desk, and the visitor gets the masked text.
        desk.type_and_send("Refunding to 5500-0000-0000-0004 now")
        cli.wait_for(f"{world.admin_name}: Refunding to ••••-••••-••••-0004 now")
        desk.wait_for_item("Refunding to ••••-••••-••••-0004 now", kind="message")
        desk.wait(lambda: all("5500-0000-0000-0004" not in item.text for item in desk.transcript_items("message")),
                  message="no raw number left in the desk's transcript")
        events = cli.http().get(f"/v1/conversations/{cli.conversation_id}/events")["events"]
        texts = [event["text"] for event in events if event.get("type") == "message"]
        assert len(texts) >= 2, texts
        assert not any("4111 1111 1111 1111" in text or "5500-0000-0000-0004" in text or "ORD-123456" in text for text in texts), texts
    finally:
        world.admin.put(path, previous)
