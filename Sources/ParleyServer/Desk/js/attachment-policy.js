// The app's attachment policy (GET /v1/attachments/policy), kept for a minute and checked before a
// file is sent, with the server's rules and words (ParleyCore AttachmentPolicy, Validation.fileName):
// on or off, empty, too large, a name the server refuses, a type decided from the first bytes that is
// blocked or not allowed. A refusal here saves an upload; the server still decides.
import { api } from "./api.js";
import { decideType, extensionFor, SNIFF_LENGTH } from "./file-type.js";
import { characterCount, readableSize } from "./format.js";

/** How long a fetched policy is trusted before it is asked for again. */
const FRESH_MS = 60_000;

let cached = null;
let loading = null;

/** The policy, fetched when there is none or it is stale (one request at a time). */
export async function currentPolicy() {
  if (cached && Date.now() - cached.at < FRESH_MS) return cached.policy;
  loading ??= api("GET", "/v1/attachments/policy")
    .then((policy) => {
      cached = { policy, at: Date.now() };
      return policy;
    })
    .finally(() => {
      loading = null;
    });
  return loading;
}

/** Forgets the policy: the server refused what it allowed, or an admin changed it. */
export function forgetPolicy() {
  cached = null;
}

/** Whether a pattern (`image/png`, `image/*`, `*\/*`) covers a type. */
export function matches(pattern, type) {
  const p = pattern.toLowerCase();
  const t = type.toLowerCase();
  if (p === "*/*" || p === t) return true;
  return p.endsWith("/*") && t.startsWith(p.slice(0, -1));
}

/** Why the policy refuses a file of this size (and type, when known), in the server's words; or null. */
export function policyRefusal(policy, size, type = null) {
  if (!policy.enabled) return "this app does not accept files";
  if (size === 0) return "the file is empty";
  if (size > policy.max_bytes) return `a file may have at most ${readableSize(policy.max_bytes)} (${policy.max_bytes} bytes)`;
  if (type !== null) {
    const blocked = policy.blocked_types.some((pattern) => matches(pattern, type));
    const allowed = policy.allowed_types.some((pattern) => matches(pattern, type));
    if (blocked || !allowed) return `files of type ${type} are not accepted`;
  }
  return null;
}

/** Why the server would refuse a file name (Validation.fileName), or null. */
export function nameProblem(name) {
  const count = characterCount(name);
  const bad = [...name].some((c) => c === "/" || c === "\\" || c === "\u202E" || /\p{Cc}/u.test(c));
  if (count < 1 || count > 255 || new TextEncoder().encode(name).length > 1020 || bad
      || name === "." || name === ".." || name.trim() === "") {
    return "a file name of 1 to 255 characters, without / \\ or control characters";
  }
  return null;
}

/**
 * Checks a File before it is sent. Resolves `{ file, name, type, refusal }`: `type` as decided from
 * the first bytes (null when they could not be read: the server will say), `refusal` the reason in
 * the server's words, or null. A pasted file without a name gets one from its type.
 */
export async function checkFile(file, policy) {
  let head = null;
  try {
    head = new Uint8Array(await file.slice(0, SNIFF_LENGTH).arrayBuffer());
  } catch {
    head = null;
  }
  let name = file.name;
  const decision = head ? decideType(head, name || "") : null;
  if (!name) {
    const extension = decision?.type ? extensionFor(decision.type) : "";
    name = `pasted-${new Date().toISOString().slice(0, 19).replace(/[-:]/g, "").replace("T", "-")}${extension ? `.${extension}` : ""}`;
  }
  const type = decision?.type ?? null;
  const refusal = nameProblem(name) ?? policyRefusal(policy, file.size) ?? decision?.mismatch ?? policyRefusal(policy, file.size, type);
  return { file, name, type, refusal };
}
