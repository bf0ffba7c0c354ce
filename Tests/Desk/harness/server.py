"""A real parleyd for the suite: started on a free port with a fresh data directory, its first-start
banner parsed (app, queue, admin login), stopped with SIGTERM, and restartable on the same port."""
import re
import signal
import subprocess

from .lines import LineLog


class Parleyd:
    def __init__(self, binary, data_dir, log_path, offline_grace=5, extra_arguments=()):
        self.binary = binary
        self.extra_arguments = list(extra_arguments)
        self.data_dir = data_dir
        self.log_path = log_path
        self.offline_grace = offline_grace
        self.process = None
        self.port = 0
        self.base = None
        self.demo = None

    def start(self):
        arguments = [
            self.binary, "serve",
            "--data-dir", self.data_dir,
            "--port", str(self.port),
            "--password-cost", "4",
            "--no-rate-limits",  # every browser and CLI of the suite comes from 127.0.0.1
            "--offline-grace", str(self.offline_grace),
            *self.extra_arguments,
        ]
        self._log = open(self.log_path, "a")
        self._log.write(f"\n=== {' '.join(arguments)}\n")
        self._log.flush()
        self.process = subprocess.Popen(arguments, stdout=subprocess.PIPE, stderr=self._log, text=True, bufsize=1)
        self.output = LineLog(self.process.stdout, echo_to=self._log)
        listening = self.output.wait_for("is listening on", timeout=60, what="parleyd's banner")
        self.base = re.search(r"listening on (http://\S+)", listening).group(1)
        self.port = int(self.base.rsplit(":", 1)[1])
        # The banner ends with the realtime line; on first start it names the demo app and admin.
        self.output.wait_for("realtime:", timeout=10)
        text = self.output.text()
        if "First start" in text and self.demo is None:
            self.demo = {
                "app_id": re.search(r"app id:\s+(app_\S+)", text).group(1),
                "queue_id": re.search(r"queue:\s+(que_\S+)", text).group(1),
                "email": re.search(r"agent login:\s+(\S+)", text).group(1),
                "password": re.search(r"password:\s+(\S+)", text).group(1),
            }
        return self

    def stop(self, timeout=30):
        if self.process is None:
            return
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
                raise AssertionError("parleyd did not stop within 30 s of SIGTERM")
        self.process = None
        self._log.close()

    def restart(self):
        """Stops and starts again on the same port and data directory."""
        self.stop()
        self.start()

    @property
    def is_running(self):
        return self.process is not None and self.process.poll() is None
