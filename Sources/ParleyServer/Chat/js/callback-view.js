// What shows for the callback flow (callback-machine.js): the form (how to get in touch, the phone
// number shown as it will be called, an optional start, and a queue's pre-chat questions when they are
// still to answer), and the request's screen: where it stands in the page's words, then the server's
// dialog (the offer's menu with the time left to answer, the number to dial with its access code), a
// Cancel while it is live. The entry on the queued and unavailable screens is views.js's.
import { h, replaceChildren } from "./dom.js";
import { KINDS, MAX_AHEAD_MS, phoneField, secondsLeft } from "./callback-machine.js";
import { validateField } from "./form-rules.js";
import { renderField } from "./forms.js";
import { language, locale, t } from "./i18n.js";

// What the panel shows now, so a render with the same screen leaves it alone (typing, focus and the
// status live region survive the chat's own renders, such as a queue position of the waiting chat).
let shown = null;
let countdown = null;

/** A date and time in the visitor's words (`25 Nov 2026, 09:00`). */
export function formatWhen(iso) {
  const date = new Date(iso);
  const style = { dateStyle: "medium", timeStyle: "short" };
  try {
    return date.toLocaleString(locale(), style);
  } catch {
    return date.toLocaleString(undefined, style);
  }
}

/** Shows the flow's screen in the panel (the form or the request), redrawn only when it changed. */
export function renderCallbackPanel(panel, flow) {
  const screen = flow.screen;
  if (shown && shown.screen === screen && shown.language === language() && panel.contains(shown.root)) return;
  if (screen.name === "form") {
    const root = formView(screen, flow);
    replaceChildren(panel, root);
    shown = { screen, language: language(), root };
    focusForm(root, screen);
    return;
  }
  const sameRequest = shown?.screen.name === "request" && shown.screen.callback.id === screen.callback.id
    && shown.language === language() && panel.contains(shown.root);
  if (!sameRequest) {
    const heading = h("h2", { id: "callback-title", tabindex: "-1" });
    const status = h("p", { id: "callback-status", class: "callback-status", role: "status" });
    const body = h("div", { class: "callback-body" });
    const root = h("section", { id: "callback", class: "notice-panel callback-panel", "aria-labelledby": "callback-title" }, heading, status, body);
    replaceChildren(panel, root);
    shown = { screen: null, language: language(), root, heading, status, body };
  }
  const previous = sameRequest ? shown.screen : null;
  shown.screen = screen;
  updateRequest(shown, screen, flow);
  // Land keyboard and screen-reader users where the news is: the request once made, an offer to answer.
  if (!previous) shown.heading.focus();
  else if (screen.dialog?.kind === "menu" && previous.dialog?.kind !== "menu") document.getElementById("callback-menu-label")?.focus();
}

/** Forgets what the panel showed (the chat's own screens took it over). */
export function leaveCallbackPanel() {
  shown = null;
  clearInterval(countdown);
  countdown = null;
}

// MARK: - The form

function formView(screen, flow) {
  const errors = new Map(screen.errors.map((error) => [error.key, error.code]));
  const disabled = screen.isSubmitting;
  const values = screen.values;
  const errorLine = (key) => (errors.has(key) ? h("p", { class: "field-error", id: `callback-${key}-error`, text: t(`errors.${errors.get(key)}`) }) : null);
  const describedBy = (...ids) => ids.filter(Boolean).join(" ") || null;
  const invalid = (key) => (errors.has(key) ? "true" : null);

  const kindInputs = KINDS.map((kind) => h("input", { type: "radio", id: `callback-kind-${kind}`, name: "callback-kind", value: kind, checked: values.kind === kind, disabled }));
  const kindField = h("div", { class: "field", dataset: { key: "kind", kind: "radio" } },
    h("fieldset", { class: "choices callback-kinds", "aria-invalid": invalid("kind"), "aria-describedby": errors.has("kind") ? "callback-kind-error" : null },
      h("legend", { text: t("callback_kind_legend") }),
      KINDS.map((kind, index) => h("span", { class: "choice" }, kindInputs[index], h("label", { for: `callback-kind-${kind}`, text: t(`callback_kind.${kind}`) })))),
    errorLine("kind"));
  const selectedKind = () => kindInputs.find((input) => input.checked)?.value ?? "";

  // The number as it will be called (E.164), shown while it is typed, by the same rules as the server's.
  const code = screen.callingCode;
  const phone = h("input", {
    id: "callback-phone", name: "phone", type: "tel", autocomplete: "tel", inputmode: "tel", value: values.phone ?? "", disabled,
    "aria-required": "true", "aria-invalid": invalid("phone"),
    "aria-describedby": describedBy("callback-phone-hint", "callback-phone-e164", errors.has("phone") && "callback-phone-error"),
  });
  const e164 = h("p", { class: "field-hint callback-e164", id: "callback-phone-e164", "aria-live": "polite" });
  const showE164 = () => {
    const result = validateField(phoneField(code), phone.value);
    e164.textContent = result.value ? t("callback_phone_e164", { phone: result.value }) : "";
  };
  phone.addEventListener("input", showE164);
  showE164();
  const phoneWrap = h("div", { class: "field", dataset: { key: "phone", kind: "phone" }, hidden: values.kind !== "call_me" },
    h("label", { for: "callback-phone" }, t("callback_phone"), h("span", { class: "required", text: ` ${t("required_mark")}` })),
    phone,
    h("p", { class: "field-hint", id: "callback-phone-hint", text: code ? t("callback_phone_hint_code", { code }) : t("callback_phone_hint") }),
    e164, errorLine("phone"));
  for (const input of kindInputs) input.addEventListener("change", () => { phoneWrap.hidden = selectedKind() !== "call_me"; });

  const windowInput = h("input", {
    id: "callback-window", name: "window_start", type: "datetime-local", value: values.windowStart ?? "", min: inputTime(new Date()), max: inputTime(new Date(Date.now() + MAX_AHEAD_MS)), disabled,
    "aria-invalid": invalid("window_start"), "aria-describedby": describedBy("callback-window-hint", errors.has("window_start") && "callback-window_start-error"),
  });
  const windowField = h("div", { class: "field", dataset: { key: "window_start", kind: "datetime" } },
    h("label", { for: "callback-window", text: t("callback_window") }), windowInput,
    h("p", { class: "field-hint", id: "callback-window-hint", text: t("callback_window_hint") }), errorLine("window_start"));

  const answerErrors = new Map(screen.answerErrors.map((error) => [error.key, error.code]));
  const questions = (screen.preChat?.fields ?? []).map((field, index) => {
    const question = renderField(field, `callback-q${index}`, answerErrors.get(field.key), disabled);
    const prefill = field.kind === "email" ? flow.customer?.email : field.key === "name" ? flow.customer?.name : undefined;
    restore(question.element, values.answers?.[field.key] ?? prefill);
    return question;
  });

  const lead = screen.origin === "queued" ? t("callback_form_lead.queued")
    : screen.reason === "closed" ? (screen.nextOpening ? t("callback_form_lead.closed_next", { when: formatWhen(screen.nextOpening) }) : t("callback_form_lead.closed"))
      : t("callback_form_lead.later");
  const form = h("form", { id: "callback-form", class: "chat-form callback-form", novalidate: true, "aria-labelledby": "callback-form-title" },
    h("h2", { id: "callback-form-title", class: "form-title", tabindex: "-1", text: t("callback_form_title") }),
    h("p", { class: "form-lead", text: lead }),
    kindField, phoneWrap, windowField,
    questions.length ? h("fieldset", { class: "callback-questions" }, h("legend", { text: t("callback_questions") }), questions.map((question) => question.element)) : null,
    screen.notice ? h("p", { class: "form-failure", role: "alert", text: t(`callback_notice.${screen.notice}`) }) : null,
    h("div", { class: "form-actions" },
      h("button", { class: "button primary", type: "submit", id: "callback-send", disabled, text: t("callback_send") }),
      h("button", { class: "button", type: "button", id: "callback-back", disabled, text: t(screen.origin === "queued" ? "callback_keep_waiting" : "callback_back"), onclick: () => flow.back() })));
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    const answers = {};
    for (const question of questions) {
      const value = question.read();
      if (value !== undefined) answers[question.key] = value;
    }
    // A half-typed date reads as "" from the input: send it as what it is, so it is refused, not dropped.
    const windowStart = windowInput.validity.badInput ? "invalid" : windowInput.value;
    flow.submit({ kind: selectedKind(), phone: phone.value, windowStart, answers });
  });
  return form;
}

function focusForm(form, screen) {
  if (screen.isSubmitting) return;
  queueMicrotask(() => {
    const target = form.querySelector("[aria-invalid=true]") ?? (screen.notice ? null : form.querySelector("#callback-form-title"));
    if (!target) return;
    // A refused fieldset (the kind) takes focus on its first choice.
    (target.matches("fieldset") ? target.querySelector("input") : target).focus();
  });
}

/** Puts an answer back into a pre-chat question's control (text, select, radio, checkbox). */
function restore(element, value) {
  if (value === undefined || value === null) return;
  for (const input of element.querySelectorAll("input, textarea, select")) {
    if (input.type === "radio") input.checked = input.value === String(value);
    else if (input.type === "checkbox") input.checked = value === true;
    else input.value = String(value);
  }
}

/** A Date as a `datetime-local` value on the visitor's wall clock. */
function inputTime(date) {
  const pad = (n) => String(n).padStart(2, "0");
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}T${pad(date.getHours())}:${pad(date.getMinutes())}`;
}

// MARK: - The request

function updateRequest(parts, screen, flow) {
  const callback = screen.callback;
  const data = parts.root.dataset;
  data.status = callback.status;
  data.kind = callback.kind;
  data.action = screen.lastAction ?? "";
  data.busy = String(screen.isBusy);
  if (callback.scheduled_until) data.scheduledUntil = callback.scheduled_until;
  else delete data.scheduledUntil;
  parts.heading.textContent = t(`callback_title.${callback.kind}`);
  // One live region, kept across updates, so each change of where the request stands is read out.
  const status = [statusLine(screen), screen.note].filter(Boolean).join(" ");
  if (parts.status.textContent !== status) parts.status.textContent = status;
  replaceChildren(parts.body, requestBody(screen, flow));
  startCountdown();
}

function statusLine(screen) {
  const callback = screen.callback;
  switch (callback.status) {
    case "waiting":
      return screen.position ? t("queued_position", { position: screen.position }) : t("callback_status.waiting");
    case "scheduled":
      return t("callback_status.scheduled", { when: formatWhen(callback.scheduled_until) });
    case "offered":
      return t("callback_status.offered");
    case "connecting":
      return t(`callback_status.connecting_${callback.kind}`, { phone: callback.phone ?? "" });
    default:
      if (callback.end_reason === "completed" && ["no_answer", "wrong_number"].includes(callback.outcome)) return t(`callback_status.ended_${callback.outcome}`);
      return t(`callback_status.ended_${callback.end_reason ?? "completed"}`);
  }
}

function requestBody(screen, flow) {
  const callback = screen.callback;
  const dialog = screen.dialog;
  const isLive = callback.status !== "ended";
  const menuCancels = dialog?.kind === "menu" && dialog.groups.some((group) => group.items.some((item) => item.action === "cancel"));
  return [
    callback.kind === "call_me" && callback.phone && isLive ? h("p", { class: "callback-phone", id: "callback-phone-line", text: t("callback_phone_line", { phone: callback.phone }) }) : null,
    dialog ? dialogView(screen, flow) : null,
    screen.notice ? h("p", { class: "form-failure", role: "alert", text: t(`callback_notice.${screen.notice}`) }) : null,
    isLive && !menuCancels ? h("div", { class: "form-actions" },
      h("button", { class: "button", type: "button", id: "callback-cancel", disabled: screen.isBusy, text: t("callback_cancel"), onclick: () => flow.choose("cancel") })) : null,
    isLive ? null : h("div", { class: "form-actions" },
      h("button", { class: "button primary", type: "button", id: "callback-new-chat", text: t("new_chat"), onclick: () => location.reload() })),
  ];
}

function dialogView(screen, flow) {
  const dialog = screen.dialog;
  switch (dialog.kind) {
    case "menu":
      return h("div", { class: "callback-menu", id: "callback-menu", role: "group", "aria-labelledby": "callback-menu-label" },
        h("h3", { id: "callback-menu-label", class: "callback-menu-label", tabindex: "-1", text: dialog.label }),
        dialog.expires_at ? h("p", { id: "callback-time-left", class: "callback-time-left", role: "timer", dataset: { expiresAt: dialog.expires_at } }) : null,
        dialog.groups.map((group, index) => h("div", { class: "callback-group", role: "group", "aria-labelledby": `callback-group-${index}` },
          h("p", { id: `callback-group-${index}`, class: "callback-group-name", text: group.name }),
          h("div", { class: "callback-choices" }, (group.items ?? []).map((item) => h("button", {
            class: item.action === "confirm" ? "button primary" : "button", type: "button", dataset: { action: item.action }, disabled: screen.isBusy,
            text: item.label, onclick: () => flow.choose(item.action),
          }))))));
    case "confirmation":
      // A scheduled request's words are the page's (the server's speak of a snooze, which only fits after one).
      if (screen.callback.status === "scheduled" && screen.lastAction !== "snoozed") return null;
      return h("p", { class: "callback-text", id: "callback-dialog-text", text: dialog.text });
    case "dial_number": {
      const telURL = /^tel:\+[0-9]{6,15}$/.test(dialog.tel_url ?? "") ? dialog.tel_url : null;
      return h("div", { class: "callback-dial" },
        h("p", { class: "callback-text", id: "callback-dialog-text", text: dialog.label }),
        telURL ? h("a", { class: "button primary callback-call", id: "callback-call", href: telURL, text: t("callback_call_now", { number: telURL.slice(4) }) }) : null,
        dialog.access_code ? h("p", { class: "callback-code-line" }, `${t("callback_access_code")} `,
          h("strong", { class: "callback-code", id: "callback-access-code", text: dialog.access_code })) : null,
        dialog.access_code ? h("p", { class: "field-hint", text: t("callback_access_code_hint") }) : null);
    }
    case "start_chat":
      return h("button", { class: "button primary", type: "button", id: "callback-start-chat", text: dialog.label, onclick: () => flow.startChat() });
    default:
      return null;
  }
}

/** Keeps the offer's "time left" current, once a second, while it is on screen. */
function startCountdown() {
  clearInterval(countdown);
  countdown = null;
  const tick = () => {
    const element = document.getElementById("callback-time-left");
    if (!element) {
      clearInterval(countdown);
      countdown = null;
      return;
    }
    const left = secondsLeft(element.dataset.expiresAt, Date.now());
    element.dataset.secondsLeft = String(left ?? "");
    element.textContent = left > 0 ? t("callback_time_left", { time: `${Math.floor(left / 60)}:${String(left % 60).padStart(2, "0")}` }) : t("callback_time_up");
  };
  tick();
  if (document.getElementById("callback-time-left")) countdown = setInterval(tick, 1000);
}
