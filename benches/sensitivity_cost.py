#!/usr/bin/env python3
"""What forward parameter sensitivities cost against the run itself: a damped chain of 300 masses
hanging from a point in 3D (900 coordinates) and Mechanism0 (4 coordinates, 1 constraint), with
0, 1 and 3 parameters, positions only written every 10 steps.

    cargo build --release && python3 benches/sensitivity_cost.py [REPEATS]

Prints the median and minimum of the run loop's seconds (`solve_seconds` in summary.json) over
REPEATS runs (default 5), and the ratio to the run without sensitivities.
"""
import json, os, statistics, subprocess, sys, tempfile

BIN = "./target/release/lagrangian"
REPEATS = int(sys.argv[1]) if len(sys.argv) > 1 else 5
CHAIN = """Title: damped chain 300
Dimension: 3
PhysicalParams: { k: 2000, m: 0.01, c: 0.05 }
PartData:
  Fixed: { O: [0, 0, 0] }
  Chains:
    C: { from: O, to: [3, 0, 0], n: 300, mass: m, stiffness: k, damping: c }
AppliedForces:
  Gravity:
ProblemData:
  tend: 0.2
SolverParams:
  step: 1e-3
"""
CASES = [("chain of 300 masses (900 coordinates), 200 steps", "chain.yaml", ["k", "m", "c"]),
         ("Mechanism0 (4 coordinates, 1 constraint), 2000 steps", "mechanisms/mechanism0.yaml", ["k", "L", "m"])]

with tempfile.TemporaryDirectory() as out:
    with open(os.path.join(out, "chain.yaml"), "w") as f:
        f.write(CHAIN)
    for title, file, params in CASES:
        path = file if file.startswith("mechanisms") else os.path.join(out, file)
        extra = ["--t-end", "2"] if file.startswith("mechanisms") else []
        print(title)
        base = None
        for p in [[], params[:1], params]:
            times = []
            for _ in range(REPEATS):
                args = [BIN, "run", path, "--quiet", "--out", os.path.join(out, "run"),
                        "--columns", "positions", "--output-every", "10"] + extra
                if p:
                    args += ["--sensitivity", ",".join(p)]
                subprocess.run(args, check=True)
                times.append(json.load(open(os.path.join(out, "run", "summary.json")))["solve_seconds"])
            med = statistics.median(times)
            base = base or med
            name = "no sensitivities" if not p else f"{len(p)} parameter(s): {','.join(p)}"
            print(f"  {name:34s} median {med:.4f} s   min {min(times):.4f} s   {med / base:.2f}x")
