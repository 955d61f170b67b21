#!/usr/bin/env bash
# A published tokio service, ported by renaming the crate, runs its own tests
# on lawn_rt.
#
# mini-redis 0.4.1 (tokio's example Redis server and client, from crates.io)
# is fetched as a dependency of a throwaway crate, copied, and changed in two
# ways only: its manifest depends on this checkout of lawn-rt (features
# `tokio-io`, and `test-util` for its tests) instead of tokio, and every
# `tokio::` path in its sources becomes `lawn_rt::`. tokio-stream, bytes and
# the rest stay as they are. Then `cargo test` runs its suite (server,
# client, buffer; the key-expiry test on the paused clock).
#
#   scripts/port_mini_redis.sh            # ~3 min the first time (its deps)
#
# Work happens under target/port-mini-redis; nothing else is touched.
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"
work="$repo/target/port-mini-redis"
version="0.4.1"
rm -rf "$work"
mkdir -p "$work/fetch/src"

# Fetch the published source through Cargo (the registry's own copy).
cat >"$work/fetch/Cargo.toml" <<EOF
[package]
name = "fetch-mini-redis"
version = "0.0.0"
edition = "2021"
publish = false

[dependencies]
mini-redis = "=$version"

[workspace]
EOF
echo "fn main() {}" >"$work/fetch/src/main.rs"
cargo fetch --manifest-path "$work/fetch/Cargo.toml" --quiet
src="$(cargo metadata --manifest-path "$work/fetch/Cargo.toml" --format-version 1 \
  | python3 -c 'import json,sys
for p in json.load(sys.stdin)["packages"]:
    if p["name"] == "mini-redis":
        print(p["manifest_path"].rsplit("/", 1)[0])')"
cp -r "$src" "$work/port"
cd "$work/port"
rm -f Cargo.lock

# The rename: the manifest's tokio becomes lawn-rt, `tokio::` becomes `lawn_rt::`.
python3 - "$repo" <<'EOF'
import os, re, sys
repo = sys.argv[1]
manifest = open("Cargo.toml").read()
renamed = manifest.replace(
    '[dependencies.tokio]\nversion = "1"\nfeatures = ["full"]',
    f'[dependencies.lawn-rt]\npath = "{repo}"\nfeatures = ["tokio-io"]',
).replace(
    '[dev-dependencies.tokio]\nversion = "1"\nfeatures = ["test-util"]',
    f'[dev-dependencies.lawn-rt]\npath = "{repo}"\nfeatures = ["tokio-io", "test-util"]',
)
assert renamed.count("lawn-rt") == 2, "mini-redis's manifest is not the expected one"
open("Cargo.toml", "w").write(renamed + "\n[workspace]\n")
changed = 0
for root, _, files in os.walk("."):
    for name in files:
        if name.endswith(".rs"):
            path = os.path.join(root, name)
            text = open(path).read()
            new = re.sub(r"\btokio::", "lawn_rt::", text)
            if new != text:
                changed += 1
                open(path, "w").write(new)
print(f"port_mini_redis: renamed tokio:: to lawn_rt:: in {changed} files")
EOF
if grep -rn --include='*.rs' -E '\btokio::' . ; then
  echo "port_mini_redis: a tokio:: path is left" >&2
  exit 1
fi
cargo test --quiet
echo "port_mini_redis: mini-redis $version passes its own tests on lawn_rt"
