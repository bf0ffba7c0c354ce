"""What the benchmark tables share (side-by-side-table.py, two-nodes-table.py): reading the phases
of parley-load's JSON records, medians with (min–max), and the loss totals."""
import statistics


def phase(records, index=0):
    return [r["phases"][index] for r in records if len(r.get("phases", [])) > index]


def number(v):
    return f"{v:,.0f}" if abs(v) >= 100 else f"{v:.2f}" if abs(v) < 10 else f"{v:.1f}"


def figure(values):
    """(median, "median (min–max)") of the values that are not None; (None, "n/a") when none are."""
    values = [v for v in values if v is not None]
    if not values:
        return None, "n/a"
    m = statistics.median(values)
    return m, f"{number(m)} ({number(min(values))}–{number(max(values))})" if len(values) > 1 else number(m)


def latency(k, index=0):
    return lambda rs: [x["latency_ms"][k] for x in phase(rs, index)]


def total(load, name, field):
    """`field` (lost, duplicates, …) summed over the rate, flat and step runs of `name`."""
    n = sum(x[field] for kind in ("rate", "flat") for x in phase(load(name, kind)))
    # The step run's last phase is the overload that ended it: its backlog may outlast the drain.
    return n + sum(x[field] for r in load(name, "step") for x in r.get("phases", [])[:-1])


def print_table(title, columns, rows, names, load, drain):
    """The Markdown table (`columns` are the header cells) and, for each of `names`, its loss totals."""
    print(f"\n{title}\n")
    print("| " + " | ".join(columns) + " |")
    print("|" + "---|" * len(columns))
    for r in rows:
        print("| " + " | ".join(r) + " |")
    print()
    for name in names:
        lost, dup, order, errors = (total(load, name, f) for f in ("lost", "duplicates", "out_of_order", "errors"))
        print(f"{name}: lost {lost}, duplicated {dup}, out of order {order}, errors {errors} "
              f"(rate, flat and step runs; lost = not delivered within the {drain} s drain)")
