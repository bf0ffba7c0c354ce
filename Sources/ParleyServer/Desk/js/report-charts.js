// The Reports page's charts, drawn as SVG by the desk: conversations per day (answered and not,
// one stacked bar per day) and first response per day (p50 and p90 lines, a point per day with
// answers). Each is an image with a summary for screen readers (role="img", aria-label) and its
// numbers in a table under "Show the numbers". Drawn at the width they get, so the text stays
// readable from phones to wide screens; redrawn when that width changes.
import { h } from "./dom.js";
import { calendarDay, readableDuration } from "./format.js";

const SVG = "http://www.w3.org/2000/svg";
const HEIGHT = 220;
/** Space for the axes' labels, in pixels. */
const MARGIN = { top: 12, right: 12, bottom: 26 };
/** A day's label needs about this much room; the others are skipped (the last day always shown). */
const LABEL_WIDTH = 56;
/** Nice steps for a duration axis, in milliseconds: 1 ms … 1 day. */
const DURATION_STEPS = [1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000, 10000, 15000, 30000, 60000, 120000, 300000,
  600000, 900000, 1800000, 3600000, 7200000, 10800000, 21600000, 43200000, 86400000];

function svg(tag, attributes = {}, ...children) {
  const element = document.createElementNS(SVG, tag);
  for (const [key, value] of Object.entries(attributes)) {
    if (value !== undefined && value !== null) element.setAttribute(key, String(value));
  }
  for (const child of children.flat()) {
    if (child !== null && child !== undefined) element.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return element;
}

/**
 * Conversations per day: answered at the bottom of each bar, not answered on top. Returns
 * `{element, observer}`; disconnect the observer when the chart leaves the page.
 */
export function conversationsChart(days, range) {
  const total = days.reduce((sum, day) => sum + day.figures.conversations, 0);
  const answered = days.reduce((sum, day) => sum + day.figures.answered, 0);
  const busiest = days.reduce((best, day) => (day.figures.conversations > (best?.figures.conversations ?? 0) ? day : best), null);
  const summary = `Conversations per day, ${calendarDay(range.from)} to ${calendarDay(range.to)}: ${total} in all, ${answered} answered`
    + (busiest ? `; the busiest day ${calendarDay(busiest.date)} with ${busiest.figures.conversations}.` : ".");
  const step = niceStep(Math.max(1, ...days.map((day) => day.figures.conversations)) / 4, [1, 2, 5].flatMap((n) => [n, n * 10, n * 100, n * 1000]).sort((a, b) => a - b));
  const draw = (width) => {
    const chart = frame(width, days.length, step, Math.max(1, ...days.map((day) => day.figures.conversations)), (value) => String(value), 36);
    days.forEach((day, index) => {
      const { conversations, answered: yes } = day.figures;
      const x = chart.barX(index);
      const top = chart.y(conversations);
      const middle = chart.y(yes);
      chart.plot.append(svg("g", { class: "chart-day", "data-date": day.date, "data-conversations": conversations, "data-answered": yes },
        svg("title", {}, `${calendarDay(day.date)}: ${conversations} conversation${conversations === 1 ? "" : "s"}, ${yes} answered`),
        svg("rect", { class: "chart-bar-answered", x, width: chart.barWidth, y: middle, height: chart.y(0) - middle }),
        svg("rect", { class: "chart-bar-unanswered", x, width: chart.barWidth, y: top, height: middle - top })));
    });
    chart.labelDays(days);
    return chart.element;
  };
  return figure({
    id: "report-chart-conversations",
    title: "Conversations per day",
    summary,
    legend: [["chart-key-answered", "Answered"], ["chart-key-unanswered", "Not answered"]],
    draw,
    columns: ["Day", "Conversations", "Answered", "Not answered"],
    rows: days.map((day) => [calendarDay(day.date), day.figures.conversations, day.figures.answered, day.figures.conversations - day.figures.answered]),
  });
}

/** First response per day: the p50 and p90 of the days with answers, as two lines. */
export function responseChart(days, range) {
  const measured = days.filter((day) => day.figures.first_response.count > 0);
  const values = (key) => measured.map((day) => day.figures.first_response[key]);
  const spread = (key) => `${readableDuration(Math.min(...values(key)))} to ${readableDuration(Math.max(...values(key)))}`;
  const summary = measured.length === 0
    ? `First response per day, ${calendarDay(range.from)} to ${calendarDay(range.to)}: no conversation was answered.`
    : `First response per day, ${calendarDay(range.from)} to ${calendarDay(range.to)}, on ${measured.length} day${measured.length === 1 ? "" : "s"} with answers: `
      + `p50 from ${spread("p50_ms")}, p90 from ${spread("p90_ms")}.`;
  const highest = Math.max(1, ...values("p90_ms"));
  const step = niceStep(highest / 4, DURATION_STEPS);
  const draw = (width) => {
    const chart = frame(width, days.length, step, highest, readableDuration, 64);
    for (const [key, name] of [["p90_ms", "p90"], ["p50_ms", "p50"]]) {
      // A day without answers breaks the line.
      let path = "";
      let previous = false;
      days.forEach((day, index) => {
        const value = day.figures.first_response[key];
        const present = day.figures.first_response.count > 0 && typeof value === "number";
        if (present) path += `${previous ? "L" : "M"}${chart.centerX(index).toFixed(1)} ${chart.y(value).toFixed(1)} `;
        previous = present;
      });
      chart.plot.append(svg("path", { class: `chart-line chart-line-${name}`, d: path.trim() || "M0 0" }));
      for (const day of measured) {
        const index = days.indexOf(day);
        const value = day.figures.first_response[key];
        chart.plot.append(svg("circle", { class: `chart-point chart-point-${name}`, cx: chart.centerX(index), cy: chart.y(value), r: 3.5,
          "data-date": day.date, "data-ms": value },
        svg("title", {}, `${calendarDay(day.date)}: ${name} ${readableDuration(value)}`)));
      }
    }
    chart.labelDays(days);
    return chart.element;
  };
  return figure({
    id: "report-chart-response",
    title: "First response per day",
    summary,
    legend: [["chart-key-p50", "p50 (half were answered faster)"], ["chart-key-p90", "p90 (nine in ten were answered faster)"]],
    draw,
    columns: ["Day", "Answered", "p50", "p90"],
    rows: days.map((day) => {
      const figures = day.figures.first_response;
      return [calendarDay(day.date), figures.count, readableDuration(figures.p50_ms), readableDuration(figures.p90_ms)];
    }),
  });
}

/** The smallest nice step at least `wanted` (the last one when none is). */
function niceStep(wanted, steps) {
  return steps.find((step) => step >= wanted) ?? steps[steps.length - 1];
}

/**
 * The axes and grid of a chart `width` pixels wide with `count` days and a value axis from 0 in
 * steps of `step` up to at least `highest`: its element, the group to draw into, and the scales.
 */
function frame(width, count, step, highest, label, left) {
  const top = Math.max(step, Math.ceil(highest / step) * step);
  const plotWidth = Math.max(1, width - left - MARGIN.right);
  const plotHeight = HEIGHT - MARGIN.top - MARGIN.bottom;
  const band = plotWidth / Math.max(1, count);
  const y = (value) => MARGIN.top + plotHeight - (Math.min(value, top) / top) * plotHeight;
  const grid = svg("g", { class: "chart-grid" });
  for (let value = 0; value <= top; value += step) {
    grid.append(svg("line", { x1: left, x2: left + plotWidth, y1: y(value), y2: y(value) }),
      svg("text", { class: "chart-axis-label", x: left - 6, y: y(value), "text-anchor": "end", "dominant-baseline": "middle" }, label(value)));
  }
  const every = Math.max(1, Math.ceil(LABEL_WIDTH / band));
  const element = svg("svg", { width, height: HEIGHT, viewBox: `0 0 ${width} ${HEIGHT}`, "aria-hidden": "true", focusable: "false" }, grid);
  return {
    element,
    plot: element,
    y,
    barWidth: Math.max(1, band * 0.7),
    barX: (index) => left + index * band + (band - Math.max(1, band * 0.7)) / 2,
    centerX: (index) => left + index * band + band / 2,
    labelDays(days) {
      days.forEach((day, index) => {
        if ((days.length - 1 - index) % every !== 0) return;
        // Centred under its day, unless that would cut it at an edge of the drawing.
        const x = left + index * band + band / 2;
        const [anchor, at] = x + LABEL_WIDTH / 2 > width ? ["end", width - 1] : x - LABEL_WIDTH / 2 < 0 ? ["start", 1] : ["middle", x];
        element.append(svg("text", { class: "chart-axis-label", x: at, y: HEIGHT - 8, "text-anchor": anchor }, calendarDay(day.date, "short")));
      });
    },
  };
}

/**
 * A chart as a figure: its title, the drawing (an image with `summary` as its name), the legend and
 * the numbers as a table. Returns `{element, observer}`.
 */
function figure({ id, title, summary, legend, draw, columns, rows }) {
  const canvas = h("div", { class: "chart-canvas", role: "img", "aria-label": summary, id: `${id}-image` });
  let drawnWidth = 0;
  const render = (width) => {
    if (!width || width === drawnWidth) return;
    drawnWidth = width;
    canvas.replaceChildren(draw(width));
  };
  render(640);
  // Redrawn (on the next frame, never inside the observer's callback) when its width changes.
  const observer = new ResizeObserver((entries) => {
    const width = Math.floor(entries[entries.length - 1].contentRect.width);
    requestAnimationFrame(() => render(width));
  });
  observer.observe(canvas);
  const element = h("figure", { id, class: "chart", "aria-labelledby": `${id}-title` },
    h("figcaption", { id: `${id}-title`, class: "chart-title" }, title),
    canvas,
    h("ul", { class: "chart-legend", "aria-hidden": "true" },
      legend.map(([key, text]) => h("li", {}, h("span", { class: `chart-key ${key}` }), text))),
    h("details", { class: "chart-data" },
      h("summary", {}, "Show the numbers"),
      h("div", { class: "table-wrap" },
        h("table", { class: "table" },
          h("caption", {}, `${title}: the numbers`),
          h("thead", {}, h("tr", {}, columns.map((column) => h("th", { scope: "col" }, column)))),
          h("tbody", {}, rows.map((row) => h("tr", {},
            h("th", { scope: "row", dataset: { label: columns[0] } }, row[0]),
            row.slice(1).map((value, index) => h("td", { dataset: { label: columns[index + 1] } }, String(value))))))))));
  return { element, observer };
}
