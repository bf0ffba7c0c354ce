"""The visitor side: the real `parley chat` CLI, driven through pipes, and (for what the CLI cannot
do, like typing) the same visitor over HTTP with a token for its stored device id."""
import json
import os
import re
import subprocess
import uuid

from .http import API
from .lines import LineLog


# ParleyKit seals its files (the secrets too), so the harness cannot read the device id the CLI
# would make. It chooses it instead: before the first start in a folder it writes a `secrets.json`
# as earlier versions of ParleyKit did, which the CLI takes over (and seals) when it starts.
_device_ids = {}


def _choose_device_id(storage):
    if storage not in _device_ids and not os.listdir(storage):
        device_id = str(uuid.uuid4())
        with open(os.path.join(storage, "secrets.json"), "w") as file:
            json.dump({"deviceID": device_id}, file)
        _device_ids[storage] = device_id


class ChatCLI:
    def __init__(self, binary, base, app_id, storage, name, email=None, subject=None, log_path=None):
        self.base = base
        self.app_id = app_id
        self.storage = storage
        self.name = name
        _choose_device_id(storage)
        arguments = [binary, "chat", "--server", base, "--app", app_id, "--storage", storage, "--name", name]
        if email:
            arguments += ["--email", email]
        if subject:
            arguments += ["--subject", subject]
        self._log = open(log_path, "a") if log_path else None
        if self._log:
            self._log.write(f"\n=== {' '.join(arguments)}\n")
        self.process = subprocess.Popen(
            arguments, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, bufsize=1,
            env={**os.environ, "NO_COLOR": "1"})
        self.output = LineLog(self.process.stdout, echo_to=self._log)
        line = self.output.wait_for("· conversation cnv_", timeout=30, what="the CLI's conversation line")
        self.conversation_id = re.search(r"(cnv_[0-9A-Z]{26})", line).group(1)

    def say(self, text):
        self.process.stdin.write(text + "\n")
        self.process.stdin.flush()

    def wait_for(self, predicate, timeout=20, start=0):
        return self.output.wait_for(predicate, timeout=timeout, start=start)

    def text(self):
        return self.output.text()

    def mark(self):
        """The current line count: wait_for(..., start=mark) only sees what comes after."""
        return len(self.output)

    def device_id(self):
        if self.storage not in _device_ids:
            raise RuntimeError(f"{self.storage} was not made by the harness: its device id is sealed")
        return _device_ids[self.storage]

    def http(self):
        """An API client with a visitor token for the same visitor (same app, same device id)."""
        session = API(self.base).post("/v1/visitor/session", {"app_id": self.app_id, "device_id": self.device_id()})
        return API(self.base, session["token"])

    def close(self):
        if self.process.poll() is None:
            try:
                self.process.stdin.close()
            except OSError:
                pass
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        if self._log:
            self._log.close()
            self._log = None
