#!/usr/bin/env bash
# Measures every timer target and prints the table (scripts/targets.py):
# lawn_rt against tokio, and the Lawn against a hierarchical wheel, each
# pair in the same run.
#
#   1. cargo bench --bench time            churn, reset, register_drop, fire (~2 min)
#   2. cargo bench --bench multi_thread    churn_mt, current-thread and 2 workers (~30 s)
#   3. cargo bench --bench lawn, tick_cost the steady-state tick at 1e6: criterion
#                                          medians, then the per-tick distribution (~3 min)
#   4. cargo bench --bench time_memory     bytes and RSS per pending timer (~10 s)
#   5. examples/precision --csv            sleep lateness samples (~1 min)
#   6. python3 scripts/targets.py          the table
#
# Usage: scripts/targets.sh [--skip-bench]   (--skip-bench: only step 6)
# Run it on an idle machine; "target" is $CARGO_TARGET_DIR when set.
set -euo pipefail
cd "$(dirname "$0")/.."

skip_bench=false
for arg in "$@"; do
  case "$arg" in
    --skip-bench) skip_bench=true ;;
    *) echo "targets.sh: unknown argument '$arg' (usage: scripts/targets.sh [--skip-bench])" >&2; exit 2 ;;
  esac
done

target="${CARGO_TARGET_DIR:-target}"
mkdir -p "$target/perf"
started=$SECONDS
if ! $skip_bench; then
  cargo bench --bench time
  cargo bench --bench multi_thread -- churn_mt
  cargo bench --bench lawn -- 'steady_tick/mixed/.*/1000000$'
  cargo bench --bench tick_cost | tee "$target/perf/tick_cost.md"
  cargo bench --bench time_memory | tee "$target/perf/time_memory.md"
  cargo run --release --example precision -- --csv "$target/lateness.csv"
fi
python3 scripts/targets.py
echo "targets.sh: done in $((SECONDS - started)) s"
