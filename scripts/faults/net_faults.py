"""Network faults (R6): parleyd and its clients in network namespaces made for the run.

    python net_faults.py loss        [--minutes 5] [--loss 0.3] [--reset-every 10] [--sdk]
    python net_faults.py slow-reader [--seconds 60] [--slow-readers 20]
    python net_faults.py stall       [--rounds 6] [--sdk]
    python net_faults.py partition   [--seconds 60]

Each prints its figures and exits 1 on any lost, duplicated or misordered message, a gap, an
event delivered twice or skipped on a socket, or a client that did not recover in time; 2 when
the harness itself failed. Every namespace, process and cluster is removed on exit."""
import argparse, json, os, random, re, shutil, signal, statistics, subprocess, sys, tempfile, threading, time, traceback

import netlab
from netclients import DeskAgent, HttpVisitor, Shared, SocketVisitor, DEAD_AFTER
from parleyclient import Http, Ledger, NetError, Parleyd, bin_dir, merge_problems, open_socket, read_all_events
from tcpproxy import Proxy

ADMIN = "faults-admin-token"
PASSWORD = "faults-password"
PROBLEM_KEYS = ("lost", "duplicated", "misordered", "gaps", "moved", "unknown", "unsent_missing")
DELIVERY_KEYS = ("delivered_twice", "delivery_gap", "ack_seq_changed", "epoch_changed", "client_crashed")


def in_ns(ns, fn, *args, timeout=120):
    """Runs fn(*args) in a thread inside namespace ns; returns its result (or raises its error)."""
    box = {}

    def body():
        try:
            box["v"] = fn(*args)
        except BaseException as e:
            box["e"] = e
    t = netlab.run_in(ns, body)
    t.join(timeout)
    if "e" in box:
        raise box["e"]
    if t.is_alive():
        raise TimeoutError(f"{getattr(fn, '__name__', fn)} did not finish within {timeout} s")
    return box.get("v")


CLIENTS = []     # every client thread of the run: a crashed one ends the run at once (a harness bug)


def wait_until(predicate, timeout, step=0.2):
    """Polls predicate until true; returns the seconds it took, or None at the timeout (bounded)."""
    start = time.monotonic()
    while time.monotonic() - start < timeout:
        crashed = [c for c in CLIENTS if c.failed]
        if crashed:
            raise RuntimeError(f"client {crashed[0].name} crashed: {crashed[0].failed}")
        if predicate():
            return time.monotonic() - start
        time.sleep(step)
    return None


class Run:
    """One scenario's work folder, namespaces, processes, and its verdict."""

    def __init__(self, name, args):
        self.name, self.args = name, args
        base = os.environ.get("FAULTS_WORK")
        self.work = os.path.join(base, name) if base else tempfile.mkdtemp(prefix=f"parley-net-{name}-")
        os.makedirs(self.work, exist_ok=True)
        self.lab = netlab.Lab()
        self.bin = bin_dir()
        self.failures = {}
        self.figures = []
        self.nodes = []
        self.started = time.monotonic()
        print(f"net {name}: run {self.lab.run}, work {self.work}", flush=True)

    def fail(self, key, detail):
        self.failures.setdefault(key, []).append(detail)

    def figure(self, text):
        self.figures.append(text)
        print(f"  {text}", flush=True)

    def single_node(self):
        """Namespaces s (parleyd on 0.0.0.0:8080, the proxy on 10.77.0.1:9000) and c (the clients), one veth."""
        self.srv, self.cli = self.lab.ns("s"), self.lab.ns("c")
        self.srv_if, self.cli_if = self.lab.link(self.srv, self.cli, "10.77.0.1", "10.77.0.2")
        node = Parleyd(self.bin, os.path.join(self.work, "parleyd.log"), ADMIN, data_dir=os.path.join(self.work, "data"),
                       host="0.0.0.0", port=8080, netns=self.srv).start()
        node.url_direct = "http://10.77.0.1:8080"
        self.nodes.append(node)
        self.proxy = Proxy(("10.77.0.1", 9000), ("127.0.0.1", 8080), ns=self.srv)
        self.proxied = "http://10.77.0.1:9000"
        return node

    def agents(self, url, app_id, n, capacity=50):
        def make():
            http = Http(url)
            out = []
            for i in range(n):
                email = f"desk{i}@faults.test"
                http.ok("POST", f"/v1/admin/apps/{app_id}/agents", {"name": f"desk{i}", "email": email, "password": PASSWORD,
                                                                      "capacity": capacity}, ADMIN)
                out.append(email)
            return out
        return in_ns(self.cli, make)

    def verify(self, shared, url, token_fn, final=True):
        """Reads every conversation back over a path without faults and compares it with the ledger."""
        def go():
            http = Http(url, timeout=30)
            problems, last = {}, {}
            token = token_fn(http)
            for c in shared.ledger.conversations():
                events, page = read_all_events(http, c, token)
                last[c] = page["last_seq"] if events else 0
                merge_problems(problems, shared.ledger.check(c, events, all_sent_must_be_there=final))
            return problems, last
        problems, last = in_ns(self.cli, go)
        for k, v in problems.items():
            for x in v:
                self.fail(k, x)
        return last

    def agent_token(self, email):
        def fn(http):
            return http.ok("POST", "/v1/agent/login", {"email": email, "password": PASSWORD})["token"]
        return fn

    def delivery_problems(self, shared):
        for k in DELIVERY_KEYS:
            n = shared.counters.get(k, 0)
            if n:
                self.fail(k, f"{n} times, e.g. {shared.samples.get(k, [])[:3]}")

    def finish(self):
        elapsed = time.monotonic() - self.started
        print(f"net {self.name}: {elapsed:.0f} s")
        for k in PROBLEM_KEYS + DELIVERY_KEYS:
            if k in self.failures:
                print(f"  {k:16s} {len(self.failures[k])}")
        failed = any(self.failures.values())
        for k, v in self.failures.items():
            for x in v[:8]:
                print(f"  FAIL {k}: {x}")
        return 1 if failed else 0

    def cleanup(self, keep=False):
        for node in self.nodes:
            node.kill()
            node.wait(10)
        if getattr(self, "proxy", None):
            self.proxy.close()
        self.lab.cleanup()
        if not keep:
            shutil.rmtree(self.work, ignore_errors=True)


def start_clients(run, shared, app_id, emails, http_visitors, ws_visitors, rng, send_interval=(0.1, 0.4), prefix="", fallback=None):
    clients = []
    # Agents first, online and connected, so that routing spreads the conversations among them.
    agents = [DeskAgent(f"{prefix}ag{i}", shared, random.Random(rng.random()), email, PASSWORD, send_interval=send_interval)
              for i, email in enumerate(emails)]
    for a in agents:
        a.start()
    if wait_until(lambda: all(a.connects for a in agents), 60) is None:
        raise RuntimeError("the desk agents did not connect within 60 s")
    time.sleep(0.5)
    for i in range(http_visitors):
        clients.append(HttpVisitor(f"{prefix}hv{i}", shared, random.Random(rng.random()), app_id, send_interval=send_interval,
                                   fallback=fallback))
    for i in range(ws_visitors):
        clients.append(SocketVisitor(f"{prefix}wv{i}", shared, random.Random(rng.random()), app_id, send_interval=send_interval))
    for c in clients:
        c.start()
    CLIENTS.extend(clients + agents)
    return clients + agents


def settle(run, shared, clients, timeout=120):
    """Stops new messages, waits for every pending one to be acknowledged; returns the seconds taken."""
    shared.quiet.set()
    took = wait_until(lambda: all(c.idle() for c in clients), timeout)
    if took is None:
        run.fail("no_recovery", f"pending messages still unacknowledged {timeout} s after the faults: "
                                f"{[(c.name, c.pending) for c in clients if not c.idle()]}")
    return took


def caught_up(run, shared, clients, last, timeout=60):
    """Waits until every socket has been delivered every event of the conversations it follows."""
    def done():
        for c in clients:
            for conv, seq in getattr(c, "cursors", {}).items():
                if last.get(conv, 0) > seq:
                    return False
        return True
    took = wait_until(done, timeout)
    if took is None:
        behind = [(c.name, conv, seq, last.get(conv)) for c in clients for conv, seq in getattr(c, "cursors", {}).items()
                  if last.get(conv, 0) > seq]
        run.fail("no_recovery", f"sockets still behind {timeout} s later: {behind[:5]}")
    return took


def warm_up(run, clients, timeout=90):
    took = wait_until(lambda: all(c.acks for c in clients), timeout)
    if took is None:
        raise RuntimeError(f"clients did not start sending within {timeout} s: "
                           f"{[(c.name, c.failed, getattr(c, 'mine', None), getattr(c, 'connects', None)) for c in clients if not c.acks]}; "
                           f"{counters_line(clients[0].shared)} {clients[0].shared.samples}")
    return took


def counters_line(shared):
    return ", ".join(f"{k}={v}" for k, v in sorted(shared.counters.items()))


# ---- (a) loss and resets -----------------------------------------------------------------------------

def scenario_loss(run, args):
    node = run.single_node()
    app_id = node.banner["app_id"]
    emails = run.agents(node.url_direct, app_id, args.agents)
    shared = Shared(Ledger(), run.cli, run.proxied)
    rng = random.Random(args.seed)
    clients = start_clients(run, shared, app_id, emails, args.http_visitors, args.ws_visitors, rng)
    run.figure(f"warm-up: every client acknowledged within {warm_up(run, clients):.1f} s")
    # The real SDK behind the same lossy link and the same resets: a visitor whose conversation
    # the desk agents answer like the others'.
    sdk = SdkChat(run, node, app_id) if args.sdk else None
    if sdk:
        sdk.start()
        if wait_until(lambda: sdk.stored_since(0), 60, step=1.0) is None:
            raise RuntimeError(f"the SDK stored nothing within 60 s before the faults (see {sdk.output})")
    before = shared.ledger.acked_count()
    run.lab.loss(run.cli, run.cli_if, args.loss)
    fault_start = time.monotonic()
    end = fault_start + args.minutes * 60
    next_reset, resets, last_print = fault_start + args.reset_every, 0, fault_start
    while time.monotonic() < end:
        time.sleep(0.2)
        now = time.monotonic()
        if now >= next_reset:
            resets += run.proxy.reset_all()
            next_reset = now + args.reset_every
        if now - last_print >= 30:
            last_print = now
            print(f"  {now - fault_start:4.0f} s: {shared.ledger.acked_count()} acknowledged; {counters_line(shared)}", flush=True)
    run.lab.clear_loss(run.cli)
    fault_end = time.monotonic()
    during = shared.ledger.acked_count() - before
    run.figure(f"{args.minutes:g} min at {args.loss:.0%} loss each way with a reset of every connection each {args.reset_every:g} s "
               f"({resets} connections reset): {during} messages acknowledged ({during / (fault_end - fault_start):.1f}/s)")
    recovered = wait_until(lambda: all(any(t > fault_end for t in c.acks) for c in clients), 120)
    if recovered is None:
        run.fail("no_recovery", f"clients without an ack 120 s after the faults: {[c.name for c in clients if not any(t > fault_end for t in c.acks)]}")
    else:
        run.figure(f"recovery: every client had a message acknowledged {recovered:.1f} s after the faults ended")
    if sdk:
        typed_during = sum(1 for t, _ in sdk.lines if fault_start <= t < fault_end)
        sdk_took = sdk.recovery(fault_end)
        if sdk_took is None:
            run.fail("no_recovery", "the SDK stored nothing typed after the faults within 150 s")
        else:
            run.figure(f"SDK (parley chat, ParleyKit): {typed_during} lines typed during the faults; the first line typed "
                       f"after them stored {sdk_took:.1f} s after the faults ended")
    settled = settle(run, shared, clients)
    if sdk:
        sdk.finish()
    last = run.verify(shared, node.url_direct, run.agent_token(emails[0]))
    caught = caught_up(run, shared, clients, last)
    if settled is not None and caught is not None:
        run.figure(f"all pending messages acknowledged {settled:.1f} s after new sends stopped; every socket caught up {caught:.1f} s later")
    shared.stop.set()
    for c in clients:
        c.join(15)
    run.delivery_problems(shared)
    run.figure(f"totals: {shared.ledger.acked_count()} messages acknowledged, {sum(1 for c in clients if hasattr(c, 'connects') for _ in range(c.connects))} socket connects; "
               f"{counters_line(shared)}")
    if sdk:
        sdk.check(run.agent_token(emails[0]))
    run.figure(f"lost {len(run.failures.get('lost', []))}, duplicated {len(run.failures.get('duplicated', []))}, "
               f"out of order {len(run.failures.get('misordered', []))}, delivered twice {shared.counters.get('delivered_twice', 0)}, "
               f"delivery gaps {shared.counters.get('delivery_gap', 0)}")


# ---- (b) a client that stops reading -------------------------------------------------------------------

def metrics_connections(url):
    http = Http(url, timeout=10)
    status, _, body = http.request("GET", "/metrics", token=ADMIN)
    http.close()
    text = body.decode() if isinstance(body, bytes) else str(body)
    out = {}
    for kind in ("visitor", "agent"):
        m = re.search(r'parley_realtime_connections\{kind="%s"\}\s+([0-9.]+)' % kind, text)
        out[kind] = int(float(m.group(1))) if m else 0
    return out


def scenario_slow_reader(run, args):
    node = run.single_node()
    app_id = node.banner["app_id"]
    emails = run.agents(node.url_direct, app_id, 1 + args.slow_readers)
    shared = Shared(Ledger(), run.cli, node.url_direct)
    rng = random.Random(args.seed)
    # The clients that must keep working: they measure their own ack latency.
    clients = start_clients(run, shared, app_id, emails[:1], 2, 2, rng, send_interval=(0.1, 0.3))
    warm_up(run, clients)
    time.sleep(2)
    base_rss = node.rss_kb()
    # The firehose: visitors writing as fast as they are answered into conversations every slow reader follows.
    fire = start_clients(run, shared, app_id, [], 4, 0, rng, send_interval=(0.0, 0.0))
    wait_until(lambda: all(c.acks for c in fire), 60)
    busy = [c.conversation for c in fire]
    slow = []

    def open_slow():
        http = Http(node.url_direct)
        for email in emails[1:]:
            token = http.ok("POST", "/v1/agent/login", {"email": email, "password": PASSWORD})["token"]
            ws, _ = open_socket(node.url_direct, token=token, timeout=10, rcvbuf=4096)
            for c in busy:
                ws.send(json.dumps({"type": "subscribe", "conversation_id": c, "after_seq": 0}))
            slow.append(ws)
        http.close()
    in_ns(run.cli, open_slow)
    # They never read again: the websockets library's thread stops reading once 16 frames wait
    # unread, then the 4 KiB receive buffer fills and the server can write nothing more.
    t0 = time.monotonic()
    rss, conns, lat_before = [], [], len(shared.ledger.sent)
    acks_at_start = [len(c.acks) for c in clients]
    dropped_at = None
    while time.monotonic() - t0 < args.seconds:
        time.sleep(0.5)
        rss.append((time.monotonic() - t0, node.rss_kb()))
        n = in_ns(run.cli, metrics_connections, node.url_direct)["agent"]
        conns.append(n)
        if dropped_at is None and n <= 1:
            dropped_at = time.monotonic() - t0
    peak = max(r for _, r in rss)
    end_rss = rss[-1][1]
    run.figure(f"{args.slow_readers} agent sockets subscribed to {len(busy)} busy conversations stopped reading "
               f"(4 KiB receive buffers); firehose of {len(fire)} senders for {args.seconds:g} s")
    run.figure(f"parleyd RSS: {base_rss / 1024:.0f} MiB before, peak {peak / 1024:.0f} MiB, {end_rss / 1024:.0f} MiB at the end")
    if dropped_at is None:
        run.fail("slow_reader_kept", f"{conns[-1] - 1} stalled sockets still open after {args.seconds:g} s")
    else:
        run.figure(f"every stalled socket dropped by the server after {dropped_at:.1f} s")
    if (peak - base_rss) > args.max_rss_growth_mb * 1024:
        run.fail("memory", f"RSS grew by {(peak - base_rss) / 1024:.0f} MiB (limit {args.max_rss_growth_mb} MiB)")
    # The others kept working: acknowledgements during the stall, and their latency.
    got = [len(c.acks) - a for c, a in zip(clients, acks_at_start)]
    if min(got) == 0:
        run.fail("others_blocked", f"acks per client during the stall: {got}")
    gaps = [b - a for c in clients for a, b in zip(c.acks, c.acks[1:]) if a > t0]
    if gaps:
        gaps.sort()
        run.figure(f"other clients: {sum(got)} messages acknowledged meanwhile; time between acks p50 "
                   f"{gaps[len(gaps) // 2] * 1000:.0f} ms, p99 {gaps[int(len(gaps) * 0.99)] * 1000:.0f} ms, max {gaps[-1] * 1000:.0f} ms")
        if gaps[-1] > args.max_gap:
            run.fail("others_stalled", f"a client waited {gaps[-1]:.1f} s between two acks (limit {args.max_gap} s)")
    fire_acked = sum(len(c.acks) for c in fire)
    run.figure(f"firehose: {fire_acked} messages acknowledged, so each slow reader was owed about {fire_acked} event frames")
    for ws in slow:
        try:
            ws.close_socket()
        except Exception:
            pass
    settle(run, shared, clients + fire)
    last = run.verify(shared, node.url_direct, run.agent_token(emails[0]))
    caught_up(run, shared, clients, last)
    shared.stop.set()
    for c in clients + fire:
        c.join(15)
    run.delivery_problems(shared)


# ---- (c) a server that stops answering mid-frame -------------------------------------------------------

def scenario_stall(run, args):
    node = run.single_node()
    app_id = node.banner["app_id"]
    emails = run.agents(node.url_direct, app_id, 1)
    shared = Shared(Ledger(), run.cli, run.proxied)
    rng = random.Random(args.seed)
    clients = start_clients(run, shared, app_id, emails, 1, 2, rng, send_interval=(0.2, 0.5))
    warm_up(run, clients)
    sdk = SdkChat(run, node, app_id) if args.sdk else None
    if sdk:
        sdk.start()
    recoveries, sdk_times = [], []
    for r in range(1, args.rounds + 1):
        time.sleep(3)
        mode = "blackhole" if r % 2 else "halfopen"
        after = rng.randrange(1, 40)
        armed = run.proxy.stall(after_bytes=after, mode=mode)
        t0 = time.monotonic()
        # Wait for the stall to hit (traffic keeps flowing), then for every client to get an ack
        # on a new connection.
        if wait_until(lambda: run.proxy.counts()["stalled"] >= 1, 20) is None:
            run.fail("harness", f"round {r}: no connection stalled")
            continue
        # A connection the server did not write to within 5 s stays unstalled: every stall falls in its round.
        time.sleep(5)
        run.proxy.disarm()
        took = wait_until(lambda: all(any(t > t0 + 0.5 for t in c.acks) for c in clients), DEAD_AFTER + 60)
        if took is not None:
            took = time.monotonic() - t0
        sdk_note = ""
        if sdk and took is not None:
            sdk_took = sdk.recovery(t0)
            if sdk_took is None:
                run.fail("no_recovery", f"round {r}: the SDK stored nothing typed after the stall within 150 s")
            else:
                sdk_times.append(sdk_took)
                sdk_note = f"; the SDK's next line stored {sdk_took:.1f} s after the stall"
        if took is None:
            run.fail("no_recovery", f"round {r} ({mode} after {after} bytes): not every client recovered "
                                    f"{[(c.name, c.pending) for c in clients if not any(t > t0 + 0.5 for t in c.acks)]}"
                                    + (f" sdk stored since: {sdk.stored_since(t0)}" if sdk else ""))
        else:
            recoveries.append(took)
            print(f"  round {r}: {armed} connections stalled ({mode}, after {after} bytes of the next server write); "
                  f"every harness client recovered in {took:.1f} s{sdk_note}", flush=True)
    if recoveries:
        run.figure(f"{len(recoveries)} stalls: recovery median {statistics.median(recoveries):.1f} s, max {max(recoveries):.1f} s "
                   f"(clients declare a connection dead after {DEAD_AFTER:g} s of silence)")
    if sdk_times:
        run.figure(f"SDK (parley chat, ParleyKit: 10 s answer timeout, 25 s idle ping): next line stored after a stall in "
                   f"median {statistics.median(sdk_times):.1f} s, max {max(sdk_times):.1f} s")
    run.figure(f"proxy: {run.proxy.counts()}; clients: {counters_line(shared)}")
    settle(run, shared, clients)
    if sdk:
        sdk.finish()
    last = run.verify(shared, node.url_direct, run.agent_token(emails[0]))
    caught_up(run, shared, clients, last)
    shared.stop.set()
    for c in clients:
        c.join(15)
    run.delivery_problems(shared)
    if sdk:
        sdk.check(run.agent_token(emails[0]))


class SdkChat:
    """The real SDK: `parley chat` (ParleyKit with its NIO transports) behind the proxy, typing a
    line every second; afterwards every line must be stored exactly once, in order."""

    def __init__(self, run, node, app_id):
        self.run, self.node, self.app_id = run, node, app_id
        self.lines = []
        self.stop = threading.Event()

    def start(self):
        parley = os.path.join(self.run.bin, "parley")
        if not os.access(parley, os.X_OK):
            raise RuntimeError(f"{parley} is missing: build it (swift build --product parley) or leave out --sdk")
        storage = os.path.join(self.run.work, "sdk-storage")
        self.output = os.path.join(self.run.work, "sdk.out")
        self.proc = self.run.lab.spawn(self.run.cli, [parley, "chat", "--server", self.run.proxied, "--app", self.app_id,
                                                      "--name", "sdk", "--storage", storage],
                                       stdin=subprocess.PIPE, stdout=open(self.output, "w"),
                                       stderr=subprocess.STDOUT, text=True)
        self.typer = threading.Thread(target=self._type, daemon=True)
        self.typer.start()

    def _type(self):
        time.sleep(3)
        n = 0
        while not self.stop.is_set() and self.proc.poll() is None:
            n += 1
            line = f"sdk line {n}"
            try:
                self.proc.stdin.write(line + "\n")
                self.proc.stdin.flush()
            except OSError:
                return
            self.lines.append((time.monotonic(), line))
            time.sleep(1)

    def stored(self):
        def go():
            http = Http(self.node.url_direct, timeout=10)
            token = self.run.agent_token("desk0@faults.test")(http)
            texts = []
            for c in http.ok("GET", "/v1/conversations?view=all&limit=500", token=token)["conversations"]:
                events, _ = read_all_events(http, c["id"], token)
                texts += [e.get("text") for e in events if e["type"] == "message" and (e.get("text") or "").startswith("sdk line ")]
            http.close()
            return texts
        return in_ns(self.run.cli, go)

    def stored_since(self, t0):
        """Whether a line typed after t0 is stored."""
        later = [line for t, line in self.lines if t > t0]
        if not later:
            return False
        try:
            return later[0] in set(self.stored())
        except Exception:
            return False

    def recovery(self, t0, timeout=150):
        """Seconds from t0 until the first line typed after t0 is stored; None if not within timeout."""
        if wait_until(lambda: self.stored_since(t0), timeout, step=1.0) is None:
            return None
        return time.monotonic() - t0

    def finish(self):
        self.stop.set()
        self.typer.join(5)
        # Every typed line must reach the server while the CLI runs (its outbox keeps retrying); only
        # then is input closed (the CLI waits 5 s for its outbox at the end, then leaves).
        typed = [line for _, line in self.lines]
        took = wait_until(lambda: set(typed) <= set(self.stored()), 150, step=2.0)
        if took is None:
            self.run.fail("no_recovery", f"sdk: lines typed but not stored 150 s after the last: "
                                         f"{sorted(set(typed) - set(self.stored()), key=lambda t: int(t.split()[-1]))[:10]}")
        try:
            self.proc.stdin.close()     # EOF: the CLI lets its outbox deliver (5 s), then exits
        except OSError:
            pass
        try:
            self.proc.wait(30)
        except subprocess.TimeoutExpired:
            self.proc.kill()

    def check(self, token_fn):
        texts = self.stored()
        typed = [line for _, line in self.lines]
        counts = {}
        for t in texts:
            counts[t] = counts.get(t, 0) + 1
        dup = [t for t, n in counts.items() if n > 1]
        missing = [t for t in typed if t not in counts]
        order = [t for t in texts if t in typed]
        self.run.figure(f"SDK (parley chat): {len(typed)} lines typed, {len(set(texts))} stored, {len(dup)} twice, "
                        f"{len(missing)} missing")
        for t in dup:
            self.run.fail("duplicated", f"sdk: {t}")
        for line in missing:
            self.run.fail("lost", f"sdk: {line}")
        if order != sorted(order, key=lambda t: int(t.split()[-1])):
            self.run.fail("misordered", f"sdk: stored order {order[:20]}")


# ---- (d) a partition between two nodes and PostgreSQL ----------------------------------------------------

class Postgres:
    """A private PostgreSQL 15 cluster inside namespace `ns`, listening on its links only."""

    def __init__(self, run, ns, networks):
        self.run, self.ns = run, ns
        self.dir = os.path.join(run.work, "pg")
        self.data, self.sock = os.path.join(self.dir, "data"), os.path.join(self.dir, "socket")
        os.makedirs(self.data)
        os.makedirs(self.sock)
        subprocess.run(["chown", "-R", "postgres:postgres", self.dir], check=True)
        os.chmod(run.work, 0o755)
        b = "/usr/lib/postgresql/15/bin"
        r = subprocess.run(["su", "postgres", "-c", f"{b}/initdb -D {self.data} -U postgres --auth=trust -E UTF8"],
                           capture_output=True, text=True)
        if r.returncode:
            raise RuntimeError(f"initdb: {r.stderr}")
        with open(os.path.join(self.data, "pg_hba.conf"), "a") as f:
            for net in networks:
                f.write(f"host all all {net} trust\n")
        r = subprocess.run(["ip", "netns", "exec", ns, "su", "postgres", "-c",
                            f"{b}/pg_ctl -D {self.data} -o '-p 5432 -k {self.sock} -c listen_addresses=* -c max_connections=300' "
                            f"-l {self.dir}/server.log -w start"], capture_output=True, text=True)
        if r.returncode:
            raise RuntimeError(f"pg_ctl start: {r.stderr} {r.stdout}")

    def stop(self):
        subprocess.run(["ip", "netns", "exec", self.ns, "su", "postgres", "-c",
                        f"/usr/lib/postgresql/15/bin/pg_ctl -D {self.data} -m immediate stop"], capture_output=True)


def scenario_partition(run, args):
    lab = run.lab
    db, n1, n2, cli = lab.ns("db"), lab.ns("n1"), lab.ns("n2"), lab.ns("c")
    run.cli = cli
    d1, n1d = lab.link(db, n1, "10.78.1.1", "10.78.1.2")
    d2, n2d = lab.link(db, n2, "10.78.2.1", "10.78.2.2")
    n1c, c1 = lab.link(n1, cli, "10.78.3.1", "10.78.3.2")
    n2c, c2 = lab.link(n2, cli, "10.78.4.1", "10.78.4.2")
    pg = Postgres(run, db, ["10.78.1.0/24", "10.78.2.0/24"])
    run.pg = pg
    # Both nodes share one secrets key (docs/operations.md); each keeps its files in the run's folder.
    key = os.path.join(run.work, "secrets.key")
    with open(key, "wb") as f:
        f.write(os.urandom(32))
    extra = ["--node-heartbeat", "1", "--node-timeout", "5", "--secrets-key-file", key]
    node1 = Parleyd(run.bin, os.path.join(run.work, "n1.log"), ADMIN, database="postgres://postgres@10.78.1.1:5432/postgres",
                    data_dir=os.path.join(run.work, "n1"), host="0.0.0.0", port=8080, netns=n1, extra=extra).start()
    time.sleep(1)
    node2 = Parleyd(run.bin, os.path.join(run.work, "n2.log"), ADMIN, database="postgres://postgres@10.78.2.1:5432/postgres",
                    data_dir=os.path.join(run.work, "n2"), host="0.0.0.0", port=8080, netns=n2, extra=extra).start()
    run.nodes += [node1, node2]
    urls = ["http://10.78.3.1:8080", "http://10.78.4.1:8080"]
    app_id = node1.banner["app_id"]
    emails = run.agents(urls[1], app_id, args.agents)
    rng = random.Random(args.seed)
    ledger = Ledger()
    # Half the clients on each node; HttpVisitors on node 1 fail over to node 2 on their own
    # (a load balancer would); the desk agents and socket visitors stay on their node.
    shared1 = Shared(ledger, cli, urls[0])
    shared2 = Shared(ledger, cli, urls[1])
    c_n1 = start_clients(run, shared1, app_id, [], args.http_visitors, args.ws_visitors, rng, send_interval=(0.1, 0.4),
                         prefix="n1", fallback=urls[1])
    c_n2 = start_clients(run, shared2, app_id, emails, args.http_visitors, args.ws_visitors, rng, send_interval=(0.1, 0.4),
                         prefix="n2")
    clients = c_n1 + c_n2
    warm_up(run, clients)
    phase = {"name": "before"}
    t_before = time.monotonic()
    time.sleep(args.seconds / 3)
    acked_before = ledger.acked_count()
    n1_acks_before = sum(len(c.acks) for c in c_n1)
    # Partition: node 1 loses PostgreSQL (its link down), its clients can still reach it.
    lab.set_link(n1, n1d, False)
    t_part = time.monotonic()
    # Readiness (GET /ready): node 1 must say it cannot serve, within its 2 s database timeout and
    # without hanging, so a load balancer moves its clients; node 2 stays ready.
    time.sleep(min(3.0, args.seconds / 6))

    def readiness():
        def ask(url):
            started = time.monotonic()
            try:
                status, _, _ = Http(url, timeout=8).request("GET", "/ready")
            except NetError:
                status = None
            return status, time.monotonic() - started
        return in_ns(cli, lambda: (ask(urls[0]), ask(urls[1])))
    (ready1, took1), (ready2, _) = readiness()
    run.figure(f"during the partition: node 1 /ready {ready1} in {took1:.1f} s, node 2 /ready {ready2}")
    if ready1 != 503 or took1 > 5:
        run.fail("not_unready", f"node 1, cut off from PostgreSQL, answered /ready {ready1} after {took1:.1f} s (503 within 5 s expected)")
    if ready2 != 200:
        run.fail("not_ready", f"node 2 answered /ready {ready2}")
    time.sleep(max(0.0, args.seconds / 3 - (time.monotonic() - t_part)))
    # Acks node 1 itself gave during the partition (failed-over requests answered by node 2 excluded).
    n1_acks_during = sum(1 for c in c_n1 for t, u in zip(c.acks, c.ack_urls) if t > t_part + 1 and u == urls[0])
    failed_over = sum(1 for c in c_n1 for t, u in zip(c.acks, c.ack_urls) if t > t_part and u != urls[0])
    n2_acks_during = sum(1 for c in c_n2 for t in c.acks if t > t_part)
    lab.set_link(n1, n1d, True)
    t_heal = time.monotonic()
    healed = wait_until(lambda: all(any(t > t_heal and u == urls[0] for t, u in zip(c.acks, c.ack_urls)) for c in c_n1), 120)
    if wait_until(lambda: readiness()[0][0] == 200, 120) is None:
        run.fail("not_ready_again", "node 1 did not answer /ready 200 within 120 s after the partition healed")
    time.sleep(args.seconds / 3)
    acked_total = ledger.acked_count()
    run.figure(f"two nodes on PostgreSQL, node 1 cut off from it for {t_heal - t_part:.0f} s (link down) while its clients still reach it")
    run.figure(f"acknowledged: {acked_before} before the partition, {acked_total - acked_before} from then on")
    run.figure(f"node 1 acknowledged {n1_acks_during} messages more than 1 s into the partition (it should stop; "
               f"each must be durable); {failed_over} of its clients' messages failed over to node 2; node 2's own clients: "
               f"{n2_acks_during} acks during it")
    if healed is None:
        run.fail("no_recovery", "node 1's clients got no ack within 120 s after the partition healed")
    else:
        run.figure(f"node 1 acknowledged every one of its clients again {healed:.1f} s after the partition healed")
    s1 = settle(run, shared1, c_n1)
    s2 = settle(run, shared2, c_n2)
    last = run.verify(shared2, urls[1], run.agent_token(emails[0]))
    caught_up(run, shared2, clients, last)
    for s in (shared1, shared2):
        s.stop.set()
    for c in clients:
        c.join(15)
    shared = Shared(ledger, cli, urls[1])
    for s in (shared1, shared2):
        for k, v in s.counters.items():
            shared.count(k, v)
        for k, v in s.samples.items():
            shared.samples.setdefault(k, []).extend(v)
    run.figure(f"clients: {counters_line(shared)}")
    run.delivery_problems(shared)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("scenario", choices=["loss", "slow-reader", "stall", "partition"])
    parser.add_argument("--seed", type=int, default=int(time.time()))
    parser.add_argument("--keep", action="store_true")
    parser.add_argument("--minutes", type=float, default=5.0, help="loss: minutes of faults")
    parser.add_argument("--loss", type=float, default=0.3, help="loss: packet loss probability each way")
    parser.add_argument("--reset-every", type=float, default=10.0, help="loss: seconds between connection resets")
    parser.add_argument("--http-visitors", type=int, default=3)
    parser.add_argument("--ws-visitors", type=int, default=3)
    parser.add_argument("--agents", type=int, default=2)
    parser.add_argument("--seconds", type=float, default=60.0, help="slow-reader: flood seconds; partition: total seconds")
    parser.add_argument("--slow-readers", type=int, default=20)
    parser.add_argument("--max-rss-growth-mb", type=int, default=512)
    parser.add_argument("--max-gap", type=float, default=3.0, help="slow-reader: longest wait between two acks of a healthy client")
    parser.add_argument("--rounds", type=int, default=6, help="stall: stall rounds")
    parser.add_argument("--sdk", action="store_true", help="loss, stall: also run the real SDK (parley chat) behind the proxy, a line a second")
    args = parser.parse_args()
    run = Run(args.scenario, args)
    code = 2
    try:
        {"loss": scenario_loss, "slow-reader": scenario_slow_reader, "stall": scenario_stall,
         "partition": scenario_partition}[args.scenario](run, args)
        code = run.finish()
    except Exception:
        traceback.print_exc()
        run.finish()
        code = 2
    finally:
        if getattr(run, "pg", None):
            run.pg.stop()
        run.cleanup(keep=args.keep or code != 0)
        if code != 0:
            print(f"work folder kept: {run.work}")
    print(f"{1 if code == 0 else 0} passed, {0 if code == 0 else 1} failed")
    sys.exit(code)


if __name__ == "__main__":
    main()
