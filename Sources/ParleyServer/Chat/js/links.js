// Links in message text, and the app's link policy. Only http(s) URLs are ever links; everything else
// stays text. The decision is pure: `decide(url, policy)` → "inside" (the in-page viewer), "outside"
// (the host opens it: the bridge's open_url, or a new tab) or "block".
const URL_PATTERN = /\bhttps?:\/\/[^\s<>"'`]+/giu;
const TRAILING = /[.,;:!?)\]}'"»”’]+$/u;

/** Splits text into parts: {text} and {url, text} (trailing punctuation stays text). */
export function linkify(text) {
  const parts = [];
  let last = 0;
  for (const match of text.matchAll(URL_PATTERN)) {
    let candidate = match[0];
    const trailing = candidate.match(TRAILING);
    // Keep a closing parenthesis that closes one opened inside the URL (Wikipedia style).
    if (trailing) {
      let cut = trailing[0];
      if (cut.startsWith(")") && (candidate.match(/\(/g) ?? []).length > (candidate.slice(0, -cut.length).match(/\)/g) ?? []).length) cut = cut.slice(1);
      candidate = candidate.slice(0, candidate.length - cut.length);
    }
    const url = safeURL(candidate);
    if (!url) continue;
    if (match.index > last) parts.push({ text: text.slice(last, match.index) });
    parts.push({ url, text: candidate });
    last = match.index + candidate.length;
  }
  if (last < text.length) parts.push({ text: text.slice(last) });
  return parts;
}

/**
 * The URL as an absolute http(s) string, or null for anything else, and for a URL with a user name
 * or password (`https://bank.example@evil.example/` reads as one host and goes to another), as
 * ParleyCore's `LinkPolicy` decides.
 */
export function safeURL(text) {
  try {
    const url = new URL(text);
    if (url.protocol !== "http:" && url.protocol !== "https:") return null;
    if (!url.hostname || url.username || url.password) return null;
    return url.href;
  } catch {
    return null;
  }
}

/** Whether a host matches a policy entry: exactly, or `*.example.org` for any subdomain (on a dot boundary). */
export function hostMatches(host, pattern) {
  const name = host.toLowerCase().replace(/\.$/, "");
  const entry = String(pattern).toLowerCase().trim().replace(/\.$/, "");
  if (entry.startsWith("*.")) {
    const suffix = entry.slice(1); // ".example.org"
    return name.length > suffix.length && name.endsWith(suffix);
  }
  return name === entry;
}

export const DEFAULT_POLICY = Object.freeze({ inside_hosts: [], other_links: "outside", embed_origins: [] });

/** "inside", "outside" or "block" for a URL under the app's policy; null when it is not a link. */
export function decide(urlText, policy = DEFAULT_POLICY) {
  const href = safeURL(urlText);
  if (!href) return null;
  const host = new URL(href).hostname;
  if ((policy.inside_hosts ?? []).some((pattern) => hostMatches(host, pattern))) return "inside";
  return policy.other_links === "block" ? "block" : "outside";
}
