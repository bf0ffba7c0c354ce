"""Mounting powerfs and cutting its power from a harness."""
import json, os, socket, subprocess, sys, time

HERE = os.path.dirname(os.path.abspath(__file__))


class PowerMount:
    """One powerfs mount of `backing` at `mountpoint`, run as a child process. Remount after a cut
    by calling `mount()` again: the backing folder holds only what was durable."""

    def __init__(self, backing, mountpoint, model="strict", drop="all", seed=None, fsync_delay_ms=0.0, log=None):
        self.backing, self.mountpoint = backing, mountpoint
        self.control = os.path.join(backing, "control.sock")
        self.model, self.drop, self.seed, self.fsync_delay_ms = model, drop, seed, fsync_delay_ms
        self.log = log
        self.proc = None
        self.mounts = 0
        os.makedirs(mountpoint, exist_ok=True)
        os.makedirs(os.path.join(backing, "root"), exist_ok=True)

    def mount(self):
        assert self.proc is None
        if self.mounted():      # a mount left by a killed run
            subprocess.run(["fusermount3", "-uz", self.mountpoint], capture_output=True)
        self.mounts += 1
        args = [sys.executable, os.path.join(HERE, "powerfs.py"), self.backing, self.mountpoint, "--control", self.control,
                "--model", self.model, "--drop", self.drop, "--fsync-delay-ms", str(self.fsync_delay_ms)]
        if self.seed is not None:
            args += ["--seed", str(self.seed + self.mounts)]
        if os.path.exists(self.control):
            os.unlink(self.control)
        out = open(self.log, "a") if self.log else subprocess.DEVNULL
        self.proc = subprocess.Popen(args, stdout=out, stderr=out)
        from parleyclient import record_pid
        record_pid(self.proc.pid)
        deadline = time.monotonic() + 20
        while not (os.path.ismount(self.mountpoint) and os.path.exists(self.control)):
            if self.proc.poll() is not None:
                raise RuntimeError(f"powerfs exited with {self.proc.returncode} (see {self.log})")
            if time.monotonic() > deadline:
                raise RuntimeError("powerfs did not mount within 20 s")
            time.sleep(0.02)
        assert self.command("ping") == "ok"

    def command(self, cmd, timeout=30):
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as s:
            s.settimeout(timeout)
            s.connect(self.control)
            s.sendall((cmd + "\n").encode())
            data = b""
            while not data.endswith(b"\n"):
                chunk = s.recv(65536)
                if not chunk:
                    break
                data += chunk
        return data.decode().strip()

    def _json(self, answer):
        if not answer.startswith("ok"):
            raise RuntimeError(f"powerfs: {answer}")
        rest = answer[2:].strip()
        return json.loads(rest) if rest else {}

    def stats(self):
        return self._json(self.command("stats"))

    def sync(self):
        self._json(self.command("sync"))

    def freeze(self):
        """The instant the power goes: nothing written from now on will survive."""
        self._json(self.command("freeze"))

    def cut(self, kill=lambda: None, reap=lambda: None):
        """A power cut: freezes the filesystem (the instant of the cut), calls `kill` (SIGKILL what runs
        on the mount), rolls the backing folder back to what was durable, calls `reap` (wait for the
        killed processes: a process blocked in a FUSE request the daemon has taken cannot die before
        the daemon answers, so this must come after the roll back), and unmounts. Returns powerfs's
        report of what it dropped."""
        self.freeze()
        kill()
        report = self._json(self.command("drop"))
        reap()
        self.unmount()
        return report

    def mounted(self):
        """Whether the mount table still lists the mount point (also when its process is gone)."""
        target = os.path.realpath(self.mountpoint)
        with open("/proc/self/mounts") as f:
            return any(line.split()[1] == target for line in f)

    def unmount(self):
        if self.proc is None:
            return
        self.last_unmount_error = None
        for attempt in range(50):
            r = subprocess.run(["fusermount3", "-u", self.mountpoint], capture_output=True, text=True)
            if r.returncode == 0 or not self.mounted():
                break
            self.last_unmount_error = r.stderr.strip()
            time.sleep(0.1)
        else:
            subprocess.run(["fusermount3", "-uz", self.mountpoint], capture_output=True)
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        self.proc = None

    def cleanup(self):
        """Always safe: unfreezes nothing, just makes sure no mount or process is left."""
        if self.proc is not None:
            try:
                if self.proc.poll() is None:
                    try:
                        self.command("freeze", timeout=2)
                        self.command("drop", timeout=5)
                    except OSError:
                        pass
            finally:
                subprocess.run(["fusermount3", "-uz", self.mountpoint], capture_output=True)
                if self.proc.poll() is None:
                    self.proc.kill()
                self.proc.wait()
                self.proc = None
        elif self.mounted():
            subprocess.run(["fusermount3", "-uz", self.mountpoint], capture_output=True)
