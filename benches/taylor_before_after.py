"""The Taylor-series method before and after a change, beside the compiled DOP853, in one run.

Usage (from the repository root; the earlier commit's `examples/high_order` built elsewhere,
e.g. `git worktree add /tmp/before REV && cd /tmp/before && CARGO_TARGET_DIR=/tmp/before_target
cargo build --release --example high_order`; this tree's and `benches/compiled_peers` built):

    /tmp/wp/bin/python benches/taylor_before_after.py BEFORE_BINARY CASES TOLS REPEAT

Prints a markdown table: for each case and tolerance the earlier binary's Taylor method of order
20, this tree's at order 20 and at the order it chooses, and the compiled DOP853 (pendulum,
Kepler, solar system); each cell the largest position error at the end against the references
of `benches/work_precision.py`, the steps and the best time of REPEAT runs.
"""
import json, os, subprocess, sys
import numpy as np
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import work_precision as wp
BEFORE = sys.argv[1]
AFTER = wp.EXAMPLE

def run(binary, case, method, tol, repeat):
    out = subprocess.run([binary, '--case', case, '--method', method, '--tol', str(tol),
                          '--repeat', str(repeat)], capture_output=True, text=True, cwd=wp.ROOT)
    if out.returncode != 0:
        return None
    d = json.loads(out.stdout.strip().splitlines()[-1])
    d['q'] = wp.TOOLKIT_POS[case](d['q'])
    return d

cases = sys.argv[2].split(',')
tols = [float(t) for t in sys.argv[3].split(',')]
repeat = int(sys.argv[4])
print('| problem | tol | before: Taylor 20 | after: Taylor 20 | after: order chosen | compiled DOP853 |')
print('|---|---|---|---|---|---|')
for case in cases:
    prob = wp.PROBLEMS[case]()
    ref = np.array(prob[4]())
    err = lambda q: float(np.max(np.abs(np.array(q) - ref)))
    for tol in tols:
        cells = []
        for b, m in [(BEFORE, 'taylor'), (AFTER, 'taylor20'), (AFTER, 'taylor')]:
            d = run(b, case, m, tol, repeat)
            if d is None:
                cells.append('failed'); continue
            k = f" (K{d['order']})" if 'order' in d and m == 'taylor' and b == AFTER else ''
            cells.append(f"{err(d['q']):.1e}, {d['steps']}, {d['seconds']*1e3:.3f} ms{k}")
        if case in wp.COMPILED_CASES:
            c = wp.compiled_run(case, tol, max(repeat, 20))
            cells.append(f"{err(c['q']):.1e}, {c['steps']}, {c['seconds']*1e3:.3f} ms")
        else:
            cells.append('—')
        print(f"| {case} | {tol:.0e} | " + ' | '.join(cells) + ' |', flush=True)
