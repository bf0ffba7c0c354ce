"""What the fault harnesses share: starting parleyd and reading its banner, a small HTTP+JSON client,
WebSocket connections (visitor token, agent token or the desk's cookie), and the check that every
acknowledged message is stored exactly once and in order."""
import http.client, json, os, re, signal, subprocess, threading, time, urllib.parse, uuid

from websockets.sync.client import connect as ws_connect


def record_pid(pid):
    """Notes a child for the entry script's trap (common.sh), which kills what a killed harness left."""
    work = os.environ.get("FAULTS_WORK")
    if work and os.path.isdir(work):
        with open(os.path.join(work, "pids"), "a") as f:
            f.write(f"{pid}\n")


def bin_dir():
    """PARLEY_BIN_DIR, or `swift build --show-bin-path` (builds nothing)."""
    d = os.environ.get("PARLEY_BIN_DIR")
    if not d:
        root = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
        d = subprocess.run(["swift", "build", "--show-bin-path"], cwd=root, capture_output=True, text=True, check=True).stdout.strip()
    for binary in ("parleyd",):
        if not os.access(os.path.join(d, binary), os.X_OK):
            raise SystemExit(f"error: {d}/{binary} is missing; build it first (swift build --product {binary}) or set PARLEY_BIN_DIR")
    return d


class Parleyd:
    """One `parleyd serve` process; `netns` runs it inside that network namespace."""

    def __init__(self, bin_dir, log_path, admin_token, data_dir=None, database=None, host="127.0.0.1", port=0, netns=None,
                 extra=(), env=None):
        self.bin, self.log_path, self.admin_token = os.path.join(bin_dir, "parleyd"), log_path, admin_token
        self.data_dir, self.database, self.host, self.port, self.netns, self.extra = data_dir, database, host, port, netns, list(extra)
        self.env = env
        self.proc = None
        self.banner = {}

    def start(self, timeout=60):
        args = [self.bin, "serve", "--host", self.host, "--port", str(self.port), "--admin-token", self.admin_token,
                "--password-cost", "4", "--no-rate-limits", "--allow-private-outbound", "--log-level", "notice"] + self.extra
        if self.database:
            args += ["--database", self.database]
        if self.data_dir:       # with PostgreSQL too: the secrets key lives there unless given
            args += ["--data-dir", self.data_dir]
        if self.netns:
            args = ["ip", "netns", "exec", self.netns] + args
        log = open(self.log_path, "a")
        log.write(f"\n=== {time.strftime('%H:%M:%S')} start: {' '.join(args)}\n")
        log.flush()
        env = dict(os.environ, **(self.env or {}))
        env.setdefault("SWIFT_BACKTRACE", "enable=no")
        self.proc = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=log, text=True, env=env, start_new_session=True)
        record_pid(self.proc.pid)
        banner, ready = {}, threading.Event()

        def read():
            for line in self.proc.stdout:
                log.write(line)
                log.flush()
                for key, pattern in (("port", r"listening on https?://[^\s:]+:(\d+)"), ("app_id", r"app id:\s+(app_\w+)"),
                                     ("queue_id", r"queue:\s+(que_\w+)"), ("agent_email", r"agent login:\s+(\S+)"),
                                     ("agent_password", r"password:\s+(\S+)")):
                    m = re.search(pattern, line)
                    if m:
                        banner[key] = m.group(1)
                if "realtime:" in line:      # the banner's last line, on every start
                    ready.set()
            ready.set()

        threading.Thread(target=read, daemon=True).start()
        # The banner ends with the realtime line on every start.
        if not ready.wait(timeout) or "port" not in banner:
            self.kill()
            raise RuntimeError(f"parleyd did not start within {timeout} s (see {self.log_path})")
        self.banner = banner
        self.port = int(banner["port"])
        return self

    @property
    def url(self):
        return f"http://{self.host}:{self.port}"

    @property
    def pid(self):
        return self.proc.pid if self.proc else None

    def alive(self):
        return self.proc is not None and self.proc.poll() is None

    def kill(self, sig=signal.SIGKILL):
        if self.proc and self.proc.poll() is None:
            self.proc.send_signal(sig)

    def wait(self, timeout=None):
        if self.proc:
            try:
                return self.proc.wait(timeout)
            except subprocess.TimeoutExpired:
                return None

    def stop(self):
        """SIGTERM, then SIGKILL after 10 s."""
        if self.proc and self.proc.poll() is None:
            self.proc.terminate()
            if self.wait(10) is None:
                self.kill()
                self.wait()

    def rss_kb(self):
        try:
            with open(f"/proc/{self.proc.pid}/status") as f:
                for line in f:
                    if line.startswith("VmRSS:"):
                        return int(line.split()[1])
        except (OSError, AttributeError):
            return None


class NetError(Exception):
    """No answer: the connection failed, broke or timed out (the request may or may not have happened)."""


class Http:
    """JSON over one keep-alive HTTP/1.1 connection (reconnects after a failure). Not thread-safe:
    one per thread."""

    def __init__(self, base_url, timeout=10.0, source=None):
        self.base_url, self.timeout, self.source = base_url, timeout, source
        self.conn = None
        self.cookies = {}

    def close(self):
        if self.conn:
            self.conn.close()
            self.conn = None

    def request(self, method, path, body=None, token=None, headers=None, raw=None, timeout=None):
        """Returns (status, headers, parsed JSON or bytes); raises NetError when there is no answer."""
        u = urllib.parse.urlsplit(self.base_url)
        h = {"Content-Type": "application/json"} if raw is None else {"Content-Type": "application/octet-stream"}
        if token:
            h["Authorization"] = f"Bearer {token}"
        if self.cookies:
            h["Cookie"] = "; ".join(f"{k}={v}" for k, v in self.cookies.items())
        h.update(headers or {})
        payload = raw if raw is not None else (json.dumps(body).encode() if body is not None else None)
        try:
            if self.conn is None:
                self.conn = http.client.HTTPConnection(u.hostname, u.port, timeout=timeout or self.timeout,
                                                       source_address=(self.source, 0) if self.source else None)
            else:
                self.conn.timeout = timeout or self.timeout
                if self.conn.sock:
                    self.conn.sock.settimeout(timeout or self.timeout)
            self.conn.request(method, path, payload, h)
            response = self.conn.getresponse()
            data = response.read()
        except (OSError, http.client.HTTPException) as e:
            self.close()
            raise NetError(f"{method} {path}: {type(e).__name__}: {e}") from None
        for value in response.headers.get_all("Set-Cookie") or []:
            name, _, rest = value.partition("=")
            self.cookies[name.strip()] = rest.split(";")[0]
        if response.getheader("Connection", "").lower() == "close":
            self.close()
        ctype = response.getheader("Content-Type", "")
        parsed = json.loads(data) if data and "json" in ctype else data
        return response.status, response.headers, parsed

    def ok(self, method, path, body=None, token=None, **kw):
        status, _, data = self.request(method, path, body, token, **kw)
        if status >= 300:
            raise RuntimeError(f"{method} {path}: {status} {data!r}")
        return data


def open_socket(base_url, token=None, cookies=None, origin=None, timeout=10.0, source=None, rcvbuf=None):
    """A /v1/realtime WebSocket; returns (socket, ready frame). No automatic pings: the harnesses
    send their own `ping` frames and decide themselves when a connection is dead."""
    url = base_url.replace("http://", "ws://") + "/v1/realtime"
    headers = {}
    if token:
        headers["Authorization"] = f"Bearer {token}"
    if cookies:
        headers["Cookie"] = "; ".join(f"{k}={v}" for k, v in cookies.items())
    kwargs = {}
    if source or rcvbuf:
        import socket as pysocket
        u = urllib.parse.urlsplit(base_url)
        sock = pysocket.socket(pysocket.AF_INET, pysocket.SOCK_STREAM)
        if rcvbuf:      # a small receive window: a reader that stops reading stops the server's writes soon
            sock.setsockopt(pysocket.SOL_SOCKET, pysocket.SO_RCVBUF, rcvbuf)
        if source:
            sock.bind((source, 0))
        sock.settimeout(timeout)
        sock.connect((u.hostname, u.port))
        kwargs["sock"] = sock
    ws = ws_connect(url, additional_headers=headers, origin=origin, open_timeout=timeout, ping_interval=None,
                    close_timeout=1, max_size=None, compression=None, **kwargs)
    ready = json.loads(ws.recv(timeout=timeout))
    assert ready["type"] == "ready", ready
    return ws, ready


def new_id():
    return str(uuid.uuid4())


# ---- checking what is stored ---------------------------------------------------------------------

def read_all_events(http, conversation_id, token, page=500):
    events, after = [], 0
    while True:
        page_data = http.ok("GET", f"/v1/conversations/{conversation_id}/events?after={after}&limit={page}", token=token)
        events += page_data["events"]
        if not page_data["has_more"] or not page_data["events"]:
            return events, page_data
        after = page_data["events"][-1]["seq"]


class Ledger:
    """What clients sent and what the server acknowledged, per conversation: the truth a check
    compares the store with. Thread-safe."""

    def __init__(self):
        self.lock = threading.Lock()
        self.sent = {}      # (conversation, client_message_id) -> {"sender", "index", "acked_seq", "text", "sha256"}
        self.order = {}     # (conversation, sender) -> [client_message_id in send order]

    def will_send(self, conversation, sender, cmid, text=None, sha256=None):
        with self.lock:
            if (conversation, cmid) not in self.sent:
                self.sent[(conversation, cmid)] = {"sender": sender, "acked_seq": None, "text": text, "sha256": sha256}
                self.order.setdefault((conversation, sender), []).append(cmid)

    def acked(self, conversation, cmid, seq):
        """Returns an error text when the server acknowledged the same message with another seq."""
        with self.lock:
            entry = self.sent[(conversation, cmid)]
            if entry["acked_seq"] is not None and entry["acked_seq"] != seq:
                return f"{cmid} acknowledged as seq {entry['acked_seq']} and then as seq {seq}"
            entry["acked_seq"] = seq

    def conversations(self):
        with self.lock:
            return sorted({c for c, _ in self.sent})

    def acked_count(self):
        with self.lock:
            return sum(1 for e in self.sent.values() if e["acked_seq"] is not None)

    def check(self, conversation, events, all_sent_must_be_there=False):
        """Compares one conversation's stored events with the ledger. Returns a dict of problem lists:
        lost (acknowledged, not stored), duplicated, misordered, gaps, moved (stored with another seq
        than acknowledged), unknown (stored, never sent), and unsent_missing (sent, never acknowledged,
        not stored: only a problem when all_sent_must_be_there)."""
        problems = {k: [] for k in ("lost", "duplicated", "misordered", "gaps", "moved", "unknown", "unsent_missing")}
        seqs = [e["seq"] for e in events]
        if seqs != list(range(1, len(seqs) + 1)):
            problems["gaps"].append(f"{conversation}: seqs {_ranges(seqs)}")
        stored = {}
        for e in events:
            cmid = e.get("client_message_id")
            if e["type"] != "message" or cmid is None:
                continue
            if cmid in stored:
                problems["duplicated"].append(f"{conversation}: {cmid} at seqs {stored[cmid]['seq']} and {e['seq']}")
                continue
            stored[cmid] = e
        with self.lock:
            mine = {cmid: entry for (c, cmid), entry in self.sent.items() if c == conversation}
            orders = {sender: list(cmids) for (c, sender), cmids in self.order.items() if c == conversation}
        for cmid, entry in mine.items():
            e = stored.get(cmid)
            if e is None:
                if entry["acked_seq"] is not None:
                    problems["lost"].append(f"{conversation}: {cmid} (acknowledged as seq {entry['acked_seq']})")
                elif all_sent_must_be_there:
                    problems["unsent_missing"].append(f"{conversation}: {cmid}")
            elif entry["acked_seq"] is not None and e["seq"] != entry["acked_seq"]:
                problems["moved"].append(f"{conversation}: {cmid} acknowledged as seq {entry['acked_seq']}, stored as {e['seq']}")
        with self.lock:
            senders = {sender for (_, sender) in self.order}
        for cmid, e in stored.items():
            # Ours (`<sender>-<n>`) but not sent to this conversation; other clients' messages (the SDK's) are not ours to judge.
            if cmid not in mine and cmid.rsplit("-", 1)[0] in senders:
                problems["unknown"].append(f"{conversation}: {cmid} at seq {e['seq']}")
        for sender, cmids in orders.items():
            last = 0
            for cmid in cmids:
                e = stored.get(cmid)
                if e is None:
                    continue
                if e["seq"] <= last:
                    problems["misordered"].append(f"{conversation}: {sender}'s {cmid} at seq {e['seq']} after seq {last}")
                last = max(last, e["seq"])
        return problems


def _ranges(seqs):
    if not seqs:
        return "none"
    out, start, prev = [], seqs[0], seqs[0]
    for s in seqs[1:] + [None]:
        if s is not None and s == prev + 1:
            prev = s
            continue
        out.append(f"{start}" if start == prev else f"{start}-{prev}")
        if s is not None:
            start = prev = s
    return ",".join(out[:20]) + (" …" if len(out) > 20 else "")


def merge_problems(total, problems):
    for k, v in problems.items():
        total.setdefault(k, []).extend(v)
    return total
