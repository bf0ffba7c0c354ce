#!/usr/bin/env python3
"""The table of scripts/bench/side-by-side.sh, from the JSON records parley-load wrote.

    python3 scripts/bench/side-by-side-table.py OUT RUNS PAIRS RATE IDLE DRAIN

Medians with (min–max) over the runs, and the ratios Parley ÷ Prosody, Parley ÷ ejabberd and
Parley ÷ floor. A target with no records shows n/a, so the table also works for TARGETS="parley floor".
"""
import json
import sys

from bench_tables import figure, latency, phase, print_table

out, runs, pairs, rate, idle, drain = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4], sys.argv[5], sys.argv[6]
targets = ("parley", "prosody", "ejabberd", "floor")


def load(target, kind):
    records = []
    for r in range(1, runs + 1):
        try:
            with open(f"{out}/{target}-{kind}-{r}.json") as f:
                records.append(json.load(f))
        except (OSError, ValueError):
            pass
    return records


def ratio(a, b):
    if not a or not b:
        return "n/a"
    r = a / b
    # Tiny ratios read better as a fraction: 1/12,800 rather than 7.8e-05.
    return f"1/{1 / r:,.0f}" if r < 0.01 else f"{r:.2g}×"


rows = []


def row(kind, name, key):
    values = {t: key(load(t, kind)) for t in targets}
    medians = {t: figure(values[t]) for t in targets}
    counts = "/".join(str(len([v for v in values[t] if v is not None])) for t in targets)
    rows.append((name, *(medians[t][1] for t in targets),
                 *(ratio(medians["parley"][0], medians[t][0]) for t in targets[1:]), counts))


def cpu(index=0):
    return lambda rs: [x.get("server_cpu_us_per_delivered") for x in phase(rs, index)]


row("rate", f"open loop {rate} msg/s: delivered msg/s", lambda rs: [x["delivered_per_s"] for x in phase(rs)])
for k, label in (("p50", "p50"), ("p99", "p99"), ("p99_9", "p99.9"), ("max", "max")):
    row("rate", f"  {label} ms", latency(k))
row("rate", "  server CPU µs per delivered msg", cpu())
# The step runs' first phase is the same open loop at a rate every target keeps up with.
row("step", "open loop 250 msg/s (first step, 3 s): delivered msg/s", lambda rs: [x["delivered_per_s"] for x in phase(rs)])
for k, label in (("p50", "p50"), ("p99", "p99"), ("p99_9", "p99.9")):
    row("step", f"  {label} ms", latency(k))
row("step", "  server CPU µs per delivered msg", cpu())
row("flat", "flat out (1 in flight per sender): delivered msg/s", lambda rs: [x["delivered_per_s"] for x in phase(rs)])
row("flat", "  acked msg/s (Parley: fsynced; XMPP: XEP-0198 <a/>)", lambda rs: [x["acked_per_s"] for x in phase(rs)])
row("flat", "  p50 ms", latency("p50"))
row("flat", "  p99 ms", latency("p99"))
row("flat", "  server CPU µs per delivered msg", cpu())
row("flat", "  server RSS MB", lambda rs: [x.get("server_rss_kb", 0) / 1024 for x in phase(rs)])
row("flat", "  generator CPU %", lambda rs: [100 * x["generator_cpu_s"] / x["seconds"] for x in phase(rs)])
row("step", "knee: highest step rate with p99 ≤ 100 ms, nothing lost (msg/s)", lambda rs: [r["knee"]["target_rate"] for r in rs if "knee" in r])
row("step", "  p99 ms at the knee", lambda rs: [r["knee"]["latency_ms"]["p99"] for r in rs if "knee" in r])
row("step", "  server CPU µs per delivered msg at the knee", lambda rs: [r["knee"].get("server_cpu_us_per_delivered") for r in rs if "knee" in r])
row("idle", f"idle fleet {idle}: KB per connection", lambda rs: [r["idle"].get("server_bytes_per_connection", 0) / 1024 for r in rs if "idle" in r])
row("idle", "  connects/s (to the ready frame; XMPP: to <enabled/>)", lambda rs: [r["idle"]["connects_per_s"] for r in rs if "idle" in r])


print_table(f"{pairs} pairs, {runs} runs each; server on CPU0, generator on CPU1; median (min–max)",
            ("figure", "Parley", "Prosody", "ejabberd", "floor (Go relay)", "Parley ÷ Prosody", "Parley ÷ ejabberd", "Parley ÷ floor",
             "n (Parley/Prosody/ejabberd/floor)"),
            rows, targets, load, drain)
