#!/bin/bash
# Attachment throughput and the server's memory: uploads a file of SIZE_MB (default 50) ROUNDS
# times (default 5) with curl, then downloads it as often, against a parleyd on a free port with a
# fresh data directory, and prints MB/s each way and parleyd's peak resident memory (VmHWM) before
# and after. curl itself is the floor: the same file copied to /dev/null by curl from a local
# file:// URL in the same run.
#   CONFIG=release SIZE_MB=50 ROUNDS=5 bash scripts/bench/upload.sh
set -euo pipefail
cd "$(dirname "$0")/../.."
CONFIG=${CONFIG:-release}
SCRATCH=${SCRATCH:-.build-bench}
SIZE_MB=${SIZE_MB:-50}
ROUNDS=${ROUNDS:-5}
swift build -c "$CONFIG" --product parleyd --scratch-path "$SCRATCH" 2>&1 | tail -1
source scripts/bench/free-port-parleyd.sh
start_parleyd upload --max-attachment-bytes $((SIZE_MB * 1000000 + 1000000))
BASE="http://127.0.0.1:$PORT"
APP=$(curl -sf -H "Authorization: Bearer $TOKEN" "$BASE/v1/admin/apps" | python3 -c 'import json,sys; print(json.load(sys.stdin)["apps"][0]["id"])')
curl -sf -X PUT -H "Authorization: Bearer $TOKEN" -H 'Content-Type: application/json' \
  -d "{\"max_bytes\": $((SIZE_MB * 1000000 + 1000000))}" "$BASE/v1/admin/apps/$APP/attachments" >/dev/null
VISITOR=$(curl -sf -H 'Content-Type: application/json' -d "{\"app_id\":\"$APP\",\"device_id\":\"bench-device-$$\"}" "$BASE/v1/visitor/session" \
  | python3 -c 'import json,sys; print(json.load(sys.stdin)["token"])')
CONVERSATION=$(curl -sf -H "Authorization: Bearer $VISITOR" -H 'Content-Type: application/json' -d '{}' "$BASE/v1/conversations" \
  | python3 -c 'import json,sys; print(json.load(sys.stdin)["id"])')
FILE=$DATA/bench.mp4
python3 - "$FILE" "$SIZE_MB" <<'PY'
import os, sys
path, size = sys.argv[1], int(sys.argv[2]) * 1000000
with open(path, "wb") as f:
    f.write(b"\0\0\0\x18ftypisom" + b"\0" * 12)
    block = os.urandom(1 << 20)
    while f.tell() < size:
        f.write(block[: size - f.tell()])
PY
hwm() { sed -n 's/VmHWM:\s*//p' /proc/$SP/status; }
echo "parleyd peak memory before: $(hwm)"
floor=$( { /usr/bin/time -f %e curl -s -o /dev/null "file://$FILE"; } 2>&1 )
up_total=0; down_total=0; last=""
for round in $(seq "$ROUNDS"); do
  # A different client id each round: each upload is stored (the same bytes: one blob).
  t=$( { /usr/bin/time -f %e curl -sf -o "$DATA/answer.json" -H "Authorization: Bearer $VISITOR" -H 'Content-Type: application/octet-stream' \
        --data-binary @"$FILE" "$BASE/v1/conversations/$CONVERSATION/attachments?name=bench.mp4&client_message_id=bench-$round"; } 2>&1 )
  up_total=$(python3 -c "print($up_total + $t)")
  last=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["event"]["attachment"]["id"])' "$DATA/answer.json")
  t=$( { /usr/bin/time -f %e curl -sf -o /dev/null -H "Authorization: Bearer $VISITOR" "$BASE/v1/conversations/$CONVERSATION/attachments/$last"; } 2>&1 )
  down_total=$(python3 -c "print($down_total + $t)")
done
python3 - "$SIZE_MB" "$ROUNDS" "$up_total" "$down_total" "$floor" <<'PY'
import sys
size, rounds, up, down, floor = int(sys.argv[1]), int(sys.argv[2]), float(sys.argv[3]), float(sys.argv[4]), float(sys.argv[5])
print(f"upload:   {size * rounds / up:8.1f} MB/s ({rounds} x {size} MB in {up:.2f} s)")
print(f"download: {size * rounds / down:8.1f} MB/s ({rounds} x {size} MB in {down:.2f} s)")
print(f"floor (curl reading the file locally): {size / max(floor, 0.01):8.1f} MB/s")
PY
echo "parleyd peak memory after: $(hwm)"
