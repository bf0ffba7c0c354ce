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

/** "14:05", whatever the day (for a time whose day is said in words, such as "tomorrow"). */
export function timeOfDay(iso) {
  return iso ? timeFormat.format(new Date(iso)) : "";
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

/**
 * A measured time for people, from whole milliseconds: "240 ms", "4.2 s", "42 s", "1 min 30 s",
 * "2 min", "1 h 5 min", "2 d 3 h". Below 10 s one decimal (rounded down), above whole units
 * (rounded down) with at most two of them; "—" when there is no value.
 */
export function readableDuration(ms) {
  if (typeof ms !== "number" || !Number.isFinite(ms) || ms < 0) return "—";
  if (ms < 1000) return `${Math.floor(ms)} ms`;
  if (ms < 10000) return `${(Math.floor(ms / 100) / 10).toFixed(1)} s`;
  const seconds = Math.floor(ms / 1000);
  const pair = (big, bigUnit, small, smallUnit) => (small ? `${big} ${bigUnit} ${small} ${smallUnit}` : `${big} ${bigUnit}`);
  if (seconds < 60) return `${seconds} s`;
  if (seconds < 3600) return pair(Math.floor(seconds / 60), "min", seconds % 60, "s");
  if (seconds < 86400) return pair(Math.floor(seconds / 3600), "h", Math.floor((seconds % 3600) / 60), "min");
  return pair(Math.floor(seconds / 86400), "d", Math.floor((seconds % 86400) / 3600), "h");
}

/** A share as a whole percentage ("75 %"), "—" when there is nothing to share. */
export function percent(part, whole) {
  return whole > 0 ? `${Math.round((part / whole) * 100)} %` : "—";
}

const dayFormats = {
  long: new Intl.DateTimeFormat(undefined, { dateStyle: "medium", timeZone: "UTC" }),
  short: new Intl.DateTimeFormat(undefined, { day: "numeric", month: "short", timeZone: "UTC" }),
};

/** A calendar day ("2026-11-25") as people read it: "25 Nov 2026" (long) or "25 Nov" (short). */
export function calendarDay(day, style = "long") {
  const [year, month, date] = day.split("-").map(Number);
  return dayFormats[style].format(new Date(Date.UTC(year, month - 1, date)));
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

/** A byte count for people, in decimal units as the server writes it: "512 B", "12.3 KB", "4.5 MB". */
export function readableSize(bytes) {
  const units = ["B", "KB", "MB", "GB"];
  let value = bytes;
  let unit = 0;
  while (value >= 1000 && unit < units.length - 1) {
    value /= 1000;
    unit += 1;
  }
  return unit === 0 ? `${bytes} B` : `${value.toFixed(1)} ${units[unit]}`;
}

const TYPE_NAMES = {
  "application/pdf": "PDF document",
  "text/plain": "Text",
  "text/csv": "CSV table",
  "application/zip": "Zip archive",
  "application/vnd.openxmlformats-officedocument.wordprocessingml.document": "Word document",
  "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet": "Excel workbook",
  "application/vnd.openxmlformats-officedocument.presentationml.presentation": "PowerPoint presentation",
  "image/png": "PNG image",
  "image/jpeg": "JPEG image",
  "image/gif": "GIF image",
  "image/webp": "WebP image",
  "image/heic": "HEIC image",
  "audio/mpeg": "MP3 audio",
  "audio/mp4": "M4A audio",
  "audio/ogg": "Ogg audio",
  "video/mp4": "MP4 video",
  "video/quicktime": "QuickTime video",
};

/** A file type for people ("PDF document"), or the MIME type itself when it has no common name. */
export function typeName(contentType) {
  return TYPE_NAMES[contentType] ?? contentType;
}

/** Characters as the server (Swift) counts them: grapheme clusters. */
export function characterCount(text) {
  return typeof Intl.Segmenter === "function" ? [...new Intl.Segmenter().segment(text)].length : [...text].length;
}
