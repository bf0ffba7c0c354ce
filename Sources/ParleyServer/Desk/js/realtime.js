// The realtime WebSocket: connects with the session cookie, reconnects by itself, and hands every
// frame to `onFrame`. What to subscribe to, and what frames mean, is sync.js's business.
//
// Backoff after a lost or failed connection: 0.5 s × 2^(attempt − 1), capped at 15 s, each delay
// scaled by a random factor in [0.8, 1.2] so a restarted server is not hit by every desk at once.
//   attempt: 1     2     3     4     5     6…
//   delay:   0.5 s 1 s   2 s   4 s   8 s   15 s
const BACKOFF = { initial: 500, factor: 2, cap: 15000, jitter: 0.2 };

function backoffDelay(attempt, random = Math.random) {
  const base = Math.min(BACKOFF.cap, BACKOFF.initial * BACKOFF.factor ** Math.max(0, attempt - 1));
  return Math.round(base * (1 - BACKOFF.jitter + 2 * BACKOFF.jitter * random()));
}

export class Realtime {
  /**
   * @param handlers.onReady(frame)        the `ready` frame: (re)subscribe now
   * @param handlers.onFrame(frame)        every other frame
   * @param handlers.onDown()              the connection is lost (a retry is scheduled)
   * @param handlers.onRejected()          a connection ended before `ready`: the session may be over
   * @param handlers.onUnauthorized()      the server ended the session (1008 / `unauthorized`)
   */
  constructor(handlers) {
    this.handlers = handlers;
    this.socket = null;
    this.isReady = false;
    this.attempt = 0;
    this.timer = null;
    this.stopped = true;
  }

  start() {
    this.stopped = false;
    this.connect();
  }

  stop() {
    this.stopped = true;
    clearTimeout(this.timer);
    this.timer = null;
    const socket = this.socket;
    this.socket = null;
    this.isReady = false;
    if (socket) socket.close(1000, "logout");
  }

  /** Sends a frame if the socket is ready; returns whether it was sent. */
  send(frame) {
    if (!this.isReady || this.socket?.readyState !== WebSocket.OPEN) return false;
    this.socket.send(JSON.stringify(frame));
    return true;
  }

  connect() {
    if (this.stopped) return;
    const url = `${location.origin.replace(/^http/, "ws")}/v1/realtime`;
    const socket = new WebSocket(url);
    this.socket = socket;
    let sawReady = false;
    let unauthorized = false;

    socket.addEventListener("message", (message) => {
      if (socket !== this.socket) return;
      let frame;
      try {
        frame = JSON.parse(message.data);
      } catch {
        return;
      }
      if (frame.type === "ready") {
        sawReady = true;
        this.isReady = true;
        this.attempt = 0;
        this.handlers.onReady(frame);
        return;
      }
      if (frame.type === "error" && frame.code === "unauthorized") unauthorized = true;
      this.handlers.onFrame(frame);
    });

    socket.addEventListener("close", (event) => {
      if (socket !== this.socket) return;
      this.socket = null;
      this.isReady = false;
      if (this.stopped) return;
      if (unauthorized || event.code === 1008) {
        this.stopped = true;
        this.handlers.onUnauthorized();
        return;
      }
      this.handlers.onDown();
      if (!sawReady) this.handlers.onRejected();
      this.attempt += 1;
      this.timer = setTimeout(() => this.connect(), backoffDelay(this.attempt));
    });
  }
}
