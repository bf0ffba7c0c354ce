"""Network namespaces for the fault harnesses: made by the harness, named after its run, joined by
veth pairs with 10.x addresses, and always removed (atexit, SIGTERM/SIGINT, and the entry script's
trap calling `python netlab.py cleanup RUN`). Traffic never leaves them: no namespace has a route
to anything but its own links, and the root namespace has no address on them.

A thread enters a namespace with `enter(ns)` (setns(2) for network namespaces is per thread), so
one harness process can hold clients in one namespace and a proxy in another."""
import ctypes, os, signal, subprocess, sys, threading

CLONE_NEWNET = 0x40000000
_libc = ctypes.CDLL(None, use_errno=True)
_local = threading.local()


def sh(*args, check=True, ns=None):
    cmd = (["ip", "netns", "exec", ns] if ns else []) + [str(a) for a in args]
    r = subprocess.run(cmd, capture_output=True, text=True)
    if check and r.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)}: {r.stderr.strip()}")
    return r.stdout


def enter(ns):
    """Moves the calling thread into network namespace `ns` (None: stays)."""
    if ns is None:
        return
    fd = os.open(f"/var/run/netns/{ns}", os.O_RDONLY)
    try:
        if _libc.setns(fd, CLONE_NEWNET) != 0:
            raise OSError(ctypes.get_errno(), f"setns {ns}")
    finally:
        os.close(fd)
    _local.ns = ns


def run_in(ns, target, *args, name=None, daemon=True):
    """Starts a thread that runs `target(*args)` inside namespace `ns`."""
    def body():
        enter(ns)
        target(*args)
    t = threading.Thread(target=body, name=name, daemon=daemon)
    t.start()
    return t


class Lab:
    """Namespaces `<run>-<name>`; `link(a, b, addr_a, addr_b)` joins two with a veth pair.
    Names are short: interface names are at most 15 characters."""

    def __init__(self, run=None):
        self.run = run or os.environ.get("FAULTS_RUN") or f"pf{os.getpid() % 100000}"
        self.namespaces = []
        self.links = []
        self.children = []          # processes to kill at cleanup
        self._cleaned = False
        _install_signal_handlers(self)

    def ns(self, name):
        full = f"{self.run}-{name}"
        sh("ip", "netns", "add", full)
        self.namespaces.append(full)
        sh("ip", "link", "set", "lo", "up", ns=full)
        return full

    def link(self, a, b, addr_a, addr_b, prefix=24):
        """A veth pair between namespaces a and b; returns the interface names (in a, in b)."""
        n = len(self.links)
        ia, ib = f"{self.run}a{n}", f"{self.run}b{n}"
        sh("ip", "link", "add", ia, "type", "veth", "peer", "name", ib)
        sh("ip", "link", "set", ia, "netns", a)
        sh("ip", "link", "set", ib, "netns", b)
        for ns, iface, addr in ((a, ia, addr_a), (b, ib, addr_b)):
            if addr:
                sh("ip", "addr", "add", f"{addr}/{prefix}", "dev", iface, ns=ns)
            sh("ip", "link", "set", iface, "up", ns=ns)
        self.links.append((a, ia, b, ib))
        return ia, ib

    def bridge(self, ns, name, members):
        """A bridge in namespace `ns` over interfaces already there."""
        sh("ip", "link", "add", name, "type", "bridge", ns=ns)
        for m in members:
            sh("ip", "link", "set", m, "master", name, ns=ns)
        sh("ip", "link", "set", name, "up", ns=ns)

    def set_link(self, ns, iface, up):
        sh("ip", "link", "set", iface, "up" if up else "down", ns=ns)

    def loss(self, ns, iface, probability):
        """Random loss of `probability` on every packet in and out of `iface` (iptables statistic)."""
        for chain, flag in (("INPUT", "-i"), ("OUTPUT", "-o")):
            sh("iptables", "-A", chain, flag, iface, "-m", "statistic", "--mode", "random", "--probability", probability, "-j", "DROP", ns=ns)

    def clear_loss(self, ns):
        sh("iptables", "-F", "INPUT", ns=ns)
        sh("iptables", "-F", "OUTPUT", ns=ns)

    def spawn(self, ns, args, **kw):
        p = subprocess.Popen((["ip", "netns", "exec", ns] if ns else []) + list(args), **kw)
        self.children.append(p)
        return p

    def cleanup(self):
        if self._cleaned:
            return
        self._cleaned = True
        for p in self.children:
            if p.poll() is None:
                p.kill()
                try:
                    p.wait(10)
                except subprocess.TimeoutExpired:
                    pass
        cleanup_run(self.run)


def cleanup_run(run):
    """Kills what still runs in this run's namespaces and deletes them (their veths go with them)."""
    listing = subprocess.run(["ip", "netns", "list"], capture_output=True, text=True).stdout
    for line in listing.splitlines():
        name = line.split()[0] if line.strip() else ""
        if not name.startswith(run + "-"):
            continue
        pids = subprocess.run(["ip", "netns", "pids", name], capture_output=True, text=True).stdout.split()
        for pid in pids:
            try:
                os.kill(int(pid), signal.SIGKILL)
            except (ProcessLookupError, ValueError):
                pass
        subprocess.run(["ip", "netns", "del", name], capture_output=True)


_labs = []


def _install_signal_handlers(lab):
    import atexit
    if not _labs:
        atexit.register(lambda: [l.cleanup() for l in _labs])
        if threading.current_thread() is threading.main_thread():
            for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
                signal.signal(sig, lambda s, f: sys.exit(128 + s))
    _labs.append(lab)


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "cleanup":
        cleanup_run(sys.argv[2])
    else:
        print("usage: netlab.py cleanup RUN", file=sys.stderr)
        sys.exit(64)
