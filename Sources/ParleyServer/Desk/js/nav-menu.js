// The admin pages' links on one-column screens (phones, 200 % zoom): folded behind one "Admin"
// button, a disclosure, so fifteen links do not fill the top of the screen. On wide screens the
// button is hidden by CSS and the links are always there; this only keeps the button's state.
import { byId } from "./dom.js";

export function initNavMenu() {
  const toggle = byId("admin-menu-toggle");
  const nav = byId("admin-nav");
  toggle.addEventListener("click", () => setOpen(toggle.getAttribute("aria-expanded") !== "true"));
  // A link followed (or any other route) folds it again.
  window.addEventListener("hashchange", () => setOpen(false));
  nav.addEventListener("keydown", (event) => {
    if (event.key !== "Escape" || toggle.getAttribute("aria-expanded") !== "true") return;
    event.preventDefault();
    setOpen(false);
    toggle.focus();
  });
}

function setOpen(open) {
  byId("admin-menu-toggle").setAttribute("aria-expanded", String(open));
  byId("admin-nav").classList.toggle("is-open", open);
}

