"""Proves powerfs really loses what a power cut loses, and keeps what was made durable.

Plain files (both namespace models), then SQLite itself: a writer in WAL mode commits rows and
reports each commit; the power is cut at a random moment. With synchronous=FULL every reported
row must be there and the database must pass `PRAGMA integrity_check`; with synchronous=OFF rows
it reported must go missing in at least one round (the filesystem has teeth).

    python powerfs_selftest.py [--sqlite-rounds N] [--seed N]
Exits non-zero when any check fails."""
import argparse, os, random, shutil, signal, sqlite3, subprocess, sys, tempfile, threading, time

from powerctl import PowerMount

FAILED = []


def check(name, ok, detail=""):
    print(f"  {'ok  ' if ok else 'FAIL'} {name}{(': ' + detail) if detail and not ok else ''}", flush=True)
    if not ok:
        FAILED.append(name)


def fsync_path(path):
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def write(path, data, sync=False, mode="wb"):
    with open(path, mode) as f:
        f.write(data)
        f.flush()
        if sync:
            os.fsync(f.fileno())


def read(path):
    try:
        with open(path, "rb") as f:
            return f.read()
    except FileNotFoundError:
        return None


class Box:
    """A fresh mount for one case; `cut()` is a power cut and a remount."""

    def __init__(self, work, model, drop="all", seed=None):
        self.dir = tempfile.mkdtemp(dir=work)
        self.pm = PowerMount(os.path.join(self.dir, "backing"), os.path.join(self.dir, "mnt"), model=model, drop=drop, seed=seed,
                             log=os.path.join(self.dir, "powerfs.log"))
        self.pm.mount()
        self.m = self.pm.mountpoint

    def p(self, name):
        return os.path.join(self.m, name)

    def cut(self):
        report = self.pm.cut()
        self.pm.mount()
        return report

    def close(self):
        self.pm.cleanup()
        if not FAILED:
            shutil.rmtree(self.dir, ignore_errors=True)


def file_cases(work, model):
    print(f"files, model {model}:")
    b = Box(work, model)
    try:
        write(b.p("old"), b"durable", sync=True)
        write(b.p("synced"), b"v1", sync=True)
        write(b.p("gone"), b"here", sync=True)
        write(b.p("a"), b"A", sync=True)
        write(b.p("b"), b"B", sync=True)
        write(b.p("shrink"), b"x" * 10000, sync=True)
        write(b.p("log"), b"first|", sync=True)
        fsync_path(b.m)
        b.pm.sync()
        # Unsynced changes to files that were durable.
        write(b.p("old"), b"CHANGED, not synced")
        write(b.p("synced"), b"v2", sync=True)
        write(b.p("log"), b"second|", mode="ab")
        with open(b.p("shrink"), "r+b") as f:
            f.truncate(10)
        # New files: data synced but not the directory, and the other way round.
        write(b.p("new-file-synced"), b"data", sync=True)
        os.unlink(b.p("gone"))
        os.rename(b.p("a"), b.p("b"))
        os.mkdir(b.p("sub"))
        write(b.p("sub/inner"), b"in", sync=True)
        fsync_path(b.p("sub"))
        report = b.cut()
        check("something was dropped", report["blocks_dropped"] > 0 and (report["ops_undone"] > 0 or model == "journal"), str(report))
        check("unsynced overwrite dropped", read(b.p("old")) == b"durable", repr(read(b.p("old"))))
        check("fsync'd overwrite kept", read(b.p("synced")) == b"v2", repr(read(b.p("synced"))))
        check("unsynced append dropped, synced part kept", read(b.p("log")) == b"first|", repr(read(b.p("log"))))
        check("unsynced truncate undone", read(b.p("shrink")) == b"x" * 10000, str(len(read(b.p("shrink")) or b"")))
        if model == "strict":
            check("new file fsync'd without its directory: gone", read(b.p("new-file-synced")) is None)
            check("unlink without directory fsync: undone", read(b.p("gone")) == b"here")
            check("rename without directory fsync: undone", read(b.p("a")) == b"A" and read(b.p("b")) == b"B")
            check("new directory whose parent was not fsync'd: gone", not os.path.exists(b.p("sub")))
        else:
            check("journal: new file fsync'd is kept", read(b.p("new-file-synced")) == b"data")
            check("journal: unlink before an fsync is kept", read(b.p("gone")) is None)
            check("journal: rename before an fsync is kept", read(b.p("a")) is None and read(b.p("b")) == b"A")
            check("journal: new directory kept", read(b.p("sub/inner")) == b"in")
        # Now the same changes, made durable properly.
        write(b.p("new2"), b"data2", sync=True)
        write(b.p("unsynced-data"), b"lost")
        os.rename(b.p("a"), b.p("b")) if os.path.exists(b.p("a")) else None
        os.mkdir(b.p("sub2"))
        write(b.p("sub2/inner"), b"in2", sync=True)
        fsync_path(b.p("sub2"))
        fsync_path(b.m)
        b.cut()
        check("new file with file and directory fsync'd: kept", read(b.p("new2")) == b"data2")
        check("new file, directory fsync'd, data not: empty", read(b.p("unsynced-data")) == b"", repr(read(b.p("unsynced-data"))))
        check("rename with directory fsync'd: kept", read(b.p("a")) is None and read(b.p("b")) == b"A")
        check("new directory, all fsync'd: kept", read(b.p("sub2/inner")) == b"in2")
        if model == "strict":
            # Across directories, as parleyd's attachment store does (staging/ -> xx/).
            for d in ("st", "dst"):
                os.mkdir(b.p(d))
            write(b.p("st/f1"), b"one", sync=True)
            write(b.p("st/f2"), b"two", sync=True)
            fsync_path(b.p("st"))
            fsync_path(b.m)
            b.pm.sync()
            os.rename(b.p("st/f1"), b.p("dst/f1"))
            fsync_path(b.p("dst"))
            os.rename(b.p("st/f2"), b.p("dst/f2"))
            b.cut()
            check("rename across, destination fsync'd: new name kept (old one may stay)", read(b.p("dst/f1")) == b"one")
            check("rename across, nothing fsync'd: undone", read(b.p("st/f2")) == b"two" and read(b.p("dst/f2")) is None)
        # Big writes across many blocks, half synced.
        blob1, blob2 = os.urandom(300_000), os.urandom(500_000)
        write(b.p("big"), blob1, sync=True)
        fsync_path(b.m)
        with open(b.p("big"), "r+b") as f:
            f.seek(100_000)
            f.write(blob2)
        b.cut()
        check("large unsynced overwrite and growth dropped", read(b.p("big")) == blob1)
    finally:
        b.close()


SQLITE_WRITER = r"""
import sqlite3, sys
db = sqlite3.connect(sys.argv[1], isolation_level=None)
db.execute("PRAGMA journal_mode=WAL")
db.execute("PRAGMA synchronous=" + sys.argv[2])
db.execute("CREATE TABLE IF NOT EXISTS t (id INTEGER PRIMARY KEY, body TEXT)")
start = int(sys.argv[3])
for i in range(start, start + 1000000):
    db.execute("BEGIN IMMEDIATE")
    db.execute("INSERT INTO t VALUES (?, ?)", (i, "x" * (50 + i % 3000)))
    db.execute("COMMIT")
    print(i, flush=True)
"""


def sqlite_rounds(work, synchronous, rounds, rng, model="strict", drop="all"):
    """Returns (rounds with a reported row missing, rounds with a broken database)."""
    b = Box(work, model, drop=drop, seed=rng.randrange(1 << 30))
    lost_rounds = broken = 0
    committed = set()
    try:
        os.mkdir(b.p("db"))
        fsync_path(b.m)
        path = b.p("db/test.sqlite")
        for r in range(rounds):
            writer = subprocess.Popen([sys.executable, "-c", SQLITE_WRITER, path, synchronous, str(1 + r * 1000000)],
                                      stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
            reported = []
            reader = threading.Thread(target=lambda: [reported.append(int(line)) for line in writer.stdout], daemon=True)
            reader.start()
            time.sleep(rng.uniform(0.3, 1.5))
            b.pm.cut(kill=lambda: writer.send_signal(signal.SIGKILL), reap=writer.wait)
            reader.join(5)
            committed.update(reported)
            try:
                b.pm.mount()
            except RuntimeError as e:
                check("remount", False, str(e))
                raise
            try:
                db = sqlite3.connect(path)
                ok = db.execute("PRAGMA integrity_check").fetchone()[0]
                present = {row[0] for row in db.execute("SELECT id FROM t")}
                db.close()
            except sqlite3.DatabaseError as e:
                ok, present = str(e), set()
            if ok != "ok":
                broken += 1
            missing = committed - present
            if missing:
                lost_rounds += 1
                committed -= missing     # count each loss once
    finally:
        b.close()
    return lost_rounds, broken


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--sqlite-rounds", type=int, default=4)
    parser.add_argument("--seed", type=int, default=int(time.time()))
    args = parser.parse_args()
    rng = random.Random(args.seed)
    print(f"powerfs self-test (seed {args.seed})")
    work = tempfile.mkdtemp(prefix="powerfs-selftest-")
    try:
        file_cases(work, "strict")
        file_cases(work, "journal")
        print(f"SQLite, WAL, {args.sqlite_rounds} cuts each:")
        lost, broken = sqlite_rounds(work, "FULL", args.sqlite_rounds, rng)
        check("synchronous=FULL: no committed row lost", lost == 0, f"{lost} rounds lost rows")
        check("synchronous=FULL: database intact", broken == 0, f"{broken} rounds broken")
        lost, broken = sqlite_rounds(work, "FULL", args.sqlite_rounds, rng, drop="random")
        check("synchronous=FULL, random partial drops: no committed row lost", lost == 0, f"{lost} rounds lost rows")
        check("synchronous=FULL, random partial drops: database intact", broken == 0, f"{broken} rounds broken")
        lost, broken = sqlite_rounds(work, "OFF", args.sqlite_rounds, rng)
        check("synchronous=OFF: committed rows are lost (the cut has teeth)", lost > 0, "no loss seen")
    finally:
        if not FAILED:
            shutil.rmtree(work, ignore_errors=True)
        else:
            print(f"kept {work} for a look")
    print(f"{sum(1 for _ in FAILED)} failed" if FAILED else "all passed")
    sys.exit(1 if FAILED else 0)


if __name__ == "__main__":
    main()
