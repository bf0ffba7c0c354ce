// The desk's entry point: sign-in, the frame (availability, navigation, routes) and start-up.
import { showAdmin, hideAdmin } from "./admin.js";
import { api, ApiError } from "./api.js";
import { on } from "./bus.js";
import { primeAudio, toast } from "./cues.js";
import { initComposer } from "./composer.js";
import { closeConversation, initConversation, openConversation } from "./conversation.js";
import { closeAllDialogs } from "./dialogs.js";
import { byId } from "./dom.js";
import { initCounts, refreshCountsSoon, stopCounts } from "./counts.js";
import { initInbox, render as renderInbox } from "./inbox.js";
import { initInboxFilter } from "./inbox-filter.js";
import { hideReplies, initMyReplies, showReplies } from "./my-replies.js";
import { initNavMenu } from "./nav-menu.js";
import { initNotifications, showNotificationsToggle } from "./notifications.js";
import { go, inboxHash, parseRoute } from "./router.js";
import { hideSearch, initSearch, showSearch } from "./search.js";
import { login, logout, restoreSession } from "./session.js";
import { refreshCanned, refreshLists, refreshTags, refreshTeam, state } from "./store.js";
import { initShortcuts } from "./shortcuts.js";
import { scheduleRefresh, startSync, stopSync } from "./sync.js";
import { showTranscriptEmail } from "./transcript-actions.js";
import { initTransfer } from "./transfer.js";
import { currentView, initViews, markCurrent, showView } from "./views.js";

// Survives the reload that follows a session ending, to say why the login form is back.
const NOTICE_KEY = "parley.desk.notice";

function setView(view) {
  document.body.dataset.view = view;
}

function showLogin(message) {
  setView("login");
  byId("boot").hidden = true;
  byId("desk").hidden = true;
  byId("login-view").hidden = false;
  const error = byId("login-error");
  error.textContent = message ?? "";
  error.hidden = !message;
  byId("login-email").focus();
}

async function onLogin(event) {
  event.preventDefault();
  const email = byId("login-email").value.trim();
  const password = byId("login-password").value;
  const error = byId("login-error");
  const button = byId("login-submit");
  if (!email || !password) {
    error.textContent = "Enter your email and password.";
    error.hidden = false;
    return;
  }
  button.disabled = true;
  error.hidden = true;
  try {
    const session = await login(email, password);
    byId("login-password").value = "";
    await enter(session);
  } catch (failure) {
    error.textContent = failure instanceof ApiError && failure.status === 401
      ? "Wrong email or password."
      : failure instanceof ApiError && failure.status === 0 ? "The server cannot be reached." : `Sign-in failed: ${failure.message}`;
    error.hidden = false;
    byId("login-password").select();
  } finally {
    button.disabled = false;
  }
}

/** Shows the desk for a session: agent, inbox, realtime, then the route in the address bar. */
async function enter(session) {
  state.me = session.agent;
  byId("boot").hidden = true;
  byId("login-view").hidden = true;
  byId("desk").hidden = false;
  byId("me-name").textContent = session.agent.name;
  const admin = session.agent.role === "admin";
  byId("admin-nav").hidden = !admin;
  byId("tab-all-item").hidden = !admin;
  showAvailability(session.agent.availability);
  showNotificationsToggle();
  showTranscriptEmail(session.mail_enabled === true);
  await Promise.all([
    // A failed first load is retried; the session's end (401) is handled by "unauthorized".
    refreshLists().catch(() => scheduleRefresh(2000)),
    refreshTeam().catch(() => {}),
    refreshCanned().catch(() => {}),
    refreshTags().catch(() => {}),
  ]);
  refreshCountsSoon(0);
  startSync();
  route();
}

function showAvailability(value) {
  byId("availability").value = value;
  document.body.dataset.availability = value;
}

async function onAvailability(event) {
  const wanted = event.target.value;
  const previous = state.me.availability;
  try {
    const agent = await api("PUT", "/v1/agent/availability", { availability: wanted });
    state.me = { ...state.me, ...agent };
    showAvailability(agent.availability);
    refreshTeam().catch(() => {});
  } catch (error) {
    showAvailability(previous);
    if (!(error instanceof ApiError && error.status === 401)) toast(`Availability not changed: ${error.message}`, { kind: "error" });
  }
}

async function onLogout() {
  stopSync();
  stopCounts();
  try {
    await logout();
  } catch {
    // The reload below forgets everything this page held either way.
  }
  // A fresh page: nothing of the session survives in memory.
  location.replace(location.pathname);
}

/** The session ended elsewhere (expired, revoked, password changed): back to the login form. */
function sessionEnded() {
  if (!state.me) return;
  state.me = null;
  stopSync();
  stopCounts();
  closeAllDialogs();
  sessionStorage.setItem(NOTICE_KEY, "Your session has ended. Sign in again.");
  location.replace(location.pathname);
}

function route() {
  if (!state.me) return;
  const target = parseRoute();
  const admin = state.me.role === "admin";
  if (!target || (target.view === "admin" && !admin) || (target.view === "inbox" && target.tab === "all" && !admin)) {
    go("#/inbox/mine", { replace: true });
    return;
  }
  setView(target.view);
  if (target.view !== "admin") hideAdmin();
  if (target.view !== "search") hideSearch();
  if (target.view !== "replies") hideReplies();
  if (target.view !== "conversation") closeConversation();
  switch (target.view) {
    case "inbox":
      showView(target);
      break;
    case "conversation":
      openConversation(target.id, { seq: target.seq });
      break;
    case "admin":
      showAdmin(target.page);
      break;
    case "search":
      showSearch();
      break;
    case "replies":
      showReplies();
      break;
  }
  // The inbox beside a conversation is the view it was opened from; no view is current on other pages.
  markCurrent();
  renderInbox();
  const view = currentView();
  byId("back-link").href = inboxHash(view.key, view);
}

async function boot() {
  primeAudio();
  initViews();
  initInbox();
  initInboxFilter();
  initCounts();
  initSearch();
  initConversation();
  initComposer();
  initTransfer();
  initMyReplies();
  initShortcuts();
  initNavMenu();
  initNotifications();
  byId("login-form").addEventListener("submit", onLogin);
  byId("logout").addEventListener("click", onLogout);
  byId("availability").addEventListener("change", onAvailability);
  document.querySelector(".skip-link").addEventListener("click", (event) => {
    event.preventDefault();
    byId("main").focus();
  });
  window.addEventListener("hashchange", route);
  on("unauthorized", sessionEnded);
  on("me", () => state.me && showAvailability(state.me.availability));
  // Shown from the moment a connection is lost until the next `ready`.
  on("connection", (value) => {
    byId("connection-banner").hidden = value !== "down";
  });

  const notice = sessionStorage.getItem(NOTICE_KEY);
  sessionStorage.removeItem(NOTICE_KEY);
  let session = null;
  try {
    session = await restoreSession();
  } catch (error) {
    showLogin(`The server cannot be reached (${error.message}). Reload to try again.`);
    return;
  }
  if (session) await enter(session);
  else showLogin(notice);
}

boot();
