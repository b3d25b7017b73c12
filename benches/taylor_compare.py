"""The Taylor-series method (order chosen from the tolerance) of several builds side by side.

Usage (from the repository root; each binary an `examples/high_order` build, e.g. an earlier
commit's from a worktree and this tree's `target/release/examples/high_order`):

    /tmp/wp/bin/python benches/taylor_compare.py BIN1,BIN2,... CASES TOLS REPEAT

Prints a markdown table: for each case and tolerance, each binary's largest position error at
the end against the references of `benches/work_precision.py`, its steps + refused attempts, the
order it chose and the best time of REPEAT runs (benches/README.md, "The Taylor method's step
from the truncation it meets").
"""
import json, os, subprocess, sys
import numpy as np
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import work_precision as wp

bins = sys.argv[1].split(',')
cases = sys.argv[2].split(',')
tols = [float(t) for t in sys.argv[3].split(',')]
repeat = sys.argv[4]
print('| problem | tol | ' + ' | '.join(os.path.basename(b) for b in bins) + ' |')
print('|---|---|' + '---|' * len(bins))
for case in cases:
    ref = np.array(wp.PROBLEMS[case]()[4]())
    for tol in tols:
        cells = []
        for b in bins:
            out = subprocess.run([b, '--case', case, '--method', 'taylor', '--tol', str(tol),
                                  '--repeat', repeat], capture_output=True, text=True, cwd=wp.ROOT)
            if out.returncode != 0:
                cells.append('failed')
                continue
            d = json.loads(out.stdout.strip().splitlines()[-1])
            err = float(np.max(np.abs(np.array(wp.TOOLKIT_POS[case](d['q'])) - ref)))
            cells.append(f"{err:.1e}, {d['steps']} + {d['rejected']}, K{d['order']}, "
                         f"{d['seconds'] * 1e3:.3f} ms")
        print(f'| {case} | {tol:.0e} | ' + ' | '.join(cells) + ' |', flush=True)
