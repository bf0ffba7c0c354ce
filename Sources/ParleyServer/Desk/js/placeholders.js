// Placeholders in canned responses, filled when one is inserted:
//   {{visitor.name}} {{visitor.email}} {{agent.name}} {{conversation.id}} {{attributes.KEY}}
// (KEY from the conversation's attributes, else the visitor's). One that is unknown, or whose value
// is empty, stays in the text as written: the composer points it out and will not send it, so a
// visitor never gets "Hello {{visitor.name}}".

const PLACEHOLDER = /\{\{\s*([^{}]*?)\s*\}\}/gu;

/** `{{…}}` spans left in a text, as written (duplicates once). */
export function unfilledPlaceholders(text) {
  return [...new Set([...text.matchAll(PLACEHOLDER)].map((match) => match[0]))];
}

/** Where the first `{{…}}` span is, as [start, end], or null. */
export function firstPlaceholderRange(text) {
  const match = text.matchAll(PLACEHOLDER).next().value;
  return match ? [match.index, match.index + match[0].length] : null;
}

/**
 * Fills the placeholders it has a non-empty value for. `context`: {visitor, agent, conversation}
 * (the store's objects; any may be missing). Returns {text, unfilled}.
 */
export function fillPlaceholders(template, context) {
  const text = template.replace(PLACEHOLDER, (whole, name) => {
    const value = valueOf(name, context);
    return value === null ? whole : value;
  });
  return { text, unfilled: unfilledPlaceholders(text) };
}

function valueOf(name, { visitor, agent, conversation } = {}) {
  const [scope, ...rest] = name.split(".");
  const key = rest.join(".");
  let value;
  switch (scope) {
    case "visitor":
      value = key === "name" || key === "email" ? visitor?.[key] : undefined;
      break;
    case "agent":
      value = key === "name" ? agent?.name : undefined;
      break;
    case "conversation":
      value = key === "id" ? conversation?.id : undefined;
      break;
    case "attributes":
      value = key ? nonEmpty(conversation?.attributes?.[key]) ?? visitor?.attributes?.[key] : undefined;
      break;
    default:
      value = undefined;
  }
  return nonEmpty(value);
}

function nonEmpty(value) {
  if (value === undefined || value === null) return null;
  const text = String(value);
  return text.trim() === "" ? null : text;
}
