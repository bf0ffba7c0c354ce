// Words and times as agents read them.

const timeFormat = new Intl.DateTimeFormat(undefined, { hour: "2-digit", minute: "2-digit" });
const dateTimeFormat = new Intl.DateTimeFormat(undefined, { dateStyle: "medium", timeStyle: "short" });

/** "14:05" for today, "21 Nov 2026, 14:05" otherwise. */
export function shortTime(iso) {
  if (!iso) return "";
  const date = new Date(iso);
  const today = new Date();
  return date.toDateString() === today.toDateString() ? timeFormat.format(date) : dateTimeFormat.format(date);
}

/** "21 Nov 2026, 14:05". */
export function longTime(iso) {
  return iso ? dateTimeFormat.format(new Date(iso)) : "";
}

/** How long something has been waiting: "12 s", "4 min", "1 h 5 min". */
export function duration(fromISO, now = Date.now()) {
  const seconds = Math.max(0, Math.floor((now - Date.parse(fromISO)) / 1000));
  if (seconds < 60) return `${seconds} s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return `${minutes} min`;
  const hours = Math.floor(minutes / 60);
  return minutes % 60 ? `${hours} h ${minutes % 60} min` : `${hours} h`;
}

/** A participant's display name. */
export function participantName(participant) {
  if (participant?.name) return participant.name;
  switch (participant?.role) {
    case "visitor": return "The visitor";
    case "agent": return "An agent";
    default: return "Parley";
  }
}

/** "Queued", "Assigned", "Ended". */
export function stateLabel(state) {
  return { queued: "Queued", assigned: "Assigned", ended: "Ended" }[state] ?? state;
}

/** "Online", "Away", "Offline". */
export function availabilityLabel(availability) {
  return { online: "Online", away: "Away", offline: "Offline" }[availability] ?? availability;
}
