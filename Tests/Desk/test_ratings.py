"""Ratings: what visitors gave (over HTTP) shows on the admin Ratings page and, once a conversation
ended, in its visitor panel; a rating or a post-chat form sent while the conversation is on screen
shows as it arrives (the `answers` frame), without a reload or another reading."""
from selenium.webdriver.common.by import By

from test_admin import go
from test_forms import answer_rows, open_by_route, visitor_api

POST_CHAT = {"kind": "post_chat", "fields": [{"key": "recommend", "kind": "checkbox", "label": {"en": "Would you recommend us?"}}]}


def rated_conversation(world, score, comment=None):
    """A conversation routed to the admin (online in a desk), ended and rated by its visitor."""
    visitor = visitor_api(world, f"Rater {score}")
    conversation = visitor.post("/v1/conversations", {"subject": f"Rated {score}"})
    assert conversation["state"] == "assigned" and conversation["agent_id"] == world.admin_id, conversation
    visitor.post(f"/v1/conversations/{conversation['id']}/end")
    body = {"score": score} | ({"comment": comment} if comment else {})
    visitor.put(f"/v1/conversations/{conversation['id']}/rating", body)
    visitor.put(f"/v1/conversations/{conversation['id']}/forms/post_chat", {"answers": {"recommend": score > 3}})
    return conversation["id"]


def test_ratings_page_shows_averages_and_the_panel_shows_the_rating(admin_desk, world):
    desk = admin_desk
    before = world.admin.get(f"/v1/admin/apps/{world.app_id}/ratings")["overall"]
    post_chat = f"/v1/admin/apps/{world.app_id}/forms/post_chat?queue={world.support_queue}"
    world.admin.put(post_chat, POST_CHAT)
    try:
        rated_conversation(world, 2)
        praised = rated_conversation(world, 5, "Quick and <i>kind</i>")
        summary = world.admin.get(f"/v1/admin/apps/{world.app_id}/ratings")
        assert summary["overall"]["count"] == before["count"] + 2

        go(desk, "ratings")
        overall = desk.visible("#ratings-overall")
        assert desk.find("#ratings-overall .ratings-average").text == f"{summary['overall']['average']:.2f}"
        assert f"from {summary['overall']['count']} ratings" in overall.text
        bars = [item.find_element(By.CSS_SELECTOR, ".ratings-bar-count").text for item in overall.find_elements(By.CSS_SELECTOR, ".ratings-bars li")]
        assert bars == [str(count) for count in summary["overall"]["distribution"]]
        assert int(bars[1]) >= 1 and int(bars[4]) >= 1

        mine = next(average for average in summary["agents"] if average["id"] == world.admin_id)
        row = desk.visible(f'tr[data-agent-id="{world.admin_id}"]')
        cells = [cell.text for cell in row.find_elements(By.CSS_SELECTOR, "td")]
        assert cells[0] == world.admin_name and cells[1] == str(mine["count"]) and cells[2] == f"{mine['average']:.2f}"
        assert desk.visible(f'tr[data-queue-id="{world.support_queue}"]').find_elements(By.CSS_SELECTOR, "td")[1].text == str(
            next(average for average in summary["queues"] if average["id"] == world.support_queue)["count"])

        open_by_route(desk, praised)
        # The post-chat answers, with the form's label, next to the rating.
        section, rows = answer_rows(desk, "post_chat")
        assert section.find_element(By.CSS_SELECTOR, "h4").text.startswith("Post-chat")
        assert rows == [("Would you recommend us?", "Yes")]
        rating = desk.visible("#visitor-rating")
        desk.wait(lambda: desk.find_all("#visitor-rating .rating-score"), message="the rating in the panel")
        assert desk.find("#visitor-rating .rating-score").get_attribute("data-score") == "5"
        assert "5 / 5" in rating.text
        assert desk.find("#visitor-rating .rating-comment").text == "Quick and <i>kind</i>"
        assert not desk.find_all("#visitor-rating i")
    finally:
        world.admin.request("DELETE", post_chat, expect=204)


def test_an_unrated_ended_conversation_says_so(admin_desk, world):
    desk = admin_desk
    visitor = visitor_api(world, "Silent")
    conversation = visitor.post("/v1/conversations", {"subject": "No rating"})
    open_by_route(desk, conversation["id"])
    assert not desk.find("#visitor-rating").is_displayed()  # not ended: no rating section
    visitor.post(f"/v1/conversations/{conversation['id']}/end")
    desk.wait(lambda: desk.find("#visitor-rating").is_displayed() and "Not rated" in desk.find("#visitor-rating").text,
              message="'Not rated' once ended")


def test_a_rating_and_a_post_chat_form_show_live_in_the_open_conversation(admin_desk, world):
    desk = admin_desk
    post_chat = f"/v1/admin/apps/{world.app_id}/forms/post_chat?queue={world.support_queue}"
    world.admin.put(post_chat, POST_CHAT)
    try:
        visitor = visitor_api(world, "Live Rater")
        conversation = visitor.post("/v1/conversations", {"subject": "Rated live"})
        assert conversation["agent_id"] == world.admin_id, conversation
        visitor.post(f"/v1/conversations/{conversation['id']}/end")
        open_by_route(desk, conversation["id"])
        desk.wait(lambda: "Not rated" in desk.find("#visitor-rating").text, message="'Not rated' before the visitor rates")
        desk.wait(lambda: desk.find("#visitor-forms").text == "None", message="no form answers yet")
        # The page is never loaded again, and nothing is read again: the frame alone brings the answers.
        desk.js("window.__sameDocument = true")
        read_before = len(desk.fetched("GET", f"/v1/conversations/{conversation['id']}/"))

        visitor.put(f"/v1/conversations/{conversation['id']}/rating", {"score": 4, "comment": "Helpful, <b>thanks</b>\nSee you"})
        desk.wait(lambda: desk.find_all("#visitor-rating .rating-score"), timeout=5, message="the rating, live")
        assert desk.find("#visitor-rating .rating-score").get_attribute("data-score") == "4"
        assert desk.find("#visitor-rating .rating-score").get_attribute("aria-label") == "Rated 4 out of 5"
        assert desk.find("#visitor-rating .rating-comment").text == "Helpful, <b>thanks</b>\nSee you"
        assert not desk.find_all("#visitor-rating b"), "the comment is text"

        visitor.put(f"/v1/conversations/{conversation['id']}/forms/post_chat", {"answers": {"recommend": True}})
        desk.wait(lambda: desk.find_all('#visitor-forms section[data-form-kind="post_chat"]'), timeout=5, message="the post-chat answers, live")
        section, rows = answer_rows(desk, "post_chat")
        assert section.find_element(By.CSS_SELECTOR, "h4").text.startswith("Post-chat")
        assert rows == [("Would you recommend us?", "Yes")], "with the form's label"

        # Rated again: the new score replaces the old one, the answers stay.
        visitor.put(f"/v1/conversations/{conversation['id']}/rating", {"score": 2})
        desk.wait(lambda: desk.find("#visitor-rating .rating-score").get_attribute("data-score") == "2", timeout=5, message="the new score")
        assert not desk.find_all("#visitor-rating .rating-comment")
        assert answer_rows(desk, "post_chat")[1] == [("Would you recommend us?", "Yes")]

        assert desk.js("return window.__sameDocument === true"), "no reload"
        assert len(desk.fetched("GET", f"/v1/conversations/{conversation['id']}/")) == read_before, "no reading: the frame carried it"
    finally:
        world.admin.request("DELETE", post_chat, expect=204)
