"""The memory estimate against the real peak: for the cloth, the hanging chain and the
pendulum chain at three sizes each, the estimate the toolkit refuses a run with (read from
its message under LAGRANGIAN_MAX_MEMORY=1) and the peak resident memory of a short run
(`/usr/bin/time -v`, "Maximum resident set size"). The estimate must be conservative (≥ the
peak) and within 2× of it.

Usage (from the repository root, after `cargo build --release`):
    python3 benches/memory_estimate.py [BINARY]
"""
import os, re, subprocess, sys, tempfile

exe = sys.argv[1] if len(sys.argv) > 1 else 'target/release/lagrangian'


def cloth(tmp, m):
    text = open('mechanisms/cloth.yaml').read().replace('n: [90, 90]', f'n: [{m}, {m}]')
    text = text.replace('P_45_45', f'P_{m // 2}_{m // 2}')
    return write(tmp, f'cloth{m}.yaml', text), ['--t-end', '0.002', '--step', '1e-3']


def chain(tmp, n):
    text = open('mechanisms/hanging_chain.yaml').read().replace('n: 10,', f'n: {n},')
    return write(tmp, f'chain{n}.yaml', text), ['--t-end', '0.004']


def pendulums(tmp, n):
    text = '[system.sim]\ng = 9.81\ntimedelta = 0.001\nsteps = 2\n'
    for k in range(n):
        text += (f'[[system.sim.pendula]]\nlength = 1.0\nmass = 1.0\ntheta = {0.1 + 1e-4 * k}\n'
                 'phi = 0.0\nthetadot = 0.0\nphidot = 0.0\nzPolar = true\n')
    return write(tmp, f'pendulums{n}.toml', text), []


def write(tmp, name, text):
    path = os.path.join(tmp, name)
    open(path, 'w').write(text)
    return path


def estimate(path, extra, out):
    r = subprocess.run([exe, 'run', path, '--out', out, '--quiet', *extra],
                       env={**os.environ, 'LAGRANGIAN_MAX_MEMORY': '1'},
                       capture_output=True, text=True)
    m = re.search(r'needs? about ([0-9.]+) GB', r.stderr)
    if not m:
        sys.exit(f'{path}: no estimate in: {r.stderr}')
    return float(m.group(1))


def peak(path, extra, out):
    r = subprocess.run(['/usr/bin/time', '-v', exe, 'run', path, '--out', out, '--quiet',
                        '--columns', 'positions', '--format', 'npy', *extra],
                       capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit(f'{path}: {r.stderr}')
    kb = int(re.search(r'Maximum resident set size \(kbytes\): (\d+)', r.stderr).group(1))
    return kb * 1024 / 1e9


cases = [(cloth, [100, 200, 300]), (chain, [10_000, 100_000, 300_000]),
         (pendulums, [250, 500, 1000])]
print(f"{'case':>20s} {'estimate GB':>12s} {'peak GB':>9s} {'ratio':>6s}")
with tempfile.TemporaryDirectory() as tmp:
    for make, sizes in cases:
        for size in sizes:
            path, extra = make(tmp, size)
            out = os.path.join(tmp, 'out')
            e, p = estimate(path, extra, out), peak(path, extra, out)
            print(f"{os.path.basename(path):>20s} {e:12.3f} {p:9.3f} {e / p:6.2f}")
