#!/usr/bin/env bash
# The README's pictures, from the bundled double pendulum: the diagnostics sheet and a still of
# its animation. `bash docs/images/make.sh` from anywhere (builds the release binary first).
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
cd "$root"
out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT
cargo build --release --quiet
bin=target/release/lagrangian
$bin run mechanisms/double_pendulum.yaml --out "$out/dp" --tol 1e-8 --quiet
$bin plot "$out/dp" > /dev/null
$bin animate "$out/dp" --trail B --frame-at 2 --gif-size 480x360 > /dev/null
cp "$out/dp/diagnostics.png" docs/images/double_pendulum_plot.png
cp "$out/dp/frame.png" docs/images/double_pendulum_frame.png
ls -l docs/images/*.png
