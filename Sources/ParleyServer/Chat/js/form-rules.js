// The form rules of ParleyCore (`Form.validate`, `FormField+Validation.swift`, `EmailAddress.swift`,
// `PhoneNumber.swift`) in JavaScript, so the page refuses exactly what the server refuses and sends the
// same normalised values. Tests/Chat runs the shared field table (the one the server, ParleyKit and
// ParleyCore run) through `validateForm` in the page.
//
// Answers are JSON values: strings, booleans for checkboxes, integers for ratings; a missing key is
// "no answer". Lengths count characters as Swift does (extended grapheme clusters).
export const LIMITS = { singleLine: 200, multiLine: 4000, email: 254 };

const segmenter = typeof Intl !== "undefined" && Intl.Segmenter ? new Intl.Segmenter(undefined, { granularity: "grapheme" }) : null;

/** Characters as people (and Swift's `String.count`) count them. */
export function characterCount(text) {
  if (!segmenter) return Array.from(text).length;
  let count = 0;
  for (const _ of segmenter.segment(text)) count += 1;
  return count;
}

function utf8Length(text) {
  return new TextEncoder().encode(text).length;
}

/** Trims Unicode white space (the `White_Space` property) at both ends, like ParleyCore. */
export function trimWhitespace(text) {
  return text.replace(/^\p{White_Space}+|\p{White_Space}+$/gu, "");
}

// Swift's Character.isNewline: LF, VT, FF, CR (and CR LF), NEL, LS, PS.
const NEWLINE = /[\n\u000B\u000C\r\u0085\u2028\u2029]/u;

function replacingLineBreaks(text) {
  return text.replace(/\r\n|[\n\u000B\u000C\r\u0085\u2028\u2029]/gu, "\n");
}

function checkedText(text, maxLength, allowsNewlines) {
  for (const character of text) {
    if (/\p{Cc}/u.test(character) && character !== "\t" && !(allowsNewlines && character === "\n")) return { error: "invalid_characters" };
  }
  if (characterCount(text) > maxLength || utf8Length(text) > maxLength * 4) return { error: "too_long" };
  return { value: text };
}

const LOCAL_SYMBOLS = "!#$%&'*+/=?^_`{|}~-";
const isASCIILetterOrDigit = (c) => /^[A-Za-z0-9]$/.test(c);

/** ParleyCore's `EmailAddress.normalize`: a dot-atom local part and a DNS domain, domain lower-cased. */
export function normalizeEmail(text) {
  const address = trimWhitespace(text);
  if (characterCount(address) > LIMITS.email || !/^[\x00-\x7F]*$/.test(address)) return null;
  const parts = address.split("@");
  if (parts.length !== 2) return null;
  const [local, domain] = parts;
  const localOK = local.length > 0 && local.length <= 64
    && local.split(".").every((run) => run.length > 0 && [...run].every((c) => isASCIILetterOrDigit(c) || LOCAL_SYMBOLS.includes(c)));
  if (!localOK || !isDomain(domain)) return null;
  return `${local}@${domain.toLowerCase()}`;
}

function isDomain(domain) {
  const labels = domain.split(".");
  if (domain.length > 253 || labels.length < 2 || /^[0-9]*$/.test(labels[labels.length - 1])) return false;
  return labels.every((label) => label.length >= 1 && label.length <= 63 && !label.startsWith("-") && !label.endsWith("-")
    && /^[A-Za-z0-9-]+$/.test(label));
}

const KEEPS_LEADING_ZERO = new Set(["39", "378"]);

export function isCallingCode(code) {
  return typeof code === "string" && /^[1-9][0-9]{0,2}$/.test(code);
}

/** ParleyCore's `PhoneNumber.normalize`: E.164 (`+4930123456`) or null. */
export function normalizePhone(text, defaultCallingCode) {
  let number = trimWhitespace(text);
  if (number.length === 0 || !parenthesesArePaired(number)) return null;
  const isPlus = number.startsWith("+");
  if (isPlus) number = number.slice(1);
  if (!/^[0-9 \-.()]*$/.test(number)) return null;
  let digits = number.replace(/[^0-9]/g, "");
  const isInternational = isPlus || digits.startsWith("00");
  if (isInternational) {
    // The "00" prefix goes first, from the text, so a "(0)" can only be a trunk after the country code.
    if (!isPlus) number = droppingDigits(2, number);
    digits = number.split("(0)").join("").replace(/[^0-9]/g, "");
  } else {
    if (!isCallingCode(defaultCallingCode)) return null;
    if (digits.startsWith("0") && !KEEPS_LEADING_ZERO.has(defaultCallingCode)) digits = digits.slice(1);
    digits = defaultCallingCode + digits;
  }
  if (digits.length < 8 || digits.length > 15 || digits.startsWith("0")) return null;
  return `+${digits}`;
}

/** `text` after its first `count` digits (and the separators before them). */
function droppingDigits(count, text) {
  let dropped = 0;
  let index = 0;
  while (dropped < count && index < text.length) {
    if (/[0-9]/.test(text[index])) dropped += 1;
    index += 1;
  }
  return text.slice(index);
}

function parenthesesArePaired(text) {
  let isOpen = false;
  for (const character of text) {
    if (character === "(") {
      if (isOpen) return false;
      isOpen = true;
    } else if (character === ")") {
      if (!isOpen) return false;
      isOpen = false;
    }
  }
  return !isOpen;
}

const isInteger = (value) => typeof value === "number" && Number.isInteger(value);

/** One field's answer: `{value}` (normalised; `undefined` for "no answer") or `{error: code}`. */
export function validateField(field, answer) {
  const required = field.required === true;
  if (field.kind === "checkbox") return validateCheckbox(required, answer);
  if (field.kind === "rating") return validateRating(required, answer);
  if (answer === undefined || answer === null) return required ? { error: "required" } : { value: undefined };
  if (typeof answer !== "string") return { error: "wrong_type" };
  const text = trimWhitespace(answer);
  if (text.length === 0) return required ? { error: "required" } : { value: undefined };
  switch (field.kind) {
    case "single_line":
      if (NEWLINE.test(text)) return { error: "not_single_line" };
      return checkedText(text, LIMITS.singleLine, false);
    case "multi_line":
      return checkedText(replacingLineBreaks(text), LIMITS.multiLine, true);
    case "email": {
      if (characterCount(text) > LIMITS.email) return { error: "too_long" };
      const email = normalizeEmail(text);
      return email === null ? { error: "invalid_email" } : { value: email };
    }
    case "phone": {
      const phone = normalizePhone(text, field.default_calling_code);
      return phone === null ? { error: "invalid_phone" } : { value: phone };
    }
    case "select":
    case "radio":
      return (field.options ?? []).some((option) => option.value === text) ? { value: text } : { error: "not_an_option" };
    default:
      return { error: "wrong_type" };
  }
}

function validateCheckbox(required, answer) {
  let isChecked;
  if (answer === undefined || answer === null) isChecked = false;
  else if (typeof answer === "boolean") isChecked = answer;
  else if (typeof answer === "string") {
    const text = trimWhitespace(answer).toLowerCase();
    if (text === "true") isChecked = true;
    else if (text === "false" || text === "") isChecked = false;
    else return { error: "wrong_type" };
  } else return { error: "wrong_type" };
  if (required && !isChecked) return { error: "required" };
  return { value: isChecked };
}

function validateRating(required, answer) {
  let rating;
  if (answer === undefined || answer === null) return required ? { error: "required" } : { value: undefined };
  if (isInteger(answer)) rating = answer;
  else if (typeof answer === "string") {
    const text = trimWhitespace(answer);
    if (text.length === 0) return required ? { error: "required" } : { value: undefined };
    if (text.length > 9 || !/^[0-9]+$/.test(text)) return { error: "wrong_type" };
    rating = Number.parseInt(text, 10);
  } else return { error: "wrong_type" };
  return rating >= 1 && rating <= 5 ? { value: rating } : { error: "out_of_range" };
}

/**
 * Every answer of a form at once: `{values}` (normalised, unanswered optional fields left out, an
 * optional checkbox `false`) or `{errors: [{key, code}]}` in field order, unknown keys last (sorted).
 */
export function validateForm(form, answers) {
  const values = {};
  const errors = [];
  for (const field of form.fields) {
    const result = validateField(field, Object.hasOwn(answers, field.key) ? answers[field.key] : undefined);
    if (result.error) errors.push({ key: field.key, code: result.error });
    else if (result.value !== undefined) values[field.key] = result.value;
  }
  const known = new Set(form.fields.map((field) => field.key));
  for (const key of Object.keys(answers).sort()) {
    if (!known.has(key)) errors.push({ key, code: "unknown_field" });
  }
  return errors.length ? { errors } : { values };
}
