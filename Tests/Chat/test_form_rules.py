"""The page's form rules (js/form-rules.js) against the shared field validation table: the rows the
server, ParleyKit and ParleyCore run (Tests/ParleyTestSupport/FieldValidationCases.swift, exported to
fixtures/field-validation-cases.json by ParleyCoreTests), each run through the page in Chromium."""
import json
import os

HERE = os.path.dirname(os.path.abspath(__file__))


def test_the_page_agrees_with_the_shared_table(pages, world):
    with open(os.path.join(HERE, "fixtures", "field-validation-cases.json")) as file:
        rows = json.load(file)
    assert len(rows) >= 60
    page = pages.new(channels=())
    page.open(world.app_id, world.nobody)
    page.wait_screen("unavailable")
    results = page.module("js/form-rules.js", """args[0].map((row) => {
        const answers = Object.hasOwn(row, 'input') ? {[row.field.key]: row.input} : {};
        return m.validateForm({kind: 'pre_chat', fields: [row.field]}, answers);
    })""", rows)
    assert results["ok"], results["value"]
    disagreements = []
    for row, result in zip(rows, results["value"]):
        key = row["field"]["key"]
        expected = row["expected"]
        if "error" in expected:
            want = {"errors": [{"key": key, "code": expected["error"]}]}
        elif "no_answer" in expected:
            want = {"values": {}}
        else:
            want = {"values": {key: expected["value"]}}
        if result != want:
            disagreements.append(f"{row['name']}: page {result}, table {want}")
    assert not disagreements, "\n".join(disagreements)
