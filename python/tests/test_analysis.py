"""Equilibrium and modes from Python equal the command line's equilibrium.json and modes.json,
and the closed forms."""

import json
import math
import subprocess

import numpy as np
import pytest

import lagrangian
from conftest import MECHANISMS


def test_the_equilibrium_equals_the_command_lines(cli, tmp_path):
    problem = lagrangian.load(MECHANISMS / "mechanism0.yaml")
    eq = problem.equilibrium()
    subprocess.run([cli, "equilibrium", MECHANISMS / "mechanism0.yaml", "--out", tmp_path],
                   check=True, capture_output=True)
    written = json.loads((tmp_path / "equilibrium.json").read_text())
    assert eq["stability"] == written["stability"] == "stable"
    assert np.allclose(eq["q"], written["q"], rtol=0, atol=1e-14)
    # the rod hangs straight down from O: A = (0, −L)
    q = dict(zip(eq["coordinates"], eq["q"]))
    assert abs(q["A.x"]) < 1e-10 and abs(q["A.y"] + 1.0) < 1e-10
    assert eq["residual"] <= 1e-9 * eq["force_scale"]


def test_the_modes_of_a_pendulum_and_the_refusal_of_a_bad_place():
    text = ("Dimension: 2\nPartData: { Fixed: { O: [0, 0] }, Particles: { A: 1 }, Bars: { OA: 2 } }\n"
            "AppliedForces: { Gravity: }\nProblemData: { tend: 1, positions: { A: [0, -2] } }\n")
    problem = lagrangian.load(text)
    modes = problem.modes()["modes"]
    assert len(modes) == 1 and modes[0]["kind"] == "oscillating"
    assert abs(modes[0]["omega"] - math.sqrt(9.81 / 2.0)) < 1e-12
    assert problem.modes(at="equilibrium")["at"] == "equilibrium"
    with pytest.raises(ValueError, match="'initial', 'equilibrium' or 'motion'"):
        problem.modes(at="rest")


TOP = """Dimension: 3
PhysicalParams: { I1: 0.8, I3: 0.3, th0: 0.6, W: 1.5, w3: 20, mgl: I3*w3*W - I1*W**2*cos(th0) }
PartData: { Scalars: [phi, th, psi] }
Lagrangian:
  T: I1/2*(th'**2 + phi'**2*sin(th)**2) + I3/2*(psi' + phi'*cos(th))**2
  V: mgl*cos(th)
ProblemData: { tend: 1, positions: { phi: 0, th: th0, psi: 0 }, velocities: { phi: W, psi: w3 - W*cos(th0) } }
"""


def test_a_precessing_top_nutates_at_the_closed_form_frequency(cli, tmp_path):
    # the heavy top in its Euler angles, precessing steadily: its nutation ω_n from Routh's
    # reduction, as the roots about the motion, from Python and from the command line
    i1, i3, th0, w, w3 = 0.8, 0.3, 0.6, 1.5, 20.0
    wn = math.hypot(i3 * w3 / i1 - 2 * w * math.cos(th0), w * math.sin(th0))
    problem = lagrangian.load(TOP)
    report = problem.modes(at="motion")
    assert report["at"] == "motion" and report["modes"] == []
    assert report["max_acceleration"] < 1e-12 and report["varies_along_motion"] < 1e-14
    nutation = [r for r in report["damped"] if r["omega_n"] > 1e-6]
    assert len(nutation) == 1 and abs(nutation[0]["im"] - wn) < 1e-10 * wn
    ss = problem.state_space([], ["th"], at="motion")
    assert abs(np.linalg.eigvals(ss["a"]).imag.max() - wn) < 1e-10 * wn
    path = tmp_path / "top.yaml"
    path.write_text(TOP)
    subprocess.run([cli, "modes", path, "--at", "motion", "--out", tmp_path / "m"],
                   check=True, capture_output=True)
    written = json.loads((tmp_path / "m" / "modes.json").read_text())
    assert written["damped"] == report["damped"]


def test_a_spherical_chain_rests_hanging_down_in_the_chart_the_search_ended_in(cli, tmp_path):
    # PHYS389's chain of two spherical pendulums: the search passes the pole of the angles'
    # chart, changes chart there, and reports its coordinates in the new one as the CLI does
    path = MECHANISMS / "phys389_config.toml"
    eq = lagrangian.load(path).equilibrium()
    subprocess.run([cli, "equilibrium", path, "--out", tmp_path], check=True, capture_output=True)
    written = json.loads((tmp_path / "equilibrium.json").read_text())
    assert eq["stability"] == written["stability"] == "stable"
    assert eq["coordinates"] == written["coordinates"]
    assert np.allclose(eq["q"], written["q"], rtol=0, atol=1e-12)
    g = 9.81
    assert abs(eq["potential_energy"] - (-g * (1.0 + 0.5 * 1.8))) < 1e-8
