"""Bodies and joints built from Python (`lagrangian.Multibody`, issue 38 item 2): the file's
problem and run to the bit, the closed-form physics of a body on a joint, drives and forces
along joint coordinates, a mechanism that travels to other processes, and every mistake named
where it is made."""

import math
import pickle
import subprocess

import numpy as np
import pytest

import lagrangian
from lagrangian import JOINT_TYPES, MechanismError, Multibody

G = 9.81

ARM_FILE = """Dimension: 2
PartData:
  Bodies:
    Upper: { mass: 1.5, com: [0.4, 0.05], inertia: 0.08, markers: { Elbow: [0.9, 0] } }
    Lower: { mass: 0.7, com: [0.3, 0], inertia: 0.02, markers: { Tip: [0.6, 0] } }
  Joints:
    shoulder: { type: revolute, bodies: [ground, Upper], initial: -1 }
    elbow: { type: revolute, bodies: [Upper, Lower], parent: { at: [0.9, 0] }, initial: 1.3 }
AppliedForces: { Gravity: }
ProblemData: { tend: 1 }
SolverParams: { tol: 1e-10 }
"""


def planar_arm() -> Multibody:
    """docs/yaml.md's planar arm of two bodies, from Python."""
    return (
        Multibody(dim=2, t_end=1.0)
        .body("Upper", 1.5, com=[0.4, 0.05], inertia=0.08, markers={"Elbow": [0.9, 0.0]})
        .body("Lower", 0.7, com=np.array([0.3, 0.0]), inertia=0.02,
              markers={"Tip": (0.6, 0)})
        .joint("shoulder", "revolute", "ground", "Upper", initial=-1.0)
        .joint("elbow", "revolute", "Upper", "Lower", parent_frame={"at": [0.9, 0]},
               initial=1.3)
        .yaml("SolverParams: { tol: 1e-10 }")
    )


def test_the_builder_gives_the_files_problem_and_run(cli, tmp_path):
    built = planar_arm().problem()
    assert built.coordinates == lagrangian.load(ARM_FILE).coordinates
    a = lagrangian.load(ARM_FILE).run()
    b = built.run()
    assert a.columns == b.columns
    for name in ["Lower.Tip.x", "Lower.Tip.y", "shoulder", "elbow", "elbow.v"]:
        assert a[name][-1] == b[name][-1], name
    # the file it writes runs on the command line to the same end
    path = tmp_path / "arm.yaml"
    planar_arm().save(path)
    subprocess.run([cli, "run", path, "--out", tmp_path / "out", "--format", "npy"], check=True,
                   capture_output=True)
    assert lagrangian.open_run(tmp_path / "out")["Lower.Tip.y"][-1] == b["Lower.Tip.y"][-1]


def rod(m: float, length: float, angle: float) -> Multibody:
    """A rod of mass `m` hinged at one end about the world's −y axis, in space."""
    end = m * length * length / 12.0
    axis = {"z": [0.0, -1.0, 0.0]}
    return (
        Multibody(dim=3)
        .body("Rod", m, com=[length / 2, 0, 0], inertia=np.diag([1e-6, end, end]),
              markers={"Tip": [length, 0, 0]})
        .joint("hinge", "revolute", "ground", "Rod", parent_frame=axis, child_frame=axis,
               initial=angle)
    )


def test_a_rod_on_a_revolute_joint_has_the_compound_pendulum_frequency():
    m, length = 2.0, 1.2
    report = rod(m, length, -math.pi / 2).problem().modes()
    assert report["max_acceleration"] < 1e-10
    (mode,) = report["modes"]
    d = length / 2
    w = math.sqrt(m * G * d / (m * length**2 / 12 + m * d * d))
    assert abs(mode["omega"] - w) < 1e-10 * w


def test_a_driven_hinge_over_three_turns_takes_the_gravity_torque():
    # turned at w = 2 rad/s from the horizontal: θ = w t, so the drive's torque balances
    # gravity alone, τ = m g d cos θ
    m, length, w = 2.0, 1.2, 2.0
    mech = (
        rod(m, length, 0.0)
        .parameter("w", w)
        .drive("motor", "hinge", "w*t")
        .yaml("Output: { dt: 0.05 }\nSolverParams: { tol: 1e-10 }")
    )
    r = mech.problem().run(t_end=3 * 2 * math.pi / w)
    assert np.abs(r["hinge"] - w * r.t).max() < 1e-9
    tau = m * G * length / 2 * np.cos(r["hinge"])
    assert np.abs(r["drive:motor"] - tau).max() < 1e-6 * m * G * length / 2
    # a parameter of the builder is one of the problem's
    assert mech.problem(set={"w": 1.0}).parameters["w"] == 1.0


def test_a_joint_spring_and_a_gear_from_python():
    # two wheels on parallel axles coupled by a gear b = -2 a, the first held by a torsion
    # spring: one mode, ω² = k / (I_a + 4 I_b)
    k, ia, ib = 3.0, 0.5, 0.1
    z = {"z": [0, 0, 1]}
    mech = (
        Multibody(dim=3, gravity=[0, 0, 0], parameters={"k": k})
        .body("A", 1.0, inertia=[0.3, 0.3, ia], position=[0, 0, 0])
        .body("B", 1.0, inertia=(0.06, 0.06, ib), position=[1, 0, 0])
        .joint("a", "revolute", "ground", "A", parent_frame=z, child_frame=z, initial=0.1)
        .joint("b", "revolute", "ground", "B", parent_frame={"at": [1, 0, 0], **z},
               child_frame=z, initial=-0.2)
        .gear("mesh", "a", "b", ratio=-2.0)
        .force("a", "-k*a")
    )
    (mode,) = mech.problem().modes()["modes"]
    w = math.sqrt(k / (ia + 4 * ib))
    assert abs(mode["omega"] - w) < 1e-9 * w


def test_bodies_in_space_run_in_joint_coordinates():
    # one coordinate per revolute joint (a tree of bodies), not ten per body
    mech = (
        Multibody(t_end=1.0)
        .body("Upper", 1.0, com=[0.5, 0, 0], inertia=[0.01, 0.1, 0.1])
        .body("Lower", 0.5, com=[0.4, 0, 0], inertia=[0.01, 0.05, 0.05])
        .joint("shoulder", "revolute", "ground", "Upper", initial=0.3)
        .joint("elbow", "revolute", "Upper", "Lower", parent_frame={"at": [1, 0, 0]})
    )
    assert mech.problem().coordinates == ["shoulder", "elbow"]


def test_a_hinge_started_at_a_rate_turns_at_it():
    # gravity along the axle: no torque, so the wheel keeps its rate
    mech = (
        Multibody(t_end=2.0)
        .body("W", 1.0, inertia=[0.1, 0.1, 0.2])
        .joint("axle", "revolute", "ground", "W", initial=0.0, rate=3.0)
        .yaml("SolverParams: { tol: 1e-11 }")
    )
    r = mech.problem().run()
    assert abs(r["axle"][-1] - 6.0) < 1e-9
    assert abs(r["axle.v"][-1] - 3.0) < 1e-9
    with pytest.raises(MechanismError, match="joint 'axle': 2 rates for its 1 coordinates"):
        Multibody().body("W", 1.0).joint("axle", "revolute", "ground", "W",
                                          rate=[1, 2]).problem()


def test_a_built_problem_pickles_as_its_file():
    problem = rod(1.0, 1.0, -1.0).problem(set={})
    again = pickle.loads(pickle.dumps(problem))
    assert again.text == problem.text and again.coordinates == problem.coordinates
    a, b = problem.run(t_end=0.5), again.run(t_end=0.5)
    assert np.array_equal(a["hinge"], b["hinge"])


def test_a_built_problem_holds_its_own_copy_of_the_builder():
    # built from the builder's values: later calls on the builder change neither the problem
    # nor the problems it makes for other parameter values
    mech = (
        Multibody(dim=3, gravity=[0, 0, 0], parameters={"k": 2.0})
        .body("W", 1.0, inertia=[0.3, 0.3, 0.5], position=[0, 0, 0])
        .joint("a", "revolute", "ground", "W", initial=0.1)
        .force("a", "-k*a")
    )
    problem = mech.problem()
    mech.body("Other", 1.0, inertia=[1, 1, 1]).joint("b", "revolute", "W", "Other")
    assert problem.coordinates == ["a"]
    stiffer = problem.with_parameters(k=8.0)
    assert stiffer.coordinates == ["a"] and stiffer.parameters["k"] == 8.0
    (mode,) = stiffer.modes()["modes"]
    assert abs(mode["omega"] - math.sqrt(8.0 / 0.5)) < 1e-9
    assert mech.problem().coordinates == ["a", "b"]


def test_mistakes_are_named_where_they_are_made():
    assert set(JOINT_TYPES) == {"revolute", "prismatic", "cylindrical", "spherical",
                                "universal", "planar", "fixed"}
    with pytest.raises(ValueError, match="joint j: unknown type 'hinge'; one of revolute"):
        Multibody().joint("j", "hinge", "ground", "A")
    with pytest.raises(ValueError, match=r"body A: inertia has shape \[2\]"):
        Multibody().body("A", 1.0, inertia=[1, 2])
    with pytest.raises(ValueError, match=r"body A: com has shape \[3\]; it takes \[2\]"):
        Multibody(dim=2).body("A", 1.0, com=[0, 0, 0])
    with pytest.raises(TypeError, match="body A: mass is a number"):
        Multibody().body("A", "heavy")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="must be finite"):
        Multibody().body("A", 1.0, position=[0, math.nan, 0])
    with pytest.raises(ValueError, match="unknown key.*axis; a joint frame takes"):
        Multibody().joint("j", "revolute", "ground", "A", parent_frame={"axis": [0, 0, 1]})
    with pytest.raises(ValueError, match="2 or 3 dimensions"):
        Multibody(dim=4)
    # what the file reader finds: the joint and key, at the line of the text it reads
    mech = Multibody().body("Arm", 1.0, inertia=[1, 1, 1], position=[0, 0, 0])
    mech.joint("hinge", "revolute", "ground", "Forearm")
    with pytest.raises(MechanismError) as e:
        mech.problem()
    err = e.value
    assert err.file == "multibody.yaml" and err.field == "PartData.Joints.hinge.bodies"
    assert "unknown body 'Forearm'" in str(err)
    line = mech.to_yaml().splitlines()[err.line - 1]
    assert "Forearm" in line or "bodies" in line, line
    with pytest.raises(MechanismError, match="given twice"):
        Multibody(t_end=1).yaml("ProblemData: { tend: 2 }").to_yaml()


def test_a_top_built_from_python_nutates_in_its_natural_coordinates(cli, tmp_path):
    # the heavy symmetric top as a body on a spherical joint, precessing steadily: its
    # coordinates (origin and axes) are not cyclic, the motion is steady in the frame turning
    # about z at Ω with the body spinning about its k — the nutation is Routh's ω_n
    i1, i3, th0, w, w3 = 0.8, 0.3, 0.6, 1.5, 20.0
    mgl = i3 * w3 * w - i1 * w * w * math.cos(th0)
    length = mgl / G
    k = np.array([0.0, -math.sin(th0), math.cos(th0)])
    i, j = np.array([1.0, 0.0, 0.0]), np.array([0.0, math.cos(th0), math.sin(th0)])
    omega = w * np.array([0.0, 0.0, 1.0]) + (w3 - w * math.cos(th0)) * k
    side = i1 - length**2
    top = (
        Multibody(title="heavy top")
        .body("Top", 1.0, com=[0, 0, length], inertia=[side, side, i3], position=[0, 0, 0],
              orientation={"axis": [1, 0, 0], "angle": th0}, velocity=[0, 0, 0],
              angular_velocity=omega)
        .joint("tip", "spherical", "ground", "Top")
        .yaml("PartData: { Coordinates: natural }")
    )
    # the axes' held velocities are ω × i, ω × j
    problem = top.problem()
    v = dict(zip(problem.coordinates, problem.check()["v"]))
    assert np.allclose([v["Top.i.x"], v["Top.i.y"], v["Top.i.z"]], np.cross(omega, i),
                       rtol=0, atol=1e-12)
    assert np.allclose([v["Top.j.x"], v["Top.j.y"], v["Top.j.z"]], np.cross(omega, j),
                       rtol=0, atol=1e-12)
    report = problem.modes(at="motion")
    frame = dict(report["moving_frame"])
    assert abs(frame["rotation about z"] - w) < 1e-10
    assert abs(frame["Top turning about its k"] - (w3 - w * math.cos(th0))) < 1e-9
    wn = math.hypot(i3 * w3 / i1 - 2 * w * math.cos(th0), w * math.sin(th0))
    (nutation,) = [r for r in report["damped"] if r["omega_n"] > 1e-3]
    assert abs(nutation["im"] - wn) < 1e-9 * wn
    # the command line on the file it writes says the same
    top.save(tmp_path / "top.yaml")
    done = subprocess.run([cli, "modes", tmp_path / "top.yaml", "--at", "motion", "--out",
                           tmp_path / "m"], check=True, capture_output=True, text=True)
    assert "steady in the frame that moves with it (rotation about z at 1.5 rad/s" in done.stdout
