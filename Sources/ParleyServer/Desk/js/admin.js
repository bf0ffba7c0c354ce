// Admin pages (role admin only): reports, agents, queues, canned responses, ratings, forms, appearance, business hours, callbacks, identity, attachments, masking, links, webhooks, push, tags, the app and its key.
import { byId, h, replaceChildren } from "./dom.js";
import { renderAgents } from "./admin-agents.js";
import { renderApp } from "./admin-app.js";
import { renderAttachments } from "./admin-attachments.js";
import { renderCallbacks } from "./admin-callbacks.js";
import { renderAppearance } from "./admin-appearance.js";
import { renderCanned } from "./admin-canned.js";
import { renderForms } from "./admin-forms.js";
import { renderHours } from "./admin-hours.js";
import { renderIdentity } from "./admin-identity.js";
import { renderLinks } from "./admin-links.js";
import { renderMasking } from "./admin-masking.js";
import { renderPush } from "./admin-push.js";
import { renderQueues } from "./admin-queues.js";
import { renderRatings } from "./admin-ratings.js";
import { leaveReports, renderReports } from "./admin-reports.js";
import { renderTags } from "./admin-tags.js";
import { renderWebhooks } from "./admin-webhooks.js";

/** `leave`, when a page has it, stops what the page follows (timers, frames) once it is off screen. */
const PAGES = {
  reports: { title: "Reports", render: renderReports, leave: leaveReports },
  agents: { title: "Agents", render: renderAgents },
  queues: { title: "Queues", render: renderQueues },
  canned: { title: "Canned responses", render: renderCanned },
  ratings: { title: "Ratings", render: renderRatings },
  forms: { title: "Forms", render: renderForms },
  appearance: { title: "Appearance", render: renderAppearance },
  hours: { title: "Business hours", render: renderHours },
  callbacks: { title: "Callbacks", render: renderCallbacks },
  identity: { title: "Identity", render: renderIdentity },
  attachments: { title: "Attachments", render: renderAttachments },
  masking: { title: "Masking", render: renderMasking },
  links: { title: "Links", render: renderLinks },
  webhooks: { title: "Webhooks", render: renderWebhooks },
  push: { title: "Push", render: renderPush },
  tags: { title: "Tags", render: renderTags },
  app: { title: "App & key", render: renderApp },
};

let current = null;

export async function showAdmin(page) {
  if (current && current !== page) PAGES[current].leave?.();
  current = page;
  byId("admin").hidden = false;
  byId("admin-title").textContent = PAGES[page].title;
  for (const link of document.querySelectorAll("#admin-nav .nav-link")) {
    if (link.getAttribute("href") === `#/admin/${page}`) link.setAttribute("aria-current", "page");
    else link.removeAttribute("aria-current");
  }
  await reloadAdmin();
}

export function hideAdmin() {
  if (current) PAGES[current].leave?.();
  current = null;
  byId("admin").hidden = true;
  replaceChildren(byId("admin-body"));
  for (const link of document.querySelectorAll("#admin-nav .nav-link")) link.removeAttribute("aria-current");
}

/** Re-renders the page on screen from fresh server data. */
async function reloadAdmin() {
  const page = current;
  if (!page) return;
  const body = byId("admin-body");
  body.setAttribute("aria-busy", "true");
  try {
    const content = await PAGES[page].render(reloadAdmin);
    if (current !== page) return;
    // The rows are rebuilt: put keyboard focus back on the same control in the new ones.
    const focused = body.contains(document.activeElement) ? focusSelector(document.activeElement) : null;
    replaceChildren(body, content);
    if (focused) (body.querySelector(focused) ?? byId("admin-title")).focus();
  } catch (error) {
    if (current === page) replaceChildren(body, h("p", { class: "form-error", role: "alert" }, `Could not load: ${error.message}`));
  } finally {
    body.setAttribute("aria-busy", "false");
  }
}

function focusSelector(element) {
  if (element.id) return `#${CSS.escape(element.id)}`;
  const label = element.getAttribute("aria-label");
  if (label) return `[aria-label="${CSS.escape(label)}"]`;
  return null;
}
