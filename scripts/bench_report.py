#!/usr/bin/env python3
"""Markdown tables from the criterion results of `cargo bench --bench lawn`.

Reads target/criterion/<group>_<workload>/<structure>/<n>/new/estimates.json
(the median of the last run) and prints, per workload, ns per operation for
every structure with its ratio to the Lawn (baseline / Lawn: above 1 means
the Lawn is faster). `expire` is reported per expired timer, `steady_tick`
and `steady_tick_insert` per tick (mixed only; their spread, p50 to max, is
`cargo bench --bench tick_cost`).

    cargo bench --bench lawn && python3 scripts/bench_report.py [SIZE ...]
"""

import json
import pathlib
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent / "target" / "criterion"
STRUCTURES = ["lawn", "hashed_wheel", "hier_wheel", "binary_heap", "btree"]
GROUPS = ["insert", "delete", "expire", "tick", "steady_tick", "steady_tick_insert"]
WORKLOADS = ["fixed", "mixed", "burst", "uniform"]


def median_ns(group, workload, structure, n):
    path = ROOT / f"{group}_{workload}" / structure / str(n) / "new" / "estimates.json"
    if not path.exists():
        return None
    ns = json.loads(path.read_text())["median"]["point_estimate"]
    # `expire` times one whole drain of n timers per iteration.
    return ns / n if group == "expire" else ns


def cell(value, lawn):
    if value is None:
        return "–"
    text = f"{value:,.1f}" if value < 100 else f"{value:,.0f}"
    if lawn and value is not None:
        text += f" ({value / lawn:.2f}x)"
    return text


def table(n):
    print(f"\n**{n:,} pending timers** — ns per operation (ratio to the Lawn; above 1 = Lawn faster)\n")
    print("| operation / workload | " + " | ".join(STRUCTURES) + " |")
    print("|---" * (len(STRUCTURES) + 1) + "|")
    for group in GROUPS:
        for workload in WORKLOADS:
            values = [median_ns(group, workload, s, n) for s in STRUCTURES]
            if all(v is None for v in values):
                continue
            lawn = values[0]
            cells = [cell(lawn, None)] + [cell(v, lawn) for v in values[1:]]
            print(f"| {group} / {workload} | " + " | ".join(cells) + " |")


def main():
    if not ROOT.exists():
        sys.exit("no criterion results: run `cargo bench --bench lawn` first")
    sizes = [int(a) for a in sys.argv[1:]] or [1_000_000]
    for n in sizes:
        table(n)
    print("\n`–`: not run (the hashed wheel's expire on mixed/uniform at large n takes")
    print("minutes per iteration; `LAWN_BENCH_FULL=1` runs it).")


if __name__ == "__main__":
    main()
