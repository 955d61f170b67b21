#!/usr/bin/env python3
"""Markdown table from the criterion results of `cargo bench --bench multi_thread`.

Reads target/criterion/<group>/<side>/<flavor>/new/estimates.json (the
median of the last run) for the sides `lawn_rt` and `tokio` and the flavors
`st` (current-thread) and `mt2` (multi-thread, 2 workers), and prints, per
group: ns per operation of each, the ratio tokio / lawn_rt for each flavor
(above 1 means lawn_rt is faster), each crate's own speed-up from `st` to
`mt2` (st time / mt2 time; 2.0 would be perfect scaling on 2 workers), and
whether the scaling target holds: the `mt2` ratio at least as good as the
`st` ratio. A group whose benches set a throughput (`fire_mt`: n timers per
iteration) is reported per element, read from the same directory's
benchmark.json.

    cargo bench --bench multi_thread && python3 scripts/multi_report.py
"""

import json
import pathlib
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent / "target" / "criterion"
SIDES = ["lawn_rt", "tokio"]
FLAVORS = ["st", "mt2"]

# (criterion directory, label)
GROUPS = [
    ("churn_mt", "timeout churn, warm, per op"),
    ("fire_mt", "fire 1..=10 ms, per timer"),
]


def median_ns(group, side, flavor):
    """The median time per operation (per element if the bench has a
    throughput), or None if there is no result."""
    directory = ROOT / group / side / flavor / "new"
    estimates = directory / "estimates.json"
    if not estimates.exists():
        return None
    ns = json.loads(estimates.read_text())["median"]["point_estimate"]
    bench = directory / "benchmark.json"
    if bench.exists():
        throughput = json.loads(bench.read_text()).get("throughput") or {}
        elements = throughput.get("Elements")
        if elements:
            ns /= elements
    return ns


def ratio(numerator, denominator):
    if numerator is None or not denominator:
        return None
    return numerator / denominator


def fmt_ns(value):
    if value is None:
        return "–"
    return f"{value:,.1f}" if value < 100 else f"{value:,.0f}"


def fmt_x(value):
    return "–" if value is None else f"{value:.2f}x"


def main():
    if not ROOT.exists():
        sys.exit("no criterion results: run `cargo bench --bench multi_thread` first")
    print("ns per operation; ratio = tokio / lawn_rt (above 1 = lawn_rt faster);")
    print("speed-up = st / mt2 of the same crate (2.00x = perfect on 2 workers);")
    print("target: mt2 ratio ≥ st ratio\n")
    print(
        "| benchmark | lawn_rt st | tokio st | st ratio | lawn_rt mt2 | tokio mt2 "
        "| mt2 ratio | lawn_rt speed-up | tokio speed-up | met |"
    )
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|:-:|")
    for group, label in GROUPS:
        ns = {
            (side, flavor): median_ns(group, side, flavor)
            for side in SIDES
            for flavor in FLAVORS
        }
        if all(value is None for value in ns.values()):
            continue
        st_ratio = ratio(ns["tokio", "st"], ns["lawn_rt", "st"])
        mt2_ratio = ratio(ns["tokio", "mt2"], ns["lawn_rt", "mt2"])
        lawn_speedup = ratio(ns["lawn_rt", "st"], ns["lawn_rt", "mt2"])
        tokio_speedup = ratio(ns["tokio", "st"], ns["tokio", "mt2"])
        if st_ratio is None or mt2_ratio is None:
            met = "–"
        else:
            met = "yes" if mt2_ratio >= st_ratio else "no"
        print(
            f"| {label} | {fmt_ns(ns['lawn_rt', 'st'])} | {fmt_ns(ns['tokio', 'st'])} "
            f"| {fmt_x(st_ratio)} | {fmt_ns(ns['lawn_rt', 'mt2'])} "
            f"| {fmt_ns(ns['tokio', 'mt2'])} | {fmt_x(mt2_ratio)} "
            f"| {fmt_x(lawn_speedup)} | {fmt_x(tokio_speedup)} | {met} |"
        )


if __name__ == "__main__":
    main()
