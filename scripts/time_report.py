#!/usr/bin/env python3
"""Markdown table from the criterion results of `cargo bench --bench time`.

Reads target/criterion/<group>/<side>/<parameter>/new/estimates.json (the
median of the last run) for the sides `lawn_rt` and `tokio`, and prints ns
per operation for each, the ratio tokio / lawn_rt (above 1 means lawn_rt is
faster) and the design target. The 1e6 groups
(`register_drop/*`, `fire`) time a whole batch of n timers per iteration and
are reported per timer.

    cargo bench --bench time && python3 scripts/time_report.py
"""

import json
import pathlib
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent / "target" / "criterion"
SIDES = ["lawn_rt", "tokio"]

# (criterion directory, label, parameter or None for "every n found", target)
ROWS = [
    ("churn", "timeout churn, warm", "warm", 2.0),
    ("churn", "timeout churn, cold", "cold", 5.0),
    ("reset", "reset, warm", "warm", 1.3),
    ("reset", "reset, cold", "cold", 1.3),
    ("register_drop_fixed10", "register + drop, 10 durations", None, 2.0),
    ("register_drop_uniform", "register + drop, uniform 1 ms..1 h", None, 1.2),
    ("fire", "fire, 10 durations", None, 2.0),
]


def median_ns(group, side, param):
    path = ROOT / group / side / param / "new" / "estimates.json"
    if not path.exists():
        return None
    ns = json.loads(path.read_text())["median"]["point_estimate"]
    # A numeric parameter is the number of timers handled per iteration.
    return ns / int(param) if param.isdigit() else ns


def params(group):
    """The numeric parameters both sides of a group have results for."""
    found = [
        {p.name for p in (ROOT / group / side).iterdir() if p.name.isdigit()}
        if (ROOT / group / side).is_dir()
        else set()
        for side in SIDES
    ]
    return sorted(set.union(*found), key=int)


def fmt_ns(value):
    if value is None:
        return "–"
    return f"{value:,.1f}" if value < 100 else f"{value:,.0f}"


def main():
    if not ROOT.exists():
        sys.exit("no criterion results: run `cargo bench --bench time` first")
    print("ns per operation (per timer for the 1e6 groups); ratio = tokio / lawn_rt,")
    print("above 1 = lawn_rt faster\n")
    print("| benchmark | lawn_rt ns | tokio ns | tokio / lawn_rt | target | met |")
    print("|---|---:|---:|---:|---:|:-:|")
    for group, label, param, target in ROWS:
        for p in [param] if param else params(group):
            lawn, tokio = (median_ns(group, side, p) for side in SIDES)
            if lawn is None and tokio is None:
                continue
            name = label if param else f"{label} (n = {int(p):,})"
            if lawn and tokio:
                ratio = tokio / lawn
                ratio_text, met = f"{ratio:.2f}x", "yes" if ratio >= target else "no"
            else:
                ratio_text, met = "–", "–"
            print(
                f"| {name} | {fmt_ns(lawn)} | {fmt_ns(tokio)} | {ratio_text} "
                f"| ≥ {target}x | {met} |"
            )


if __name__ == "__main__":
    main()
