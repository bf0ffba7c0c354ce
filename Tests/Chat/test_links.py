"""Links in the page: only http(s) is ever a link; the app's link policy opens a host inside the chat
(the in-page viewer), hands other links to the host (open_url) or blocks them and says so."""
from test_chat import start_chat

POLICY = {"inside_hosts": ["help.example.com", "*.example.org"], "other_links": "outside", "embed_origins": []}


def test_the_decision_and_the_parsing(pages, world):
    page = pages.new(channels=())
    page.open(world.app_id, world.nobody)
    page.wait_screen("unavailable")
    cases = [
        ("https://help.example.com/a", POLICY, "inside"), ("https://HELP.example.com./a", POLICY, "inside"),
        ("https://docs.example.org/x", POLICY, "inside"), ("https://a.b.example.org/x", POLICY, "inside"),
        ("https://example.org/x", POLICY, "outside"), ("https://badexample.org/x", POLICY, "outside"),
        ("https://help.example.com.evil.test/", POLICY, "outside"), ("http://shop.test/", {**POLICY, "other_links": "block"}, "block"),
        ("https://help.example.com@evil.example/", POLICY, None), ("https://user:pw@help.example.com/", POLICY, None),
        ("javascript:alert(1)", POLICY, None), ("data:text/html,hi", POLICY, None), ("ftp://files.example.com/", POLICY, None),
    ]
    got = page.module("js/links.js", "args[0].map(([url, policy]) => m.decide(url, policy))", cases)["value"]
    assert got == [expected for _, _, expected in cases]
    parts = page.module("js/links.js", "m.linkify(args[0])", "See https://x.test/a_(b). And (https://y.test/c), javascript:alert(1) ok")["value"]
    assert [p.get("url") for p in parts if p.get("url")] == ["https://x.test/a_(b)", "https://y.test/c"]
    assert "".join(p["text"] for p in parts) == "See https://x.test/a_(b). And (https://y.test/c), javascript:alert(1) ok"


def test_outside_links_go_to_the_host_and_without_a_host_to_a_new_tab(pages, world, agent):
    page, conversation = start_chat(pages, world, agent)
    agent.say(conversation, "Our shop: https://shop.example/deals")
    page.wait_message("Our shop", role="agent")
    page.find("#transcript a[href='https://shop.example/deals']").click()
    assert page.wait_bridge("open_url")["url"] == "https://shop.example/deals"
    assert len(page.driver.window_handles) == 1

    plain, other = start_chat(pages, world, agent, channels=(), label="no host")
    agent.say(other, "Our shop: https://shop.example/deals")
    plain.wait_message("Our shop", role="agent")
    plain.js("window.__opened = []; window.open = (url, target, features) => { window.__opened.push([url, target, features]); return null; }")
    plain.find("#transcript a[href='https://shop.example/deals']").click()
    assert plain.js("return window.__opened") == [["https://shop.example/deals", "_blank", "noopener,noreferrer"]]
