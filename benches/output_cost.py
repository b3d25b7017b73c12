#!/usr/bin/env python3
"""What writing a run's results costs, against solving it: the 90x90 cloth (24,300 coordinates)
over 300 steps, written at every step as CSV, as NumPy (.npy), as Parquet and not at all.

    cargo build --release && python3 benches/output_cost.py [REPEATS] [BINARY]

Prints, for each variant, the median and minimum of the run loop's seconds (`solve_seconds` in
summary.json: stepping plus computing and writing every row) over REPEATS runs (default 5).
"""
import json, statistics, subprocess, sys, tempfile

REPEATS = int(sys.argv[1]) if len(sys.argv) > 1 else 5
BIN = sys.argv[2] if len(sys.argv) > 2 else "./target/release/lagrangian"
VARIANTS = [
    ("no output rows (solve only)", ["--output-every", "1000000"]),
    ("CSV, every step, default columns", ["--output-every", "1", "--format", "csv"]),
    ("npy, every step, default columns", ["--output-every", "1", "--format", "npy"]),
    ("Parquet, every step, default columns", ["--output-every", "1", "--format", "parquet"]),
    ("npy, every step, positions only", ["--output-every", "1", "--format", "npy", "--columns", "positions"]),
]

with tempfile.TemporaryDirectory() as out:
    for name, extra in VARIANTS:
        times = []
        for _ in range(REPEATS):
            subprocess.run([BIN, "run", "mechanisms/cloth.yaml", "--t-end", "0.3", "--quiet",
                            "--out", out] + extra, check=True)
            times.append(json.load(open(f"{out}/summary.json"))["solve_seconds"])
        print(f"{name:36s} median {statistics.median(times):.3f} s   min {min(times):.3f} s")
