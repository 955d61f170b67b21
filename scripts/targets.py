#!/usr/bin/env python3
"""The timer target table: every target, our measured ratio, met or not.

Reads what `scripts/targets.sh` leaves under target/ (run that; it runs the
benches and then this):

- criterion medians of `cargo bench --bench time` (churn, reset,
  register_drop, fire), `--bench multi_thread` (churn_mt) and
  `--bench lawn` (the steady-state tick group), read with the helpers of
  `time_report.py` and `multi_report.py`;
- target/perf/time_memory.md, the table `cargo bench --bench time_memory`
  prints (RSS per pending timer);
- target/lateness.csv, the samples `cargo run --release --example precision
  -- --csv target/lateness.csv` writes (p50 lateness).

Ratios are tokio (or the baseline) over lawn_rt: above 1 means lawn_rt is
better; the lateness and memory rows are lawn_rt over tokio (below 1 is
better), as the targets are stated.

    scripts/targets.sh            # measure, then print this table
    python3 scripts/targets.py    # print it from the last run's results
"""

import csv
import json
import pathlib
import statistics
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import multi_report  # noqa: E402
import time_report  # noqa: E402

TARGET = pathlib.Path(__file__).resolve().parent.parent / "target"
LATENESS = TARGET / "lateness.csv"
MEMORY = TARGET / "perf" / "time_memory.md"
TICK_COST = TARGET / "perf" / "tick_cost.md"
# The precision example names its default row after the default tick.
LAWN_DEFAULT_PREFIX = "lawn_rt default ("

# The Lawn's steady-state tick group of `benches/lawn.rs` and its size.
STEADY_GROUP = "steady_tick_mixed"
STEADY_N = "1000000"


def time_ratio(group, param):
    lawn, tokio = (time_report.median_ns(group, side, param) for side in time_report.SIDES)
    return (tokio / lawn if lawn and tokio else None), lawn, tokio


def multi_ratio():
    lawn, tokio = (multi_report.median_ns("churn_mt", side, "mt2") for side in multi_report.SIDES)
    return (tokio / lawn if lawn and tokio else None), lawn, tokio


def steady_ratio():
    def ns(structure):
        path = TARGET / "criterion" / STEADY_GROUP / structure / STEADY_N / "new" / "estimates.json"
        if not path.exists():
            return None
        return json.loads(path.read_text())["median"]["point_estimate"]

    lawn, wheel = ns("lawn"), ns("hier_wheel")
    return (wheel / lawn if lawn and wheel else None), lawn, wheel


def worst_tick_ratio():
    """hier_wheel max / lawn max tick (ns), from the first table `cargo bench
    --bench tick_cost` prints (tick alone)."""
    if not TICK_COST.exists():
        return None, None, None
    maxima = {}
    for line in TICK_COST.read_text().splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) == 7 and cells[0] in ("lawn", "hier_wheel") and cells[0] not in maxima:
            maxima[cells[0]] = float(cells[6].split(" ")[0].replace(",", ""))
    lawn, wheel = maxima.get("lawn"), maxima.get("hier_wheel")
    return (wheel / lawn if lawn and wheel else None), lawn, wheel


def memory_ratio():
    """lawn_rt RSS / tokio RSS per timer, fixed10 at 1e6, from the table."""
    if not MEMORY.exists():
        return None, None, None
    for line in MEMORY.read_text().splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) >= 11 and cells[0] == "fixed10" and cells[1] == "1000000":
            lawn, tokio = float(cells[5]), float(cells[8])
            return lawn / tokio, lawn, tokio
    return None, None, None


def lateness_p50(duration_us):
    """(lawn_rt default p50 / tokio p50, both in µs), one task."""
    if not LATENESS.exists():
        return None, None, None
    samples = {}
    with LATENESS.open() as f:
        for row in csv.DictReader(f):
            if row["scenario"] == "1 task" and int(row["duration_us"]) == duration_us:
                samples.setdefault(row["runtime"], []).append(int(row["lateness_ns"]))
    lawn = next((v for k, v in samples.items() if k.startswith(LAWN_DEFAULT_PREFIX)), None)
    tokio = samples.get("tokio")
    if not lawn or not tokio:
        return None, None, None
    lawn, tokio = statistics.median(lawn) / 1e3, statistics.median(tokio) / 1e3
    return lawn / tokio, lawn, tokio


def fmt(value, unit):
    if value is None:
        return "–"
    return f"{value:,.1f} {unit}" if value < 100 else f"{value:,.0f} {unit}"


def main():
    # (label, (ratio, ours, theirs), unit, target, higher is better)
    rows = [
        ("timeout churn, warm", time_ratio("churn", "warm"), "ns", 2.0, True),
        ("timeout churn, cold", time_ratio("churn", "cold"), "ns", 5.0, True),
        ("fire: 1M sleeps over 10 durations (per timer)", time_ratio("fire", "1000000"), "ns", 2.0, True),
        ("reset (warm)", time_ratio("reset", "warm"), "ns", 1.3, True),
        ("register + drop, 10 durations, 1M (per timer)", time_ratio("register_drop_fixed10", "1000000"), "ns", 2.0, True),
        ("register + drop, uniform 1 ms..1 h, 1M (per timer)", time_ratio("register_drop_uniform", "1000000"), "ns", 1.2, True),
        ("bytes per pending timer (RSS), 1M", memory_ratio(), "B", 0.75, False),
        ("lateness p50, sleep(1 ms)", lateness_p50(1000), "µs", 0.25, False),
        ("lateness p50, sleep(200 µs)", lateness_p50(200), "µs", 0.25, False),
        ("timeout churn, multi-thread, 2 workers (per op)", multi_ratio(), "ns", 2.0, True),
        ("Lawn vs hierarchical wheel, steady tick, 1M timers, 10 TTLs: mean", steady_ratio(), "ns", 10.0, True),
        ("the same, worst tick", worst_tick_ratio(), "ns", 10.0, True),
    ]
    print("| workload | lawn_rt | tokio / baseline | measured | target | met |")
    print("|---|---:|---:|---:|---:|:-:|")
    for label, (ratio, ours, theirs), unit, target, higher in rows:
        if ratio is None:
            measured, met = "–", "–"
        else:
            # Three decimals below 1, so a near miss does not print as the target.
            measured = f"{ratio:.3f}x" if ratio < 1 else f"{ratio:.2f}x"
            met = "yes" if (ratio >= target if higher else ratio <= target) else "no"
        bound = "≥" if higher else "≤"
        print(
            f"| {label} | {fmt(ours, unit)} | {fmt(theirs, unit)} | {measured} "
            f"| {bound} {target}x | {met} |"
        )


if __name__ == "__main__":
    main()
