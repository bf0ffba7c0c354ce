"""A small TCP proxy for fault injection (asyncio, in a thread of its own, optionally inside a
network namespace): forwards every connection from `listen` to `upstream`, and on command

* `latency(seconds)`: delays every chunk, both ways;
* `reset_all()`: ends every open connection with a TCP RST to the client (and closes upstream);
* `stall(after_bytes, mode)`: every open connection forwards at most `after_bytes` more bytes from
  the server (so it stops in the middle of a frame) and then nothing at all, either way. Mode
  `blackhole` keeps both TCP connections open and silent (a server that stopped answering);
  `halfopen` also closes the upstream side, so the server sees the client leave while the client's
  connection stays open and silent (a NAT or a middlebox that forgot it). New connections pass.
* `counts()`: connections accepted, reset, stalled.

Everything is bounded: a connection that stays stalled is closed by the proxy after `stall_limit`
seconds (default 600) so nothing outlives a run."""
import asyncio, logging, socket, struct, threading

import netlab


class _Conn:
    def __init__(self, proxy, cr, cw, ur, uw):
        self.proxy, self.cr, self.cw, self.ur, self.uw = proxy, cr, cw, ur, uw
        self.stall_after = None      # bytes still allowed downstream before the stall
        self.stalled = False
        self.mode = "blackhole"
        self.tasks = []

    def close(self, rst=False):
        for w in (self.cw, self.uw):
            try:
                if rst and w is self.cw:
                    sock = w.get_extra_info("socket")
                    if sock is not None:
                        sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
                w.transport.abort() if rst else w.close()
            except Exception:
                pass
        for t in self.tasks:
            t.cancel()


class Proxy:
    def __init__(self, listen, upstream, ns=None, stall_limit=600.0):
        self.listen, self.upstream, self.ns, self.stall_limit = listen, upstream, ns, stall_limit
        self.delay = 0.0
        self.conns = set()
        self.stats = {"accepted": 0, "reset": 0, "stalled": 0}
        self.loop = None
        self.ready = threading.Event()
        self.thread = netlab.run_in(ns, self._main, name="tcpproxy")
        if not self.ready.wait(10):
            raise RuntimeError("proxy did not start")

    def _main(self):
        self.loop = asyncio.new_event_loop()
        self.loop.run_until_complete(self._start())
        self.ready.set()
        self.loop.run_forever()

    async def _start(self):
        self.server = await asyncio.start_server(self._accept, self.listen[0], self.listen[1], reuse_address=True, backlog=512)

    async def _accept(self, cr, cw):
        self.stats["accepted"] += 1
        try:
            ur, uw = await asyncio.wait_for(asyncio.open_connection(*self.upstream), 10)
        except (OSError, asyncio.TimeoutError):
            cw.close()
            return
        conn = _Conn(self, cr, cw, ur, uw)
        self.conns.add(conn)
        conn.tasks = [asyncio.ensure_future(self._pump(conn, cr, uw, down=False)),
                      asyncio.ensure_future(self._pump(conn, ur, cw, down=True))]
        await asyncio.gather(*conn.tasks, return_exceptions=True)
        self.conns.discard(conn)
        conn.close()

    async def _pump(self, conn, reader, writer, down):
        try:
            while True:
                data = await reader.read(65536)
                if not data:
                    if not conn.stalled:
                        writer.write_eof() if writer.can_write_eof() else writer.close()
                    return
                if self.delay:
                    await asyncio.sleep(self.delay)
                if conn.stalled:
                    continue            # swallowed: nothing reaches the other side any more
                if down and conn.stall_after is not None:
                    data = data[:conn.stall_after]
                    conn.stall_after -= len(data)
                    if data:
                        writer.write(data)
                        await writer.drain()
                    if conn.stall_after <= 0:
                        self._stall_now(conn)
                    continue
                writer.write(data)
                await writer.drain()
        except (OSError, asyncio.CancelledError):
            return

    def _stall_now(self, conn):
        conn.stalled = True
        self.stats["stalled"] += 1
        if conn.mode == "halfopen":
            conn.uw.transport.abort()
        # Bounded: the proxy lets go of a stalled connection in the end.
        self.loop.call_later(self.stall_limit, conn.close)

    def _call(self, fn):
        done, box = threading.Event(), {}

        def run():
            try:
                box["v"] = fn()
            finally:
                done.set()
        self.loop.call_soon_threadsafe(run)
        done.wait(10)
        return box.get("v")

    def latency(self, seconds):
        self.delay = seconds

    def reset_all(self):
        def go():
            n = 0
            for conn in list(self.conns):
                if not conn.stalled:
                    conn.close(rst=True)
                    n += 1
            self.stats["reset"] += n
            return n
        return self._call(go)

    def stall(self, after_bytes=0, mode="blackhole"):
        """Arms a stall on every open connection; returns how many were armed."""
        def go():
            n = 0
            for conn in list(self.conns):
                if conn.stalled:
                    continue
                conn.mode = mode
                if after_bytes <= 0:
                    self._stall_now(conn)
                else:
                    conn.stall_after = after_bytes
                n += 1
            return n
        return self._call(go)

    def disarm(self):
        """Forgets the stalls armed on connections that have not stalled yet (the server wrote nothing to them)."""
        def go():
            n = 0
            for conn in self.conns:
                if not conn.stalled and conn.stall_after is not None:
                    conn.stall_after = None
                    n += 1
            return n
        return self._call(go)

    def open_connections(self):
        return self._call(lambda: sum(1 for c in self.conns if not c.stalled))

    def counts(self):
        return dict(self.stats)

    def close(self):
        logging.getLogger("asyncio").setLevel(logging.CRITICAL)   # tasks of connections cut off at exit

        def go():
            self.server.close()
            for conn in list(self.conns):
                conn.close()
        if self.loop and self.loop.is_running():
            self._call(go)
            self.loop.call_soon_threadsafe(self.loop.stop)
