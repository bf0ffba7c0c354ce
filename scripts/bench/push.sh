#!/bin/bash
# Push delivery: pushes per second and the delay from an agent message's commit to the provider's
# request (p50/p99), against the local APNs fake (HTTP/2 over TLS, ES256 provider tokens checked:
# Tests/Push/fake_providers.py); and the floor in the same run: the same fake hit directly by an
# HTTP/2 client (httpx) with as many requests in flight as parleyd's push worker keeps.
#
#   bash scripts/bench/push.sh                             # release parleyd from .build (built if missing)
#   PARLEYD=.build/debug/parleyd MESSAGES=1000 RATE=100 bash scripts/bench/push.sh
#   DATABASE=$(bash scripts/test-postgres.sh start) bash scripts/bench/push.sh   # on PostgreSQL (a fresh database each run)
#
# parleyd (SQLite, or PostgreSQL with DATABASE; --push-delay 0) pinned to CPU0; the fake and the client
# on CPU1. Phases: (1) paced: RATE agent messages/s for DURATION s over 16 conversations, each message's
# commit-to-provider delay; (2) burst: MESSAGES agent messages as fast as the client sends them over
# CONVERSATIONS conversations, pushes/s from the first commit to the last request; (3) the floor.
# Needs .venv with Tests/Push/requirements.txt (scripts/test.sh makes it) and httpx[http2] (installed here).
set -euo pipefail
export PARLEY_RATE_LIMITS=off
cd "$(dirname "$0")/../.."
PARLEYD=${PARLEYD:-$PWD/.build/release/parleyd}
MESSAGES=${MESSAGES:-2000}; CONVERSATIONS=${CONVERSATIONS:-64}; RATE=${RATE:-100}; DURATION=${DURATION:-10}
OUT=${OUT:-/tmp/parley-bench-push}
[ -x "$PARLEYD" ] || swift build -c release --product parleyd 2>&1 | tail -1
[ -x .venv/bin/python ] || python3 -m venv .venv
.venv/bin/pip install --quiet --disable-pip-version-check -r Tests/Push/requirements.txt "httpx[http2]==0.28.1"
mkdir -p "$OUT"
DB_ARGS=""
if [ -n "${DATABASE:-}" ]; then
  NAME="parley_bench_push_$$"
  psql "$DATABASE" -qc "CREATE DATABASE $NAME" >/dev/null
  trap 'psql "$DATABASE" -qc "DROP DATABASE IF EXISTS $NAME WITH (FORCE)" >/dev/null' EXIT
  DB_ARGS="${DATABASE%/*}/$NAME"
fi
taskset -c 1 .venv/bin/python - "$PARLEYD" "$OUT" "$MESSAGES" "$CONVERSATIONS" "$RATE" "$DURATION" "$DB_ARGS" <<'PYTHON'
import asyncio, datetime, http.client, json, os, re, shutil, subprocess, sys, tempfile, threading, time, uuid
sys.path.insert(0, "scripts/bench")
from parleyd_bench import call as shared_call, percentile, start_parleyd
import httpx, jwt

parleyd, out, messages, conversations, rate, duration = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), float(sys.argv[5]), float(sys.argv[6])
database = sys.argv[7] if len(sys.argv) > 7 and sys.argv[7] else None
TOKEN = f"bench-{os.getpid()}"

# --- The provider: the APNs/FCM fake, on CPU1 with this client. ---
fake_dir = tempfile.mkdtemp(prefix="parley-bench-push-fake-")
fake = subprocess.Popen([sys.executable, "Tests/Push/fake_providers.py", "--dir", fake_dir], stdout=subprocess.PIPE,
                        stderr=open(os.path.join(out, "fake.log"), "w"), text=True)
ready = json.loads(fake.stdout.readline())
control = http.client.HTTPConnection("127.0.0.1", int(ready["control_url"].rsplit(":", 1)[1]))
def records():
    control.request("GET", "/requests?provider=apns")
    return json.loads(control.getresponse().read())

# --- parleyd on CPU0, fresh data directory, pushes due at once. ---
proc, base, app, data = start_parleyd(parleyd, os.path.join(out, "parleyd.log"), TOKEN, database=database, extra=[
    "--push-delay", "0", "--apns-url", ready["tls_url"], "--apns-sandbox-url", ready["tls_url"], "--fcm-url", ready["tls_url"],
    "--outbound-ca-file", ready["ca_file"]])

def call(conn, method, path, body=None, token=TOKEN):
    return shared_call(conn, method, path, body, token)

admin = http.client.HTTPConnection("127.0.0.1", base)
key_pem = open(ready["apns_key_file"]).read()
call(admin, "PUT", f"/v1/admin/apps/{app}/push/apns", {"team_id": ready["apns_team_id"], "key_id": ready["apns_key_id"],
                                                         "private_key": key_pem, "topic": "com.example.bench"})
queues = call(admin, "GET", f"/v1/admin/apps/{app}/queues")["queues"]
email = f"bench-{uuid.uuid4().hex[:8]}@bench.test"
call(admin, "POST", f"/v1/admin/apps/{app}/agents", {"name": "Grace", "email": email, "password": "bench-password-1", "role": "agent",
                                                     "queue_ids": [q["id"] for q in queues], "capacity": 100})
agent = call(admin, "POST", "/v1/agent/login", {"email": email, "password": "bench-password-1"}, token=None)["token"]

def conversation():
    conn = http.client.HTTPConnection("127.0.0.1", base)
    device = str(uuid.uuid4())
    session = call(conn, "POST", "/v1/visitor/session", {"app_id": app, "device_id": device, "name": "Bench"})
    call(conn, "PUT", f"/v1/push/devices/{device}", {"provider": "apns", "token": uuid.uuid4().hex + uuid.uuid4().hex}, token=session["token"])
    opened = call(conn, "POST", "/v1/conversations", {}, token=session["token"])
    call(conn, "POST", f"/v1/conversations/{opened['id']}/accept", {}, token=agent)
    return http.client.HTTPConnection("127.0.0.1", base), opened["id"]

created = {}  # (conversation, seq) -> commit time, epoch seconds
def epoch(iso):
    return datetime.datetime.strptime(iso, "%Y-%m-%dT%H:%M:%S.%fZ").replace(tzinfo=datetime.timezone.utc).timestamp()
def send(client, text):
    conn, conversation = client
    event = call(conn, "POST", f"/v1/conversations/{conversation}/messages", {"client_message_id": str(uuid.uuid4()), "text": text}, token=agent)["event"]
    created[(conversation, event["seq"])] = epoch(event["created_at"])

def wait_for(count, timeout=180):
    end = time.time() + timeout
    while time.time() < end:
        found = records()
        if len(found) >= count: return found
        time.sleep(0.05)
    return records()

def delays(found):
    result = []
    for record in found:
        content = json.loads(record["body"])["parley"]["content"]
        at = created.get((content["conversation_id"], content["seq"]))
        if at: result.append(record["at"] - at)
    return result


results = {}
# (1) Paced: one agent message every 1/RATE s, spread over 16 conversations.
clients = [conversation() for _ in range(16)]
start = len(records())
sent = 0
begin = time.time()
while time.time() - begin < duration:
    target = begin + sent / rate
    if target > time.time(): time.sleep(target - time.time())
    send(clients[sent % len(clients)], f"paced {sent}")
    sent += 1
found = wait_for(start + sent)[start:]
paced = delays(found)
results["paced"] = {"rate": rate, "sent": sent, "pushed": len(found), "p50_ms": percentile(paced, 50) * 1000,
                    "p99_ms": percentile(paced, 99) * 1000, "max_ms": max(paced) * 1000}

# (2) Burst: MESSAGES agent messages as fast as 8 threads send them over CONVERSATIONS conversations.
clients = [conversation() for _ in range(conversations)]
start = len(records())
per_thread = [clients[i::8] for i in range(8)]
def burst(mine, count):
    for index in range(count):
        send(mine[index % len(mine)], f"burst {index}")
threads = [threading.Thread(target=burst, args=(mine, messages // 8)) for mine in per_thread]
begin = time.time()
for thread in threads: thread.start()
for thread in threads: thread.join()
sent_end = time.time()
total = (messages // 8) * 8
window = wait_for(start + total)[start:]
burst_delays = delays(window)
results["burst"] = {"messages": total, "pushed": len(window), "accepted": sum(1 for r in window if r["status"] == 200),
                    "unique_ids": len({r["headers"].get("apns-id") for r in window}),
                    "messages_per_s": total / (sent_end - begin), "pushes_per_s": len(window) / (max(r["at"] for r in window) - begin),
                    "p50_ms": percentile(burst_delays, 50) * 1000, "p99_ms": percentile(burst_delays, 99) * 1000}
proc.terminate(); proc.wait()
shutil.rmtree(data, ignore_errors=True)

# (3) The floor: the same fake, one HTTP/2 connection, 32 requests in flight (the worker's concurrency),
# a valid provider token and a body of the same size.
token = jwt.encode({"iss": ready["apns_team_id"], "iat": int(time.time())}, key_pem, algorithm="ES256", headers={"kid": ready["apns_key_id"]})
sample = json.dumps({"aps": {"alert": {"title": "Grace", "body": "x" * 40}, "badge": 1, "sound": "default", "thread-id": "cnv_x"},
                     "parley": {"v": 1, "conversation_id": "cnv_x", "content": {"kind": "message", "title": "Grace", "body": "x" * 40}}})
floor_count = min(messages, 3000)
async def floor():
    latencies = []
    async with httpx.AsyncClient(http2=True, verify=ready["ca_file"], timeout=30) as client:
        headers = {"authorization": f"bearer {token}", "apns-topic": "com.example.bench", "apns-push-type": "alert"}
        queue = asyncio.Queue()
        for _ in range(floor_count): queue.put_nowait(None)
        async def worker():
            while not queue.empty():
                queue.get_nowait()
                t = time.time()
                response = await client.post(f"{ready['tls_url']}/3/device/{'ab' * 32}", content=sample, headers=headers)
                assert response.status_code == 200, response.text
                latencies.append(time.time() - t)
        begin = time.time()
        await asyncio.gather(*(worker() for _ in range(32)))
        return latencies, time.time() - begin
floor_latencies, elapsed = asyncio.run(floor())
results["floor"] = {"requests": floor_count, "requests_per_s": floor_count / elapsed,
                    "p50_ms": percentile(floor_latencies, 50) * 1000, "p99_ms": percentile(floor_latencies, 99) * 1000}
fake.terminate(); fake.wait()
shutil.rmtree(fake_dir, ignore_errors=True)

json.dump(results, open(os.path.join(out, "push.json"), "w"), indent=2)
p, b, f = results["paced"], results["burst"], results["floor"]
print(f"paced {p['rate']:.0f} agent msg/s for {duration:.0f} s: {p['pushed']}/{p['sent']} pushed; commit → provider p50 {p['p50_ms']:.1f} ms, p99 {p['p99_ms']:.1f} ms, max {p['max_ms']:.1f} ms")
print(f"burst {b['messages']} agent messages over {conversations} conversations: sent at {b['messages_per_s']:.0f} msg/s, pushed {b['pushed']} "
      f"({b['unique_ids']} apns-ids, {b['accepted']} accepted) at {b['pushes_per_s']:.0f}/s; commit → provider p50 {b['p50_ms']:.0f} ms, p99 {b['p99_ms']:.0f} ms")
print(f"floor: the fake hit directly over HTTP/2, 32 in flight: {f['requests_per_s']:.0f} req/s, p50 {f['p50_ms']:.2f} ms, p99 {f['p99_ms']:.2f} ms")
PYTHON
