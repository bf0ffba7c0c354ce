// Hash routes: #/inbox/VIEW (queued, mine, unread, waiting, snoozed, ended, all, agent/agt_…, queue/que_…)
// with an optional ?tag=…&priority=… filter, #/c/cnv_… (?seq=N: scrolled to that message), #/search, #/replies,
// #/admin/reports|agents|queues|canned|ratings|forms|appearance|hours|callbacks|identity|attachments|masking|links|webhooks|push|tags|app.

const ID = "[0-9A-HJKMNP-TV-Z]{26}";
const VIEW = `queued|mine|unread|waiting|snoozed|ended|all|agent/agt_${ID}|queue/que_${ID}`;
const ADMIN = "reports|agents|queues|canned|ratings|forms|appearance|hours|callbacks|identity|attachments|masking|links|webhooks|push|tags|app";

/** The route the address names, or null when it names none. */
export function parseRoute(hash = location.hash) {
  let match = hash.match(new RegExp(`^#/inbox/(${VIEW})(?:\\?([^#]*))?$`));
  if (match) {
    const query = new URLSearchParams(match[2] ?? "");
    // `tab` is the view's key ("mine", "agent/agt_…"): it is also the rest of its address.
    return { view: "inbox", tab: match[1], tag: query.get("tag") || null, priority: query.get("priority") || null };
  }
  match = hash.match(new RegExp(`^#/c/(cnv_${ID})(?:\\?seq=(\\d+))?$`));
  if (match) return { view: "conversation", id: match[1], seq: match[2] ? Number(match[2]) : null };
  if (hash === "#/search") return { view: "search" };
  if (hash === "#/replies") return { view: "replies" };
  match = hash.match(new RegExp(`^#/admin/(${ADMIN})$`));
  if (match) return { view: "admin", page: match[1] };
  return null;
}

/** The address of an inbox view with its filter (the filter's parts only when set). */
export function inboxHash(key, { tag = null, priority = null } = {}) {
  const query = new URLSearchParams();
  if (tag) query.set("tag", tag);
  if (priority) query.set("priority", priority);
  const text = query.toString();
  return `#/inbox/${key}${text ? `?${text}` : ""}`;
}

/** Goes to a route (replacing the history entry when asked: redirects should not stack up). */
export function go(hash, { replace = false } = {}) {
  if (location.hash === hash) return;
  if (replace) {
    history.replaceState(null, "", hash);
    window.dispatchEvent(new HashChangeEvent("hashchange"));
  } else {
    location.hash = hash;
  }
}
