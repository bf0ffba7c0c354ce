// HTTP to parleyd as the visitor: the bearer token lives here. Errors are ApiError with the server's
// code; a request that never got an answer is ApiError with status 0 and code "network".
export class ApiError extends Error {
  constructor(status, code, message, body) {
    super(message || code);
    this.status = status;
    this.code = code;
    this.body = body;
  }

  /** A failure that trying again will not fix (the app does not exist, the token is refused). */
  get isFatal() {
    return this.status === 401 || this.status === 403 || this.status === 404;
  }
}

let token = null;

export function setToken(value) {
  token = value;
}

export const authorization = () => (token ? `Bearer ${token}` : null);
export const currentToken = () => token;

/** JSON request; returns the decoded body (null for 204). */
export async function api(method, path, body, { headers = {}, raw = false } = {}) {
  const init = { method, headers: { Accept: "application/json", ...headers }, credentials: "omit", cache: "no-store" };
  if (token) init.headers.Authorization = `Bearer ${token}`;
  if (body !== undefined && body !== null) {
    if (body instanceof Blob || body instanceof ArrayBuffer) {
      init.body = body;
    } else {
      init.headers["Content-Type"] = "application/json";
      init.body = JSON.stringify(body);
    }
  }
  let response;
  try {
    response = await fetch(path, init);
  } catch (error) {
    throw new ApiError(0, "network", String(error?.message ?? error));
  }
  if (raw && response.ok) return response;
  if (response.status === 204) return null;
  const text = await response.text();
  let json = null;
  try {
    json = text ? JSON.parse(text) : null;
  } catch {
    json = null;
  }
  if (!response.ok) {
    throw new ApiError(response.status, json?.error?.code ?? `http_${response.status}`, json?.error?.message ?? response.statusText, json);
  }
  return json;
}
