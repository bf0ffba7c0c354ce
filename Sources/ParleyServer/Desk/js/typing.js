// Who is typing in a conversation, from the live `typing` frames: the visitor (a line under the
// transcript) and other agents (a warning by the composer, so two agents do not answer at once).
// My own frames (another tab of mine) are left out. Typing frames are live only and a stop can be
// lost, so a notice also fades by itself; a stop or a message from that person clears it at once.
import { emit } from "./bus.js";
import { state, timeline } from "./store.js";

const FADE_MS = 6000;
/** "conversation|participant" → the timer that fades the notice. */
const timers = new Map();

/** Takes a `typing` frame into the conversation's timeline (`line.typing`: participant key → participant). */
export function noteTyping(message) {
  const participant = message.participant;
  if (!participant || (participant.id && participant.id === state.me?.id)) return;
  const id = message.conversation_id;
  const line = timeline(id);
  const who = participant.id ?? participant.role;
  const key = `${id}|${who}`;
  clearTimeout(timers.get(key));
  timers.delete(key);
  if (message.is_typing) {
    line.typing.set(who, participant);
    timers.set(key, setTimeout(() => {
      timers.delete(key);
      line.typing.delete(who);
      emit("timeline", id);
    }, FADE_MS));
  } else {
    line.typing.delete(who);
  }
  emit("timeline", id);
}

/** The visitor typing in this timeline, or null. */
export function visitorTyping(line) {
  return [...line.typing.values()].find((participant) => participant.role !== "agent") ?? null;
}

/** Other agents typing in this timeline. */
export function agentsTyping(line) {
  return [...line.typing.values()].filter((participant) => participant.role === "agent");
}
