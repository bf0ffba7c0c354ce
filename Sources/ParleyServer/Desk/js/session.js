// The desk session: an HttpOnly, SameSite=Strict cookie set by the server (no token in JS) plus a
// CSRF token held in memory for writes.
import { api, setCsrfToken } from "./api.js";

/** The session of the cookie this browser holds, or null when there is none (or it expired): 204. */
export async function restoreSession() {
  const session = await api("GET", "/v1/desk/session");
  if (!session) return null;
  setCsrfToken(session.csrf_token);
  return session;
}

/** Signs in; throws ApiError (401 for a wrong email or password). */
export async function login(email, password) {
  const session = await api("POST", "/v1/desk/login", { email, password }, { expectUnauthorized: true });
  setCsrfToken(session.csrf_token);
  return session;
}

/** Signs out on the server (the cookie is cleared and the session revoked). */
export async function logout() {
  try {
    await api("POST", "/v1/desk/logout", undefined, { expectUnauthorized: true });
  } finally {
    setCsrfToken(null);
  }
}
