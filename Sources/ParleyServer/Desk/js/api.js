// HTTP to parleyd. The session lives in an HttpOnly cookie that scripts cannot read; the CSRF token
// that must accompany every write is kept in this module's memory only (never in storage).
import { emit } from "./bus.js";

let csrfToken = null;

/** Remembers (or forgets, with null) the CSRF token from the login or session answer. */
export function setCsrfToken(token) {
  csrfToken = token;
}

/** A failed request: `status` 0 when the server could not be reached; `code` from the error body. */
export class ApiError extends Error {
  constructor(status, code, message) {
    super(message);
    this.status = status;
    this.code = code;
  }
}

/**
 * Sends a request and returns the decoded JSON (null for 204).
 * A 401 announces "unauthorized" (the session is over) unless `expectUnauthorized` is set.
 */
export async function api(method, path, body, { expectUnauthorized = false } = {}) {
  const headers = { Accept: "application/json" };
  if (body !== undefined) headers["Content-Type"] = "application/json";
  if (method !== "GET" && method !== "HEAD" && csrfToken) headers["X-Parley-CSRF"] = csrfToken;
  let response;
  try {
    response = await fetch(path, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
      credentials: "same-origin",
      cache: "no-store",
    });
  } catch {
    throw new ApiError(0, "network", "The server cannot be reached.");
  }
  if (response.status === 204) return null;
  let data = null;
  try {
    data = await response.json();
  } catch {
    data = null;
  }
  if (!response.ok) {
    const error = new ApiError(response.status, data?.error?.code ?? `http_${response.status}`, data?.error?.message ?? response.statusText);
    if (response.status === 401 && !expectUnauthorized) emit("unauthorized");
    throw error;
  }
  return data;
}

/**
 * Sends a file as the raw body of a POST (XMLHttpRequest: fetch reports no upload progress).
 * `onProgress(sent, total)` follows the upload. Returns `{ promise, abort }`: the promise resolves
 * with the decoded JSON, or rejects with an ApiError (status 0 for the network, code "aborted"
 * after `abort()`). The type is left for the server to decide from the bytes: the browser's guess
 * (`file.type`) would only risk a needless type_mismatch.
 */
export function upload(path, file, { onProgress } = {}) {
  const xhr = new XMLHttpRequest();
  const promise = new Promise((resolve, reject) => {
    xhr.open("POST", path);
    xhr.setRequestHeader("Accept", "application/json");
    xhr.setRequestHeader("Content-Type", "application/octet-stream");
    if (csrfToken) xhr.setRequestHeader("X-Parley-CSRF", csrfToken);
    xhr.responseType = "text";
    xhr.upload.addEventListener("progress", (event) => onProgress?.(event.loaded, event.lengthComputable ? event.total : file.size));
    xhr.addEventListener("error", () => reject(new ApiError(0, "network", "The server cannot be reached.")));
    xhr.addEventListener("abort", () => reject(new ApiError(0, "aborted", "Cancelled.")));
    xhr.addEventListener("load", () => {
      let data = null;
      try {
        data = xhr.responseText ? JSON.parse(xhr.responseText) : null;
      } catch {
        data = null;
      }
      if (xhr.status >= 200 && xhr.status < 300) {
        resolve(data);
        return;
      }
      if (xhr.status === 401) emit("unauthorized");
      reject(new ApiError(xhr.status, data?.error?.code ?? `http_${xhr.status}`, data?.error?.message ?? xhr.statusText));
    });
    xhr.send(file);
  });
  return { promise, abort: () => xhr.abort() };
}

/** A random UUID; crypto.randomUUID only exists in secure contexts, a self-hosted desk may be plain http. */
export function uuid() {
  if (typeof crypto.randomUUID === "function") return crypto.randomUUID();
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  bytes[6] = (bytes[6] & 0x0f) | 0x40;
  bytes[8] = (bytes[8] & 0x3f) | 0x80;
  const hex = [...bytes].map((b) => b.toString(16).padStart(2, "0")).join("");
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
