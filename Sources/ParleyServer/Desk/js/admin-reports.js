// Admin: Reports. How the team did over a range of days (GET /v1/admin/apps/{app}/reports, the
// server's figures for the conversations started in it): totals, conversations and first response
// per day as charts, per queue and per agent, ratings with comments, the CSV of the facts; and
// "Right now", who is online and how loaded. The range is kept while the desk is open.
import { api, ApiError } from "./api.js";
import { cell, table, toolbar } from "./admin-ui.js";
import { h, replaceChildren } from "./dom.js";
import { calendarDay, percent, readableDuration } from "./format.js";
import { conversationsChart, responseChart } from "./report-charts.js";
import { livePanel } from "./report-live.js";
import { currentRange, defaultRange, rangeForm, rangeQuery } from "./report-range.js";
import { RATINGS_PAGE, ratingsSection } from "./report-ratings.js";
import { state } from "./store.js";

/** The range last shown, kept across visits to the page. */
let chosen = null;
/** The page on screen: its live panel, range form, report body and the charts' observers. */
let page = null;

export async function renderReports() {
  leaveReports();
  chosen = chosen ? currentRange(chosen) : defaultRange();
  const body = h("div", { id: "report-body", class: "report-body", "aria-busy": "true" });
  const current = { live: livePanel(), body, observers: [], generation: 0, form: null };
  current.form = rangeForm(chosen, (range) => show(current, range));
  page = current;
  await Promise.all([show(current, chosen), current.live.refresh()]);
  return [
    toolbar("Figures for the conversations started in the chosen days, computed by the server. Right now is live."),
    current.live.element,
    h("section", { id: "report", class: "card report", "aria-labelledby": "report-title" },
      h("h3", { id: "report-title" }, "Over a range of days"),
      current.form.element,
      body),
  ];
}

/** Stops what the page follows (live updates, chart resizing) when it leaves the screen. */
export function leaveReports() {
  if (!page) return;
  page.live.stop();
  page.observers.forEach((observer) => observer.disconnect());
  page = null;
}

async function show(current, range) {
  const mine = ++current.generation;
  const base = `/v1/admin/apps/${state.me.app_id}/reports`;
  const query = rangeQuery(range);
  current.form.clearErrors();
  current.body.setAttribute("aria-busy", "true");
  let report;
  let ratings;
  try {
    [report, ratings] = await Promise.all([
      api("GET", `${base}?${query}`),
      api("GET", `${base}/ratings?${query}&limit=${RATINGS_PAGE}`),
    ]);
  } catch (error) {
    if (mine !== current.generation) return;
    current.body.setAttribute("aria-busy", "false");
    failed(current, error);
    return;
  }
  if (mine !== current.generation || page !== current) return;
  chosen = range;
  current.observers.forEach((observer) => observer.disconnect());
  current.observers = [];
  replaceChildren(current.body, content(current, report, ratings, range.zone, `${base}/ratings?${query}`, `${base}/conversations.csv?${query}`));
  current.body.setAttribute("aria-busy", "false");
}

/** A 400 goes by the field it names; anything else replaces the report with the server's words. */
function failed(current, error) {
  if (error instanceof ApiError && error.status === 401) return;
  if (error instanceof ApiError && error.status === 400) {
    current.form.showError(error.message);
    return;
  }
  const words = error instanceof ApiError && error.status === 403
    ? `Reports are for admins only (the server said: ${error.message}).`
    : `The report could not be read: ${error.message}`;
  replaceChildren(current.body, h("p", { id: "report-error", class: "form-error", role: "alert" }, words));
}

/** The report; `zone` is the time zone asked for (the server may name it otherwise: "GMT" for "UTC"). */
function content(current, report, ratings, zone, ratingsPath, csvPath) {
  const totals = report.totals;
  const range = { from: report.from, to: report.to };
  const heading = h("div", { class: "report-heading" },
    h("p", { id: "report-status", class: "report-status" },
      `Conversations started from ${calendarDay(report.from)} to ${calendarDay(report.to)} (${zone}).`),
    h("a", { id: "report-csv", class: "button", href: csvPath, download: `conversations-${report.from}-to-${report.to}.csv` }, "Download CSV"));
  if (totals.conversations === 0) {
    return [heading, h("p", { id: "report-empty", class: "empty report-empty" }, "No conversations started in these days. Choose other days above.")];
  }
  const charts = [conversationsChart(report.days, range), responseChart(report.days, range)];
  current.observers.push(...charts.map((chart) => chart.observer));
  return [
    heading,
    totalsList(totals),
    h("div", { class: "report-charts" }, charts.map((chart) => chart.element)),
    groupTable("Per queue", "queue", report.queues,
      "A conversation counts in the queue it is in now, or ended in."),
    groupTable("Per agent", "agent", report.agents,
      "Conversations, ended and resolution: those the agent handled last. Answered and first response: those they answered first."),
    ratingsSection(ratings, totals.rating.count, ratingsPath),
  ];
}

/** The range's totals, one card each. */
function totalsList(totals) {
  const item = (key, label, value, note) => h("div", { class: "report-total", dataset: { figure: key } },
    h("dt", {}, label), h("dd", { class: "report-total-value" }, value), h("dd", { class: "report-total-note" }, note));
  const rating = totals.rating;
  return h("dl", { id: "report-totals", class: "report-totals" },
    item("conversations", "Conversations", String(totals.conversations), `${totals.ended} ended`),
    item("answered", "Answered", percent(totals.answered, totals.conversations), `${totals.answered} of ${totals.conversations}`),
    item("first_response", "First response", percentiles(totals.first_response), `from ${totals.first_response.count} answered`),
    item("resolution", "Resolution", percentiles(totals.resolution), `from ${totals.resolution.count} ended`),
    item("rating", "Rating", rating.count > 0 ? h("span", { dataset: { average: rating.average } }, `${rating.average.toFixed(2)} / 5`) : "—",
      rating.count > 0 ? `from ${rating.count} rating${rating.count === 1 ? "" : "s"}` : "No ratings"));
}

/** "p50 1 min 30 s · p90 4 min", each value marked with its milliseconds. */
function percentiles(figures) {
  if (!figures.count) return "—";
  return h("span", { class: "report-percentiles" },
    h("span", { dataset: { percentile: "p50", ms: figures.p50_ms } }, `p50 ${readableDuration(figures.p50_ms)}`),
    h("span", { class: "report-separator" }, " · "),
    h("span", { dataset: { percentile: "p90", ms: figures.p90_ms } }, `p90 ${readableDuration(figures.p90_ms)}`));
}

function groupTable(caption, kind, groups, note) {
  const columns = ["Name", "Conversations", "Answered", "Ended", "First response", "Resolution", "Rating"];
  return h("div", { class: "report-group", id: `report-${kind}s` },
    table(`${caption}: ${groups.length}`, columns, groups.length === 0
      ? [h("tr", {}, h("td", { colspan: columns.length, class: "empty" }, "None in these days."))]
      : groups.map((group) => {
        const figures = group.figures;
        return h("tr", { dataset: { [`${kind}Id`]: group.id } },
          cell("Name", group.name ?? group.id),
          cell("Conversations", String(figures.conversations)),
          cell("Answered", String(figures.answered)),
          cell("Ended", String(figures.ended)),
          cell("First response", percentiles(figures.first_response)),
          cell("Resolution", percentiles(figures.resolution)),
          cell("Rating", figures.rating.count > 0 ? `${figures.rating.average.toFixed(2)} (${figures.rating.count})` : "—"));
      })),
    h("p", { class: "field-hint" }, note));
}
