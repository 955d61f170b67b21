#!/usr/bin/env bash
# Published tokio services, ported by renaming the crate, run their own
# tests on lawn_rt.
#
# Each service is fetched from crates.io as a dependency of a throwaway
# crate, copied, and changed in two ways only: its manifest depends on this
# checkout of lawn-rt instead of tokio (feature `tokio-io`, plus
# `test-util` where its tokio asked for it), and every `tokio::` path in
# its sources becomes `lawn_rt::`. Every other dependency (tokio-util,
# tokio-stream, bytes, ...) stays as it is. Then `cargo test` runs its own
# suite.
#
#   scripts/port_service.sh                # every service below
#   scripts/port_service.sh mini-redis     # one of them
#   scripts/port_service.sh --prepare mini-redis   # only the published and renamed sources
#
# The services:
# - mini-redis 0.4.1, tokio's example Redis server and client: server,
#   client and frame tests, key expiry on the paused clock.
# - bore-cli 0.6.0, a TCP tunnel: a multi-thread `#[main]`, tokio-util's
#   `Framed` codec over our `TcpStream`, `io::copy_bidirectional`,
#   `try_join!`, timeouts; its end-to-end tests proxy real connections.
#   Those tests share one fixed port and take turns through a lock that
#   is released before each test's runtime is dropped, so, run in
#   parallel, a test can find the port still held by the one before: on
#   tokio too (6 runs of 7 had one test fail so, on this 2-core machine). They
#   run one at a time here (`--test-threads=1`).
#
# Work happens under target/port-services; nothing else is touched.
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"
work="$repo/target/port-services"

# name, version, extra arguments for the test binaries.
services=(
  "mini-redis 0.4.1"
  "bore-cli 0.6.0 --test-threads=1"
)

# Leaves the published source in $work/NAME/original and the renamed
# copy in $work/NAME/port.
prepare() {
  local name="$1" version="$2"
  local dir="$work/$name"
  rm -rf "$dir"
  mkdir -p "$dir/fetch/src"

  # Fetch the published source through Cargo (the registry's own copy).
  cat >"$dir/fetch/Cargo.toml" <<EOF
[package]
name = "fetch-service"
version = "0.0.0"
edition = "2021"
publish = false

[dependencies]
$name = "=$version"

[workspace]
EOF
  echo "fn main() {}" >"$dir/fetch/src/main.rs"
  cargo fetch --manifest-path "$dir/fetch/Cargo.toml" --quiet
  local src
  src="$(cargo metadata --manifest-path "$dir/fetch/Cargo.toml" --format-version 1 \
    | python3 -c 'import json,sys
for p in json.load(sys.stdin)["packages"]:
    if p["name"] == sys.argv[1]:
        print(p["manifest_path"].rsplit("/", 1)[0])' "$name")"
  cp -r "$src" "$dir/original"
  rm -f "$dir/original/Cargo.lock"
  echo "[workspace]" >>"$dir/original/Cargo.toml"
  cp -r "$src" "$dir/port"
  cd "$dir/port"
  rm -f Cargo.lock

  # The rename: each `[dependencies.tokio]`-like section of the manifest
  # becomes lawn-rt, and `tokio::` becomes `lawn_rt::`.
  python3 - "$repo" "$name" <<'EOF'
import os, re, sys
repo, name = sys.argv[1], sys.argv[2]
manifest = open("Cargo.toml").read()
section = re.compile(r"^\[((?:dev-)?dependencies)\.tokio\]\n((?:(?!\[).*\n)*)", re.M)
def lawn_rt(match):
    features = ["tokio-io"]
    if "test-util" in match.group(2):
        features.append("test-util")
    listed = ", ".join(f'"{f}"' for f in features)
    return f'[{match.group(1)}.lawn-rt]\npath = "{repo}"\nfeatures = [{listed}]\n\n'
renamed, count = section.subn(lawn_rt, manifest)
assert count >= 1, f"{name}: no tokio dependency in its manifest"
assert "tokio/" not in renamed, f"{name}: a feature names tokio's; not a plain rename"
open("Cargo.toml", "w").write(renamed + "\n[workspace]\n")
changed = 0
for root, _, files in os.walk("."):
    for file in files:
        if file.endswith(".rs"):
            path = os.path.join(root, file)
            text = open(path).read()
            new = re.sub(r"\btokio::", "lawn_rt::", text)
            if new != text:
                changed += 1
                open(path, "w").write(new)
print(f"port_service: {name}: {count} manifest sections and {changed} files renamed")
EOF
  if grep -rn --include='*.rs' -E '\btokio::' . ; then
    echo "port_service: $name: a tokio:: path is left" >&2
    exit 1
  fi
  cd "$repo"
}

port() {
  local name="$1" version="$2"
  shift 2
  prepare "$name" "$version"
  cd "$work/$name/port"
  CARGO_TARGET_DIR="$work/target" cargo test --quiet -- "$@"
  echo "port_service: $name $version passes its own tests on lawn_rt"
  cd "$repo"
}

if [ "${1:-}" = "--prepare" ]; then
  # Only the two source trees, for scripts/server_bench.sh.
  wanted="${2:-}"
  for service in "${services[@]}"; do
    # shellcheck disable=SC2086 # an entry's words are its fields
    set -- $service
    if [ "$1" = "$wanted" ]; then
      prepare "$1" "$2"
      exit 0
    fi
  done
  echo "port_service: --prepare takes a service's name" >&2
  exit 1
fi

only="${1:-}"
ran=0
for service in "${services[@]}"; do
  # shellcheck disable=SC2086 # an entry's words are its fields
  set -- $service
  if [ -z "$only" ] || [ "$only" = "$1" ]; then
    port "$@"
    ran=$((ran + 1))
  fi
done
if [ "$ran" -eq 0 ]; then
  echo "port_service: no service named '$only'" >&2
  exit 1
fi
