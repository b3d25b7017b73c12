#!/usr/bin/env bash
# Build and run the user crate outside the workspace, with cargo's default release profile, on
# one thread: `bash benches/user_crate/run.sh [--repeat 3]`. Prints one JSON line per case.
set -euo pipefail
repo="$(cd "$(dirname "$0")/../.." && pwd)"
dir="${USER_CRATE_DIR:-/tmp/lagrangian-user-crate}"
mkdir -p "$dir/src"
cp "$repo/benches/user_crate/src/main.rs" "$dir/src/"
sed "s|path = \"../..\"|path = \"$repo\"|" "$repo/benches/user_crate/Cargo.toml" > "$dir/Cargo.toml"
cd "$dir"
cargo build --release --quiet
for case in chain cloth pendulums; do
    RAYON_NUM_THREADS=1 ./target/release/user-crate --case "$case" "$@"
done
