"""Work–precision of the toolkit's error-controlled methods against scipy's DOP853 and Radau.

Usage (from the repository root, with scipy and matplotlib in a virtual environment of its own;
they are not test dependencies):

    python3 -m venv /tmp/wp && /tmp/wp/bin/pip install scipy matplotlib
    cargo build --release --example high_order
    /tmp/wp/bin/python benches/work_precision.py [--cases pendulum,kepler] [--repeat 3] [--merge]

With `--compiled` the compiled anchors run beside them on every problem but the stiff pair
(Andrews and the car axis in their index-1 form, as for scipy): Hairer's DOP853 from the crate `ode_solvers` and diffsol's
variable-order BDF (nalgebra's dense LU, the Jacobian–vector product by num-dual) with hand-written
right-hand sides in minimal coordinates (`benches/compiled_peers`, a crate outside the workspace, built first with
`cargo build --release --manifest-path benches/compiled_peers/Cargo.toml`). `--dop853-only` and
`--radau-only` keep one family: the DOP853s, or the toolkit's Radau IIA, scipy's Radau and the
compiled BDF.

For each problem and each tolerance 1e-4 … 1e-11 it runs the toolkit (`examples/high_order.rs`:
DOP853 on the index-1 form with projection; Radau IIA on the index-3 equations; the
Taylor-series method, its order chosen from the tolerance (not on the stiff problem);
generalized-α under error control where it is affordable) and scipy's `solve_ivp` with DOP853 and Radau on the same mechanism written as an
ODE in minimal coordinates (Andrews: its index-1 form, accelerations and multipliers from the
augmented system by numpy, without projection). Errors are the largest position error at the
end time against

- pendulum (g = ℓ = 1, released horizontally, t = 10): the exact solution;
- kepler (e = 0.6, three periods): the initial position (exact);
- solar (the outer solar system, 10,800 days): scipy DOP853 at rtol = atol = 1e-14;
- andrews (t = 0.03): the CWI/Bari Test Set's values;
- mechanism0 (t = 5): scipy DOP853 at 1e-14 on the Lagrangian in minimal coordinates
  (rod angle, particle position), derived by hand — independent of the toolkit's derivation;
- stiff (a slow oscillator dragging a light mass on a damped spring, t = 2): scipy Radau at
  1e-13;
- caraxis (the Test Set's car axis, stiff index 3, t = 3; scipy on its index-1 form as for
  Andrews): the Test Set's values.

Prints a table (markdown), writes benches/work_precision.json and benches/work_precision.png
(error against seconds).
"""
import argparse, json, math, os, subprocess, sys, time
import numpy as np
from scipy.integrate import solve_ivp

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
EXAMPLE = os.path.join(ROOT, 'target', 'release', 'examples', 'high_order')
TOOLKIT = EXAMPLE
COMPILED = os.path.join(ROOT, 'benches', 'compiled_peers', 'target', 'release', 'compiled-peers')
COMPILED_CASES = ('pendulum', 'kepler', 'solar', 'mechanism0', 'andrews', 'caraxis')
TOLS = [1e-4, 1e-5, 1e-6, 1e-7, 1e-8, 1e-9, 1e-10, 1e-11]

# ---------------------------------------------------------------- problems as scipy ODEs

PENDULUM_END = (-0.8115864461913038, -0.5842323513453958)


def pendulum():
    f = lambda t, y: [y[1], -math.sin(y[0])]
    y0 = [math.pi / 2, 0.0]
    pos = lambda y: [math.sin(y[0]), -math.cos(y[0])]
    return f, y0, 10.0, pos, (lambda: list(PENDULUM_END))


def kepler():
    e = 0.6

    def f(t, y):
        r3 = (y[0] ** 2 + y[1] ** 2) ** 1.5
        return [y[2], y[3], -y[0] / r3, -y[1] / r3]

    y0 = [1 - e, 0.0, 0.0, math.sqrt((1 + e) / (1 - e))]
    return f, y0, 6 * math.pi, (lambda y: list(y[:2])), (lambda: [1 - e, 0.0])


G = 2.95912208286e-4
MASSES = np.array([1.00000597682, 0.000954786104043, 0.000285583733151, 0.0000437273164546,
                   0.0000517759138449, 1 / 1.3e8])
SOLAR_Q0 = [0, 0, 0, -3.5023653, -3.8169847, -1.5507963, 9.0755314, -3.0458353, -1.6483708,
            8.310142, -16.2901086, -7.2521278, 11.4707666, -25.7294829, -10.8169456,
            -15.5387357, -25.2225594, -3.1902382]
SOLAR_V0 = [0, 0, 0, 0.00565429, -0.0041249, -0.00190589, 0.00168318, 0.00483525, 0.00192462,
            0.00354178, 0.00137102, 0.00055029, 0.0028893, 0.00114527, 0.00039677,
            0.00276725, -0.00170702, -0.00136504]


def solar():
    def f(t, y):
        q = y[:18].reshape(6, 3)
        d = q[None, :, :] - q[:, None, :]            # d[i, j] = q_j − q_i
        r3 = np.linalg.norm(d, axis=2) ** 3
        np.fill_diagonal(r3, np.inf)
        a = G * np.einsum('j,ijk->ik', MASSES, d / r3[:, :, None])
        return np.concatenate([y[18:], a.ravel()])

    y0 = SOLAR_Q0 + SOLAR_V0
    pos = lambda y: list(y[:18])
    return f, y0, 10800.0, pos, (lambda: tight(f, y0, 10800.0, pos))


# Andrews' squeezer (Hairer & Wanner II, §VII.7; the Test Set): M q̈ = f − Gᵀλ, g(q) = 0
m1, m2, m3, m4, m5, m6, m7 = .04325, .00365, .02373, .00706, .07050, .00706, .05498
xa, ya, xb, yb, xc, yc, c0 = -.06934, -.00227, -.03635, .03273, .014, .072, 4530
i1, i2, i3, i4, i5, i6, i7 = 2.194e-6, 4.410e-7, 5.255e-6, 5.667e-7, 1.169e-5, 5.667e-7, 1.912e-5
d, da, e, ea, rr, ra, l0 = 28e-3, 115e-4, 2e-2, 1421e-5, 7e-3, 92e-5, 7785e-5
ss, sa, sb, sc, sd, ta, tb = 35e-3, 1874e-5, 1043e-5, 18e-3, 2e-2, 2308e-5, 916e-5
u, ua, ub, zf, zt, fa, mom = 4e-2, 1228e-5, 449e-5, 2e-2, 4e-2, 1421e-5, 33e-3
ANDREWS_Q0 = [-0.0617138900142764496358948458001, 0, 0.455279819163070380255912382449,
              0.222668390165885884674473185609, 0.487364979543842550225598953530,
              -0.222668390165885884674473185609, 1.23054744454982119249735015568]
ANDREWS_END = [15.81077119629904, -15.75637105984298, 0.04082224013073101, -0.5347301163226948,
               0.5244099658805304, 0.5347301163226948, 1.048080741042263]


def andrews_rhs(t, y):
    q, v = y[:7], y[7:]
    be, th, ga, ph, de, om, ep = q
    bd, td, gd, pd, dd, od, ed = v
    M = np.zeros((7, 7))
    M[0, 0] = m1 * ra**2 + m2 * (rr**2 - 2 * da * rr * math.cos(th) + da**2) + i1 + i2
    M[1, 0] = M[0, 1] = m2 * (da**2 - da * rr * math.cos(th)) + i2
    M[1, 1] = m2 * da**2 + i2
    M[2, 2] = m3 * (sa**2 + sb**2) + i3
    M[3, 3] = m4 * (e - ea)**2 + i4
    M[4, 3] = M[3, 4] = m4 * ((e - ea)**2 + zt * (e - ea) * math.sin(ph)) + i4
    M[4, 4] = (m4 * (zt**2 + 2 * zt * (e - ea) * math.sin(ph) + (e - ea)**2)
               + m5 * (ta**2 + tb**2) + i4 + i5)
    M[5, 5] = m6 * (zf - fa)**2 + i6
    M[6, 5] = M[5, 6] = m6 * ((zf - fa)**2 - u * (zf - fa) * math.sin(om)) + i6
    M[6, 6] = (m6 * ((zf - fa)**2 - 2 * u * (zf - fa) * math.sin(om) + u**2)
               + m7 * (ua**2 + ub**2) + i6 + i7)
    xd = sd * math.cos(ga) + sc * math.sin(ga) + xb
    yd = sd * math.sin(ga) - sc * math.cos(ga) + yb
    L = math.hypot(xd - xc, yd - yc)
    F = -c0 * (L - l0) / L
    Fx, Fy = F * (xd - xc), F * (yd - yc)
    f = np.array([
        mom - m2 * da * rr * td * (td + 2 * bd) * math.sin(th),
        m2 * da * rr * bd**2 * math.sin(th),
        Fx * (sc * math.cos(ga) - sd * math.sin(ga)) + Fy * (sd * math.cos(ga) + sc * math.sin(ga)),
        m4 * zt * (e - ea) * dd**2 * math.cos(ph),
        -m4 * zt * (e - ea) * pd * (pd + 2 * dd) * math.cos(ph),
        -m6 * u * (zf - fa) * ed**2 * math.cos(om),
        m6 * u * (zf - fa) * od * (od + 2 * ed) * math.cos(om)])
    # G = ∂g/∂q and γ = (∂²g/∂q²)(v, v), by hand
    sb_, cb_ = math.sin(be), math.cos(be)
    sbt, cbt = math.sin(be + th), math.cos(be + th)
    Gm = np.zeros((6, 7))
    gam = np.zeros(6)
    bt = bd + td
    for k, (x_or_y) in enumerate([0, 1, 0, 1, 0, 1]):
        if x_or_y == 0:   # rr cosβ − d cos(β+Θ) …
            Gm[k, 0] = -rr * sb_ + d * sbt
            Gm[k, 1] = d * sbt
            gam[k] = -rr * cb_ * bd**2 + d * cbt * bt**2
        else:             # rr sinβ − d sin(β+Θ) …
            Gm[k, 0] = rr * cb_ - d * cbt
            Gm[k, 1] = -d * cbt
            gam[k] = -rr * sb_ * bd**2 + d * sbt * bt**2
    # body terms
    Gm[0, 2] = -ss * math.cos(ga); gam[0] += ss * math.sin(ga) * gd**2
    Gm[1, 2] = -ss * math.sin(ga); gam[1] += -ss * math.cos(ga) * gd**2
    pdl = ph + de
    Gm[2, 3] = -e * math.cos(pdl); Gm[2, 4] = -e * math.cos(pdl) + zt * math.sin(de)
    gam[2] += e * math.sin(pdl) * (pd + dd)**2 + zt * math.cos(de) * dd**2
    Gm[3, 3] = -e * math.sin(pdl); Gm[3, 4] = -e * math.sin(pdl) - zt * math.cos(de)
    gam[3] += -e * math.cos(pdl) * (pd + dd)**2 + zt * math.sin(de) * dd**2
    oe = om + ep
    Gm[4, 5] = zf * math.sin(oe); Gm[4, 6] = zf * math.sin(oe) - u * math.cos(ep)
    gam[4] += zf * math.cos(oe) * (od + ed)**2 + u * math.sin(ep) * ed**2
    Gm[5, 5] = -zf * math.cos(oe); Gm[5, 6] = -zf * math.cos(oe) - u * math.sin(ep)
    gam[5] += zf * math.sin(oe) * (od + ed)**2 - u * math.cos(ep) * ed**2
    A = np.zeros((13, 13))
    A[:7, :7], A[:7, 7:], A[7:, :7] = M, Gm.T, Gm
    x = np.linalg.solve(A, np.concatenate([f, -gam]))
    return np.concatenate([v, x[:7]])


def andrews():
    return andrews_rhs, ANDREWS_Q0 + [0.0] * 7, 0.03, (lambda y: list(y[:7])), (lambda: ANDREWS_END)


# Mechanism0 (DAETS): rod OA (mass M, length L) about O, a massive spring AB (k, l, μ), a
# particle B (m), gravity g. Minimal coordinates (θ, Bx, By), A = L(cosθ, sinθ):
#   T = ½ (M L²/3) θ̇² + μ/6 (|Ȧ|² + Ȧ·Ḃ + |Ḃ|²) + ½ m |Ḃ|²
#   V = M g (L/2) sinθ + μ g (A_y + B_y)/2 + m g B_y + ½ k (|B − A| − l)²
# Euler–Lagrange (the θ̇Ḃ terms cancel in the θ row):
#   (M L²/3 + μ L²/3) θ̈ + (μ L/6)(−sinθ, cosθ)·B̈ + V_θ = 0
#   (μ L/6)(−sinθ, cosθ) θ̈ + (μ/3 + m) B̈ − (μ L/6) θ̇² (cosθ, sinθ) + V_B = 0
ML, MM, MK, Ml, Mmu, Mm, Mg = 1.0, 1.0, 500.0, 1.0, 0.5, 2.0, 9.81


def mechanism0_rhs(t, y):
    th, bx, by, w, vbx, vby = y
    c, s = math.cos(th), math.sin(th)
    ax, ay = ML * c, ML * s
    dx, dy = bx - ax, by - ay
    dist = math.hypot(dx, dy)
    fs = MK * (dist - Ml) / dist                 # ∂V/∂B (spring part) = fs (B − A)
    v_th = (MM * Mg * ML / 2 + Mmu * Mg * ML / 2) * c + fs * (-dx * (-ML * s) - dy * (ML * c))
    v_bx = fs * dx
    v_by = fs * dy + Mmu * Mg / 2 + Mm * Mg
    k = Mmu * ML / 6
    Mx = np.array([[MM * ML**2 / 3 + Mmu * ML**2 / 3, -k * s, k * c],
                   [-k * s, Mmu / 3 + Mm, 0.0],
                   [k * c, 0.0, Mmu / 3 + Mm]])
    rhs = np.array([-v_th, k * w * w * c - v_bx, k * w * w * s - v_by])
    acc = np.linalg.solve(Mx, rhs)
    return [w, vbx, vby, acc[0], acc[1], acc[2]]


def mechanism0():
    y0 = [0.0, 2.0, 0.0, 10.0, 0.0, 0.0]
    pos = lambda y: [ML * math.cos(y[0]), ML * math.sin(y[0]), y[1], y[2]]
    return mechanism0_rhs, y0, 5.0, pos, (lambda: tight(mechanism0_rhs, y0, 5.0, pos))


def tight(f, y0, t_end, pos):
    r = solve_ivp(f, (0, t_end), y0, method='DOP853', rtol=1e-14, atol=1e-14)
    return pos(r.y[:, -1])


def stiff():
    # a slow oscillator (ω = 1, x_b) dragging a light mass (1e-3, x_c) on a damped spring
    # (k = 1, c = 1, rest length 1): a mode at −1000/s
    def f(t, y):
        xb, xc, vb, vc = y
        fc = -(xc - xb - 1.0) - (vc - vb)
        return [vb, vc, -(xb - 1.0) - fc, fc / 1e-3]

    y0 = [1.0, 2.0, 0.5, 0.0]
    pos = lambda y: [y[0], y[1]]
    ref = lambda: list(solve_ivp(f, (0, 2.0), y0, method='Radau', rtol=1e-13,
                                 atol=1e-13).y[:2, -1])
    return f, y0, 2.0, pos, ref


# The car axis (Test Set for IVP solvers): wheels (xl, yl), (xr, yr) of mass k = M ε²/2 on
# springs from the origin and from B(t) = (√(L² − yb²), r sin ωt), the left wheel on the line
# normal to B, the axle of length L. Index-1 form: [k I, Gᵀ; G, 0][a; μ] = [f; −γ] with
# γ = C̈ − G a (the road's motion included).
CA_EPS, CA_M, CA_L, CA_L0, CA_R, CA_W, CA_G = 1e-2, 10.0, 1.0, 0.5, 0.1, 10.0, 1.0
CARAXIS_END = [0.4934557842755629e-1, 0.4969894602303324, 0.1041742524885400e1,
               0.3739110272652214]


def caraxis_rhs(t, y):
    xl, yl, xr, yr, ul, vl, ur, vr = y
    k = CA_M * CA_EPS**2 / 2
    yb = CA_R * math.sin(CA_W * t)
    ybd = CA_R * CA_W * math.cos(CA_W * t)
    ybdd = -CA_R * CA_W**2 * math.sin(CA_W * t)
    xb = math.sqrt(CA_L**2 - yb**2)
    xbd = -yb * ybd / xb
    xbdd = -(ybd**2 + yb * ybdd + xbd**2) / xb
    ll = math.hypot(xl, yl)
    lr = math.hypot(xr - xb, yr - yb)
    f = np.array([(CA_L0 - ll) * xl / ll, (CA_L0 - ll) * yl / ll - k * CA_G,
                  (CA_L0 - lr) * (xr - xb) / lr, (CA_L0 - lr) * (yr - yb) / lr - k * CA_G])
    G = np.array([[xb, yb, 0.0, 0.0],
                  [2 * (xl - xr), 2 * (yl - yr), -2 * (xl - xr), -2 * (yl - yr)]])
    gam = np.array([xbdd * xl + 2 * xbd * ul + ybdd * yl + 2 * ybd * vl,
                    2 * ((ul - ur)**2 + (vl - vr)**2)])
    A = np.zeros((6, 6))
    A[:4, :4], A[:4, 4:], A[4:, :4] = k * np.eye(4), G.T, G
    x = np.linalg.solve(A, np.concatenate([f, -gam]))
    return [ul, vl, ur, vr, x[0], x[1], x[2], x[3]]


def caraxis():
    y0 = [0.0, 0.5, 1.0, 0.5, -0.5, 0.0, -0.5, 0.0]
    return caraxis_rhs, y0, 3.0, (lambda y: list(y[:4])), (lambda: CARAXIS_END)


PROBLEMS = {'pendulum': pendulum, 'kepler': kepler, 'solar': solar, 'andrews': andrews,
            'mechanism0': mechanism0, 'stiff': stiff, 'caraxis': caraxis}
# the toolkit's end positions, in its coordinates, mapped onto the scipy positions above
TOOLKIT_POS = {
    'pendulum': lambda q: q[:2],
    'kepler': lambda q: q[:2],
    'solar': lambda q: q[:18],
    'andrews': lambda q: q[:7],
    'mechanism0': lambda q: q[:4],
    'stiff': lambda q: [q[0], q[2]],
    'caraxis': lambda q: q[:4],
}

# ---------------------------------------------------------------- runs


def scipy_run(prob, method, tol, repeat):
    f, y0, t_end, pos, _ = prob
    best = None
    for _ in range(repeat):
        t0 = time.perf_counter()
        r = solve_ivp(f, (0, t_end), y0, method=method, rtol=tol, atol=tol)
        s = time.perf_counter() - t0
        if best is None or s < best[0]:
            best = (s, r)
    s, r = best
    return {'q': pos(r.y[:, -1]), 'seconds': s, 'steps': len(r.t) - 1,
            'evaluations': int(r.nfev), 'factorizations': int(r.nlu), 'ok': bool(r.success)}


def toolkit_run(case, method, tol, repeat):
    out = subprocess.run([TOOLKIT, '--case', case, '--method', method, '--tol', str(tol),
                          '--repeat', str(repeat)], capture_output=True, text=True, cwd=ROOT)
    if out.returncode != 0:
        return {'failed': out.stderr.strip()}
    d = json.loads(out.stdout.strip().splitlines()[-1])
    d['q'] = TOOLKIT_POS[case](d['q'])
    return d


def at_error(pts, e):
    """Seconds at the error `e` by log–log interpolation between two runs whose errors bracket
    it (`pts`: (seconds, error) pairs); None when no two do."""
    pts = sorted(pts, key=lambda p: -p[1])
    for (s0, e0), (s1, e1) in zip(pts, pts[1:]):
        if e1 <= e <= e0 and e1 < e0 and e1 > 0:
            w = (math.log(e0) - math.log(e)) / (math.log(e0) - math.log(e1))
            return math.exp((1 - w) * math.log(s0) + w * math.log(s1))
    return None


def equal_error_table(rows, method, anchor):
    """`method`'s seconds against `anchor`'s at equal errors 1e-6 … 1e-12 (where both reach
    them), as markdown rows."""
    print(f'| problem | error | {method} | {anchor} | ratio |')
    print('|---|---|---|---|---|')
    for case in dict.fromkeys(r['case'] for r in rows):
        pts = {m: [(r['seconds'], r['error']) for r in rows
                   if r['case'] == case and r['method'] == m and 'error' in r]
               for m in (method, anchor)}
        for k in range(6, 13):
            a, b = at_error(pts[method], 10.0 ** -k), at_error(pts[anchor], 10.0 ** -k)
            if a and b:
                print(f'| {case} | 1e-{k} | {a * 1e6:.1f} µs | {b * 1e6:.1f} µs | {a / b:.2f} |')


def compiled_run(case, tol, repeat, method='dop853'):
    out = subprocess.run([COMPILED, '--case', case, '--method', method, '--tol', str(tol),
                          '--repeat', str(repeat)],
                         capture_output=True, text=True, cwd=ROOT)
    if out.returncode != 0:
        return {'failed': out.stderr.strip()}
    return json.loads(out.stdout.strip().splitlines()[-1])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--cases', default=','.join(PROBLEMS))
    ap.add_argument('--repeat', type=int, default=3)
    ap.add_argument('--genalpha-down-to', type=float, default=1e-6,
                    help='generalized-α under error control only at tolerances from this up')
    ap.add_argument('--compiled', action='store_true',
                    help='run the compiled DOP853 of benches/compiled_peers beside them')
    ap.add_argument('--tols', default=','.join(f'{t:.0e}' for t in TOLS))
    ap.add_argument('--out', default=os.path.join(ROOT, 'benches', 'work_precision'),
                    help='where the table goes: OUT.json and OUT.png')
    ap.add_argument('--dop853-only', action='store_true',
                    help='only the DOP853s (the toolkit, scipy and with --compiled the compiled one)')
    ap.add_argument('--radau-only', action='store_true',
                    help="only the toolkit's Radau IIA, scipy's Radau and with --compiled the "
                         "compiled BDF")
    ap.add_argument('--toolkit', default=EXAMPLE,
                    help="the toolkit's examples/high_order binary to run (another build's, to "
                         "compare before and after a change)")
    ap.add_argument('--merge', action='store_true',
                    help="keep the other problems' rows of the existing work_precision.json")
    args = ap.parse_args()
    global TOOLKIT
    TOOLKIT = args.toolkit
    rows = []
    path = args.out + '.json'
    for case in args.cases.split(','):
        prob = PROBLEMS[case]()
        ref = np.array(prob[4]())
        err = lambda q: float(np.max(np.abs(np.array(q) - ref)))
        for tol in [float(t) for t in args.tols.split(',')]:
            runs = []
            if not args.radau_only:
                runs += [('lagrangian dop853', toolkit_run(case, 'dop853', tol, args.repeat)),
                         ('scipy DOP853', scipy_run(prob, 'DOP853', tol, args.repeat))]
            if args.compiled and case in COMPILED_CASES and not args.radau_only:
                runs.append(('compiled DOP853', compiled_run(case, tol, args.repeat)))
            if args.compiled and case in COMPILED_CASES and not args.dop853_only:
                runs.append(('compiled BDF', compiled_run(case, tol, args.repeat, 'bdf')))
            others = not args.dop853_only
            radau = others and (args.radau_only or (case != 'solar' and tol >= 1e-11))
            if others and (case in ('andrews', 'mechanism0', 'stiff', 'caraxis') or tol >= 1e-7):
                runs.append(('scipy Radau', scipy_run(prob, 'Radau', tol, 1)))
            if radau:
                runs.append(('lagrangian radau', toolkit_run(case, 'radau', tol, args.repeat)))
            others = others and not args.radau_only
            if others and case != 'stiff':
                runs.append(('lagrangian taylor', toolkit_run(case, 'taylor', tol, args.repeat)))
            if others and tol >= args.genalpha_down_to and case != 'solar':
                runs.append(('lagrangian genalpha', toolkit_run(case, 'genalpha', tol, 1)))
            for name, r in runs:
                row = {'case': case, 'tol': tol, 'method': name}
                if 'failed' in r:
                    row['failed'] = r['failed'][-200:]
                else:
                    row.update(error=err(r['q']), seconds=r['seconds'], steps=r['steps'],
                               evaluations=r['evaluations'], factorizations=r['factorizations'])
                rows.append(row)
                print(json.dumps(row), file=sys.stderr, flush=True)
    if args.merge and os.path.exists(path):
        with open(path) as fh:
            kept = [r for r in json.load(fh) if r['case'] not in args.cases.split(',')]
        order = list(PROBLEMS)
        rows = sorted(kept + rows, key=lambda r: order.index(r['case']))
    with open(path, 'w') as fh:
        json.dump(rows, fh, indent=1)
    print('| problem | tol | method | error | steps | evaluations | factorizations | seconds |')
    print('|---|---|---|---|---|---|---|---|')
    for r in rows:
        if 'failed' in r:
            print(f"| {r['case']} | {r['tol']:.0e} | {r['method']} | failed: {r['failed'][:80]} | | | | |")
        else:
            print(f"| {r['case']} | {r['tol']:.0e} | {r['method']} | {r['error']:.2e} | {r['steps']} "
                  f"| {r['evaluations']} | {r['factorizations']} | {r['seconds']:.4f} |")
    if args.compiled and not args.radau_only:
        print()
        equal_error_table(rows, 'lagrangian dop853', 'compiled DOP853')
    if args.compiled and not args.dop853_only:
        print()
        equal_error_table(rows, 'lagrangian radau', 'compiled BDF')
    try:
        import matplotlib
        matplotlib.use('Agg')
        import matplotlib.pyplot as plt
    except ImportError:
        return
    cases = list(dict.fromkeys(r['case'] for r in rows))
    fig, axes = plt.subplots(1, len(cases), figsize=(4.2 * len(cases), 3.8), squeeze=False)
    for ax, case in zip(axes[0], cases):
        for method in dict.fromkeys(r['method'] for r in rows):
            pts = [(r['seconds'], r['error']) for r in rows
                   if r['case'] == case and r['method'] == method and 'error' in r]
            if pts:
                ax.loglog([p[0] for p in pts], [max(p[1], 1e-16) for p in pts], 'o-',
                          label=method, ms=3)
        ax.set_title(case)
        ax.set_xlabel('seconds')
        ax.set_ylabel('max position error at the end')
        ax.grid(True, which='both', alpha=0.3)
    axes[0][0].legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(args.out + '.png', dpi=110)


if __name__ == '__main__':
    main()
