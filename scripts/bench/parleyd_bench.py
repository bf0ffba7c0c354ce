"""What the benchmark scripts share: a fresh parleyd pinned to CPU0 with its banner read, JSON calls
over keep-alive HTTP, and percentiles. Imported by the Python inside scripts/bench/*.sh."""
import atexit, json, re, subprocess, tempfile, threading


def start_parleyd(parleyd, log_path, token, extra=(), database=None):
    """Starts `parleyd serve` on a fresh data directory, pinned to CPU0; returns (process, port, app id, data dir)."""
    data = tempfile.mkdtemp(prefix="parley-bench-")
    proc = subprocess.Popen(["taskset", "-c", "0", parleyd, "serve", "--data-dir", data, "--port", "0", "--admin-token", token,
                             "--password-cost", "4", "--no-rate-limits", "--allow-private-outbound", "--log-level", "warning", *extra]
                            + (["--database", database] if database else []),
                            stdout=subprocess.PIPE, stderr=open(log_path, "w"), text=True)
    atexit.register(proc.kill)  # a benchmark that fails half-way leaves no parleyd behind
    port = app = None
    for line in proc.stdout:
        m = re.search(r"listening on http://127\.0\.0\.1:(\d+)", line)
        if m: port = int(m.group(1))
        m = re.search(r"app id:\s+(app_[0-9A-Z]{26})", line)
        if m: app = m.group(1); break
    threading.Thread(target=lambda: [None for _ in proc.stdout], daemon=True).start()
    assert port and app, "parleyd did not start"
    return proc, port, app, data


def call(conn, method, path, body=None, token=None):
    """One JSON request on a keep-alive connection; fails on a status of 300 or more."""
    headers = {"Content-Type": "application/json"}
    if token: headers["Authorization"] = f"Bearer {token}"
    conn.request(method, path, json.dumps(body) if body is not None else None, headers)
    response = conn.getresponse()
    data = response.read()
    assert response.status < 300, (method, path, response.status, data)
    return json.loads(data) if data else None


def percentile(values, p):
    values = sorted(values)
    return values[min(len(values) - 1, int(round(p / 100 * (len(values) - 1))))]
