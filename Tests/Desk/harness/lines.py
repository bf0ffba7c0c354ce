"""A child process's output, line by line, readable while it runs."""
import threading

from .waiting import Timeout, wait_until


class LineLog:
    """Collects the lines of a text stream on a thread; `wait_for` waits for a matching line."""

    def __init__(self, stream, echo_to=None):
        self.lines = []
        self._lock = threading.Lock()
        self._echo = echo_to
        self.closed = False
        self._thread = threading.Thread(target=self._read, args=(stream,), daemon=True)
        self._thread.start()

    def _read(self, stream):
        for line in iter(stream.readline, ""):
            line = line.rstrip("\n")
            with self._lock:
                self.lines.append(line)
            if self._echo:
                self._echo.write(line + "\n")
                self._echo.flush()
        self.closed = True

    def snapshot(self):
        with self._lock:
            return list(self.lines)

    def text(self):
        return "\n".join(self.snapshot())

    def wait_for(self, predicate, timeout=20.0, start=0, what=None):
        """The first line at index >= `start` that matches (a substring or a function of the line)."""
        match = (lambda line: predicate in line) if isinstance(predicate, str) else predicate

        def find():
            for line in self.snapshot()[start:]:
                if match(line):
                    return line
            return None

        try:
            return wait_until(find, timeout=timeout, message=what or f"a line with {predicate!r}")
        except Timeout as error:
            raise Timeout(f"{error}\n--- output so far ---\n{self.text()}") from None

    def __len__(self):
        with self._lock:
            return len(self.lines)
