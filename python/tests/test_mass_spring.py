"""The mass–spring course API: the course's examples verbatim, against the Rust
`MassSpringSystem` and against physics (rod lengths, energy, rotation)."""

import json
import math
import re
import subprocess

import numpy as np
import pytest

import lagrangian
from lagrangian import mass_spring as ms


def test_the_course_example_verbatim_equals_the_rust_system(course_example):
    # §5.1 of the course text, as written there
    mss = ms.MassSpringSystem3d()
    mss.gravity = [0, -9.81, 0]

    # build a simple chain
    f = mss.add(ms.Fix([0,0,0]))
    m1 = mss.add(ms.Mass(1.0, [1,0,0]))
    m2 = mss.add(ms.Mass(1.0, [2,0,0]))

    mss.add(ms.Spring(1.0, 20.0, [f, m1]))
    mss.add(ms.Spring(1.0, 20.0, [m1, m2]))

    # optional constraint between m1 and m2
    mss.add(ms.DistanceConstraint(1.0, [m1, m2]))

    # run the simulation
    mss.simulate(tend=5, steps=500)

    rust = json.loads(subprocess.run([course_example], capture_output=True, check=True, text=True).stdout)
    assert mss.t == rust["t"] == 5.0
    for m, pos, vel in zip(mss.masses, rust["positions"], rust["velocities"]):
        assert np.allclose(m.pos, pos, rtol=0, atol=1e-12)
        assert np.allclose(m.vel, vel, rtol=0, atol=1e-12)
    assert abs(mss.constraint_forces[0] - rust["constraint_forces"][0]) < 1e-9
    # the rod keeps its length; the lists and the printout tell what the system holds
    p1, p2 = (np.array(m.pos) for m in mss.masses)
    assert abs(np.linalg.norm(p2 - p1) - 1.0) < 1e-10
    assert [len(mss.fixes), len(mss.masses), len(mss.springs), len(mss.constraints)] == [1, 2, 2, 1]
    assert mss.springs[1].connectors == [m1, m2] and mss.springs[0].stiffness == 20.0
    assert mss.constraints[0].length == 1.0
    text = str(mss)
    assert text.startswith("MassSpringSystem3d: 1 fix, 2 masses, 2 springs, 1 constraint")
    assert "mass 1: m = 1" in text and "force =" in text


def test_a_rigid_pendulum_swings_on_its_circle_with_the_exact_tension_at_the_bottom():
    # the course's constraint notebook: positional simulate(tend, steps)
    mss = ms.MassSpringSystem3d()
    mss.gravity = [0, -9.81, 0]
    fix = mss.add(ms.Fix([0,0,0]))
    m   = mss.add(ms.Mass(1.0, [1,0,0]))
    mss.add(ms.DistanceConstraint(1.0, [fix, m]))
    # released horizontally at rest it reaches the bottom after a quarter period,
    # K(1/√2) √(ℓ/g), where v² = 2 g ℓ and the rod pulls with 3 m g
    quarter = 1.8540746773013719 * math.sqrt(1.0 / 9.81)
    mss.simulate(quarter, 6000)
    pos = np.array(mss.masses[0].pos)
    assert abs(np.linalg.norm(pos) - 1.0) < 1e-10
    assert np.allclose(pos, [0, -1, 0], atol=1e-4)
    assert np.allclose(mss.masses[0].vel, [-math.sqrt(2 * 9.81), 0, 0], atol=1e-3)
    assert abs(mss.constraint_forces[0] - 3 * 9.81) < 1e-3


def test_a_hanging_chain_settles_where_its_springs_carry_its_weight():
    # the course's chain notebook, with axial damping so it comes to rest
    mss = ms.MassSpringSystem3d()
    mss.gravity = [0, -9.81, 0]
    fix = mss.add(ms.Fix([0,0,0]))
    m_prev = fix
    for i in range(10):
        m = mss.add(ms.Mass(1.0, [0, -i-1, 0]))
        mss.add(ms.Spring(1.0, 20, [m_prev, m], damping=40.0))
        m_prev = m
    mss.simulate(60.0, 6000)
    # spring j (from the top) carries the weight of the 10 − j masses below it
    ys = [0.0] + [m.pos[1] for m in mss.masses]
    for j in range(10):
        stretch = ys[j] - ys[j + 1] - 1.0
        assert abs(20 * stretch - (10 - j) * 9.81) < 1e-6, (j, stretch)


def test_a_spinning_ring_keeps_its_angular_momentum():
    # the course's kreisel: masses on a circle joined by springs, set spinning
    mss = ms.MassSpringSystem3d()
    N, R, omega = 12, 1.0, 3.0
    masses = []
    for i in range(N):
        angle = 2*np.pi*i/N
        p = [R*np.cos(angle), R*np.sin(angle), 0]
        m = mss.add(ms.Mass(0.1, p))
        masses.append(m)
    for i in range(N):
        mss.add(ms.Spring(1.0, 100.0, [masses[i], masses[(i+1)%N]]))
    for mass in mss.masses:
        x, y, _ = mass.pos
        mass.vel = [-omega * y, omega * x, 0]

    def lz():
        return sum(0.1 * (m.pos[0] * m.vel[1] - m.pos[1] * m.vel[0]) for m in mss.masses)

    # internal central forces keep the angular momentum; generalized-α (ρ∞ = 0.8) damps the
    # springs' fast vibration a little and keeps L to 2e-4 here
    l0 = lz()
    mss.simulate(2.0, 2000)
    assert abs(lz() - l0) < 1e-3 * abs(l0)
    # the springs (rest length 1, spacing 0.52) push the ring out of shape: it has moved
    radius = [math.hypot(m.pos[0], m.pos[1]) for m in mss.masses]
    assert max(radius) - min(radius) > 0.1
    assert mss.t == 2.0


def test_a_planar_system_and_a_chain_element():
    mss = ms.MassSpringSystem2d()
    mss.gravity = [0, -9.81]
    top = mss.add(ms.Fix([0, 0]))
    links = mss.add(ms.Chain(top, [3, 0], 3, 0.5, 200.0))
    assert [c.kind for c in links] == ["mass"] * 3 and [c.index for c in links] == [0, 1, 2]
    assert np.allclose(mss.masses[2].pos, [3, 0])
    mss.simulate(1.0, 200)
    assert mss.masses[2].pos[1] < -0.5
    assert mss.dimension == 2 and len(mss.springs) == 3


def test_mistakes_are_reported_as_python_errors():
    mss = ms.MassSpringSystem3d()
    f = mss.add(ms.Fix([0, 0, 0]))
    with pytest.raises(ValueError, match="2 components; this system is 3D"):
        mss.add(ms.Mass(1.0, [1, 0]))
    with pytest.raises(ValueError, match="positive"):
        ms.Mass(-1.0, [1, 0, 0])
    with pytest.raises(IndexError, match=r"Connector\(mass, 5\) is not in this system"):
        other = ms.MassSpringSystem3d()
        for _ in range(6):
            last = other.add(ms.Mass(1.0, [0, 0, 0]))
        mss.add(ms.Spring(1.0, 1.0, [f, last]))
    with pytest.raises(TypeError, match="cannot add a str"):
        mss.add("spring")
    with pytest.raises(ValueError, match="gravity has 2 components"):
        mss.gravity = [0, 1]
    with pytest.raises(lagrangian.LagrangianError, match="steps"):
        m = mss.add(ms.Mass(1.0, [1, 0, 0]))
        mss.simulate(1.0, 0)
    # bad elements are refused when made or added, and the system stays usable
    f2 = mss.add(ms.Fix([0, 2, 0]))
    for make, text in [
        (lambda: ms.Spring(1.0, -5.0, [f, m]), "Spring: the stiffness must be finite and at least 0"),
        (lambda: ms.Spring(float("nan"), 5.0, [f, m]), "Spring: the length must be finite"),
        (lambda: ms.Spring(1.0, 5.0, [m, m]), "both ends are Connector(mass, 0)"),
        (lambda: ms.Spring(1.0, 5.0, [f, f2]), "both ends are fixed points"),
        (lambda: ms.DistanceConstraint(0.0, [f, m]), "the length must be finite and above 0"),
        (lambda: ms.Chain(f, [0, -3, 0], 0, 1.0, 10.0), "n must be at least 1"),
        (lambda: ms.Chain(f, [0, -3, 0], 3, -1.0, 10.0), "Chain: the mass must be finite and above 0"),
        (lambda: mss.add(ms.Chain(f, [0, 0, 0], 3, 1.0, 10.0)), "its end is where it starts"),
    ]:
        with pytest.raises(ValueError, match=re.escape(text)):
            make()
    mss.add(ms.Spring(1.0, 5.0, [f, m]))
    mss.simulate(0.1, 10)
    assert mss.t == pytest.approx(0.1)
    # generalized-α's ρ∞ on the system
    assert mss.rho_inf == 0.8
    mss.rho_inf = 0.5
    assert mss.rho_inf == 0.5
    with pytest.raises(ValueError, match=re.escape("rho_inf = 1: it must lie in [0, 1)")):
        mss.rho_inf = 1.0
    mss.simulate(0.1, 10)


def test_frame_by_frame_simulate_goes_on_as_one_run():
    # the course animates by calling simulate once per frame: 500 frames equal one long call
    def swinging():
        mss = ms.MassSpringSystem2d()
        mss.gravity = [0, -9.81]
        o = mss.add(ms.Fix([0, 0]))
        a = mss.add(ms.Mass(1.0, [0.6, -0.8], [0.5, 0.0]))
        b = mss.add(ms.Mass(0.5, [1.2, -1.6]))
        mss.add(ms.DistanceConstraint(1.0, [o, a]))
        mss.add(ms.Spring(1.0, 80.0, [a, b]))
        return mss

    def state(mss):
        return np.array([m.pos + m.vel for m in mss.masses])

    once, frames = swinging(), swinging()
    once.simulate(10.0, 1000)
    for _ in range(500):
        frames.simulate(0.02, 2)
    assert abs(frames.t - 10.0) < 1e-12
    assert np.max(np.abs(state(once) - state(frames))) < 1e-12
    # a system changed between frames starts afresh from its new state; so does reset()
    frames.masses[1].vel = [0.1, 0.0]
    frames.simulate(0.02, 2)
    frames.reset()
    frames.simulate(0.02, 2)
    assert abs(frames.t - 10.04) < 1e-12


def test_a_recorded_trajectory_is_one_run_over_the_frames():
    def swinging():
        mss = ms.MassSpringSystem2d()
        mss.gravity = [0, -9.81]
        o = mss.add(ms.Fix([0, 0]))
        a = mss.add(ms.Mass(1.0, [0.6, -0.8], [0.5, 0.0]))
        b = mss.add(ms.Mass(0.5, [1.2, -1.6]))
        mss.add(ms.DistanceConstraint(1.0, [o, a]))
        mss.add(ms.Spring(1.0, 80.0, [a, b]))
        return mss

    off = swinging()
    off.simulate(0.1, 10)
    assert off.record is False and off.trajectory is None
    once, frames = swinging(), swinging()
    once.record = frames.record = True
    once.simulate(2.0, 200)
    for _ in range(100):
        frames.simulate(0.02, 2)
    a, b = once.trajectory, frames.trajectory
    # every step once, the start included: 201 rows at h = 0.01
    assert a["t"].shape == (201,) and a["pos"].shape == (201, 2, 2) and a["vel"].shape == (201, 2, 2)
    assert np.allclose(np.diff(a["t"]), 0.01, rtol=0, atol=1e-12)
    for key in ("t", "pos", "vel", "kinetic", "potential"):
        assert b[key].shape == a[key].shape, key
        assert np.max(np.abs(a[key] - b[key])) < 1e-10, key
    # the last row is the system's state; the energy is the run's (no damping: nearly constant)
    assert np.array_equal(b["pos"][-1], np.array([m.pos for m in frames.masses]))
    energy = a["kinetic"] + a["potential"]
    assert np.ptp(energy) < 1e-2 * abs(energy[0])
    # reset starts a new trajectory; record = False drops it
    frames.reset()
    frames.simulate(0.1, 10)
    assert frames.trajectory["t"].shape == (11,) and abs(frames.trajectory["t"][0] - 2.0) < 1e-12
    frames.record = False
    assert frames.trajectory is None


def test_the_recorded_motion_is_an_offline_animation_page(tmp_path):
    mss = ms.MassSpringSystem3d()
    mss.gravity = [0, -9.81, 0]
    f = mss.add(ms.Fix([0, 0, 0]))
    chain = mss.add(ms.Chain(f, [2, 0, 0], 4, 0.1, 200.0))
    with pytest.raises(ValueError, match="record = True"):
        mss.animation_html()
    assert mss._repr_html_().startswith("<pre>")  # nothing to play yet: the system's text
    mss.record = True
    for _ in range(20):
        mss.simulate(0.02, 2)
    scene = json.loads(mss.scene())
    names = {p["name"]: p for p in scene["points"]}
    assert set(names) == {"F0", "m0", "m1", "m2", "m3"} and names["F0"]["kind"] == "fixed"
    assert names["m2"]["columns"] == ["m2.x", "m2.y", "m2.z"] and len(scene["links"]) == 4
    page = mss.animation_html(trails=["m3"])
    assert page.startswith("<!DOCTYPE html>") and '"m3"' in page and len(chain) == 4
    path = mss.animate(tmp_path / "chain.html")
    assert open(path, encoding="utf-8").read() == mss.animation_html()
    assert 'srcdoc="' in mss._repr_html_()


def test_a_constant_force_stretches_a_spring_as_the_closed_form_says():
    # a mass on a spring pulled by a constant force from rest: x = 1 + F/k (1 − cos ωt)
    mss = ms.MassSpringSystem2d()
    f = mss.add(ms.Fix([0, 0]))
    m = mss.add(ms.Mass(1.0, [1, 0]))
    mss.add(ms.Spring(1.0, 100.0, [f, m]))
    assert mss.add(ms.Force(m, [2.0, 0.0])) == 0
    mss.simulate(0.5, 5000)
    assert abs(mss.masses[0].pos[0] - (1 + 0.02 * (1 - math.cos(10 * 0.5)))) < 1e-6
    assert abs(mss.masses[0].pos[1]) < 1e-15
    with pytest.raises(ValueError, match="fixed point, which a force cannot move"):
        ms.Force(f, [1.0, 0.0])
    space = ms.MassSpringSystem3d()
    bob = space.add(ms.Mass(1.0, [1, 0, 0]))
    with pytest.raises(ValueError, match="2 components; this system is 3D"):
        space.add(ms.Force(bob, [1.0, 0.0]))


def test_check_jacobian_finds_a_wrong_hand_derived_derivative():
    # the course's exercise: ∂F/∂x of a mass on a spring to a fixed point, derived by hand,
    # F = −k (|d| − L) d/|d| + m g with d = x − x_fix
    mss = ms.MassSpringSystem2d()
    mss.gravity = [0, -9.81]
    f = mss.add(ms.Fix([0, 0]))
    m = mss.add(ms.Mass(1.0, [0.6, -0.8]))
    k, length = 100.0, 0.5
    mss.add(ms.Spring(length, k, [f, m]))
    mss.simulate(0.05, 10)
    # the toolkit's own hand kernels agree with forward AD to round-off
    own = mss.check_jacobian()
    assert own["relative"] < 1e-12, own
    d = np.array(mss.masses[0].pos)
    r = np.linalg.norm(d)
    e = d / r
    exact = -k * (np.outer(e, e) + (1 - length / r) * (np.eye(2) - np.outer(e, e)))
    good = mss.check_jacobian(exact)
    assert good["block"] == "forces" and good["relative"] < 1e-12, good
    # the classic slip: the geometric part forgotten (only k e eᵀ)
    wrong = -k * np.outer(e, e)
    bad = mss.check_jacobian(wrong)
    assert bad["relative"] > 0.1 and bad["row"] in ("m0.x", "m0.y"), bad
    assert abs(bad["max_difference"] - np.abs(wrong - exact).max()) < 1e-9
    with pytest.raises(lagrangian.LagrangianError, match="must be 2 × 2"):
        mss.check_jacobian(np.zeros((3, 3)))
