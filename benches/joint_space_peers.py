"""The PUMA 560 in joint coordinates against Pinocchio and MuJoCo, side by side on one machine.

Run from the repository's root, in a virtual environment of its own (never the tests'):

    python3 -m venv /tmp/peers && /tmp/peers/bin/pip install mujoco pin numpy matplotlib
    cargo build --release --example joint_space
    /tmp/peers/bin/python benches/joint_space_peers.py

All three engines read the same arm: Pinocchio and MuJoCo load mechanisms/puma560.urdf
(Pinocchio with its continuous joints as revolute ones, so its coordinates are the angles),
the toolkit builds it from Denavit-Hartenberg parameters (`examples/joint_space.rs`; the URDF
equals it to round-off, tests/mechanics/urdf.rs). Before timing anything the gravity torques
at the start are compared (to 1e-9). Then:

- inverse dynamics along the bundled motion q_i = 0.4 sin(1.5 t + 0.7 i): seconds per instant
  (Pinocchio's `rnea` and MuJoCo's `mj_inverse` called from a Python loop, as a user calls
  them; the toolkit's `Tree::rnea` from Rust);
- the free arm let go at rest from the bundled start, 5 s: the largest joint-angle error at
  t = 5 against the toolkit's DOP853 at tol 1e-13, against seconds — DOP853 at tolerances
  1e-6 ... 1e-12, MuJoCo's RK4 at time steps 4e-3 ... 1.25e-4 (its `mj_step` loop in Python).

Prints one table; writes benches/joint_space_peers.png (error against time, three engines
where they apply).
"""

import json
import pathlib
import subprocess
import time

import numpy as np

ROOT = pathlib.Path(__file__).resolve().parent.parent
URDF = ROOT / "mechanisms" / "puma560.urdf"
EXAMPLE = ROOT / "target" / "release" / "examples" / "joint_space"


def ours(*args):
    out = subprocess.run([str(EXAMPLE), *args], check=True, capture_output=True, text=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def motion(s):
    i = np.arange(1, 7)
    arg = 1.5 * s + 0.7 * i
    return 0.4 * np.sin(arg), 0.6 * np.cos(arg), -0.9 * np.sin(arg)


def q_start():
    return 0.4 * np.sin(0.7 * np.arange(1, 7))


def pinocchio_inverse():
    import pinocchio as pin

    # Pinocchio carries a continuous joint as (cos, sin): revolute joints with limits of
    # data only (urdfdom asks effort and velocity of every limit) give it the angles
    text = URDF.read_text().replace(
        '<axis xyz="0 0 1"/>',
        '<axis xyz="0 0 1"/><limit lower="-1e3" upper="1e3" effort="0" velocity="0"/>',
    ).replace('type="continuous"', 'type="revolute"')
    model = pin.buildModelFromXML(text)
    data = model.createData()
    q0 = q_start()
    tau_g = pin.rnea(model, data, q0, np.zeros(6), np.zeros(6)).copy()
    instants = 20000
    start = time.perf_counter()
    for k in range(instants):
        q, v, a = motion(k * 1e-4)
        pin.rnea(model, data, q, v, a)
    per = (time.perf_counter() - start) / instants
    # the loop's own cost (the motion's numpy arithmetic), to subtract
    start = time.perf_counter()
    for k in range(instants):
        motion(k * 1e-4)
    own = (time.perf_counter() - start) / instants
    return tau_g, per, own


def mujoco_model():
    import mujoco

    # continuous joints: unlimited hinges
    return mujoco.MjModel.from_xml_string(URDF.read_text())


def mujoco_inverse():
    import mujoco

    m = mujoco_model()
    d = mujoco.MjData(m)
    d.qpos[:] = q_start()
    d.qvel[:] = 0
    d.qacc[:] = 0
    mujoco.mj_inverse(m, d)
    tau_g = d.qfrc_inverse.copy()
    instants = 20000
    start = time.perf_counter()
    for k in range(instants):
        q, v, a = motion(k * 1e-4)
        d.qpos[:] = q
        d.qvel[:] = v
        d.qacc[:] = a
        mujoco.mj_inverse(m, d)
    per = (time.perf_counter() - start) / instants
    return tau_g, per


def mujoco_fall(h):
    import mujoco

    m = mujoco_model()
    m.opt.integrator = mujoco.mjtIntegrator.mjINT_RK4
    m.opt.timestep = h
    d = mujoco.MjData(m)
    d.qpos[:] = q_start()
    d.qvel[:] = 0
    steps = int(round(5.0 / h))
    start = time.perf_counter()
    for _ in range(steps):
        mujoco.mj_step(m, d)
    return time.perf_counter() - start, d.qpos.copy()


def main():
    g = ours("gravity")
    tau_ours = np.array(g["tau"])
    tau_pin, pin_per, loop_own = pinocchio_inverse()
    tau_mj, mj_per = mujoco_inverse()
    scale = np.abs(tau_ours).max()
    d_pin = np.abs(tau_pin - tau_ours).max() / scale
    d_mj = np.abs(tau_mj - tau_ours).max() / scale
    print(f"gravity torques at the start: |pin - ours| {d_pin:.1e}, |mujoco - ours| {d_mj:.1e} (of {scale:.2f} N m)")
    assert d_pin < 1e-9 and d_mj < 1e-9, "the peers' arm is not the toolkit's"
    inv = ours("inverse")["seconds_per_instant"]
    print("\ninverse dynamics along the bundled motion, per instant")
    print(f"  toolkit Tree::rnea (Rust)            {inv * 1e6:8.2f} us")
    print(f"  Pinocchio rnea (Python loop)         {pin_per * 1e6:8.2f} us  (of which the loop's numpy {loop_own * 1e6:.2f} us)")
    print(f"  MuJoCo mj_inverse (Python loop)      {mj_per * 1e6:8.2f} us")

    reference = np.array(ours("fall", "1e-13")["q"])
    rows = []
    for tol in ["1e-6", "1e-8", "1e-10", "1e-12"]:
        r = ours("fall", tol)
        rows.append(("toolkit DOP853", f"tol {tol}", r["seconds"], np.abs(np.array(r["q"]) - reference).max()))
    for h in [4e-3, 2e-3, 1e-3, 5e-4, 2.5e-4, 1.25e-4]:
        secs, q = mujoco_fall(h)
        rows.append(("MuJoCo RK4", f"h {h:g}", secs, np.abs(q - reference).max()))
    print("\nfree PUMA 560, 5 s from the bundled start at rest: error at t = 5 (rad) against seconds")
    for engine, setting, secs, err in rows:
        print(f"  {engine:16s} {setting:12s} {secs:9.4f} s   {err:.2e}")
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

        fig, ax = plt.subplots(figsize=(6, 4))
        for engine, marker in [("toolkit DOP853", "o-"), ("MuJoCo RK4", "s-")]:
            pts = [(s, e) for (n, _, s, e) in rows if n == engine]
            ax.loglog([p[0] for p in pts], [p[1] for p in pts], marker, label=engine)
        ax.set_xlabel("seconds for 5 s of motion")
        ax.set_ylabel("max joint-angle error at t = 5 (rad)")
        ax.set_title("free PUMA 560: error against time")
        ax.grid(True, which="both", alpha=0.3)
        ax.legend()
        fig.tight_layout()
        fig.savefig(ROOT / "benches" / "joint_space_peers.png", dpi=110)
        print("\nwrote benches/joint_space_peers.png")
    except ImportError:
        print("\n(matplotlib not installed: no plot)")


if __name__ == "__main__":
    main()
