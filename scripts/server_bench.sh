#!/usr/bin/env bash
# Servers on lawn_rt against tokio, with real clients: hyper_server under
# wrk (50 and 5,000 connections, and the memory of idle keep-alive
# connections), and mini-redis 0.4.1, ported by renaming the crate and as
# published, under redis-benchmark. Both runtimes in the same run,
# alternating, medians; see scripts/server_bench.py for what is measured.
#
#   scripts/server_bench.sh                  # everything, 3 rounds (~6 min on 2 cores, builds aside)
#   scripts/server_bench.sh --rounds 5 --only hyper --only redis
#   scripts/server_bench.sh --only hyper --before-hyper-server /tmp/hyper_server.old
#
# Installs wrk and redis-tools with apt-get when they are missing (and
# says so); builds in release mode under target/.
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"
cd "$repo"

missing=()
command -v wrk >/dev/null || missing+=(wrk)
command -v redis-benchmark >/dev/null || missing+=(redis-tools)
if [ "${#missing[@]}" -gt 0 ]; then
  echo "server_bench: installing ${missing[*]} with apt-get"
  apt-get update -qq
  apt-get install -y -qq "${missing[@]}" >/dev/null
fi

cargo build --release --quiet --example hyper_server --features hyper,tokio-io

scripts/port_service.sh --prepare mini-redis >/dev/null
work="$repo/target/port-services/mini-redis"
for side in original port; do
  (cd "$work/$side" && CARGO_TARGET_DIR="$repo/target/server-bench/$side" \
    cargo build --release --quiet --bin mini-redis-server)
done

exec python3 scripts/server_bench.py \
  --hyper-server target/release/examples/hyper_server \
  --redis-lawn-rt target/server-bench/port/release/mini-redis-server \
  --redis-tokio target/server-bench/original/release/mini-redis-server \
  "$@"
