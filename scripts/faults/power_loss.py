"""Power loss (R7): parleyd's data directory on powerfs, messages under load from several clients,
the power cut at random moments, and after each cut: remount, restart, and check that every
acknowledged message (and attachment) is there exactly once, with the seq it was acknowledged
with, in each sender's order, with no gap in any conversation, and that the database opens and
passes `PRAGMA integrity_check`.

    python power_loss.py [--cuts 100] [--visitors 4] [--agents 1] [--seed N] [--model strict|journal]
                         [--drop all|random] [--work DIR] [--keep]
Exits 1 on any loss, duplicate, misorder, gap, broken database or a parleyd that does not start
again; 2 when the harness itself could not run."""
import argparse, hashlib, json, os, random, shutil, signal, sqlite3, subprocess, sys, tempfile, threading, time, traceback

from parleyclient import Http, Ledger, NetError, Parleyd, bin_dir, merge_problems, read_all_events
from powerctl import PowerMount

ADMIN = "faults-admin-token"
HERE = os.path.dirname(os.path.abspath(__file__))


class Server:
    """Where parleyd is, and whether clients may talk to it (cleared while the power is off)."""

    def __init__(self):
        self.url = None
        self.up = threading.Event()
        self.stop = threading.Event()
        self.generation = 0


class Stats:
    def __init__(self):
        self.lock = threading.Lock()
        self.c = {}

    def add(self, key, n=1):
        with self.lock:
            self.c[key] = self.c.get(key, 0) + n


def text_file(rng, size):
    """A plain-text attachment (parleyd decides the type from the bytes)."""
    alphabet = b"abcdefghijklmnopqrstuvwxyz ABCDEFGHIJKLMNOPQRSTUVWXYZ 0123456789\n"
    # A fixed start: random letters may begin with a magic number ("MZ" is an executable's).
    return b"note: " + bytes(rng.choice(alphabet) for _ in range(size))


class Client(threading.Thread):
    """One sender: sends one message at a time and waits for its acknowledgement; when there is no
    answer, waits for the server and sends the very same message again (same client_message_id).
    A subclass says how it signs in (`sign_in`), what it does once before sending (`prepare`) and
    what it sends next (`next_message`)."""

    role = "client"

    def __init__(self, name, server, ledger, stats, rng, errors):
        super().__init__(daemon=True, name=name)
        self.server, self.ledger, self.stats, self.rng, self.errors = server, ledger, stats, rng, errors
        self.http = None
        self.token = None
        self.pending = None      # the message without an answer yet: (conversation, cmid, text, blob)
        self.count = 0
        self.idle = threading.Event()

    def call(self, method, path, body=None, token=None, **kw):
        """One request, retried until the server answers (not a 5xx); returns (status, data)."""
        while not self.server.stop.is_set():
            self.idle.set()
            self.server.up.wait()
            self.idle.clear()
            if self.http is None or self.http.base_url != self.server.url:
                self.http = Http(self.server.url, timeout=15)
            try:
                status, _, data = self.http.request(method, path, body, token, **kw)
            except NetError:
                self.stats.add("no_answer")
                time.sleep(0.05)
                continue
            if status >= 500:
                self.stats.add("status_5xx")
                time.sleep(0.1)
                continue
            return status, data
        raise SystemExit

    def token_refused(self):
        """A 401 after a cut (the sign-in was not durable yet): count it and sign in again."""
        self.stats.add(f"{self.role}_token_refused_after_cut")
        self.sign_in()

    def record_ack(self, conversation, cmid, status, data):
        if status not in (200, 201):
            self.errors.append(f"{self.name}: {cmid} answered {status} {data!r}")
            return False
        problem = self.ledger.acked(conversation, cmid, data["event"]["seq"])
        if problem:
            self.errors.append(problem)
        self.stats.add("acked" if status == 201 else "acked_duplicate")
        return True

    def send(self, conversation, cmid, text=None, attachment=None):
        if attachment is not None:
            name = f"{cmid}.txt"
            status, data = self.call("POST", f"/v1/conversations/{conversation}/attachments?name={name}&client_message_id={cmid}",
                                     token=self.token, raw=attachment)
        else:
            status, data = self.call("POST", f"/v1/conversations/{conversation}/messages", {"client_message_id": cmid, "text": text}, self.token)
        return status, data

    def sign_in(self):
        raise NotImplementedError

    def prepare(self):
        pass

    def next_message(self):
        """The next (conversation, cmid, text, blob) to send, written to the ledger first; None when
        there is nothing to send yet."""
        raise NotImplementedError

    def run(self):
        try:
            self.sign_in()
            self.prepare()
            while not self.server.stop.is_set():
                if self.pending is None:
                    self.pending = self.next_message()
                    if self.pending is None:
                        continue
                conversation, cmid, text, blob = self.pending
                status, data = self.send(conversation, cmid, text, blob)
                if status == 401:
                    self.token_refused()
                    continue
                if self.record_ack(conversation, cmid, status, data):
                    if blob is not None:
                        self.stats.add("attachments_acked")
                    self.pending = None
                else:
                    time.sleep(0.2)
        except SystemExit:
            pass
        except Exception:
            self.errors.append(f"{self.name} crashed: {traceback.format_exc()}")
        finally:
            self.idle.set()

    def idle_wait(self):
        self.idle.wait()


class Visitor(Client):
    """Writes into its one conversation: texts, and now and then a file."""

    role = "visitor"

    def __init__(self, *a, app_id, attach_probability, **kw):
        super().__init__(*a, **kw)
        self.app_id, self.attach_probability = app_id, attach_probability
        self.device = f"faults-{self.name}-{self.rng.randrange(1 << 40):x}"
        self.conversation = None

    def sign_in(self):
        status, data = self.call("POST", "/v1/visitor/session", {"app_id": self.app_id, "device_id": self.device, "name": self.name})
        assert status == 200, (status, data)
        self.token = data["token"]

    def prepare(self):
        # Opening is not idempotent: after a cut, look for the conversation a lost answer may have opened.
        while self.conversation is None:
            status, data = self.call("GET", "/v1/conversations", token=self.token)
            if status == 401:
                self.token_refused()
                continue
            if data["conversations"]:
                self.conversation = data["conversations"][-1]["id"]
                break
            status, data = self.call("POST", "/v1/conversations", {"subject": f"power {self.name}"}, self.token)
            if status == 201:
                self.conversation = data["id"]

    def next_message(self):
        self.count += 1
        cmid = f"{self.name}-{self.count}"
        if self.rng.random() < self.attach_probability:
            blob = text_file(self.rng, self.rng.randrange(100, 48_000))
            self.ledger.will_send(self.conversation, self.name, cmid, sha256=hashlib.sha256(blob).hexdigest())
            return (self.conversation, cmid, None, blob)
        text = f"{self.name} message {self.count} " + "x" * self.rng.randrange(0, 600)
        self.ledger.will_send(self.conversation, self.name, cmid, text=text)
        return (self.conversation, cmid, text, None)


class Agent(Client):
    """Accepts waiting conversations by hand (HTTP only, so routing never assigns it one) and
    answers them in turn."""

    role = "agent"

    def __init__(self, *a, app_id, **kw):
        super().__init__(*a, **kw)
        self.app_id = app_id
        self.email = f"{self.name}@faults.test"
        self.mine = []
        self.turn = 0

    def sign_in(self):
        status, data = self.call("POST", "/v1/agent/login", {"email": self.email, "password": "faults-password"})
        assert status == 200, (status, data)
        self.token = data["token"]

    def next_message(self):
        if self.turn % 20 == 0 or not self.mine:
            status, data = self.call("GET", "/v1/conversations?view=queued", token=self.token)
            if status == 401:
                self.sign_in()
                return None
            for c in data.get("conversations", []):
                self.call("POST", f"/v1/conversations/{c['id']}/accept", token=self.token)
            status, data = self.call("GET", "/v1/conversations?view=mine", token=self.token)
            self.mine = [c["id"] for c in data.get("conversations", []) if c["state"] == "assigned"]
            if not self.mine:
                time.sleep(0.2)
                return None
        self.turn += 1
        self.count += 1
        conversation = self.mine[self.turn % len(self.mine)]
        cmid = f"{self.name}-{self.count}"
        text = f"{self.name} reply {self.count}"
        self.ledger.will_send(conversation, self.name, cmid, text=text)
        return (conversation, cmid, text, None)


def integrity(data_dir, scratch):
    """`PRAGMA integrity_check` on a copy of the database and its WAL (the copy recovers from the WAL;
    the original is left exactly as the cut left it, for parleyd)."""
    shutil.rmtree(scratch, ignore_errors=True)
    os.makedirs(scratch)
    for name in ("parley.sqlite", "parley.sqlite-wal"):
        if os.path.exists(os.path.join(data_dir, name)):
            shutil.copyfile(os.path.join(data_dir, name), os.path.join(scratch, name))
    if not os.path.exists(os.path.join(scratch, "parley.sqlite")):
        return "parley.sqlite is gone"
    try:
        db = sqlite3.connect(os.path.join(scratch, "parley.sqlite"))
        result = db.execute("PRAGMA integrity_check").fetchall()
        db.close()
    except sqlite3.DatabaseError as e:
        return f"does not open: {e}"
    return "ok" if result == [("ok",)] else "; ".join(r[0] for r in result[:5])


def verify(server_url, ledger, tokens, attachments, epoch_box, final=False):
    """Reads every conversation back; returns the problems found."""
    http = Http(server_url, timeout=30)
    problems = {}
    for conversation in ledger.conversations():
        token = tokens[conversation]()
        events, page = read_all_events(http, conversation, token)
        if epoch_box.get("epoch") and page["epoch"] != epoch_box["epoch"]:
            problems.setdefault("epoch_changed", []).append(f"{epoch_box['epoch']} -> {page['epoch']}")
        epoch_box["epoch"] = page["epoch"]
        merge_problems(problems, ledger.check(conversation, events, all_sent_must_be_there=final))
        if attachments is not None:
            by_cmid = {e.get("client_message_id"): e for e in events if e.get("attachment")}
            with ledger.lock:
                wanted = [(cmid, entry) for (c, cmid), entry in ledger.sent.items()
                          if c == conversation and entry["sha256"] and entry["acked_seq"] is not None and cmid not in attachments]
            for cmid, entry in wanted:
                e = by_cmid.get(cmid)
                if e is None:
                    continue        # reported as lost above
                status, _, body = http.request("GET", f"/v1/conversations/{conversation}/attachments/{e['attachment']['id']}", token=token)
                if status != 200 or hashlib.sha256(body).hexdigest() != entry["sha256"]:
                    problems.setdefault("attachment_lost", []).append(f"{conversation}: {cmid} download {status}, "
                                                                       f"{len(body) if isinstance(body, bytes) else body} bytes")
                else:
                    attachments.add(cmid)   # checked once; its bytes never change after
    http.close()
    return problems


def main():
    for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
        signal.signal(sig, lambda s, f: sys.exit(128 + s))     # the finally below unmounts and kills
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cuts", type=int, default=100)
    parser.add_argument("--visitors", type=int, default=4)
    parser.add_argument("--agents", type=int, default=1)
    parser.add_argument("--attach-probability", type=float, default=0.1)
    parser.add_argument("--min-load", type=float, default=0.3, help="seconds of load before a cut, at least")
    parser.add_argument("--max-load", type=float, default=3.0)
    parser.add_argument("--seed", type=int, default=int(time.time()))
    parser.add_argument("--model", choices=["strict", "journal"], default="strict")
    parser.add_argument("--drop", choices=["all", "random"], default="all")
    parser.add_argument("--fsync-delay-ms", type=float, default=0.0)
    parser.add_argument("--work", help="work folder (default: a new one under /tmp)")
    parser.add_argument("--keep", action="store_true", help="keep the work folder even when everything passed")
    parser.add_argument("--simulate-fix-f1", action="store_true",
                        help="diagnostic: run parleyd with shims/sqlite-sync-full.c preloaded (FINDINGS.md F1 fixed from outside)")
    args = parser.parse_args()

    rng = random.Random(args.seed)
    work = args.work or tempfile.mkdtemp(prefix="parley-power-")
    os.makedirs(work, exist_ok=True)
    print(f"power loss: {args.cuts} cuts, {args.visitors} visitors, {args.agents} agents, model {args.model}, "
          f"drop {args.drop}, seed {args.seed}, work {work}", flush=True)
    pm = PowerMount(os.path.join(work, "backing"), os.path.join(work, "mnt"), model=args.model, drop=args.drop, seed=args.seed,
                    fsync_delay_ms=args.fsync_delay_ms, log=os.path.join(work, "powerfs.log"))
    data_dir = os.path.join(pm.mountpoint, "data")
    env = None
    if args.simulate_fix_f1:
        shim = os.path.join(work, "sqlite-sync-full.so")
        subprocess.run(["cc", "-shared", "-fPIC", "-O2", "-o", shim, os.path.join(HERE, "shims", "sqlite-sync-full.c"), "-ldl"], check=True)
        env = {"LD_PRELOAD": shim}
        print("simulating the fix of F1: PRAGMA synchronous = NORMAL is rewritten to FULL", flush=True)
    parleyd = Parleyd(bin_dir(), os.path.join(work, "parleyd.log"), ADMIN, data_dir=data_dir, env=env)
    server, ledger, stats, errors = Server(), Ledger(), Stats(), []
    failures = {}
    clients = []
    started = time.monotonic()
    restart_times, dropped, lost_per_cut = [], [], []
    try:
        pm.mount()
        os.mkdir(data_dir)
        fd = os.open(pm.mountpoint, os.O_RDONLY)
        os.fsync(fd)        # the data directory itself exists durably, as an operator's would
        os.close(fd)
        parleyd.start()
        server.url = parleyd.url
        app_id = parleyd.banner["app_id"]
        admin = Http(server.url)
        for i in range(args.agents):
            admin.ok("POST", f"/v1/admin/apps/{app_id}/agents", {"name": f"agent{i}", "email": f"agent{i}@faults.test",
                                                                 "password": "faults-password", "capacity": 100}, ADMIN)
        admin.close()
        server.up.set()
        for i in range(args.visitors):
            clients.append(Visitor(f"visitor{i}", server, ledger, stats, random.Random(rng.random()), errors,
                                   app_id=app_id, attach_probability=args.attach_probability))
        for i in range(args.agents):
            clients.append(Agent(f"agent{i}", server, ledger, stats, random.Random(rng.random()), errors, app_id=app_id))
        for c in clients:
            c.start()
        visitors = [c for c in clients if isinstance(c, Visitor)]
        checked_attachments = set()
        epoch = {}
        seen = set()

        def tokens():
            out = {}
            for v in visitors:
                if v.conversation:
                    out[v.conversation] = (lambda v=v: v.token)
            return out

        for cut in range(1, args.cuts + 1):
            time.sleep(rng.uniform(args.min_load, args.max_load))
            before = ledger.acked_count()
            server.up.clear()          # clients that lose their answer wait for the restart
            report = pm.cut(kill=lambda: parleyd.kill(signal.SIGKILL), reap=parleyd.wait)
            dropped.append(report)
            t0 = time.monotonic()
            pm.mount()
            result = integrity(data_dir, os.path.join(work, "integrity"))
            if result != "ok":
                failures.setdefault("database", []).append(f"cut {cut}: {result}")
            try:
                parleyd.start()
            except RuntimeError as e:
                failures.setdefault("no_restart", []).append(f"cut {cut}: {e}")
                break
            restart_times.append(time.monotonic() - t0)
            server.url = parleyd.url
            # Check before any client resends: what was acknowledged must have survived the cut itself.
            problems = verify(server.url, ledger, tokens(), checked_attachments, epoch)
            server.up.set()
            # Each problem counts once, at the first cut that shows it (a lost message stays lost).
            bad = {k: [x for x in v if x not in seen] for k, v in problems.items()}
            bad = {k: v for k, v in bad.items() if v}
            for k, v in bad.items():
                seen.update(v)
                failures.setdefault(k, []).extend(f"cut {cut}: {x}" for x in v)
            lost_per_cut.append(len(bad.get("lost", [])))
            print(f"cut {cut:3d}: {before:6d} acked before the cut; dropped {report['blocks_dropped']} blocks in "
                  f"{report['files']} files, undid {report['ops_undone']} namespace ops; restart {restart_times[-1]:.2f} s; "
                  f"{'OK' if not bad else 'PROBLEMS ' + ', '.join(f'{k}={len(v)}' for k, v in bad.items())}", flush=True)
            if errors:
                break
        # Let every client get its last message acknowledged, then stop them and check everything.
        time.sleep(1.0)
        server.stop.set()
        for c in clients:
            c.join(30)
        final = verify(server.url, ledger, tokens(), checked_attachments, epoch, final=False)
        for k, v in final.items():
            failures.setdefault(k, []).extend(f"final: {x}" for x in v if x not in seen)
    except Exception:
        errors.append(traceback.format_exc())
    finally:
        server.stop.set()
        server.up.set()
        parleyd.kill()
        parleyd.wait(10)
        pm.cleanup()

    elapsed = time.monotonic() - started
    with ledger.lock:
        total = len(ledger.sent)
        acked = sum(1 for e in ledger.sent.values() if e["acked_seq"] is not None)
        attach = sum(1 for e in ledger.sent.values() if e["acked_seq"] is not None and e["sha256"])
    print()
    print(f"cuts: {len(dropped)} in {elapsed:.0f} s; messages acknowledged: {acked} of {total} sent ({attach} attachments, "
          f"{len(checked_attachments)} downloaded and compared)")
    if dropped:
        print(f"dropped per cut: {sum(r['blocks_dropped'] for r in dropped) / len(dropped):.0f} blocks on average "
              f"(max {max(r['blocks_dropped'] for r in dropped)}), namespace ops undone: {sum(r['ops_undone'] for r in dropped)}; "
              f"cuts that dropped nothing: {sum(1 for r in dropped if not r['blocks_dropped'] and not r['ops_undone'])}")
    if restart_times:
        print(f"remount + integrity check + restart: median {sorted(restart_times)[len(restart_times) // 2]:.2f} s, "
              f"max {max(restart_times):.2f} s")
    if any(lost_per_cut):
        hit = [n for n in lost_per_cut if n]
        print(f"acknowledged messages lost: {sum(hit)} in {len(hit)} of {len(lost_per_cut)} cuts "
              f"(per losing cut: median {sorted(hit)[len(hit) // 2]}, max {max(hit)})")
    print("client counters: " + ", ".join(f"{k}={v}" for k, v in sorted(stats.c.items())))
    for k in ("lost", "duplicated", "misordered", "gaps", "moved", "unknown", "attachment_lost", "epoch_changed", "database", "no_restart"):
        print(f"  {k:16s} {len(failures.get(k, []))}")
    for k, v in failures.items():
        for x in v[:10]:
            print(f"  {k}: {x}")
    for e in errors[:10]:
        print(f"  harness error: {e}")
    failed = any(failures.values())
    if failed or errors:
        print(f"FAILED (work folder kept: {work})")
    elif not args.keep:
        shutil.rmtree(work, ignore_errors=True)
    print(f"{0 if failed or errors else 1} passed, {1 if failed or errors else 0} failed")
    sys.exit(1 if failed else (2 if errors else 0))


if __name__ == "__main__":
    main()
