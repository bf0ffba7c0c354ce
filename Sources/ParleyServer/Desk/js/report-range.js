// The Reports page's range: a preset (the last 7, 30 or 90 days, today included) or custom days,
// and the time zone the days are cut in (this browser's by default). A preset or zone chosen shows
// the report at once; custom days wait for Show (or Enter), so half-typed dates are not sent.
import { h } from "./dom.js";

const PRESETS = [
  { value: "7", label: "Last 7 days" },
  { value: "30", label: "Last 30 days" },
  { value: "90", label: "Last 90 days" },
  { value: "custom", label: "Custom days" },
];
/** The server's default range, so the page opens on the same days the API would give. */
const DEFAULT_PRESET = "30";
/** The fields the server's 400 can name ("to: must not be before from"). */
const FIELDS = { from: "report-from", to: "report-to", time_zone: "report-zone" };

/** This browser's IANA time zone ("Europe/Berlin"), UTC when it cannot say. */
export function browserTimeZone() {
  try {
    return Intl.DateTimeFormat().resolvedOptions().timeZone || "UTC";
  } catch {
    return "UTC";
  }
}

/** The range a first visit shows: the last 30 days in this browser's time zone. */
export function defaultRange() {
  return presetRange(DEFAULT_PRESET, browserTimeZone());
}

/** A range kept from earlier: a preset's days move on to end today; custom days stay. */
export function currentRange(range) {
  return range.preset === "custom" ? range : presetRange(range.preset, range.zone);
}

/** `{preset, from, to, zone}` for a preset: `days` days up to today in `zone`. */
function presetRange(preset, zone) {
  const to = today(zone);
  return { preset, from: addDays(to, 1 - Number(preset)), to, zone };
}

/** Today's date in a time zone, "YYYY-MM-DD". */
function today(zone) {
  try {
    return new Intl.DateTimeFormat("en-CA", { timeZone: zone, year: "numeric", month: "2-digit", day: "2-digit" }).format(new Date());
  } catch {
    return new Date().toISOString().slice(0, 10);
  }
}

function addDays(day, count) {
  const [year, month, date] = day.split("-").map(Number);
  return new Date(Date.UTC(year, month - 1, date + count)).toISOString().slice(0, 10);
}

/** The query the report endpoints take. */
export function rangeQuery(range) {
  return new URLSearchParams({ from: range.from, to: range.to, time_zone: range.zone }).toString();
}

/**
 * The range form. `apply(range)` runs when a range is chosen; `showError(message)` puts the
 * server's 400 by the field it names (or under the form) and marks it; `clearErrors()` undoes that.
 */
export function rangeForm(range, apply) {
  const preset = h("select", { id: "report-preset" },
    PRESETS.map((option) => h("option", { value: option.value, selected: option.value === range.preset }, option.label)));
  const from = h("input", { id: "report-from", type: "date", value: range.from, required: true, "aria-describedby": "report-from-error" });
  const to = h("input", { id: "report-to", type: "date", value: range.to, required: true, "aria-describedby": "report-to-hint report-to-error" });
  const zone = h("select", { id: "report-zone", "aria-describedby": "report-zone-hint report-zone-error" }, zoneOptions(range.zone));
  const error = h("p", { id: "report-range-error", class: "form-error", role: "alert", hidden: true });

  const current = () => ({ preset: preset.value, from: from.value, to: to.value, zone: zone.value });
  const choosePreset = () => {
    if (preset.value === "custom") return;
    const chosen = presetRange(preset.value, zone.value);
    from.value = chosen.from;
    to.value = chosen.to;
    apply(chosen);
  };
  preset.addEventListener("change", () => (preset.value === "custom" ? from.focus() : choosePreset()));
  zone.addEventListener("change", () => (preset.value === "custom" ? apply(current()) : choosePreset()));
  for (const input of [from, to]) input.addEventListener("input", () => { preset.value = "custom"; });

  const form = h("form", { id: "report-range", class: "report-range", novalidate: true, "aria-label": "Days to report on",
    onsubmit: (event) => {
      event.preventDefault();
      clearErrors();
      if (!from.value || !to.value) {
        showError(`${from.value ? "to" : "from"}: choose a day`);
        return;
      }
      apply(current());
    } },
  field("report-preset", "Range", preset),
  field("report-from", "From", from),
  field("report-to", "To", to, "That day included."),
  field("report-zone", "Time zone", zone, `Days run from midnight to midnight here. This browser's: ${browserTimeZone()}.`),
  h("div", { class: "report-range-submit" }, h("button", { id: "report-show", class: "button primary", type: "submit" }, "Show")));

  function showError(message) {
    const name = message.split(":")[0].trim();
    const id = FIELDS[name];
    const target = id ? form.querySelector(`#${id}-error`) : error;
    target.textContent = message;
    target.hidden = false;
    if (id) form.querySelector(`#${id}`).setAttribute("aria-invalid", "true");
  }

  function clearErrors() {
    for (const element of [error, ...form.querySelectorAll(".field-error")]) {
      element.hidden = true;
      element.textContent = "";
    }
    for (const element of form.querySelectorAll("[aria-invalid]")) element.removeAttribute("aria-invalid");
  }

  return { element: [form, error], showError, clearErrors };
}

function field(id, label, control, hint) {
  return h("div", { class: "field" },
    h("label", { for: id }, label),
    control,
    hint ? h("span", { id: `${id}-hint`, class: "field-hint" }, hint) : null,
    h("p", { id: `${id}-error`, class: "field-error", role: "alert", hidden: true }));
}

/** Every zone the browser knows, this browser's and UTC always among them. */
function zoneOptions(selected) {
  const own = browserTimeZone();
  let zones = [];
  try {
    zones = Intl.supportedValuesOf("timeZone");
  } catch {
    zones = [];
  }
  const all = [...new Set([own, "UTC", selected, ...zones])].sort((a, b) => a.localeCompare(b));
  return all.map((name) => h("option", { value: name, selected: name === selected }, name));
}
