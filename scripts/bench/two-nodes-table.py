#!/usr/bin/env python3
"""The table of scripts/bench/two-nodes.sh, from the JSON records parley-load wrote.

    python3 scripts/bench/two-nodes-table.py OUT RUNS PAIRS RATE DRAIN NODE1_CPU NODE2_CPU

Medians with (min–max) over the runs for one node and two nodes, and the ratio two ÷ one. Server
CPU is summed over the nodes; PostgreSQL's CPU is over the whole generator run (setup included).
"""
import json
import sys

from bench_tables import figure, latency, number, phase, print_table

out, runs, pairs, rate, drain, cpu1, cpu2 = sys.argv[1], int(sys.argv[2]), *sys.argv[3:8]
configs = ("one", "two")


def load(config, kind):
    records = []
    for r in range(1, runs + 1):
        try:
            with open(f"{out}/{config}-{kind}-{r}.json") as f:
                record = json.load(f)
        except (OSError, ValueError):
            continue
        try:
            with open(f"{out}/{config}-{kind}-{r}.pg") as f:
                record["pg"] = json.load(f)
        except (OSError, ValueError):
            pass
        records.append(record)
    return records


rows = []


def row(kind, name, key):
    values = {c: [v for v in key(load(c, kind)) if v is not None] for c in configs}
    cells = {c: figure(values[c]) for c in configs}
    a, b = cells["one"][0], cells["two"][0]
    ratio = f"{b / a:.2f}×" if a and b else "n/a"
    rows.append((name, cells["one"][1], cells["two"][1], ratio, "/".join(str(len(values[c])) for c in configs)))


def field(name):
    return lambda rs: [x.get(name) for x in phase(rs)]


def node_cpu(i):
    """Node i's CPU % of one core in the measured window (one node: node 1 only)."""
    return lambda rs: [100 * x["server_cpu_s_each"][i] / x["seconds"] if "server_cpu_s_each" in x
                       else (100 * x["server_cpu_s"] / x["seconds"] if i == 0 and "server_cpu_s" in x else None)
                       for x in phase(rs)]


def pg_cpu(rs):
    return [100 * r["pg"]["pg_cpu_s"] / r["pg"]["wall_s"] for r in rs if "pg" in r]


row("rate", f"open loop {rate} msg/s: delivered msg/s", field("delivered_per_s"))
for k, label in (("p50", "p50"), ("p90", "p90"), ("p99", "p99"), ("p99_9", "p99.9")):
    row("rate", f"  {label} ms", latency(k))
row("rate", "  server CPU µs per delivered msg (nodes summed)", field("server_cpu_us_per_delivered"))
row("rate", "  node 1 CPU %", node_cpu(0))
row("rate", "  node 2 CPU %", node_cpu(1))
row("rate", "  PostgreSQL CPU % (whole generator run)", pg_cpu)
row("flat", "flat out (1 in flight per sender): delivered msg/s", field("delivered_per_s"))
row("flat", "  acked msg/s", field("acked_per_s"))
row("flat", "  p50 ms", latency("p50"))
row("flat", "  p99 ms", latency("p99"))
row("flat", "  server CPU µs per delivered msg (nodes summed)", field("server_cpu_us_per_delivered"))
row("flat", "  node 1 CPU %", node_cpu(0))
row("flat", "  node 2 CPU %", node_cpu(1))
row("flat", "  PostgreSQL CPU % (whole generator run)", pg_cpu)
row("flat", "  server RSS MB (nodes summed)", lambda rs: [x.get("server_rss_kb", 0) / 1024 for x in phase(rs)])
row("flat", "  generator CPU %", lambda rs: [100 * x["generator_cpu_s"] / x["seconds"] for x in phase(rs)])
row("step", "knee: highest step rate with p99 ≤ 100 ms, nothing lost (msg/s)", lambda rs: [r["knee"]["target_rate"] for r in rs if "knee" in r])
# Runs whose first step already broke have no knee: say so rather than n/a.
for i, c in enumerate(configs):
    below = [r["phases"][0] for r in load(c, "step") if "knee" not in r and r.get("phases")]
    if below and rows[-1][1 + i] == "n/a":
        cells = list(rows[-1])
        cells[1 + i] = (f"< {below[0]['target_rate']:,.0f} (first step broke in {len(below)} runs: "
                        f"p99 {number(min(x['latency_ms']['p99'] for x in below))}–{number(max(x['latency_ms']['p99'] for x in below))} ms)")
        rows[-1] = tuple(cells)
row("step", "  p99 ms at the knee", lambda rs: [r["knee"]["latency_ms"]["p99"] for r in rs if "knee" in r])
row("step", "  server CPU µs per delivered msg at the knee", lambda rs: [r["knee"].get("server_cpu_us_per_delivered") for r in rs if "knee" in r])


print_table(f"{pairs} pairs, {runs} runs each, interleaved; PostgreSQL 15 on the same machine; "
            f"node 1 on CPU{cpu1}, node 2 on CPU{cpu2}, PostgreSQL and the generator unpinned; median (min–max)",
            ("figure", "one node", "two nodes (visitors on 1, agents on 2)", "two ÷ one", "n (one/two)"), rows, configs, load, drain)
try:
    with open(f"{out}/loadavg.txt") as f:
        print("load average before each run (1/5/15 min): " + "; ".join(
            f"{c} #{r}: {a}" for c, r, a in (line.split(" ", 2) for line in f.read().splitlines())))
except OSError:
    pass
