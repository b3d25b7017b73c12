"""solve_seconds of the RSCR and tennis-racket mechanism files for several release binaries,
runs alternated.

Usage (from the repository root): python3 benches/mechanism_files.py ROUNDS NAME=BINARY ...
e.g. python3 benches/mechanism_files.py 5 old=/tmp/old_target/release/lagrangian \
         after=target/release/lagrangian
Prints min / median / max per file and binary, and the Newton iterations of the last run.
"""
import json, os, statistics, subprocess, sys, tempfile

rounds = int(sys.argv[1])
binaries = dict(a.split('=', 1) for a in sys.argv[2:])
files = ['rscr', 'tennis_racket']
times, iterations = {}, {}
with tempfile.TemporaryDirectory() as tmp:
    for _ in range(rounds):
        for name, exe in binaries.items():
            for f in files:
                out = os.path.join(tmp, f'{f}_{name}')
                subprocess.run([exe, 'run', f'mechanisms/{f}.yaml', '--out', out, '--quiet'],
                               check=True)
                s = json.load(open(os.path.join(out, 'summary.json')))
                times.setdefault((f, name), []).append(s['solve_seconds'])
                iterations[(f, name)] = s.get('newton_iterations')
for f in files:
    for name in binaries:
        v = sorted(times[(f, name)])
        print(f"{f:14s} {name:8s} min {v[0]:.4f} median {statistics.median(v):.4f} "
              f"max {v[-1]:.4f}  newton iterations {iterations[(f, name)]}")
