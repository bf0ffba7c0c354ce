// Admin: what visitors thought, of all time. Overall, per agent and per queue: count, average, distribution
// (Reports has them for chosen days, with the comments).
import { api } from "./api.js";
import { cell, table, toolbar } from "./admin-ui.js";
import { h } from "./dom.js";
import { state } from "./store.js";

const SCORES = [1, 2, 3, 4, 5];

export async function renderRatings() {
  const summary = await api("GET", `/v1/admin/apps/${state.me.app_id}/ratings`);
  const overall = summary.overall;
  return [
    toolbar(["Visitors rate a conversation from 1 (bad) to 5 (great) after it ended. Best average first, of all time. For chosen days, with the comments: ",
      h("a", { href: "#/admin/reports" }, "Reports"), "."]),
    h("section", { class: "card ratings-overall", id: "ratings-overall", "aria-labelledby": "ratings-overall-title" },
      h("h3", { id: "ratings-overall-title" }, "Overall"),
      overall && overall.count > 0
        ? h("p", { class: "ratings-headline" },
          h("strong", { class: "ratings-average", dataset: { average: overall.average } }, formatAverage(overall.average)),
          ` average from ${overall.count} rating${overall.count === 1 ? "" : "s"}`)
        : h("p", { class: "empty" }, "No ratings yet."),
      overall && overall.count > 0 ? distribution(overall.distribution) : null),
    averagesTable("Per agent", "agent", summary.agents ?? []),
    averagesTable("Per queue", "queue", summary.queues ?? []),
  ];
}

function averagesTable(caption, kind, averages) {
  return table(`${caption}: ${averages.length}`, ["Name", "Ratings", "Average", ...SCORES.map((score) => `${score} ★`)],
    averages.length === 0
      ? [h("tr", {}, h("td", { colspan: 3 + SCORES.length, class: "empty" }, "No ratings yet."))]
      : averages.map((average) => h("tr", { dataset: { [`${kind}Id`]: average.id } },
        cell("Name", average.name ?? average.id),
        cell("Ratings", String(average.count)),
        cell("Average", formatAverage(average.average)),
        SCORES.map((score, index) => cell(`${score} ★`, String(average.distribution?.[index] ?? 0))))));
}

/** One bar per score, as wide as its share; the count is written next to it. */
function distribution(counts) {
  const total = counts.reduce((sum, count) => sum + count, 0) || 1;
  return h("ol", { class: "ratings-bars", "aria-label": "Distribution" },
    SCORES.map((score, index) => h("li", { dataset: { score } },
      h("span", { class: "ratings-bar-label" }, `${score} ★`),
      h("meter", { min: 0, max: total, value: counts[index] ?? 0, "aria-label": `${score} stars` }),
      h("span", { class: "ratings-bar-count" }, String(counts[index] ?? 0)))));
}

function formatAverage(average) {
  return typeof average === "number" ? average.toFixed(2) : "—";
}
