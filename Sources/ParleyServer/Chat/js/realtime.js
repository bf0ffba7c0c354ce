// The visitor's realtime WebSocket (`/v1/realtime?access_token=…`): connects, reconnects by itself
// and hands every frame to `onFrame`. Backoff after a lost connection: 0.5 s × 2^(attempt − 1),
// capped at 10 s, each delay scaled by a random factor in [0.8, 1.2]; the browser coming back online
// tries at once.
const BACKOFF = { initial: 500, factor: 2, cap: 10000, jitter: 0.2 };

export function backoffDelay(attempt, random = Math.random) {
  const base = Math.min(BACKOFF.cap, BACKOFF.initial * BACKOFF.factor ** Math.max(0, attempt - 1));
  return Math.round(base * (1 - BACKOFF.jitter + 2 * BACKOFF.jitter * random()));
}

export class Realtime {
  /** handlers: onReady(frame), onFrame(frame), onDown(), onUnauthorized(). `token()` gives the current token. */
  constructor(token, handlers) {
    this.token = token;
    this.handlers = handlers;
    this.socket = null;
    this.isReady = false;
    this.attempt = 0;
    this.timer = null;
    this.stopped = true;
    window.addEventListener("online", () => this.reconnectNow());
  }

  start() {
    if (!this.stopped) return;
    this.stopped = false;
    this.connect();
  }

  stop() {
    this.stopped = true;
    clearTimeout(this.timer);
    const socket = this.socket;
    this.socket = null;
    this.isReady = false;
    if (socket) socket.close(1000, "done");
  }

  reconnectNow() {
    if (this.stopped || this.socket) return;
    clearTimeout(this.timer);
    this.connect();
  }

  send(frame) {
    if (!this.isReady || this.socket?.readyState !== WebSocket.OPEN) return false;
    this.socket.send(JSON.stringify(frame));
    return true;
  }

  connect() {
    if (this.stopped) return;
    this.timer = null;
    const url = `${location.origin.replace(/^http/, "ws")}/v1/realtime?access_token=${encodeURIComponent(this.token())}`;
    let socket;
    try {
      socket = new WebSocket(url);
    } catch {
      this.scheduleRetry();
      return;
    }
    this.socket = socket;
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
      this.scheduleRetry();
    });
  }

  scheduleRetry() {
    this.attempt += 1;
    clearTimeout(this.timer);
    this.timer = setTimeout(() => this.connect(), backoffDelay(this.attempt));
  }
}
