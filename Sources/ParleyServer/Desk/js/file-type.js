// A file's type from its first bytes, as the server decides it: a port of ParleyCore's FileType
// (Sources/ParleyCore/Attachments/FileType.swift: sniff, type(ofName:), decide with nothing
// declared, since the desk sends files as application/octet-stream). The desk uses it only to
// refuse early what the server would refuse; the server decides. test_attachments.py checks that
// the two agree on a table of files.

/** How many first bytes decide (FileType.sniffLength). */
export const SNIFF_LENGTH = 512;

const UNKNOWN = "application/octet-stream";

const BY_EXTENSION = {
  png: "image/png", jpg: "image/jpeg", jpeg: "image/jpeg", gif: "image/gif", webp: "image/webp",
  heic: "image/heic", heif: "image/heic", pdf: "application/pdf", txt: "text/plain", log: "text/plain",
  md: "text/plain", csv: "text/csv", zip: "application/zip",
  docx: "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
  xlsx: "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
  pptx: "application/vnd.openxmlformats-officedocument.presentationml.presentation",
  mp3: "audio/mpeg", m4a: "audio/mp4", ogg: "audio/ogg", oga: "audio/ogg", mp4: "video/mp4", m4v: "video/mp4",
  mov: "video/quicktime", exe: "application/x-msdownload", dll: "application/x-msdownload",
  html: "text/html", htm: "text/html", svg: "image/svg+xml", gz: "application/gzip", "7z": "application/x-7z-compressed",
  rar: "application/vnd.rar",
};

/** Types whose bytes look like a more general one: the name may say which (an OOXML document is a zip). */
const REFINEMENTS = {
  "application/zip": new Set([
    "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
    "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
    "application/vnd.openxmlformats-officedocument.presentationml.presentation",
  ]),
  "text/plain": new Set(["text/csv"]),
  "video/mp4": new Set(["audio/mp4"]),
};

const ascii = (text) => [...text].map((character) => character.charCodeAt(0));

/** The type the first bytes (a Uint8Array) show, or application/octet-stream. */
export function sniff(head) {
  const bytes = head.subarray(0, SNIFF_LENGTH);
  const starts = (prefix, offset = 0) => bytes.length >= offset + prefix.length && prefix.every((byte, i) => bytes[offset + i] === byte);

  if (starts([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])) return "image/png";
  if (starts([0xFF, 0xD8, 0xFF])) return "image/jpeg";
  if (starts(ascii("GIF87a")) || starts(ascii("GIF89a"))) return "image/gif";
  if (starts(ascii("RIFF")) && starts(ascii("WEBP"), 8)) return "image/webp";
  if (starts(ascii("%PDF-"))) return "application/pdf";
  if (starts([0x50, 0x4B, 0x03, 0x04]) || starts([0x50, 0x4B, 0x05, 0x06])) return "application/zip";
  if (starts(ascii("OggS"))) return "audio/ogg";
  if (starts(ascii("ID3")) || (bytes.length >= 2 && bytes[0] === 0xFF && [0xFB, 0xF3, 0xF2].includes(bytes[1]))) return "audio/mpeg";
  if (starts(ascii("ftyp"), 4) && bytes.length >= 12) {
    switch (String.fromCharCode(...bytes.subarray(8, 12))) {
      case "heic": case "heix": case "mif1": case "msf1": case "heim": case "heis": return "image/heic";
      case "qt  ": return "video/quicktime";
      case "M4A ": case "M4B ": return "audio/mp4";
      default: return "video/mp4";
    }
  }
  if (starts(ascii("MZ"))) return "application/x-msdownload";
  if (starts([0x7F, 0x45, 0x4C, 0x46])) return "application/x-executable";
  if (starts([0xCF, 0xFA, 0xED, 0xFE]) || starts([0xCE, 0xFA, 0xED, 0xFE]) || starts([0xCA, 0xFE, 0xBA, 0xBE])) return "application/x-mach-binary";
  if (starts([0x1F, 0x8B])) return "application/gzip";
  if (starts(ascii("7z")) && starts([0xBC, 0xAF, 0x27, 0x1C], 2)) return "application/x-7z-compressed";
  if (starts(ascii("Rar!"))) return "application/vnd.rar";
  return markupType(bytes) ?? (isText(bytes) ? "text/plain" : UNKNOWN);
}

/** HTML and SVG, told from text by their opening tags. */
function markupType(bytes) {
  let text = new TextDecoder("utf-8", { ignoreBOM: true }).decode(bytes).toLowerCase();
  if (text.startsWith("\uFEFF")) text = text.slice(1);
  text = text.trimStart();
  if (text.startsWith("<svg") || (text.startsWith("<?xml") && text.includes("<svg"))) return "image/svg+xml";
  for (const tag of ["<!doctype html", "<html", "<head", "<body", "<script", "<iframe"]) {
    if (text.startsWith(tag)) return "text/html";
  }
  return null;
}

/** UTF-8 without NUL or control bytes other than tab, newlines and form feed (a sequence cut at the end is fine). */
function isText(bytes) {
  if (bytes.length === 0) return false;
  if (bytes.some((byte) => (byte < 0x20 && ![0x09, 0x0A, 0x0C, 0x0D].includes(byte)) || byte === 0x7F)) return false;
  const decoder = new TextDecoder("utf-8", { fatal: true });
  for (let cut = 0; cut <= Math.min(3, bytes.length - 1); cut += 1) {
    try {
      decoder.decode(bytes.subarray(0, bytes.length - cut));
      return true;
    } catch {
      // Try again without the last byte: the sample may have cut a sequence.
    }
  }
  return false;
}

/** The type a name's extension stands for, when it is a known one. */
export function typeOfName(name) {
  const dot = name.lastIndexOf(".");
  if (dot <= 0) return null;
  return BY_EXTENSION[name.slice(dot + 1).toLowerCase()] ?? null;
}

/** A usual extension for a type (for files pasted without a name), or "". */
export function extensionFor(type) {
  const preferred = { "image/jpeg": "jpg", "text/plain": "txt", "video/mp4": "mp4", "application/x-msdownload": "exe", "image/heic": "heic" };
  if (preferred[type]) return preferred[type];
  return Object.entries(BY_EXTENSION).find(([, value]) => value === type)?.[0] ?? "";
}

/**
 * The file's type: its bytes' type, refined by its name where the bytes allow several.
 * Returns `{ type }`, or `{ mismatch }` with the server's words when the name says another type.
 */
export function decideType(head, name) {
  const sniffed = sniff(head);
  const named = typeOfName(name);
  if (named && named !== sniffed) {
    if (REFINEMENTS[sniffed]?.has(named)) return { type: named };
    return { mismatch: `the file's content is ${sniffed}, but its name says ${named}` };
  }
  return { type: sniffed };
}
