// Links in message and note text. Only absolute http(s) and mailto URLs become links, built as
// elements with their text as text (never parsed as HTML); every other scheme (javascript:, data:,
// file:, …) and everything around a link stays plain text, exactly as written.
import { h } from "./dom.js";

// A candidate starts at a scheme we may link and runs to whitespace or a character that cannot be
// part of a URL in running text. The scheme is checked again by safeHref: this only finds spans.
const CANDIDATE = /\b(?:https?:\/\/|mailto:)[^\s<>"'`]+/giu;
// Punctuation that ends a sentence rather than the URL ("see https://example.com.").
const TRAILING = /[.,;:!?)\]}'"»”’]+$/u;
const MAILBOX = /^[^\s@/?#]+@[^\s@/?#]+\.[^\s@/?#]+$/u;

/** Splits text into parts: {text} and {href, text} (trailing punctuation stays text). */
export function linkParts(text) {
  const parts = [];
  let last = 0;
  for (const match of text.matchAll(CANDIDATE)) {
    const candidate = withoutTrailing(match[0]);
    const href = safeHref(candidate);
    if (!href) continue;
    if (match.index > last) parts.push({ text: text.slice(last, match.index) });
    parts.push({ href, text: candidate });
    last = match.index + candidate.length;
  }
  if (last < text.length) parts.push({ text: text.slice(last) });
  return parts;
}

function withoutTrailing(candidate) {
  const trailing = candidate.match(TRAILING);
  if (!trailing) return candidate;
  let cut = trailing[0];
  // Keep a ")" that closes a "(" opened inside the URL (Wikipedia style): only the rest is punctuation.
  const kept = candidate.slice(0, -cut.length);
  if (cut.startsWith(")") && count(kept, "(") > count(kept, ")")) cut = cut.slice(1);
  return cut ? candidate.slice(0, -cut.length) : candidate;
}

function count(text, character) {
  return text.split(character).length - 1;
}

/**
 * The URL to put in href, or null. http(s) needs a host and no user name or password
 * (`https://bank.example@evil.example/` reads as one host and goes to another); mailto needs one
 * plain address before any `?`.
 */
export function safeHref(text) {
  let url;
  try {
    url = new URL(text);
  } catch {
    return null;
  }
  if (url.protocol === "http:" || url.protocol === "https:") {
    return url.hostname && !url.username && !url.password ? url.href : null;
  }
  if (url.protocol === "mailto:") {
    const address = decodeURIComponentSafe(url.pathname);
    return address && MAILBOX.test(address) ? url.href : null;
  }
  return null;
}

function decodeURIComponentSafe(text) {
  try {
    return decodeURIComponent(text);
  } catch {
    return null;
  }
}

/** The text as nodes: links as `<a target="_blank" rel="noopener noreferrer">`, the rest as text. */
export function linkedText(text) {
  return linkParts(text ?? "").map((part) => (part.href
    ? h("a", { href: part.href, target: "_blank", rel: "noopener noreferrer", class: "text-link" }, part.text)
    : part.text));
}
