#!/bin/bash
# Webhook delivery: deliveries per second and the delay from a message's commit to the receiver's
# request (p50/p99), against a local receiver; and the floor in the same run: the same receiver hit
# directly by a plain HTTP loop with as many connections as parleyd's worker uses.
#
#   bash scripts/bench/webhooks.sh                       # release parleyd from .build (built if missing)
#   PARLEYD=.build/debug/parleyd MESSAGES=2000 CONVERSATIONS=64 RATE=200 bash scripts/bench/webhooks.sh
#   DATABASE=$(bash scripts/test-postgres.sh start) bash scripts/bench/webhooks.sh   # on PostgreSQL (a fresh database each run)
#
# parleyd (SQLite, or PostgreSQL with DATABASE; --allow-private-outbound) pinned to CPU0; the receiver and the client on CPU1.
# Phases: (1) paced: RATE messages/s for DURATION s, each message's commit-to-request delay;
# (2) burst: MESSAGES messages as fast as the client sends them over CONVERSATIONS conversations,
# deliveries/s from the first commit to the last request; (3) the floor.
set -euo pipefail
export PARLEY_RATE_LIMITS=off
cd "$(dirname "$0")/../.."
PARLEYD=${PARLEYD:-$PWD/.build/release/parleyd}
MESSAGES=${MESSAGES:-3000}; CONVERSATIONS=${CONVERSATIONS:-64}; RATE=${RATE:-200}; DURATION=${DURATION:-10}
QUIET_WAIT=${QUIET_WAIT:-0}; OUT=${OUT:-/tmp/parley-bench-webhooks}
[ -x "$PARLEYD" ] || swift build -c release --product parleyd 2>&1 | tail -1
mkdir -p "$OUT"
if [ "$QUIET_WAIT" -gt 0 ]; then "${SHARED:-$PWD/../shared}/bench/quiet.sh" "$QUIET_WAIT" || true; fi
DB_ARGS=""
if [ -n "${DATABASE:-}" ]; then
  NAME="parley_bench_webhooks_$$"
  psql "$DATABASE" -qc "CREATE DATABASE $NAME" >/dev/null
  trap 'psql "$DATABASE" -qc "DROP DATABASE IF EXISTS $NAME WITH (FORCE)" >/dev/null' EXIT
  DB_ARGS="${DATABASE%/*}/$NAME"
fi
taskset -c 1 python3 - "$PARLEYD" "$OUT" "$MESSAGES" "$CONVERSATIONS" "$RATE" "$DURATION" "$DB_ARGS" <<'PYTHON'
import asyncio, datetime, http.client, json, os, re, shutil, statistics, subprocess, sys, tempfile, threading, time, uuid
sys.path.insert(0, "scripts/bench")
from parleyd_bench import call as shared_call, percentile, start_parleyd

parleyd, out, messages, conversations, rate, duration = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), float(sys.argv[5]), float(sys.argv[6])
database = sys.argv[7] if len(sys.argv) > 7 and sys.argv[7] else None
TOKEN = f"bench-{os.getpid()}"

# --- The receiver: asyncio HTTP/1.1 with keep-alive, recording each request's arrival. ---
arrivals = []  # (arrival time, webhook-id, event created_at as epoch seconds)

def epoch(iso):
    return datetime.datetime.strptime(iso, "%Y-%m-%dT%H:%M:%S.%fZ").replace(tzinfo=datetime.timezone.utc).timestamp()

async def handle(reader, writer):
    try:
        while True:
            head = await reader.readuntil(b"\r\n\r\n")
            now = time.time()
            headers = {}
            for line in head.split(b"\r\n")[1:]:
                if b":" in line:
                    name, value = line.split(b":", 1)
                    headers[name.strip().lower()] = value.strip()
            body = await reader.readexactly(int(headers.get(b"content-length", b"0")))
            if b"webhook-id" in headers:
                created = json.loads(body)["data"].get("message", {}).get("created_at")
                arrivals.append((now, headers[b"webhook-id"].decode(), epoch(created) if created else None))
            writer.write(b"HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\nok")
            await writer.drain()
    except (asyncio.IncompleteReadError, ConnectionError):
        pass
    finally:
        writer.close()

loop = asyncio.new_event_loop()
server = loop.run_until_complete(asyncio.start_server(handle, "127.0.0.1", 0, backlog=1024))
receiver_port = server.sockets[0].getsockname()[1]
threading.Thread(target=loop.run_forever, daemon=True).start()

# --- parleyd on CPU0, fresh data directory. ---
proc, base, app, data = start_parleyd(parleyd, os.path.join(out, "parleyd.log"), TOKEN, database=database)

def call(conn, method, path, body=None, token=TOKEN):
    return shared_call(conn, method, path, body, token)

admin = http.client.HTTPConnection("127.0.0.1", base)
call(admin, "POST", f"/v1/admin/apps/{app}/webhooks", {"url": f"http://127.0.0.1:{receiver_port}/hook", "events": ["message.created"]})

def visitor_conversation():
    conn = http.client.HTTPConnection("127.0.0.1", base)
    session = call(conn, "POST", "/v1/visitor/session", {"app_id": app, "device_id": str(uuid.uuid4()), "name": "Bench"})
    conversation = call(conn, "POST", "/v1/conversations", {}, token=session["token"])
    return conn, session["token"], conversation["id"]

def send(client, text):
    conn, token, conversation = client
    call(conn, "POST", f"/v1/conversations/{conversation}/messages", {"client_message_id": str(uuid.uuid4()), "text": text}, token=token)

def wait_for(count, timeout=120):
    end = time.time() + timeout
    while len(arrivals) < count and time.time() < end:
        time.sleep(0.01)


results = {}
# (1) Paced: one message every 1/RATE s, spread over the conversations.
clients = [visitor_conversation() for _ in range(min(conversations, 16))]
start_count = len(arrivals)
sent = 0
begin = time.time()
while time.time() - begin < duration:
    target = begin + sent / rate
    delay = target - time.time()
    if delay > 0: time.sleep(delay)
    send(clients[sent % len(clients)], f"paced {sent}")
    sent += 1
wait_for(start_count + sent)
paced = [arrival - created for arrival, _, created in arrivals[start_count:] if created]
results["paced"] = {"rate": rate, "sent": sent, "delivered": len(arrivals) - start_count,
                    "p50_ms": percentile(paced, 50) * 1000, "p99_ms": percentile(paced, 99) * 1000, "max_ms": max(paced) * 1000}

# (2) Burst: MESSAGES as fast as 8 sending threads go, over CONVERSATIONS conversations.
clients = [visitor_conversation() for _ in range(conversations)]
start_count = len(arrivals)
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
wait_for(start_count + total)
window = arrivals[start_count:]
delays = [arrival - created for arrival, _, created in window if created]
last = max(arrival for arrival, _, _ in window)
results["burst"] = {"messages": total, "delivered": len(window), "unique_ids": len({i for _, i, _ in window}),
                    "messages_per_s": total / (sent_end - begin), "deliveries_per_s": len(window) / (last - begin),
                    "p50_ms": percentile(delays, 50) * 1000, "p99_ms": percentile(delays, 99) * 1000}
proc.terminate(); proc.wait()
shutil.rmtree(data, ignore_errors=True)

# (3) The floor: the same receiver, a plain keep-alive HTTP loop, 16 connections, the same body size.
sample = json.dumps({"type": "message.created", "data": {"message": {"created_at": "2026-11-24T21:00:00.000Z", "text": "x" * 40}}, "pad": "x" * 900})
floor_count = min(messages, 5000)
floor_latencies = []
def floor(count):
    conn = http.client.HTTPConnection("127.0.0.1", receiver_port)
    for _ in range(count):
        t = time.time()
        conn.request("POST", "/hook", sample, {"Content-Type": "application/json", "webhook-id": "msg_floor"})
        conn.getresponse().read()
        floor_latencies.append(time.time() - t)
start_count = len(arrivals)
threads = [threading.Thread(target=floor, args=(floor_count // 16,)) for _ in range(16)]
begin = time.time()
for thread in threads: thread.start()
for thread in threads: thread.join()
elapsed = time.time() - begin
results["floor"] = {"requests": (floor_count // 16) * 16, "requests_per_s": (floor_count // 16) * 16 / elapsed,
                    "p50_ms": percentile(floor_latencies, 50) * 1000, "p99_ms": percentile(floor_latencies, 99) * 1000}

json.dump(results, open(os.path.join(out, "webhooks.json"), "w"), indent=2)
p, b, f = results["paced"], results["burst"], results["floor"]
print(f"paced {p['rate']:.0f} msg/s for {duration:.0f} s: {p['delivered']}/{p['sent']} delivered; commit → receiver p50 {p['p50_ms']:.1f} ms, p99 {p['p99_ms']:.1f} ms, max {p['max_ms']:.1f} ms")
print(f"burst {b['messages']} messages over {conversations} conversations: sent at {b['messages_per_s']:.0f} msg/s, delivered {b['delivered']} "
      f"({b['unique_ids']} ids) at {b['deliveries_per_s']:.0f}/s; commit → receiver p50 {b['p50_ms']:.0f} ms, p99 {b['p99_ms']:.0f} ms")
print(f"floor: the receiver hit directly, 16 connections: {f['requests_per_s']:.0f} req/s, p50 {f['p50_ms']:.2f} ms, p99 {f['p99_ms']:.2f} ms")
PYTHON
