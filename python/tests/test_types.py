"""The examples a user starts from run, and type-check with ``mypy --strict`` against the
package's annotations and the extension's stubs (overloads: ``add`` returns a ``Connector``
for a ``Fix`` or ``Mass``, an index for a ``Spring``, the connectors of a ``Chain``)."""

import subprocess
import sys

from conftest import ROOT

EXAMPLES = ROOT / "python" / "examples"


def test_the_examples_run():
    for script in sorted(EXAMPLES.glob("*.py")):
        done = subprocess.run(
            [sys.executable, str(script)], cwd=ROOT, capture_output=True, text=True, timeout=300
        )
        assert done.returncode == 0, f"{script.name}:\n{done.stdout}\n{done.stderr}"
        assert done.stdout.strip(), script.name


def test_mypy_strict_passes_on_the_examples_and_the_package(tmp_path):
    # a user's script in the course's style, with what each `add` returns used as its type
    user = tmp_path / "course.py"
    user.write_text(
        "from typing import List\n"
        "from lagrangian import mass_spring as ms\n"
        "mss = ms.MassSpringSystem3d()\n"
        "mss.gravity = [0, -9.81, 0]\n"
        "f: ms.Connector = mss.add(ms.Fix([0, 0, 0]))\n"
        "m1: ms.Connector = mss.add(ms.Mass(1.0, [1, 0, 0]))\n"
        "k: int = mss.add(ms.Spring(1.0, 20.0, [f, m1]))\n"
        "chain: List[ms.Connector] = mss.add(ms.Chain(m1, [3, 0, 0], 4, 0.1, 100.0))\n"
        "mss.simulate(tend=1, steps=100)\n"
        "x: float = mss.masses[0].pos[0]\n"
    )
    wrong = tmp_path / "wrong.py"
    wrong.write_text(
        "from lagrangian import mass_spring as ms\n"
        "mss = ms.MassSpringSystem2d()\n"
        "k: ms.Connector = mss.add(ms.Spring(1.0, 20.0, []))\n"
    )
    env = {"MYPYPATH": str(ROOT / "python"), "PATH": "/usr/bin:/bin"}
    cmd = [sys.executable, "-m", "mypy", "--strict", "--cache-dir", str(tmp_path / "cache")]
    for what in ([str(EXAMPLES), str(user)], ["-p", "lagrangian"]):
        done = subprocess.run([*cmd, *what], cwd=tmp_path, env=env, capture_output=True, text=True)
        assert done.returncode == 0, done.stdout + done.stderr
    # and the overloads do tell: a spring's index is not a connector
    done = subprocess.run([*cmd, str(wrong)], cwd=tmp_path, env=env, capture_output=True, text=True)
    assert done.returncode == 1 and "Incompatible types" in done.stdout, done.stdout


def test_the_readmes_python_runs():
    # the README's Python block, as a new user pastes it (it had gone stale once: a
    # sensitivity run under the file's own DOP853)
    text = (ROOT / "README.md").read_text()
    start = text.index("```python\nimport lagrangian\n") + len("```python\n")
    block = text[start:text.index("```", start)]
    assert "continue_run" in block and "mass_spring" in block
    done = subprocess.run(
        [sys.executable, "-c", block], cwd=ROOT, capture_output=True, text=True, timeout=600
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.strip().startswith("["), done.stdout
