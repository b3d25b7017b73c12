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
    with pytest.raises(ValueError, match="'initial' or 'equilibrium'"):
        problem.modes(at="rest")


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
