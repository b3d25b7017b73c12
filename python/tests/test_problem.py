"""Mechanism files from Python: the arrays of a run equal the command line's CSV, the check,
sensitivities, errors with their file position, pickling, pandas, the animation page, Ctrl-C."""

import os
import pickle
import signal
import subprocess
import threading
import time

import numpy as np
import pytest

import lagrangian
from conftest import MECHANISMS, read_csv

MECHANISM0 = MECHANISMS / "mechanism0.yaml"


def test_a_run_gives_the_arrays_the_command_line_writes(cli, tmp_path):
    problem = lagrangian.load(MECHANISM0, set={"k": 200})
    # sensitivities are of generalized-α's steps (the file's settings would pick Taylor)
    result = problem.run(t_end=0.5, sensitivity=["k", "L"], method="genalpha")
    out = tmp_path / "run"
    subprocess.run(
        [cli, "run", MECHANISM0, "--set", "k=200", "--t-end", "0.5", "--sensitivity", "k,L",
         "--integrator", "genalpha", "--quiet", "--out", out],
        check=True,
    )
    header, rows = read_csv(out / "trajectory.csv")
    assert result.columns == header
    assert result.data.shape == rows.shape == (501, len(header))
    # the CSV holds 13 significant digits
    assert np.allclose(result.data, rows, rtol=1e-11, atol=1e-12)
    assert np.array_equal(result.t, result["t"]) and result.t[-1] == 0.5
    # the record is read-only: a column taken out cannot change it
    with pytest.raises(ValueError, match="read-only"):
        result["B.y"][0] = 1.0
    sheader, srows = read_csv(out / "sensitivity.csv")
    assert sheader[1:] == result.sensitivity_columns
    assert np.allclose(result.sensitivity, srows[:, 1:], rtol=1e-11, atol=1e-12)
    assert "d(lambda:rigid OA)/d(L)" in result and "d(potential)/d(k)" in result.keys()
    s = result.summary
    assert s["steps"] == 500 and s["parameters"]["k"] == 200.0 and s["sensitivity"] == ["k", "L"]
    assert s["source"] == str(MECHANISM0)
    assert s["max_constraint_residual"] < 1e-10


def test_the_check_finds_the_consistent_initial_point():
    problem = lagrangian.load(MECHANISM0)
    check = problem.check()
    assert (check["dof"], check["n_coordinates"], check["n_constraints"]) == (3, 4, 1)
    # the rod OA of length L = 1 from the origin: A on the unit circle
    ax, ay = check["q"][0], check["q"][1]
    assert abs(ax * ax + ay * ay - 1.0) < 1e-12
    assert check["max_constraint_residual"] < 1e-12
    assert "degrees of freedom: 3" in str(check)
    assert problem.coordinates == ["A.x", "A.y", "B.x", "B.y"]
    assert problem.title == "Mechanism0" and problem.parameters["k"] == 500.0


def test_a_text_with_options_overrides_and_another_method():
    text = (
        "Dimension: 2\nPhysicalParams: { k: 4, m: 1 }\n"
        "PartData: { Fixed: { O: [0, 0] }, Particles: { A: m }, Springs: { OA: [k, 1] } }\n"
        "ProblemData: { tend: 1, positions: { A: [2, 0] } }\nSolverParams: { step: 1e-3 }\n"
    )
    problem = lagrangian.load(text)
    # x(t) = 1 + cos(2t): generalized-α to O(h²), RK4 to O(h⁴)
    ga = problem.run(steps=1000)
    rk = problem.run(steps=1000, method="rk4", output_every=100)
    exact = 1 + np.cos(2 * rk.t)
    assert len(rk) == 11 and np.max(np.abs(rk["A.x"] - exact)) < 1e-11
    assert abs(ga["A.x"][-1] - (1 + np.cos(2.0))) < 1e-5
    stiffer = problem.with_parameters(k=16).run(columns=["positions"])
    assert stiffer.columns == ["t", "A.x", "A.y"]
    assert abs(stiffer["A.x"][-1] - (1 + np.cos(4.0))) < 1e-4
    assert stiffer.summary["parameters"]["k"] == 16.0


def test_rows_at_requested_times_under_error_control():
    text = (
        "Dimension: 2\nPhysicalParams: { k: 4, m: 1 }\n"
        "PartData: { Fixed: { O: [0, 0] }, Particles: { A: m }, Springs: { OA: [k, 1] } }\n"
        "ProblemData: { tend: 1, positions: { A: [2, 0] } }\n"
    )
    problem = lagrangian.load(text)
    every = problem.run(tol=1e-7, output_dt=0.1)
    assert np.allclose(every.t, np.linspace(0, 1, 11), atol=1e-12)
    assert np.max(np.abs(every["A.x"] - (1 + np.cos(2 * every.t)))) < 1e-6
    assert every.summary["output_times"] == {"every": 0.1}
    listed = problem.run(tol=1e-7, output_at=[0.25, 0.5])
    assert list(listed.t) == [0.25, 0.5]
    assert listed["A.x"][1] == every["A.x"][5]
    with pytest.raises(lagrangian.LagrangianError, match="increase"):
        problem.run(output_at=[0.5, 0.25])
    # a tolerance alone: DOP853, 1000 intervals and the end; every step when asked
    dop = problem.run(tol=1e-9)
    assert dop.summary["integrator"] == "dop853" and len(dop.t) == 1001
    assert np.max(np.abs(dop["A.x"] - (1 + np.cos(2 * dop.t)))) < 1e-8
    steps = problem.run(tol=1e-9, output_every_step=True)
    assert len(steps.t) == steps.summary["steps"] + 1 < 100
    with pytest.raises(lagrangian.LagrangianError, match="chooses its own steps"):
        problem.run(method="dop853", steps=10)
    # Radau IIA on the index-3 equations: positions follow the tolerance
    radau = problem.run(tol=1e-9, method="radau")
    assert radau.summary["integrator"] == "radau" and len(radau.t) == 1001
    assert np.max(np.abs(radau["A.x"] - (1 + np.cos(2 * radau.t)))) < 1e-8


def test_a_tolerance_alone_goes_on_with_radau_where_the_mechanism_is_stiff():
    # a slow oscillator dragging a light mass on a damped spring: a mode at -1000/s
    text = (
        "Dimension: 2\n"
        "PartData:\n  Fixed: { A: [0, 0] }\n  Particles: { B: 1, C: 0.001 }\n"
        "  Springs: { AB: [1, 1], BC: { stiffness: 1, length: 1, damping: 1 } }\n"
        "ProblemData: { tend: 2, positions: { B: [1, 0], C: [2, 0] }, velocities: { B: [0.5, 0] } }\n"
    )
    problem = lagrangian.load(text)
    auto = problem.run(tol=1e-6)
    (switch,) = auto.summary["switches"]
    assert (switch["from"], switch["to"]) == ("dop853", "radau") and 0 < switch["t"] < 0.5
    assert auto.summary["integrator"] == "radau"
    named = problem.run(tol=1e-6, method="dop853")
    assert "switches" not in named.summary and named.summary["integrator"] == "dop853"
    assert any("stiff" in n for n in named.summary["notes"])
    assert auto.summary["steps"] * 3 < named.summary["steps"]
    assert np.max(np.abs(auto["C.x"] - named["C.x"])) < 1e-5


def test_mistakes_in_a_file_carry_their_position(tmp_path):
    bad = tmp_path / "bad.yaml"
    bad.write_text("Dimension: 2\nPartData:\n  Particles: { A: 1 }\n  Springs: { AB: [10, 1] }\n")
    with pytest.raises(lagrangian.MechanismError) as e:
        lagrangian.load(bad)
    err = e.value
    assert (err.file, err.line, err.column) == (str(bad), 4, 14)
    assert err.field == "PartData.Springs.AB" and "unknown point 'B'" in err.reason
    assert str(err).startswith(f"{bad}:4:14: PartData.Springs.AB: unknown point 'B'")
    assert isinstance(err, lagrangian.LagrangianError)
    with pytest.raises(lagrangian.MechanismError, match="no parameter .stiffness"):
        lagrangian.load(MECHANISM0, set={"stiffness": 1})
    # a run that cannot go on says so as a LagrangianError, not a crash
    with pytest.raises(lagrangian.LagrangianError, match="t_end=-1 must be finite"):
        lagrangian.load(MECHANISM0).run(t_end=-1)
    with pytest.raises(FileNotFoundError):
        lagrangian.load(tmp_path / "missing.yaml")
    with pytest.raises(FileNotFoundError, match="nope.yaml"):
        lagrangian.load("nope.yaml")


def test_text_and_paths_are_told_apart():
    one_line = "{Dimension: 1, PartData: {Scalars: [x]}, Lagrangian: {T: x'**2/2, V: x**2/2}, ProblemData: {tend: 1, positions: {x: 1}}}"
    assert lagrangian.load(one_line).coordinates == ["x"]
    assert lagrangian.load(text=one_line).name == "<text>"
    assert lagrangian.load(path=MECHANISM0).name == str(MECHANISM0)
    assert lagrangian.load(str(MECHANISM0)).title == "Mechanism0"
    with pytest.raises(TypeError, match="one of"):
        lagrangian.load(MECHANISM0, text=one_line)
    with pytest.raises(TypeError, match="one of"):
        lagrangian.load()


def test_problems_and_results_pickle():
    problem = lagrangian.load(MECHANISM0, set={"m": 3})
    again = pickle.loads(pickle.dumps(problem))
    assert again.parameters == problem.parameters and again.text == problem.text
    a, b = problem.run(t_end=0.1), again.run(t_end=0.1)
    assert np.array_equal(a.data, b.data)
    back = pickle.loads(pickle.dumps(a))
    assert np.array_equal(back["B.y"], a["B.y"]) and back.summary == a.summary


def test_pandas_and_the_animation_page(tmp_path):
    pd = pytest.importorskip("pandas")
    result = lagrangian.load(MECHANISM0).run(t_end=0.2, sensitivity=["k"], method="genalpha")
    frame = result.to_pandas()
    assert isinstance(frame, pd.DataFrame) and frame.index.name == "t"
    assert np.array_equal(frame["B.x"].to_numpy(), result["B.x"])
    assert "d(B.x)/d(k)" in frame.columns
    page = tmp_path / "m0.html"
    assert result.animate(page) == str(page)
    text = page.read_text()
    assert text.startswith("<!DOCTYPE html>") and "Mechanism0" in text
    assert "http://" not in text and "https://" not in text  # offline
    shown = result._repr_html_()
    assert shown.startswith("<iframe") and "srcdoc=" in shown and "&lt;script" in shown
    with pytest.raises(KeyError, match="did you mean"):
        result["B.X"]


def test_ctrl_c_stops_a_run_and_raises_keyboard_interrupt():
    problem = lagrangian.load(MECHANISM0)
    # Python's own Ctrl-C handler: a process started in the background by a non-interactive
    # shell inherits SIGINT ignored, and Python then leaves it ignored
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    timer = threading.Timer(0.5, lambda: os.kill(os.getpid(), signal.SIGINT))
    start = time.monotonic()
    timer.start()
    try:
        with pytest.raises(KeyboardInterrupt):
            # two million steps (seconds): stopped after half a second
            problem.run(t_end=2000.0, output_every=1000)
    finally:
        timer.join()
        signal.signal(signal.SIGINT, previous)
    assert time.monotonic() - start < 2.5
    # the problem is still usable
    assert problem.run(t_end=0.01)["t"][-1] == 0.01


def test_bodies_and_joints_from_a_file():
    """The PUMA 560 (Bodies by inertia, revolute Joints in Denavit–Hartenberg form, every joint
    driven): joint angles follow their drives, the drive torques at the start are those of a
    recursive Newton–Euler computation (tests/mechanics/joints.rs), and a joint coordinate
    takes a keyword override like any coordinate's column."""
    problem = lagrangian.load(MECHANISMS / "puma560.yaml")
    result = problem.run(t_end=0.05)
    t = result.t
    for i in range(1, 7):
        assert np.allclose(result[f"q{i}"], 0.4 * np.sin(1.5 * t + 0.7 * i), atol=1e-12)
    # torques at t = 0 by recursive Newton–Euler (N·m)
    rne = [-1.0971040, 26.773222, -6.1135100, -1.3550e-3, -1.8323e-2, 1.1e-5]
    for i, want in enumerate(rne, start=1):
        assert abs(result[f"drive:q{i}"][0] - want) < 2e-6, (i, result[f"drive:q{i}"][0])
    # markers are points of the result: each marks the origin of the link frame before it
    for marker, origin in [("Link2.Shoulder", "Link1"), ("Link3.Elbow", "Link2"),
                           ("Link4.Forearm", "Link3")]:
        for c in "xyz":
            assert np.allclose(result[f"{marker}.{c}"], result[f"{origin}.{c}"], atol=1e-12)
    # the links drawn as their shapes, with their axes when asked for (tests/browser.rs
    # checks the drawing in a browser)
    page = result.animation_html(fps=10)
    assert '"posed":[{"name":"Link1"' in page and '"show_frames":false' in page
    assert '"show_frames":true' in result.animation_html(fps=10, frames=True)


def test_columns_of_ones_own():
    """``columns=`` takes expressions ``name = text`` beside the groups: the PUMA's first link
    turns about the base z axis by q1 = 0.4 sin(1.5 t + 0.7), so its angular velocity is
    (0, 0, q1') and its intrinsic ZYX angles are (q1, 0, π/2) (frame 1 = Rz(q1) Rx(π/2))."""
    problem = lagrangian.load(MECHANISMS / "puma560.yaml")
    result = problem.run(t_end=0.05, columns=["positions", "w = Link1.omega",
                                              "e = euler(Link1, ZYX)"])
    t = result.t
    assert "total" not in result.columns and "q1" in result.columns
    assert np.allclose(result["w.z"], 0.6 * np.cos(1.5 * t + 0.7), atol=1e-10)
    assert np.allclose(result["w.x"], 0, atol=1e-10) and np.allclose(result["w.y"], 0, atol=1e-10)
    assert np.allclose(result["e.1"], result["q1"], atol=1e-12)
    assert np.allclose(result["e.2"], 0, atol=1e-12)
    assert np.allclose(result["e.3"], np.pi / 2, atol=1e-12)
    with pytest.raises(lagrangian.LagrangianError, match="not a body"):
        problem.run(t_end=0.01, columns=["q = quaternion(Nothing)"])


SPRING = ("Dimension: 2\nPhysicalParams: { k: 3, c: 0.1, m: 1 }\n"
          "PartData: { Fixed: { O: [0, 0] }, Particles: { A: m }, Springs: { OA: [k, 1, 0, c] } }\n"
          "ProblemData: { tend: 1, positions: { A: [2, 0.5] } }\nSolverParams: { step: 1e-3 }\n")


def test_fit_to_a_measured_run(tmp_path):
    """``Problem.fit`` finds the stiffness and damping of a run made with other values, from
    arrays (a dict; NaN is no target) or from a CSV file, as ``lagrangian fit`` does."""
    problem = lagrangian.load(text=SPRING)
    measured = problem.with_parameters(k=4, c=0.3).run()
    idx = slice(50, None, 50)
    ay = measured["A.y"][idx].copy()
    ay[::2] = np.nan
    r = problem.fit(["k", "c"], {"t": measured.t[idx], "A.x": measured["A.x"][idx], "A.y": ay})
    assert abs(r["parameters"]["k"] - 4) < 1e-8 and abs(r["parameters"]["c"] - 0.3) < 1e-8, r
    assert r["start"] == {"k": 3.0, "c": 0.1} and r["cost"] < 1e-16 * r["initial_cost"]
    fitted = problem.with_parameters(**r["parameters"]).run()
    assert np.allclose(fitted["A.x"], measured["A.x"], atol=1e-8)
    table = tmp_path / "targets.csv"
    table.write_text("t,A.x\n" + "".join(f"{t},{x}\n" for t, x in
                                          zip(measured.t[idx], measured["A.x"][idx])))
    r = problem.with_parameters(c=0.3).fit(["k"], table)
    assert r["targets"] == 20 and abs(r["parameters"]["k"] - 4) < 1e-8, r
    with pytest.raises(lagrangian.LagrangianError, match="unknown parameter 'q'"):
        problem.fit(["q"], table)
    table.write_text("t,A.x\n0.5,one\n")
    with pytest.raises(lagrangian.LagrangianError, match="targets.csv:2:5"):
        problem.fit(["k"], table)


def test_state_space_of_a_pendulum():
    """``Problem.state_space``: a hanging pendulum (m = 2, ℓ = 0.5) pushed along x by u has
    A's eigenvalues ±i√(g/ℓ) and the bob's x answers with CAB = 1/m; an unknown output raises."""
    text = ("Dimension: 2\nPhysicalParams: { u: 0 }\nPartData: { Fixed: { O: [0, 0] }, "
            "Particles: { A: 2 }, Bars: { OA: 0.5 } }\nAppliedForces: { Gravity: , "
            "Forces: { A: [u, 0] } }\nProblemData: { tend: 1, positions: { A: [0, -0.5] } }\n")
    ss = lagrangian.load(text=text).state_space(["u"], ["A.x", "A.y"])
    assert ss["a"].shape == (2, 2) and ss["b"].shape == (2, 1) and ss["c"].shape == (2, 2)
    assert np.allclose(sorted(np.linalg.eigvals(ss["a"]).imag), [-np.sqrt(9.81 / 0.5),
                                                                  np.sqrt(9.81 / 0.5)])
    assert abs((ss["c"] @ ss["a"] @ ss["b"])[0, 0] - 0.5) < 1e-8
    assert ss["basis"].shape == (2, 1)
    with pytest.raises(lagrangian.LagrangianError, match="no column 'B.x'"):
        lagrangian.load(text=text).state_space(["u"], ["B.x"])
    # no inputs, no outputs: the empty matrices keep their shapes; the drift is 0 at rest
    ss = lagrangian.load(text=text).state_space([], [])
    assert ss["b"].shape == (2, 0) and ss["c"].shape == (0, 2) and ss["d"].shape == (0, 0)
    assert isinstance(ss["e"], np.ndarray) and np.allclose(ss["e"], 0, atol=1e-12)
    assert ss["q"].dtype == np.float64 and ss["q"].shape == (2,)


def test_reports_come_as_python_values_not_text():
    """The native layer gives dicts of Python values (no JSON text between): the summary's
    counts are ints, its figures floats, a check's coordinates a list of names."""
    problem = lagrangian.load(MECHANISM0)
    check = problem._native.check()[0]
    assert isinstance(check, dict) and {"A.x", "A.y"} <= set(check["coordinates"])
    assert isinstance(problem._native.modes("initial"), dict)
    result = problem.run(t_end=0.05)
    s = result.summary
    assert isinstance(s["steps"], int) and isinstance(s["energy_drift"], float)
    assert s["steps"] > 0 and s["t_end"] == 0.05 and isinstance(s["parameters"], dict)


def test_a_run_goes_on_from_where_it_ended(tmp_path):
    problem = lagrangian.load(MECHANISM0)
    columns = ["positions", "velocities", "multipliers", "ledger"]
    fixed = dict(method="genalpha", step=1e-3, columns=columns)
    whole = problem.run(t_end=1.0, **fixed)
    parts = [problem.run(t_end=0.25, **fixed)]
    for t in (0.5, 0.501, 1.0):
        parts.append(parts[-1].continue_run(t))
    assert [len(p.t) for p in parts] == [251, 250, 1, 499]
    data = np.concatenate([p.data for p in parts])
    assert data.shape == whole.data.shape
    scale = np.maximum(np.abs(whole.data).max(axis=0), 1.0)
    assert np.all(np.abs(data - whole.data) <= 1e-12 * scale)
    assert parts[-1].summary["steps"] == 1000 and parts[-1].summary["t0"] == 0.0
    # only the newest result goes on, and only forward
    with pytest.raises(lagrangian.LagrangianError, match="gone on since"):
        parts[1].continue_run(2.0)
    with pytest.raises(lagrangian.LagrangianError, match="forward only"):
        parts[-1].continue_run(0.5)
    # a continuation cancelled leaves the run where it stopped: the same result goes on
    cancel = lagrangian.Cancel()
    cancel.set()
    with pytest.raises(KeyboardInterrupt):
        parts[-1].continue_run(1.5, cancel=cancel)
    on = parts[-1].continue_run(1.5)
    assert on.t[0] == pytest.approx(1.001) and on.t[-1] == 1.5 and len(on.t) == 500
    # DOP853 under error control, rows every 0.05: the spans' rows at the same times as one run
    smooth = dict(tol=1e-10, output_dt=0.05)
    one = problem.run(t_end=2.0, **smooth)
    a = problem.run(t_end=0.5, **smooth)
    b = a.continue_run(2.0)
    assert np.allclose(np.concatenate([a.t, b.t]), one.t, rtol=0, atol=1e-12)
    assert np.abs(np.concatenate([a["B.x"], b["B.x"]]) - one["B.x"]).max() < 1e-7
    # a copy elsewhere, and a run written to files, do not go on
    copy = pickle.loads(pickle.dumps(b))
    with pytest.raises(lagrangian.LagrangianError, match="in memory"):
        copy.continue_run(3.0)
    written = problem.run(t_end=0.01, out=tmp_path / "run")
    with pytest.raises(lagrangian.LagrangianError, match="read from"):
        written.continue_run(0.02)
