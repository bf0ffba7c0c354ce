// On one-column screens (phones, 200 % zoom) the sidebar is one line: Unassigned and Mine, then the
// other inbox views and the admin links each folded behind a button, a disclosure, so they do not
// fill the top of the screen. On wide screens the buttons are hidden by CSS and the links are always
// there; this only keeps the buttons' state (one open at a time, Esc, folded again on every route).
import { byId } from "./dom.js";

const MENUS = [
  { toggle: "views-menu-toggle", container: "views-nav" },
  { toggle: "admin-menu-toggle", container: "admin-nav" },
];

export function initNavMenu() {
  for (const menu of MENUS) {
    const toggle = byId(menu.toggle);
    toggle.addEventListener("click", () => {
      const open = toggle.getAttribute("aria-expanded") !== "true";
      for (const other of MENUS) setOpen(other, false);
      setOpen(menu, open);
    });
    byId(menu.container).addEventListener("keydown", (event) => {
      if (event.key !== "Escape" || toggle.getAttribute("aria-expanded") !== "true") return;
      event.preventDefault();
      setOpen(menu, false);
      toggle.focus();
    });
  }
  // A link followed (or any other route) folds them again.
  window.addEventListener("hashchange", () => MENUS.forEach((menu) => setOpen(menu, false)));
}

function setOpen(menu, open) {
  byId(menu.toggle).setAttribute("aria-expanded", String(open));
  byId(menu.container).classList.toggle("is-open", open);
}
