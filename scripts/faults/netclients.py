"""Clients for the network fault harnesses, each a thread inside the clients' namespace: visitors
sending over HTTP or over the realtime socket, and agents on the desk's protocol (session cookie,
CSRF header, the socket opened with the cookie and the server's Origin). Every sender sends one
message at a time and, without an answer, sends the very same message again (same
client_message_id), as docs/protocol.md says. Every socket checks what it is delivered: each
event once, in seq order, no gap, across reconnects (it resubscribes after its cursor)."""
import json, random, threading, time, traceback

import netlab
from parleyclient import Http, NetError, open_socket

# How a client decides a connection is dead: no frame at all for DEAD_AFTER seconds (it pings
# every PING_EVERY), or no ack DEAD_AFTER seconds after a send.
PING_EVERY, DEAD_AFTER = 2.0, 8.0


class Shared:
    """What every client of one run shares."""

    def __init__(self, ledger, ns, base_url, direct_url=None):
        self.ledger, self.ns, self.base_url, self.direct_url = ledger, ns, base_url, direct_url or base_url
        self.stop = threading.Event()
        self.quiet = threading.Event()          # senders stop sending new messages (pending ones still go)
        self.lock = threading.Lock()
        self.counters = {}
        self.samples = {}

    def count(self, key, n=1, sample=None):
        with self.lock:
            self.counters[key] = self.counters.get(key, 0) + n
            if sample is not None and len(self.samples.setdefault(key, [])) < 10:
                self.samples[key].append(sample)


class Client(threading.Thread):
    def __init__(self, name, shared, rng, send_interval=(0.1, 0.4)):
        super().__init__(daemon=True, name=name)
        self.shared, self.rng, self.send_interval = shared, rng, send_interval
        self.pending = None             # (conversation, cmid, text, first_sent_at)
        self.sent = 0
        self.acks = []                  # times of acknowledgements (monotonic)
        self.ack_urls = []              # the server that gave each
        self.url = shared.base_url
        self.failed = None
        self.next_send = 0.0

    def run(self):
        netlab.enter(self.shared.ns)
        try:
            self.main()
        except Exception:
            self.failed = traceback.format_exc()
            self.shared.count("client_crashed", sample=f"{self.name}: {self.failed}")

    def new_message(self, conversation):
        """The next message, or None while the client may not start one."""
        if self.pending is not None or self.shared.quiet.is_set() or time.monotonic() < self.next_send:
            return self.pending
        self.sent += 1
        cmid = f"{self.name}-{self.sent}"
        text = f"{self.name} says {self.sent}"
        self.shared.ledger.will_send(conversation, self.name, cmid, text=text)
        self.pending = (conversation, cmid, text, time.monotonic())
        return self.pending

    def acked(self, conversation, cmid, seq, duplicate):
        problem = self.shared.ledger.acked(conversation, cmid, seq)
        if problem:
            self.shared.count("ack_seq_changed", sample=problem)
        self.shared.count("acked_duplicate" if duplicate else "acked")
        if self.pending and self.pending[1] == cmid:
            self.pending = None
            self.acks.append(time.monotonic())
            self.ack_urls.append(self.url)
            self.next_send = time.monotonic() + self.rng.uniform(*self.send_interval)

    def idle(self):
        return self.pending is None


class HttpVisitor(Client):
    """Opens a conversation and sends over HTTP only."""

    def __init__(self, name, shared, rng, app_id, timeout=5.0, fallback=None, **kw):
        super().__init__(name, shared, rng, **kw)
        self.app_id, self.timeout = app_id, timeout
        # With a fallback, a request without an answer is sent again to the other node (a load
        # balancer's failover); now and then the client goes back to its own node.
        self.urls = [shared.base_url] + ([fallback] if fallback else [])
        self.device = f"faults-{name}-{rng.randrange(1 << 40):x}"
        self.token = self.conversation = None

    def switch(self, index):
        if self.urls[index] != self.url:
            self.url = self.urls[index]
            self.http.close()
            self.http = Http(self.url, timeout=self.timeout)

    def call(self, method, path, body=None):
        if len(self.urls) > 1 and self.url != self.urls[0] and self.rng.random() < 0.2:
            self.switch(0)
        while not self.shared.stop.is_set():
            try:
                status, _, data = self.http.request(method, path, body, self.token, timeout=self.timeout)
            except NetError:
                self.shared.count("http_no_answer")
                self.switch((self.urls.index(self.url) + 1) % len(self.urls))
                time.sleep(0.2)
                continue
            if status >= 500:
                self.shared.count("http_5xx", sample=f"{self.name} {self.url} {method} {path}: {status} {data}")
                self.switch((self.urls.index(self.url) + 1) % len(self.urls))
                time.sleep(0.2)
                continue
            return status, data
        raise SystemExit

    def setup(self):
        self.http = Http(self.url, timeout=self.timeout)
        status, data = self.call("POST", "/v1/visitor/session", {"app_id": self.app_id, "device_id": self.device, "name": self.name})
        assert status == 200, (status, data)
        self.token = data["token"]
        while self.conversation is None:
            status, data = self.call("GET", "/v1/conversations")
            if data["conversations"]:
                self.conversation = data["conversations"][-1]["id"]
                break
            self.call("POST", "/v1/conversations", {"subject": f"net {self.name}"})

    def main(self):
        try:
            self.setup()
            while not self.shared.stop.is_set():
                p = self.new_message(self.conversation)
                if p is None:
                    time.sleep(0.05)
                    continue
                conversation, cmid, text, _ = p
                status, data = self.call("POST", f"/v1/conversations/{conversation}/messages", {"client_message_id": cmid, "text": text})
                if status in (200, 201):
                    self.acked(conversation, cmid, data["event"]["seq"], status == 200)
                else:
                    self.shared.count("send_refused", sample=f"{self.name} {cmid}: {status} {data}")
                    time.sleep(0.5)
        except SystemExit:
            pass


class SocketClient(Client):
    """A sender and receiver on the realtime socket, reconnecting and resuming by itself."""

    def __init__(self, name, shared, rng, **kw):
        super().__init__(name, shared, rng, **kw)
        self.ws = None
        self.cursors = {}           # conversation -> highest seq delivered on a socket
        self.epoch = None
        self.subscribed = set()
        self.refs = 0
        self.pending_ref = None
        self.last_frame = self.last_ping = 0.0
        self.connects = 0
        self.connected_at = None

    # to override
    def open(self):
        raise NotImplementedError

    def conversations(self):
        return []

    def on_frame(self, frame):
        pass

    def drop(self, why):
        if self.ws is not None:
            self.shared.count(f"socket_dropped_{why}")
            try:
                self.ws.close_socket() if hasattr(self.ws, "close_socket") else self.ws.socket.close()
            except Exception:
                pass
            try:
                self.ws.close()
            except Exception:
                pass
        self.ws = None
        self.pending_ref = None
        self.subscribed = set()

    def connect(self):
        try:
            self.ws, ready = self.open()
        except Exception as e:
            self.shared.count("socket_connect_failed")
            self.ws = None
            return False
        self.connects += 1
        self.connected_at = self.last_frame = time.monotonic()
        if self.epoch and ready["epoch"] != self.epoch:
            self.shared.count("epoch_changed", sample=f"{self.epoch} -> {ready['epoch']}")
        self.epoch = ready["epoch"]
        try:
            for c in self.conversations():
                self.subscribe(c)
        except Exception:           # the new connection broke already
            self.drop("broken")
            return False
        return True

    def subscribe(self, conversation):
        if conversation in self.subscribed or self.ws is None:
            return
        self.subscribed.add(conversation)
        self.cursors.setdefault(conversation, 0)
        self.ws.send(json.dumps({"type": "subscribe", "conversation_id": conversation, "after_seq": self.cursors[conversation],
                                 "epoch": self.epoch}))

    def handle(self, frame):
        t = frame.get("type")
        if t == "event":
            e = frame["event"]
            c, seq = e["conversation_id"], e["seq"]
            cur = self.cursors.get(c, 0)
            if seq <= cur:
                self.shared.count("delivered_twice", sample=f"{self.name}: {c} seq {seq} after {cur}")
            elif seq > cur + 1:
                self.shared.count("delivery_gap", sample=f"{self.name}: {c} seq {seq} after {cur}")
                self.cursors[c] = seq
            else:
                self.cursors[c] = seq
        elif t == "ack":
            e = frame["event"]
            if frame.get("ref") == self.pending_ref:
                self.pending_ref = None
            self.acked(e["conversation_id"], e["client_message_id"], e["seq"], frame.get("duplicate", False))
        elif t == "reset":
            self.shared.count("reset_frames", sample=f"{self.name}: {frame}")
            self.cursors[frame["conversation_id"]] = 0
        elif t == "error":
            self.shared.count("error_frames", sample=f"{self.name}: {frame}")
            if frame.get("ref") and frame.get("ref") == self.pending_ref:
                self.pending_ref = None
                time.sleep(0.3)
        self.on_frame(frame)

    def send_pending(self):
        p = self.pending
        if p is None or self.pending_ref is not None or self.ws is None:
            return
        conversation, cmid, text, _ = p
        self.subscribe(conversation)
        self.refs += 1
        self.pending_ref = str(self.refs)
        self.pending_sent_at = time.monotonic()
        self.ws.send(json.dumps({"type": "send", "ref": self.pending_ref, "conversation_id": conversation,
                                 "client_message_id": cmid, "text": text}))

    def pick_conversation(self):
        return None

    def main(self):
        backoff = 0.2
        self.setup()
        while not self.shared.stop.is_set():
            if self.ws is None:
                if not self.connect():
                    time.sleep(backoff)
                    backoff = min(backoff * 2, 2.0)
                    continue
                backoff = 0.2
            now = time.monotonic()
            try:
                c = self.pick_conversation()
                if c is not None:
                    self.new_message(c)
                self.send_pending()
                if now - self.last_ping > PING_EVERY:
                    self.last_ping = now
                    self.ws.send(json.dumps({"type": "ping", "ref": "p"}))
                try:
                    raw = self.ws.recv(timeout=0.2)
                except TimeoutError:
                    raw = None
                if raw is not None:
                    self.last_frame = time.monotonic()
                    self.handle(json.loads(raw))
            except Exception as e:     # the connection broke
                if self.shared.stop.is_set():
                    break
                self.drop("broken")
                continue
            now = time.monotonic()
            if now - self.last_frame > DEAD_AFTER:
                self.drop("silent")
            elif self.pending_ref is not None and now - self.pending_sent_at > DEAD_AFTER:
                self.drop("no_ack")
        self.drop("stopped") if self.ws else None

    def setup(self):
        pass


class SocketVisitor(SocketClient):
    """Opens its conversation over HTTP, then sends and receives over the socket only."""

    def __init__(self, name, shared, rng, app_id, **kw):
        super().__init__(name, shared, rng, **kw)
        self.app_id = app_id
        self.device = f"faults-{name}-{rng.randrange(1 << 40):x}"
        self.token = self.conversation = None

    def setup(self):
        http = Http(self.shared.base_url, timeout=5)
        while self.conversation is None and not self.shared.stop.is_set():
            try:
                if self.token is None:
                    self.token = http.ok("POST", "/v1/visitor/session", {"app_id": self.app_id, "device_id": self.device, "name": self.name})["token"]
                found = http.ok("GET", "/v1/conversations", token=self.token)["conversations"]
                if found:
                    self.conversation = found[-1]["id"]
                else:
                    http.request("POST", "/v1/conversations", {"subject": f"net {self.name}"}, self.token)
            except (NetError, RuntimeError):
                time.sleep(0.3)
        http.close()

    def open(self):
        return open_socket(self.shared.base_url, token=self.token, timeout=5)

    def conversations(self):
        return [self.conversation]

    def pick_conversation(self):
        return self.conversation


class DeskAgent(SocketClient):
    """An agent on the desk's protocol: logs in with the cookie, goes online, opens the socket with
    the cookie and the server's Origin, follows the conversations routed to it and answers them,
    half over the socket, half over HTTP with the CSRF header."""

    def __init__(self, name, shared, rng, email, password, **kw):
        super().__init__(name, shared, rng, **kw)
        self.email, self.password = email, password
        self.http = None
        self.csrf = None
        self.agent_id = None
        self.mine = []
        self.turn = 0
        self.http_pending = False

    def setup(self):
        self.http = Http(self.shared.base_url, timeout=5)
        while self.csrf is None and not self.shared.stop.is_set():
            try:
                status, _, data = self.http.request("POST", "/v1/desk/login", {"email": self.email, "password": self.password})
                if status == 200:
                    self.csrf, self.agent_id = data["csrf_token"], data["agent"]["id"]
                    self.desk("PUT", "/v1/agent/availability", {"availability": "online"})
                else:
                    time.sleep(0.5)
            except NetError:
                time.sleep(0.3)

    def desk(self, method, path, body=None):
        headers = {"X-Parley-CSRF": self.csrf} if method not in ("GET", "HEAD") else {}
        return self.http.request(method, path, body, headers=headers)

    def open(self):
        return open_socket(self.shared.base_url, cookies=self.http.cookies, origin=self.shared.base_url, timeout=5)

    def refresh(self):
        try:
            status, _, data = self.desk("GET", "/v1/conversations?view=mine")
            if status == 200:
                self.mine = [c["id"] for c in data["conversations"] if c["state"] == "assigned"]
                for c in self.mine:
                    self.subscribe(c)
        except NetError:
            pass

    def conversations(self):
        self.refresh()
        return self.mine

    def on_frame(self, frame):
        if frame.get("type") == "conversation":
            c = frame["conversation"]
            if c.get("agent_id") == self.agent_id and c["state"] == "assigned" and c["id"] not in self.mine:
                self.mine.append(c["id"])
                self.subscribe(c["id"])

    def pick_conversation(self):
        if not self.mine:
            return None
        if self.pending is None:
            self.turn += 1
        return self.mine[self.turn % len(self.mine)]

    def send_pending(self):
        p = self.pending
        if p is None:
            return
        if self.sent % 2 == 0:
            return super().send_pending()
        # Every other reply over HTTP with the cookie and the CSRF header (bounded by the HTTP timeout).
        conversation, cmid, text, _ = p
        try:
            status, _, data = self.desk("POST", f"/v1/conversations/{conversation}/messages", {"client_message_id": cmid, "text": text})
        except NetError:
            self.shared.count("http_no_answer")
            return
        if status in (200, 201):
            self.acked(conversation, cmid, data["event"]["seq"], status == 200)
        elif status >= 500:
            self.shared.count("http_5xx")
        else:
            self.shared.count("send_refused", sample=f"{self.name} {cmid}: {status} {data}")
            time.sleep(0.5)
