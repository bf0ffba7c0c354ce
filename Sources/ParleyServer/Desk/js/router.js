// Hash routes: #/inbox/queued|mine|all, #/c/cnv_…, #/admin/agents|queues|canned|ratings|forms|appearance|hours|callbacks|identity|attachments|masking|links|webhooks|push|app.

const ID = "[0-9A-HJKMNP-TV-Z]{26}";

/** The route the address names, or null when it names none. */
export function parseRoute(hash = location.hash) {
  let match = hash.match(/^#\/inbox\/(queued|mine|all)$/);
  if (match) return { view: "inbox", tab: match[1] };
  match = hash.match(new RegExp(`^#/c/(cnv_${ID})$`));
  if (match) return { view: "conversation", id: match[1] };
  match = hash.match(/^#\/admin\/(agents|queues|canned|ratings|forms|appearance|hours|callbacks|identity|attachments|masking|links|webhooks|push|app)$/);
  if (match) return { view: "admin", page: match[1] };
  return null;
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
