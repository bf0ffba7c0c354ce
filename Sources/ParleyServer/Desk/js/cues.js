// Getting an agent's attention: toasts, short tones (an assignment, a visitor's message), and the
// count in the tab title.
import { byId, h } from "./dom.js";

const TOAST_MS = 8000;

/** Shows a short message in the corner (read out by screen readers). Optional link. */
export function toast(text, { href, linkText, kind = "info" } = {}) {
  const item = h("div", { class: `toast ${kind}` },
    h("p", {}, text, href ? [" ", h("a", { href, onclick: () => item.remove() }, linkText ?? "Open")] : null),
    h("button", { class: "toast-close", type: "button", "aria-label": "Dismiss", onclick: () => item.remove() }, "×"));
  byId("toasts").append(item);
  setTimeout(() => item.remove(), TOAST_MS);
  return item;
}

let audio = null;

/**
 * Two short rising sine tones for a new assignment (no audio file needed). Browsers may refuse sound
 * until the page has seen a click or key press; that is fine, the toast and the title still tell.
 */
export function beep() {
  tones([880, 1320]);
}

/** One softer, lower tone for a new visitor message: told apart from an assignment by ear. */
export function chime() {
  tones([660], 0.12);
}

function tones(frequencies, volume = 0.2) {
  try {
    audio ??= new AudioContext();
    if (audio.state === "suspended") audio.resume().catch(() => {});
    const start = audio.currentTime + 0.01;
    frequencies.forEach((frequency, index) => {
      const oscillator = audio.createOscillator();
      const gain = audio.createGain();
      oscillator.type = "sine";
      oscillator.frequency.value = frequency;
      const at = start + index * 0.16;
      gain.gain.setValueAtTime(0.0001, at);
      gain.gain.exponentialRampToValueAtTime(volume, at + 0.02);
      gain.gain.exponentialRampToValueAtTime(0.0001, at + 0.14);
      oscillator.connect(gain).connect(audio.destination);
      oscillator.start(at);
      oscillator.stop(at + 0.15);
    });
  } catch {
    // No audio device or not allowed: the visible cues remain.
  }
}

/** Lets the first user gesture unlock audio, so later beeps can play. */
export function primeAudio() {
  const unlock = () => {
    try {
      audio ??= new AudioContext();
      audio.resume().catch(() => {});
    } catch {
      // ignore
    }
  };
  document.addEventListener("pointerdown", unlock, { once: true, capture: true });
  document.addEventListener("keydown", unlock, { once: true, capture: true });
}

/** "(N) Parley desk" while N conversations need the agent, else "Parley desk". */
export function setAttentionCount(count) {
  document.title = count > 0 ? `(${count}) Parley desk` : "Parley desk";
}
