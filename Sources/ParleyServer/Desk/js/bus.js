// A tiny publish/subscribe hub: the store announces changes, views re-render what they show.

const target = new EventTarget();

/** Listens to a topic; returns a function that stops listening. */
export function on(topic, handler) {
  const listener = (event) => handler(event.detail);
  target.addEventListener(topic, listener);
  return () => target.removeEventListener(topic, listener);
}

/** Announces a topic with an optional detail. */
export function emit(topic, detail) {
  target.dispatchEvent(new CustomEvent(topic, { detail }));
}
