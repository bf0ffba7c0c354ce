// The Reports page's ratings with their comments, newest first, a page at a time
// (GET …/reports/ratings, "More ratings" follows `next_cursor`; the keyboard goes on at the first
// new one). Comments are visitors' words: text nodes only.
import { api, ApiError } from "./api.js";
import { h } from "./dom.js";
import { longTime } from "./format.js";

export const RATINGS_PAGE = 10;

/**
 * The list for a report's range. `first` is its first page (read with the report); `total` the
 * range's rating count; `path` the list's endpoint with the range's query.
 */
export function ratingsSection(first, total, path) {
  const list = h("ol", { id: "report-ratings-list", class: "report-ratings-list" });
  const status = h("p", { id: "report-ratings-status", class: "field-hint", role: "status" });
  const error = h("p", { id: "report-ratings-error", class: "form-error", role: "alert", hidden: true });
  const more = h("button", { id: "report-ratings-more", class: "button", type: "button" }, "More ratings");
  let next = first.next_cursor ?? null;
  let shown = 0;

  const add = (ratings) => {
    const items = ratings.map(ratingItem);
    list.append(...items);
    shown += items.length;
    status.textContent = total === 0 ? "" : `${shown} of ${total} rating${total === 1 ? "" : "s"} shown.`;
    more.hidden = !next;
    return items;
  };

  more.addEventListener("click", async () => {
    if (!next) return;
    more.disabled = true;
    error.hidden = true;
    let page;
    try {
      page = await api("GET", `${path}&limit=${RATINGS_PAGE}&cursor=${encodeURIComponent(next)}`);
    } catch (failure) {
      more.disabled = false;
      if (failure instanceof ApiError && failure.status === 401) return;
      error.textContent = `More ratings could not be read: ${failure.message}`;
      error.hidden = false;
      return;
    }
    more.disabled = false;
    next = page.next_cursor ?? null;
    const items = add(page.ratings);
    items[0]?.querySelector("a").focus();
  });

  const section = h("section", { id: "report-ratings", class: "report-ratings", "aria-labelledby": "report-ratings-title" },
    h("h4", { id: "report-ratings-title" }, "Ratings and comments"),
    h("p", { class: "field-hint" }, "Of all time, per agent and per queue: ", h("a", { href: "#/admin/ratings" }, "Ratings"), "."),
    first.ratings.length === 0 ? h("p", { class: "empty" }, "No ratings in these days.") : null,
    list, status, error, h("div", { class: "load-more" }, more));
  add(first.ratings);
  return section;
}

function ratingItem(rating) {
  return h("li", { class: "report-rating", dataset: { conversationId: rating.conversation_id, score: rating.score } },
    h("p", { class: "report-rating-head" },
      h("span", { class: "rating-stars", "aria-hidden": "true" }, "★".repeat(rating.score) + "☆".repeat(5 - rating.score)),
      h("strong", { class: "report-rating-score" }, `${rating.score} / 5`),
      h("span", { class: "report-rating-who" }, [rating.agent_name, rating.queue_name].filter(Boolean).join(" · ")),
      h("time", { datetime: rating.rated_at, class: "field-hint" }, longTime(rating.rated_at))),
    rating.comment
      ? h("p", { class: "report-rating-comment" }, rating.comment)
      : h("p", { class: "report-rating-comment is-empty" }, "No comment."),
    h("a", { class: "report-rating-link", href: `#/c/${rating.conversation_id}` }, "Open the conversation"));
}
