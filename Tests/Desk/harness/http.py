"""JSON over HTTP to parleyd, as the suite's own admin and visitor clients (not the browser)."""
import json
import urllib.error
import urllib.request


class HTTPError(AssertionError):
    def __init__(self, status, body, method, path):
        super().__init__(f"{method} {path} -> {status}: {body}")
        self.status = status
        self.body = body


class API:
    def __init__(self, base, token=None):
        self.base = base.rstrip("/")
        self.token = token

    def with_token(self, token):
        return API(self.base, token)

    def request(self, method, path, body=None, headers=None, expect=None):
        status, payload = self.exchange(method, path, body, headers)
        if expect is not None:
            if status != expect:
                raise HTTPError(status, payload, method, path)
        elif status >= 400:
            raise HTTPError(status, payload, method, path)
        return payload

    def exchange(self, method, path, body=None, headers=None):
        """(status, decoded body) whatever the status."""
        data = None if body is None else json.dumps(body).encode()
        request = urllib.request.Request(self.base + path, data=data, method=method)
        request.add_header("Accept", "application/json")
        if data is not None:
            request.add_header("Content-Type", "application/json")
        if self.token:
            request.add_header("Authorization", f"Bearer {self.token}")
        for name, value in (headers or {}).items():
            request.add_header(name, value)
        try:
            with urllib.request.urlopen(request, timeout=30) as response:
                status, raw = response.status, response.read()
        except urllib.error.HTTPError as error:
            status, raw = error.code, error.read()
        return status, (json.loads(raw) if raw else None)

    def get(self, path, **kwargs):
        return self.request("GET", path, **kwargs)

    def post(self, path, body=None, **kwargs):
        return self.request("POST", path, body, **kwargs)

    def patch(self, path, body=None, **kwargs):
        return self.request("PATCH", path, body, **kwargs)

    def put(self, path, body=None, **kwargs):
        return self.request("PUT", path, body, **kwargs)

    def status_of(self, method, path, body=None):
        """The status code only (for negative checks)."""
        return self.exchange(method, path, body)[0]
