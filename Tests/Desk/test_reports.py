"""Reports: an admin's page of the team's figures over a range of days, checked against a known
history made over HTTP on a parleyd of this module's own (so no other test's conversations count),
and against the server's own `/reports` answer for the range the page asked for. "Right now" and
the admin-only checks run on the suite's shared server."""
import csv
import datetime
import io
import os
import uuid
from types import SimpleNamespace
from zoneinfo import ZoneInfo

import pytest
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys

from conftest import ARTIFACTS, bin_dir
from harness.browser import Desk, make_driver
from harness.conversations import HTTPVisitor
from harness.http import API
from harness.server import Parleyd
from test_accessibility import UNLABELLED, no_horizontal_scroll
from test_admin import go
from test_phone_layout import INNER_SCROLLERS

# A zone far from UTC, so "today" and the days' edges are the browser's, not the server's.
BROWSER_ZONE = "Pacific/Auckland"
ADMIN_SCORES = [5, 4, 5, 3, 5, 2, 4]
GRACE_SCORES = [5, 1, 4, 5, 3]
# The known history (see `history`): 7 + 5 rated, one transferred, one in Billing, one cancelled
# while queued and one still waiting.
CONVERSATIONS = 16
ANSWERED = 14
RATINGS = len(ADMIN_SCORES) + len(GRACE_SCORES)
# "Right now" follows frames (`team`, `conversation`), never a timer: a change shows within this.
LIVE = 5


def readable_duration(ms):
    """format.js's readableDuration, for comparing what the page shows with the server's numbers."""
    if ms is None:
        return "—"
    if ms < 1000:
        return f"{ms} ms"
    if ms < 10000:
        return f"{ms // 100 / 10:.1f} s"
    seconds = ms // 1000

    def pair(big, big_unit, small, small_unit):
        return f"{big} {big_unit} {small} {small_unit}" if small else f"{big} {big_unit}"
    if seconds < 60:
        return f"{seconds} s"
    if seconds < 3600:
        return pair(seconds // 60, "min", seconds % 60, "s")
    if seconds < 86400:
        return pair(seconds // 3600, "h", seconds % 3600 // 60, "min")
    return pair(seconds // 86400, "d", seconds % 86400 // 3600, "h")


def percentiles_text(figures):
    if not figures["count"]:
        return "—"
    return f"p50 {readable_duration(figures['p50_ms'])} · p90 {readable_duration(figures['p90_ms'])}"


# MARK: - The history

def say(api, conversation_id, text):
    return api.post(f"/v1/conversations/{conversation_id}/messages", {"client_message_id": str(uuid.uuid4()), "text": text})


@pytest.fixture(scope="module")
def history(workdir):
    """A parleyd of its own with a known day of conversations, every agent offline (so nothing is
    routed: each conversation waits until its agent accepts it)."""
    os.makedirs(ARTIFACTS, exist_ok=True)
    server = Parleyd(os.path.join(bin_dir(), "parleyd"), os.path.join(workdir, "reports-data"), os.path.join(ARTIFACTS, "parleyd-reports.log"))
    server.start()
    try:
        yield make_history(server)
    finally:
        server.stop()


def make_history(server):
    demo = server.demo
    app, support = demo["app_id"], demo["queue_id"]
    login = API(server.base).post("/v1/agent/login", {"email": demo["email"], "password": demo["password"]})
    admin = API(server.base, login["token"])
    admin.patch(f"/v1/admin/apps/{app}/agents/{login['agent']['id']}", {"capacity": 50})
    billing = admin.post(f"/v1/admin/apps/{app}/queues", {"name": "Billing"})["id"]

    def agent(name, email, queue):
        made = admin.post(f"/v1/admin/apps/{app}/agents", {"name": name, "email": email, "password": "reports-password-1",
                                                           "role": "agent", "queue_ids": [queue], "capacity": 20})["agent"]
        token = API(server.base).post("/v1/agent/login", {"email": email, "password": "reports-password-1"})["token"]
        return made, API(server.base, token)

    grace, grace_api = agent("Grace Hopper", "grace@reports.test", support)
    alan, alan_api = agent("Alan Turing", "alan@reports.test", billing)
    place = SimpleNamespace(base=server.base, app_id=app)
    comments = []

    def conversation(queue, name):
        visitor = HTTPVisitor(place, name)
        conversation_id = visitor.open(subject=f"Report {name}", queue_id=queue)
        visitor.say(conversation_id, "Hello, a question")
        return visitor, conversation_id

    def handled(agent_api, score, comment, queue=support):
        visitor, conversation_id = conversation(queue, f"Visitor {len(comments) + 1}")
        agent_api.post(f"/v1/conversations/{conversation_id}/accept")
        say(agent_api, conversation_id, "Here to help")
        agent_api.post(f"/v1/conversations/{conversation_id}/end")
        if score:
            visitor.api.put(f"/v1/conversations/{conversation_id}/rating", {"score": score} | ({"comment": comment} if comment else {}))
            comments.append(comment)
        return conversation_id

    for index, score in enumerate(ADMIN_SCORES):
        # Two without a comment; one with markup and one a spreadsheet would run, both only text.
        comment = {1: None, 4: None, 2: "<b>Slow</b>, then fine\nsecond line", 5: "=1+1 said the form"}.get(index, f"Admin comment {index}")
        handled(admin, score, comment)
    for index, score in enumerate(GRACE_SCORES):
        handled(grace_api, score, f"Grace comment {index}")
    # Answered first by the admin, handled last by Grace, unrated.
    _, transferred = conversation(support, "Transferred")
    admin.post(f"/v1/conversations/{transferred}/accept")
    say(admin, transferred, "Let me pass you on")
    # Back to the queue (a transfer to an agent needs them online and connected), where Grace takes it.
    admin.post(f"/v1/conversations/{transferred}/transfer", {"queue_id": support})
    grace_api.post(f"/v1/conversations/{transferred}/accept")
    say(grace_api, transferred, "Grace here")
    grace_api.post(f"/v1/conversations/{transferred}/end")
    handled(alan_api, None, None, queue=billing)
    cancelled_visitor, cancelled = conversation(billing, "Gave up")
    assert cancelled_visitor.end(cancelled) == 200
    conversation(support, "Still waiting")

    return SimpleNamespace(server=server, base=server.base, app_id=app, support=support, billing=billing, admin=admin,
                           email=demo["email"], password=demo["password"], admin_id=login["agent"]["id"], admin_name=login["agent"]["name"],
                           grace=grace, alan=alan, comments=comments)


def report_desk(desks, history, label="reports", width=1280, height=900):
    """A desk on the module's server, in BROWSER_ZONE, signed in as its admin (offline: nothing is routed)."""
    desk = Desk(make_driver(width, height), history.base, label)
    desks.opened.append(desk)  # its console is checked and it is closed like the suite's others
    desk.driver.execute_cdp_cmd("Emulation.setTimezoneOverride", {"timezoneId": BROWSER_ZONE})
    return desk.login(history.email, history.password, online=False)


def reports_path(app_id):
    return f"/v1/admin/apps/{app_id}/reports"


def asked_report(desk, app_id):
    """The query of the page's last report request."""
    urls = [request["url"] for request in desk.fetched("GET", reports_path(app_id) + "?")]
    assert urls, "the page asked for a report"
    return urls[-1].split("?", 1)[1]


def wait_report(desk):
    desk.wait(lambda: desk.find("#report-body").get_attribute("aria-busy") == "false", message="the report")


def figure(desk, key):
    return desk.find(f'#report-totals [data-figure="{key}"] .report-total-value')


def row_cells(row):
    return [cell.text for cell in row.find_elements(By.CSS_SELECTOR, "td")]


# MARK: - Tests

def test_the_report_shows_the_servers_figures_for_the_browsers_days(desks, history):
    desk = report_desk(desks, history)
    go(desk, "reports")
    wait_report(desk)
    assert desk.find("#admin-title").text == "Reports"
    assert desk.find('#admin-nav a[href="#/admin/reports"]').get_attribute("aria-current") == "page"

    # The last 30 days up to today in the browser's zone, that zone sent as time_zone.
    query = asked_report(desk, history.app_id)
    today = datetime.datetime.now(ZoneInfo(BROWSER_ZONE)).date()
    expected = {"from": str(today - datetime.timedelta(days=29)), "to": str(today), "time_zone": BROWSER_ZONE}
    assert dict(item.split("=", 1) for item in query.replace("%2F", "/").split("&")) == expected, query
    report = history.admin.get(f"{reports_path(history.app_id)}?{query}")
    totals = report["totals"]

    # Hand-computed from the history, and the server agrees.
    assert totals["conversations"] == CONVERSATIONS and totals["answered"] == ANSWERED
    assert totals["rating"]["count"] == RATINGS
    assert totals["rating"]["average"] == round(sum(ADMIN_SCORES + GRACE_SCORES) / RATINGS, 2)
    assert figure(desk, "conversations").text == str(CONVERSATIONS)
    assert figure(desk, "answered").text == f"{round(ANSWERED / CONVERSATIONS * 100)} %"
    assert desk.find('#report-totals [data-figure="answered"] .report-total-note').text == f"{ANSWERED} of {CONVERSATIONS}"
    assert desk.find('#report-totals [data-figure="conversations"] .report-total-note').text == f"{totals['ended']} ended"
    assert figure(desk, "rating").text == f"{totals['rating']['average']:.2f} / 5"
    assert desk.find('#report-totals [data-figure="rating"] .report-total-note').text == f"from {RATINGS} ratings"
    for key in ("first_response", "resolution"):
        shown = {span.get_attribute("data-percentile"): span for span in
                 desk.find_all(f'#report-totals [data-figure="{key}"] [data-percentile]')}
        for name in ("p50", "p90"):
            assert int(shown[name].get_attribute("data-ms")) == totals[key][f"{name}_ms"], (key, name)
            assert shown[name].text == f"{name} {readable_duration(totals[key][f'{name}_ms'])}"
    status = desk.find("#report-status").text
    assert BROWSER_ZONE in status and status.startswith("Conversations started from")

    # Per agent and per queue: every row as the server counts it, most conversations first.
    agents = desk.find_all("#report-agents tbody tr")
    assert [row.get_attribute("data-agent-id") for row in agents] == [group["id"] for group in report["agents"]]
    assert [row_cells(row)[0] for row in agents] == [history.admin_name, "Grace Hopper", "Alan Turing"]
    by_name = {group["name"]: group["figures"] for group in report["agents"]}
    assert [by_name[name]["conversations"] for name in (history.admin_name, "Grace Hopper", "Alan Turing")] == [7, 6, 1]
    # The transferred conversation: answered first by the admin, handled last by Grace.
    assert by_name[history.admin_name]["answered"] == 8 and by_name["Grace Hopper"]["answered"] == 5
    for row, group in zip(agents, report["agents"]):
        figures = group["figures"]
        rating = f"{figures['rating']['average']:.2f} ({figures['rating']['count']})" if figures["rating"]["count"] else "—"
        assert row_cells(row) == [group["name"], str(figures["conversations"]), str(figures["answered"]), str(figures["ended"]),
                                  percentiles_text(figures["first_response"]), percentiles_text(figures["resolution"]), rating]
    queues = desk.find_all("#report-queues tbody tr")
    assert [(row_cells(row)[0], row_cells(row)[1]) for row in queues] == [("Support", "14"), ("Billing", "2")]
    assert [row.get_attribute("data-queue-id") for row in queues] == [group["id"] for group in report["queues"]]

    # The charts: one bar per day of the range with that day's numbers, a p50 and a p90 point per
    # day with answers, each an image with a summary and its numbers in a table.
    bars = desk.find_all("#report-chart-conversations .chart-day")
    assert len(bars) == 30 == len(report["days"])
    assert [(bar.get_attribute("data-date"), int(bar.get_attribute("data-conversations")), int(bar.get_attribute("data-answered")))
            for bar in bars] == [(day["date"], day["figures"]["conversations"], day["figures"]["answered"]) for day in report["days"]]
    assert bars[-1].get_attribute("data-date") == str(today) and bars[-1].get_attribute("data-conversations") == str(CONVERSATIONS)
    tallest = bars[-1].find_elements(By.CSS_SELECTOR, "rect")
    assert sum(float(rect.get_attribute("height")) for rect in tallest) > 100, "today's bar is the tall one"
    image = desk.find("#report-chart-conversations .chart-canvas")
    assert image.get_attribute("role") == "img" and f"{CONVERSATIONS} in all, {ANSWERED} answered" in image.get_attribute("aria-label")
    measured = [day for day in report["days"] if day["figures"]["first_response"]["count"]]
    points = desk.find_all("#report-chart-response circle.chart-point-p50")
    assert [(point.get_attribute("data-date"), int(point.get_attribute("data-ms"))) for point in points] == [
        (day["date"], day["figures"]["first_response"]["p50_ms"]) for day in measured]
    assert len(desk.find_all("#report-chart-response circle.chart-point-p90")) == len(measured) == 1
    assert desk.find("#report-chart-response .chart-canvas").get_attribute("role") == "img"
    desk.find("#report-chart-conversations details summary").click()
    table_rows = desk.find_all("#report-chart-conversations details tbody tr")
    assert len(table_rows) == 30 and row_cells(table_rows[-1]) == [str(CONVERSATIONS), str(ANSWERED), str(CONVERSATIONS - ANSWERED)]

    # Last 7 days: seven bars, the same conversations; days with nothing: the empty state.
    desk.find('#report-preset option[value="7"]').click()
    desk.wait(lambda: len(desk.find_all("#report-chart-conversations .chart-day")) == 7, message="seven bars")
    assert asked_report(desk, history.app_id).startswith(f"from={today - datetime.timedelta(days=6)}&to={today}&")
    assert figure(desk, "conversations").text == str(CONVERSATIONS)
    set_day(desk, "#report-from", "2020-01-01")
    set_day(desk, "#report-to", "2020-01-31")
    assert desk.find("#report-preset").get_attribute("value") == "custom"
    desk.click("#report-show")
    empty = desk.visible("#report-empty")
    assert "No conversations started" in empty.text
    assert not desk.find_all("#report-totals") and not desk.find_all(".chart")
    first_day = desk.js("return new Intl.DateTimeFormat(undefined, {dateStyle: 'medium', timeZone: 'UTC'}).format(new Date(Date.UTC(2020, 0, 1)))")
    assert f"from {first_day} to" in desk.find("#report-status").text

    # The server's 400 by the field it names; the report shown stays.
    desk.allow_console(r"/reports(/ratings)?\?.* - Failed to load resource: the server responded with a status of 400")
    set_day(desk, "#report-to", "2019-12-01")
    desk.click("#report-show")
    error = desk.visible("#report-to-error")
    assert error.text == "to: must not be before from"
    assert desk.find("#report-to").get_attribute("aria-invalid") == "true"
    assert desk.find_all("#report-empty")
    set_day(desk, "#report-to", "2020-01-31")
    desk.click("#report-show")
    desk.wait(lambda: not desk.find("#report-to-error").is_displayed(), message="the error cleared")
    assert desk.find("#report-to").get_attribute("aria-invalid") is None

    # Durations read as people say them (the page's own function, in the page).
    cases = [0, 240, 999, 1000, 4250, 9999, 10000, 42000, 60000, 90000, 3599000, 3600000, 3900000, 86400000, 97200000]
    shown = desk.driver.execute_async_script(
        "const [cases, done] = arguments; import('/desk/js/format.js').then((m) => done(cases.map(m.readableDuration)))", cases)
    assert shown == [readable_duration(ms) for ms in cases]
    assert shown[5] == "9.9 s" and shown[9] == "1 min 30 s" and shown[12] == "1 h 5 min" and shown[14] == "1 d 3 h"


def set_day(desk, css, day):
    """Sets a date field (typing into one depends on the browser's locale) and tells the page, as typing does."""
    field = desk.find(css)
    desk.js("arguments[0].value = arguments[1]; arguments[0].dispatchEvent(new Event('input', {bubbles: true}))", field, day)


def test_ratings_with_comments_page_and_the_csv_is_every_conversation(desks, history, tmp_path):
    desk = report_desk(desks, history)
    go(desk, "reports")
    wait_report(desk)

    # Newest first, ten at a time: "More ratings" follows the cursor, focus on the first new one.
    items = lambda: desk.find_all("#report-ratings-list > li")
    desk.wait(lambda: len(items()) == 10, message="the first page of ratings")
    assert desk.find("#report-ratings-status").text == f"10 of {RATINGS} ratings shown."
    newest = [comment for comment in reversed(history.comments)]
    text_of = lambda item: item.find_element(By.CSS_SELECTOR, ".report-rating-comment").text
    assert [text_of(item) for item in items()] == [comment or "No comment." for comment in newest[:10]]
    assert items()[0].find_element(By.CSS_SELECTOR, ".report-rating-score").text == f"{GRACE_SCORES[-1]} / 5"
    assert "Grace Hopper · Support" in items()[0].text
    assert not desk.find_all("#report-ratings-list b"), "a comment's markup stays text"
    desk.click("#report-ratings-more")
    desk.wait(lambda: len(items()) == RATINGS, message="the second page")
    assert [text_of(item) for item in items()] == [comment or "No comment." for comment in newest]
    assert not desk.find("#report-ratings-more").is_displayed()
    assert desk.active() == items()[10].find_element(By.CSS_SELECTOR, "a")
    pages = desk.fetched("GET", "/reports/ratings?")
    assert len(pages) == 2 and "limit=10" in pages[0]["url"] and "cursor=" in pages[1]["url"]
    link = items()[0].find_element(By.CSS_SELECTOR, "a").get_attribute("href")
    assert link.endswith(f"#/c/{items()[0].get_attribute('data-conversation-id')}")

    # The CSV: the link of the range on screen, authenticated by the session cookie alone.
    csv_link = desk.find("#report-csv")
    href = csv_link.get_attribute("href")
    query = asked_report(desk, history.app_id)
    assert href == f"{history.base}{reports_path(history.app_id)}/conversations.csv?{query}"
    answer = desk.fetch("GET", href)
    assert answer["status"] == 200
    rows = list(csv.reader(io.StringIO(answer["body"], newline="")))
    assert rows[0][:3] == ["conversation_id", "started_at", "day"]
    assert len(rows) - 1 == CONVERSATIONS
    assert "'=1+1 said the form" in [row[-1] for row in rows], "a formula-like comment is defused"
    assert "<b>Slow</b>, then fine\nsecond line" in [row[-1] for row in rows]
    assert API(history.base).status_of("GET", href.replace(history.base, "")) == 401, "without the session: refused"
    # Followed as a link, it downloads the same document.
    desk.driver.execute_cdp_cmd("Browser.setDownloadBehavior", {"behavior": "allow", "downloadPath": str(tmp_path)})
    csv_link.click()
    name = f"conversations-{query.split('from=')[1][:10]}-to-{query.split('to=')[1][:10]}.csv"
    downloaded = tmp_path / name
    desk.wait(lambda: downloaded.exists() and downloaded.stat().st_size > 0 and not list(tmp_path.glob("*.crdownload")),
              message="the downloaded CSV")
    assert downloaded.read_bytes().decode("utf-8") == answer["body"]


def test_reports_fit_phone_and_desktop_and_are_accessible(desks, history):
    desk = report_desk(desks, history, width=1440, height=900)
    for width, height in ((1440, 900), (390, 844)):
        desk.driver.set_window_size(width, height)
        desk.wait(lambda: width - 30 < desk.js("return window.innerWidth") <= width, message=f"the window at {width}")
        desk.js("location.hash = arguments[0]", "#/admin/agents")
        desk.wait(lambda: desk.find_all("#admin-body tbody tr"), message="the agents page")
        desk.js("location.hash = arguments[0]", "#/admin/reports")
        desk.wait(lambda: desk.find("#admin-body").get_attribute("aria-busy") == "false" and desk.find_all("#report-chart-response"),
                  message="the reports page")
        desk.wait(lambda: len(desk.find_all("#report-live tbody tr[data-agent-id]")) == 3, message="right now")
        for details in desk.find_all("#report details"):
            desk.js("arguments[0].open = true", details)
        # Each chart drawn as wide as its place, never wider.
        for chart in desk.find_all(".chart-canvas"):
            desk.wait(lambda: abs(float(chart.find_element(By.CSS_SELECTOR, "svg").get_attribute("width")) - chart.rect["width"]) <= 1,
                      message="the chart drawn at its width")
            assert chart.rect["x"] + chart.rect["width"] <= width
        assert no_horizontal_scroll(desk), f"no sideways scrolling at {width}"
        assert desk.js(UNLABELLED) == [], f"every control named at {width}"
        assert desk.accessibility_problems() == [], f"axe at {width}"
        if width == 390:
            assert desk.js(INNER_SCROLLERS) == [], "only the page scrolls"
            assert desk.find(".sidebar").rect["height"] <= 64, "the navigation stays one line"
            cards = desk.find_all("#report-totals .report-total")
            assert all(card.rect["x"] + card.rect["width"] <= width for card in cards)

    # By keyboard: the range form in order (a date field's parts are stops of their own), then Show.
    desk.driver.set_window_size(1440, 900)
    desk.js("document.getElementById('report-preset').focus()")
    reached = []
    for _ in range(12):
        desk.press(Keys.TAB)
        if not reached or reached[-1] != desk.active().get_attribute("id"):
            reached.append(desk.active().get_attribute("id"))
        if reached[-1] == "report-show":
            break
    assert reached == ["report-from", "report-to", "report-zone", "report-show"], reached
    desk.press(Keys.TAB)
    assert desk.active().get_attribute("id") == "report-csv"


def test_right_now_follows_availability_and_load(desks, admin_desk, world):
    desk = admin_desk
    desk.set_availability("away")  # nothing of this test is routed to the admin
    alan = API(world.base, API(world.base).post("/v1/agent/login", {"email": world.alan_email, "password": world.alan_password})["token"])
    visitor = None
    conversation = None
    try:
        alan.put("/v1/agent/availability", {"availability": "offline"})
        go(desk, "reports")
        row = lambda: desk.find(f'#report-live tr[data-agent-id="{world.alan["id"]}"]')
        desk.wait(lambda: row().get_attribute("data-availability") == "offline", message="Alan offline")
        team = world.admin.get("/v1/team")
        assert len(desk.find_all("#report-live tbody tr[data-agent-id]")) == len([agent for agent in team["agents"] if not agent["disabled"]])
        mine = desk.find(f'#report-live tr[data-agent-id="{world.admin_id}"]')
        assert mine.get_attribute("data-connected") == "true" and "Away" in mine.text
        assert row_cells(row())[2] == "No"

        # Alan opens his desk (routing needs his connection): the `team` frame naming him has the
        # panel read the team again at once. No timer: a few seconds are plenty.
        desks.new("alan").login(world.alan_email, world.alan_password, online=False)
        desk.wait(lambda: row().get_attribute("data-connected") == "true", timeout=LIVE, message="Alan connected")
        assert row_cells(row())[2] == "Yes"

        # Online over the API: the same.
        alan.put("/v1/agent/availability", {"availability": "online"})
        desk.wait(lambda: row().get_attribute("data-availability") == "online", timeout=LIVE, message="Alan online")
        assert "Online" in row_cells(row())[1]
        # A visitor in Billing is routed to him: the conversation frame updates his load at once.
        visitor = HTTPVisitor(world, "Right Now Visitor")
        conversation = visitor.open(subject="Load", queue_id=world.billing_queue)
        desk.wait(lambda: row().get_attribute("data-active") == "1", timeout=LIVE, message="Alan's load from the frame")
        assert row_cells(row())[3] == "1 of 3"
        meter = row().find_element(By.CSS_SELECTOR, "meter")
        assert meter.get_attribute("value") == "1" and meter.get_attribute("max") == "3"
        assert meter.get_attribute("aria-label") == f"Load of {world.alan['name']}: 1 of 3"

        # Offline again: shown; the ended conversation frees his load.
        alan.put("/v1/agent/availability", {"availability": "offline"})
        desk.wait(lambda: row().get_attribute("data-availability") == "offline", timeout=LIVE, message="Alan offline again")
        visitor.end(conversation)
        conversation = None
        desk.wait(lambda: row().get_attribute("data-active") == "0", timeout=LIVE, message="Alan's load freed")

        # A conversation waiting in Billing (nobody there is online) shows in its queue's row and the summary.
        visitor = HTTPVisitor(world, "Waiting For Billing")
        conversation = visitor.open(subject="Waits", queue_id=world.billing_queue)
        team = world.admin.get("/v1/team")
        waiting = next(queue["waiting"] for queue in team["queues"] if queue["id"] == world.billing_queue)
        assert waiting >= 1
        queue_row = lambda: desk.find(f'#report-live tr[data-queue-id="{world.billing_queue}"]')
        desk.wait(lambda: queue_row().get_attribute("data-waiting") == str(waiting), timeout=LIVE, message="the waiting one in Billing")
        total = sum(queue["waiting"] for queue in team["queues"])
        assert f"{total} conversation{'' if total == 1 else 's'} waiting." in desk.find("#report-live-summary").text
    finally:
        if conversation:
            visitor.end(conversation)
        alan.put("/v1/agent/availability", {"availability": "offline"})
        desk.set_availability("online")


def team_reads(desk):
    return len(desk.fetched("GET", "/v1/team"))


def test_right_now_reads_the_team_once_per_burst_of_team_frames(admin_desk, world):
    desk = admin_desk
    alan = API(world.base, API(world.base).post("/v1/agent/login", {"email": world.alan_email, "password": world.alan_password})["token"])
    try:
        alan.put("/v1/agent/availability", {"availability": "offline"})
        go(desk, "reports")
        row = lambda: desk.find(f'#report-live tr[data-agent-id="{world.alan["id"]}"]')
        desk.wait(lambda: row().get_attribute("data-availability") == "offline", message="Alan offline")

        # Six changes whose frames arrive together (held back, then delivered in one go): one reading
        # starts with the first frame, the other five ask for one more after it. Never six.
        desk.hold_frames()
        for availability in ("online", "away", "online", "away", "online", "away"):
            alan.put("/v1/agent/availability", {"availability": availability})
        before = team_reads(desk)
        assert desk.release_frames() >= 6
        desk.wait(lambda: row().get_attribute("data-availability") == "away", timeout=LIVE, message="Alan away, from the burst")
        desk.wait(lambda: team_reads(desk) - before >= 2, timeout=LIVE, message="the second reading")
        # A barrier: one more change. Its reading shows it, and whatever came before has been read.
        alan.put("/v1/agent/availability", {"availability": "offline"})
        desk.wait(lambda: row().get_attribute("data-availability") == "offline", timeout=LIVE, message="Alan offline, after the burst")
        assert 2 <= team_reads(desk) - before <= 3, f"{team_reads(desk) - before} readings for 7 frames"
    finally:
        alan.put("/v1/agent/availability", {"availability": "offline"})


def test_only_admins_get_reports_and_a_403_is_shown(desks, world):
    # A plain agent: no link, the address leads back to the inbox, and the server refuses.
    alan = desks.new("alan").login(world.alan_email, world.alan_password, online=False)
    assert not alan.find('#admin-nav a[href="#/admin/reports"]').is_displayed()
    alan.allow_console(r"/reports\?.* - Failed to load resource: the server responded with a status of 403")
    alan.open("#/admin/reports")
    alan.wait(lambda: alan.driver.current_url.endswith("#/inbox/mine"), message="a redirect to the inbox")
    assert not alan.find("#admin").is_displayed() and not alan.find_all("#report")
    assert alan.fetch("GET", f"{reports_path(world.app_id)}?from=2026-01-01&to=2026-01-02")["status"] == 403

    # An admin who stops being one while on the page: the next report is refused and says so.
    email = f"rita-{uuid.uuid4().hex[:8]}@desk.test"
    rita = world.admin.post(f"/v1/admin/apps/{world.app_id}/agents", {
        "name": "Rita Levi", "email": email, "password": "reports-password-1", "role": "admin", "queue_ids": [world.billing_queue], "capacity": 1,
    })["agent"]
    try:
        desk = desks.new("rita").login(email, "reports-password-1", online=False)
        desk.allow_console(r"/reports(/ratings)?\?.* - Failed to load resource: the server responded with a status of 403")
        go(desk, "reports")
        wait_report(desk)
        assert desk.find_all("#report-status")
        world.admin.patch(f"/v1/admin/apps/{world.app_id}/agents/{rita['id']}", {"role": "agent"})
        desk.find('#report-preset option[value="90"]').click()
        error = desk.visible("#report-error")
        assert error.text == "Reports are for admins only (the server said: admins only)."
        assert error.get_attribute("role") == "alert"
        assert not desk.find_all("#report-totals")
        assert desk.find("#report-preset").is_displayed(), "the range stays, to try again"
    finally:
        world.admin.patch(f"/v1/admin/apps/{world.app_id}/agents/{rita['id']}", {"disabled": True})
