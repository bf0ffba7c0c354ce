"""powerfs: a pass-through FUSE filesystem that can lose power.

Every operation goes straight through to a backing folder, so what runs on the mount sees an
ordinary filesystem. Beside it, powerfs keeps an undo journal in memory of everything that is not
durable yet, the way a disk with a volatile cache and a filesystem would see it:

* file data: the before-image of every 4 KiB block written (or cut off by a truncate) since the
  file's last fsync/fdatasync, and the size the file had then. fsync or fdatasync of the file
  makes its data durable (the journal entry is dropped).
* the namespace: every create, mkdir, symlink, link, unlink, rmdir and rename since it became
  durable. A removed or replaced file is moved to a graveyard beside the backing folder instead of
  being deleted, so that it can come back. In the default `strict` model (POSIX, conservative) an
  entry becomes durable only when its directory is fsync'd: a file created, fsync'd and never
  followed by an fsync of its directory is gone after a cut, and so is a rename into a directory
  never fsync'd. A rename across directories whose destination was fsync'd but not its source
  leaves the file under both names; the other way round, under neither (a disk that wrote one
  directory block and not the other). In the `journal` model (ext4/XFS-like: one ordered metadata journal) any fsync
  commits every namespace change made before it.

`cut` (the control socket's `freeze` then `drop`) is a power cut: `freeze` is the instant of the
cut (from then on every operation blocks, as if the machine had stopped, and later returns EIO);
`drop` rolls the backing folder back to its durable state: every unsynced block gets its
before-image back, every file its durable size, and the namespace changes that were not durable
are undone in reverse order. With `--drop random` a cut is nastier: each unsynced block is kept or
dropped at random (a disk that wrote some of its cache), each file keeps its durable or its latest
size, and a random prefix of the namespace changes survives (an ordered journal cut short).

Control socket (a Unix socket, one line per command, one line answered):
  ping            -> ok
  stats           -> ok {json}: blocks and files pending, namespace ops pending, totals
  sync            -> ok: make everything durable now (a clean moment, e.g. after setup)
  freeze          -> ok once frozen: the power is off; every operation after this blocks
  drop            -> ok {json}: roll back what was not durable (after freeze), then fail every
                     blocked and later operation with EIO; unmount afterwards
Usage: python powerfs.py BACKING MOUNTPOINT --control SOCKET [--model strict|journal]
       [--drop all|random] [--seed N] [--fsync-delay-ms N]
BACKING holds `root/` (what the mount shows) and `grave/` (removed files that may come back).
"""
import argparse, errno, json, os, random, socket, stat, threading, time

import mfusepy as fuse

BLOCK = 4096


class DataUndo:
    """What one file's data was when it was last durable."""

    def __init__(self, fd, durable_size):
        self.fd = fd                  # our own O_RDWR descriptor of the backing file
        self.durable_size = durable_size
        self.blocks = {}              # block index -> bytes before the first change (None: beyond the durable size)


class PowerFS(fuse.Operations):
    use_ns = True

    def __init__(self, backing, model="strict", drop="all", seed=None, fsync_delay=0.0):
        self.root = os.path.realpath(os.path.join(backing, "root"))
        self.grave = os.path.realpath(os.path.join(backing, "grave"))
        os.makedirs(self.root, exist_ok=True)
        os.makedirs(self.grave, exist_ok=True)
        self.model, self.drop_mode, self.fsync_delay = model, drop, fsync_delay
        self.random = random.Random(seed)
        self._mutex = threading.RLock()
        self.frozen = threading.Event()
        self.dead = False
        self.resume = threading.Condition(self._mutex)
        self.data = {}                # (dev, ino) -> DataUndo
        self.ops = []                 # pending namespace changes, oldest first
        self.grave_seq = 0
        self.totals = {"fsyncs": 0, "fsyncdirs": 0, "writes": 0, "bytes_written": 0, "cuts": 0}

    # ---- plumbing -------------------------------------------------------------------------

    def _gate(self):
        """Every operation passes here: after a freeze it blocks until the drop, then fails."""
        if self.frozen.is_set():
            with self._mutex:
                while not self.dead:
                    self.resume.wait()
            raise fuse.FuseOSError(errno.EIO)

    def _full(self, path):
        return os.path.join(self.root, path.lstrip("/"))

    def _split(self, path):
        parent, name = os.path.split(path.rstrip("/") or "/")
        return (parent or "/"), name

    def _bury(self, full):
        """Moves a removed or replaced entry to the graveyard; returns where it lies."""
        self.grave_seq += 1
        tomb = os.path.join(self.grave, str(self.grave_seq))
        os.rename(full, tomb)
        return tomb

    def _undo_for(self, fd):
        st = os.fstat(fd)
        key = (st.st_dev, st.st_ino)
        undo = self.data.get(key)
        if undo is None:
            undo = self.data[key] = DataUndo(os.dup(fd), st.st_size)
        return undo

    def _save_blocks(self, undo, first, last):
        for b in range(first, last + 1):
            if b in undo.blocks:
                continue
            if b * BLOCK < undo.durable_size:
                undo.blocks[b] = os.pread(undo.fd, BLOCK, b * BLOCK)
            else:
                undo.blocks[b] = None

    def _durable_data(self, fd):
        st = os.fstat(fd)
        undo = self.data.pop((st.st_dev, st.st_ino), None)
        if undo:
            os.close(undo.fd)

    def _commit_ops(self, predicate):
        keep = []
        for op in self.ops:
            if predicate(op):
                for tomb in op.get("tombs", ()):
                    _remove_tree(tomb)
            else:
                keep.append(op)
        self.ops = keep

    # ---- the control socket --------------------------------------------------------------------

    def serve_control(self, path):
        if os.path.exists(path):
            os.unlink(path)
        server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        server.bind(path)
        server.listen(8)

        def handle(conn):
            with conn, conn.makefile("rw") as f:
                for line in f:
                    try:
                        answer = self.command(line.strip())
                    except Exception as e:  # answered, never fatal
                        answer = f"error {type(e).__name__}: {e}"
                    f.write(answer + "\n")
                    f.flush()

        def loop():
            while True:
                conn, _ = server.accept()
                threading.Thread(target=handle, args=(conn,), daemon=True).start()

        threading.Thread(target=loop, daemon=True).start()

    def stats(self):
        return {"files_pending": len(self.data), "blocks_pending": sum(len(u.blocks) for u in self.data.values()),
                "ops_pending": len(self.ops), **self.totals}

    def command(self, cmd):
        if cmd == "ping":
            return "ok"
        if cmd == "stats":
            with self._mutex:
                return "ok " + json.dumps(self.stats())
        if cmd == "sync":
            with self._mutex:
                for undo in self.data.values():
                    os.close(undo.fd)
                self.data.clear()
                self._commit_ops(lambda op: True)
            return "ok"
        if cmd == "freeze":
            with self._mutex:       # waits for the operation in progress: the cut falls between two
                self.frozen.set()
            return "ok"
        if cmd == "drop":
            if not self.frozen.is_set():
                return "error: freeze first"
            with self._mutex:
                report = self._roll_back()
                self.dead = True
                self.resume.notify_all()
            return "ok " + json.dumps(report)
        return "error: unknown command"

    def _roll_back(self):
        """Puts the backing folder back as it was when last durable (or, with --drop random, a
        state a real disk might have left)."""
        self.totals["cuts"] += 1
        report = {"files": 0, "blocks_dropped": 0, "blocks_kept": 0, "bytes_dropped": 0, "ops_undone": 0, "ops_kept": 0}
        for undo in self.data.values():
            report["files"] += 1
            try:
                size = os.fstat(undo.fd).st_size
                final = undo.durable_size
                if self.drop_mode == "random" and self.random.random() < 0.5:
                    final = size
                for b, before in sorted(undo.blocks.items()):
                    if self.drop_mode == "random" and self.random.random() < 0.5:
                        report["blocks_kept"] += 1
                        continue
                    report["blocks_dropped"] += 1
                    start = b * BLOCK
                    if before is None:
                        if start < final:   # a block past the durable size that the file still reaches: never written
                            os.pwrite(undo.fd, b"\0" * min(BLOCK, final - start), start)
                    else:
                        os.pwrite(undo.fd, before, start)
                    report["bytes_dropped"] += BLOCK
                os.ftruncate(undo.fd, final)
            finally:
                os.close(undo.fd)
        self.data.clear()
        ops = self.ops
        if self.drop_mode == "random":
            keep = self.random.randint(0, len(ops))
            report["ops_kept"] = keep
            self._commit_ops(lambda op, kept=set(map(id, ops[:keep])): id(op) in kept)
            ops = self.ops
        for op in reversed(ops):
            report["ops_undone"] += 1
            try:
                self._undo_op(op)
            except OSError:
                pass            # an entry a later, durable change already moved: nothing to undo
        self.ops = []
        return report

    def _undo_op(self, op):
        kind = op["kind"]
        if kind in ("create", "symlink", "link"):
            os.unlink(self._full(op["path"]))
        elif kind == "mkdir":
            _remove_tree(self._full(op["path"]))
        elif kind in ("unlink", "rmdir"):
            os.rename(op["tombs"][0], self._full(op["path"]))
        elif kind == "rename":
            old, new = self._full(op["old"]), self._full(op["new"])
            if op["dst_synced"]:
                # The new name is durable, the old directory was not written: both names exist.
                if not os.path.lexists(old) and not os.path.isdir(new):
                    os.link(new, old)
            elif op["src_synced"]:
                # The old name is durably gone and the new one never made it: the file is lost.
                _remove_tree(new)
                if op["tombs"]:
                    os.rename(op["tombs"][0], new)
            else:
                os.rename(new, old)
                if op["tombs"]:
                    os.rename(op["tombs"][0], new)

    def _record(self, **op):
        op.setdefault("tombs", [])
        self.ops.append(op)

    # ---- namespace operations ------------------------------------------------------------------

    def getattr(self, path, fh=None):
        self._gate()
        # By path whenever there is one: a directory's handle is no descriptor of ours.
        st = os.lstat(self._full(path)) if path is not None else os.fstat(fh)
        return {key: getattr(st, key) for key in ("st_mode", "st_nlink", "st_uid", "st_gid", "st_size", "st_ino")} | {
            "st_atime": st.st_atime_ns, "st_mtime": st.st_mtime_ns, "st_ctime": st.st_ctime_ns}

    def access(self, path, amode):
        self._gate()
        if not os.access(self._full(path), amode):
            raise fuse.FuseOSError(errno.EACCES)
        return 0

    def readdir(self, path, fh):
        self._gate()
        return [".", ".."] + os.listdir(self._full(path))

    def readlink(self, path):
        self._gate()
        return os.readlink(self._full(path))

    def statfs(self, path):
        self._gate()
        sv = os.statvfs(self._full(path))
        return {key: getattr(sv, key) for key in (
            "f_bavail", "f_bfree", "f_blocks", "f_bsize", "f_favail", "f_ffree", "f_files", "f_flag", "f_frsize", "f_namemax")}

    def chmod(self, path, mode):
        self._gate()
        with self._mutex:
            os.chmod(self._full(path), mode)
        return 0

    def chown(self, path, uid, gid):
        self._gate()
        with self._mutex:
            os.lchown(self._full(path), uid, gid)
        return 0

    def utimens(self, path, times=None):
        self._gate()
        with self._mutex:
            os.utime(self._full(path), ns=times, follow_symlinks=False) if times else os.utime(self._full(path))
        return 0

    def mkdir(self, path, mode):
        self._gate()
        with self._mutex:
            os.mkdir(self._full(path), mode)
            self._record(kind="mkdir", path=path, dirs=[self._split(path)[0]])
        return 0

    def rmdir(self, path):
        self._gate()
        with self._mutex:
            full = self._full(path)
            if os.listdir(full):
                raise fuse.FuseOSError(errno.ENOTEMPTY)
            self._record(kind="rmdir", path=path, dirs=[self._split(path)[0]], tombs=[self._bury(full)])
        return 0

    def unlink(self, path):
        self._gate()
        with self._mutex:
            full = self._full(path)
            os.lstat(full)
            self._record(kind="unlink", path=path, dirs=[self._split(path)[0]], tombs=[self._bury(full)])
        return 0

    def symlink(self, target, source):
        self._gate()
        with self._mutex:
            os.symlink(source, self._full(target))
            self._record(kind="symlink", path=target, dirs=[self._split(target)[0]])
        return 0

    def link(self, target, source):
        self._gate()
        with self._mutex:
            os.link(self._full(source), self._full(target))
            self._record(kind="link", path=target, dirs=[self._split(target)[0]])
        return 0

    def rename(self, old, new, flags=0):
        self._gate()
        if flags:
            raise fuse.FuseOSError(errno.EINVAL)   # RENAME_NOREPLACE / EXCHANGE: not needed here
        with self._mutex:
            fold, fnew = self._full(old), self._full(new)
            os.lstat(fold)
            tombs = []
            if os.path.lexists(fnew):
                if os.path.isdir(fnew) and not os.path.islink(fnew):
                    if os.listdir(fnew):
                        raise fuse.FuseOSError(errno.ENOTEMPTY)
                tombs.append(self._bury(fnew))
            os.rename(fold, fnew)
            # Durable once both directories are (one, within a directory). Across directories, each
            # fsync'd directory keeps its own half: see _undo_op.
            src, dst = self._split(old)[0], self._split(new)[0]
            self._record(kind="rename", old=old, new=new, dirs=sorted({src, dst}), src_dir=src, dst_dir=dst,
                         src_synced=False, dst_synced=False, tombs=tombs)
        return 0

    # ---- files --------------------------------------------------------------------------------

    def create(self, path, mode, fi=None):
        self._gate()
        with self._mutex:
            full = self._full(path)
            existed = os.path.lexists(full)
            fd = os.open(full, self._backing_flags(fi if isinstance(fi, int) else 0) | os.O_CREAT, mode)
            if not existed:
                self._record(kind="create", path=path, dirs=[self._split(path)[0]])
        return fd

    @staticmethod
    def _backing_flags(flags):
        # Always read-write (the undo journal reads before-images through the same descriptor) and
        # never O_APPEND (the kernel already chose the offset of every write).
        return (flags & ~(os.O_ACCMODE | os.O_APPEND | os.O_CREAT | os.O_EXCL | os.O_TRUNC)) | os.O_RDWR

    def open(self, path, flags):
        self._gate()
        if flags & os.O_TRUNC:
            with self._mutex:
                fd = os.open(self._full(path), self._backing_flags(flags))
                self._truncate_fd(fd, 0)
                return fd
        return os.open(self._full(path), self._backing_flags(flags))

    def read(self, path, size, offset, fh):
        self._gate()
        return os.pread(fh, size, offset)

    def write(self, path, data, offset, fh):
        self._gate()
        with self._mutex:
            self._gate()
            undo = self._undo_for(fh)
            if data:
                self._save_blocks(undo, offset // BLOCK, (offset + len(data) - 1) // BLOCK)
            n = os.pwrite(fh, data, offset)
            self.totals["writes"] += 1
            self.totals["bytes_written"] += n
            return n

    def _truncate_fd(self, fd, length):
        undo = self._undo_for(fd)
        size = os.fstat(fd).st_size
        if length < size:
            self._save_blocks(undo, length // BLOCK, (size - 1) // BLOCK)
        elif length > size:
            self._save_blocks(undo, size // BLOCK, (length - 1) // BLOCK)
        os.ftruncate(fd, length)

    def truncate(self, path, length, fh=None):
        self._gate()
        with self._mutex:
            if fh is not None:
                self._truncate_fd(fh, length)
            else:
                fd = os.open(self._full(path), os.O_RDWR)
                try:
                    self._truncate_fd(fd, length)
                finally:
                    os.close(fd)
        return 0

    def flush(self, path, fh):
        return 0

    def release(self, path, fh):
        os.close(fh)     # never gated: the kernel closes the files of a killed process
        return 0

    def fsync(self, path, datasync, fh):
        self._gate()
        if self.fsync_delay:
            time.sleep(self.fsync_delay)
        with self._mutex:
            self._gate()
            self._durable_data(fh)
            self.totals["fsyncs"] += 1
            if self.model == "journal":
                self._commit_ops(lambda op: True)
        return 0

    def opendir(self, path):
        self._gate()
        return 0

    def releasedir(self, path, fh):
        return 0

    def fsyncdir(self, path, datasync, fh):
        self._gate()
        if self.fsync_delay:
            time.sleep(self.fsync_delay)
        with self._mutex:
            self._gate()
            self.totals["fsyncdirs"] += 1
            if self.model == "journal":
                self._commit_ops(lambda op: True)
            else:
                d = path.rstrip("/") or "/"
                # An entry is durable once its directory is; a rename across directories once both are
                # (each directory fsync ticks its own off).
                keep = []
                for op in self.ops:
                    if d in op["dirs"]:
                        op["dirs"] = [x for x in op["dirs"] if x != d]
                        if op["kind"] == "rename":
                            op["src_synced"] |= d == op["src_dir"]
                            op["dst_synced"] |= d == op["dst_dir"]
                    if op["dirs"]:
                        keep.append(op)
                    else:
                        for tomb in op["tombs"]:
                            _remove_tree(tomb)
                self.ops = keep
        return 0


def _remove_tree(path):
    if os.path.islink(path) or not os.path.isdir(path):
        try:
            os.unlink(path)
        except FileNotFoundError:
            pass
        return
    for name in os.listdir(path):
        _remove_tree(os.path.join(path, name))
    os.rmdir(path)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("backing")
    parser.add_argument("mountpoint")
    parser.add_argument("--control", required=True)
    parser.add_argument("--model", choices=["strict", "journal"], default="strict")
    parser.add_argument("--drop", choices=["all", "random"], default="all")
    parser.add_argument("--seed", type=int)
    parser.add_argument("--fsync-delay-ms", type=float, default=0.0)
    args = parser.parse_args()
    fs = PowerFS(args.backing, args.model, args.drop, args.seed, args.fsync_delay_ms / 1000)
    fs.serve_control(args.control)
    fuse.FUSE(fs, args.mountpoint, foreground=True, nothreads=False, fsname="powerfs", default_permissions=True)


if __name__ == "__main__":
    main()
