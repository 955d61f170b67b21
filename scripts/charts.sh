#!/usr/bin/env bash
# Regenerates the SVG charts in docs/charts/ from fresh measurements: the one
# command for them.
#
#   1. cargo bench --bench lawn, mixed workload, groups insert, delete and
#      expire (criterion's results under target/criterion/; a few minutes);
#   2. examples/precision with --csv: every sleep lateness sample to
#      target/lateness.csv (about a minute);
#   3. examples/charts: draws docs/charts/lawn_vs_baselines_{insert,delete,
#      expire}.svg and docs/charts/lateness.svg from those two.
#
# Usage: scripts/charts.sh [--skip-bench]
#   --skip-bench  skip steps 1 and 2: only redraw from the results already
#                 in target/ (after tweaking examples/charts, say).
#
# Run it on an idle machine: other work shows up in both measurements.
# "target" is $CARGO_TARGET_DIR when that is set.
set -euo pipefail
cd "$(dirname "$0")/.."

skip_bench=false
for arg in "$@"; do
  case "$arg" in
    --skip-bench) skip_bench=true ;;
    -h | --help) sed -n '2,17p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "charts.sh: unknown argument '$arg' (usage: scripts/charts.sh [--skip-bench])" >&2; exit 2 ;;
  esac
done

target="${CARGO_TARGET_DIR:-target}"
lateness="$target/lateness.csv"
started=$SECONDS

if ! $skip_bench; then
  echo "== 1/3 cargo bench --bench lawn: insert, delete, expire on the mixed workload =="
  # Criterion's filter is a regex on the ids `<group>/<workload>/<structure>/<n>`.
  cargo bench --bench lawn -- '^(insert|delete|expire)/mixed/'

  echo "== 2/3 sleep lateness samples to $lateness =="
  cargo run --release --example precision -- --csv "$lateness"
fi

echo "== 3/3 charts =="
cargo run --release --example charts -- \
  --criterion "$target/criterion" --lateness "$lateness" --out docs/charts

echo "charts.sh: done in $((SECONDS - started)) s"
