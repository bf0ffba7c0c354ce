"""A webhook receiver for Parley's tests and benchmarks: every request to /hook... is checked with the
`standardwebhooks` package (PyPI) against each secret it was given, and recorded.

    python receiver.py            # prints "PORT <n>" once it listens on 127.0.0.1

Control, as JSON over HTTP on the same port:
    POST /_secrets   {"secrets": ["whsec_..."]}   secrets to verify with (each separately)
    POST /_fail      {"count": 3, "status": 500}  answer the next `count` hooks with `status`
    GET  /_received?count=N&timeout=S              the hooks received, once there are N (or after S s)
A request to /redirect... answers 307 to /hook (a server must not follow it).
"""
import json
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlparse

from standardwebhooks.webhooks import Webhook, WebhookVerificationError

state = threading.Condition()
secrets: list[str] = []
received: list[dict] = []
failures = {"count": 0, "status": 500}


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def reply(self, status, body=b"", headers=()):
        self.send_response(status)
        for name, value in headers:
            self.send_header(name, value)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def body(self):
        return self.rfile.read(int(self.headers.get("Content-Length") or 0))

    def do_GET(self):
        url = urlparse(self.path)
        if url.path != "/_received":
            return self.reply(404)
        query = parse_qs(url.query)
        count = int(query.get("count", ["0"])[0])
        deadline = time.monotonic() + float(query.get("timeout", ["20"])[0])
        with state:
            while len(received) < count and time.monotonic() < deadline:
                state.wait(deadline - time.monotonic())
            data = json.dumps(received).encode()
        self.reply(200, data, [("Content-Type", "application/json")])

    def do_POST(self):
        url = urlparse(self.path)
        body = self.body()
        if url.path == "/_secrets":
            with state:
                secrets[:] = json.loads(body)["secrets"]
            return self.reply(204)
        if url.path == "/_fail":
            with state:
                failures.update(json.loads(body))
            return self.reply(204)
        if url.path.startswith("/redirect"):
            with state:
                received.append({"path": url.path, "status": 307, "id": self.headers.get("webhook-id")})
                state.notify_all()
            return self.reply(307, b"", [("Location", "/hook")])
        headers = {name.lower(): value for name, value in self.headers.items()}
        with state:
            verified = []
            for secret in secrets:
                try:
                    Webhook(secret).verify(body, headers)
                    verified.append(True)
                except WebhookVerificationError:
                    verified.append(False)
            if failures["count"] > 0:
                failures["count"] -= 1
                status = failures["status"]
            else:
                status = 200
            received.append({
                "path": url.path, "status": status, "id": headers.get("webhook-id"),
                "timestamp": headers.get("webhook-timestamp"), "signature": headers.get("webhook-signature"),
                "verified": verified, "body": body.decode(), "at": time.time(),
            })
            state.notify_all()
        self.reply(status, b'{"ok": true}' if status == 200 else b"receiver says no", [("Content-Type", "application/json")])


def main():
    server = ThreadingHTTPServer(("127.0.0.1", int(sys.argv[1]) if len(sys.argv) > 1 else 0), Handler)
    server.daemon_threads = True
    print(f"PORT {server.server_address[1]}", flush=True)
    server.serve_forever()


if __name__ == "__main__":
    main()
