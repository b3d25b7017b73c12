"""The wheel: `python/build_wheel.sh` makes an abi3 wheel that `auditwheel` tags with a
manylinux policy, and it installs into a fresh virtual environment with no Rust toolchain on
the PATH and runs a mechanism file there, giving this build's numbers. With
``LAGRANGIAN_WHEEL_ZIG=1`` the wheel is linked by zig against glibc 2.17 (`build_wheel.sh
--zig`, a second full release build: ~16 min on 2 cores, so not in CI) and must be tagged
manylinux2014 (``manylinux_2_17``)."""

import json
import os
import subprocess
import venv

import numpy as np

import lagrangian
from conftest import MECHANISMS, ROOT


def test_the_wheel_installs_without_rust_and_runs_a_mechanism_file(tmp_path):
    zig = os.environ.get("LAGRANGIAN_WHEEL_ZIG") == "1"
    built = subprocess.run(
        ["bash", str(ROOT / "python" / "build_wheel.sh"), *(["--zig"] if zig else []),
         str(tmp_path / "dist")],
        capture_output=True, text=True, timeout=3000,
    )
    assert built.returncode == 0, built.stderr[-3000:]
    wheel = built.stdout.strip().splitlines()[-1]
    name = os.path.basename(wheel)
    assert name.startswith("lagrangian-0.1.0-cp39-abi3-manylinux"), name
    said = " ".join(built.stderr.split())  # auditwheel folds its lines
    assert 'is consistent with the following platform tag: "manylinux_' in said, said[-2000:]
    if zig:
        assert "manylinux2014" in name or "manylinux_2_17" in name, name

    env_dir = tmp_path / "fresh"
    venv.EnvBuilder(with_pip=True).create(env_dir)
    bin_dir = env_dir / "bin"
    # nothing but the fresh environment on the PATH: no cargo, no rustc
    env = {"PATH": str(bin_dir), "HOME": str(tmp_path), "PIP_DISABLE_PIP_VERSION_CHECK": "1"}
    pip = subprocess.run(
        [str(bin_dir / "python"), "-m", "pip", "install", "-q", wheel],
        env=env, capture_output=True, text=True, timeout=600,
    )
    assert pip.returncode == 0, pip.stdout + pip.stderr
    script = (
        "import json, shutil, lagrangian\n"
        "assert shutil.which('cargo') is None and shutil.which('rustc') is None\n"
        f"r = lagrangian.load(path={str(MECHANISMS / 'mechanism0.yaml')!r}).run(t_end=0.2)\n"
        "print(json.dumps({'file': lagrangian._lagrangian.__file__, 'rows': len(r.t),"
        " 'Bx': float(r['B.x'][-1]), 'steps': r.summary['steps']}))\n"
    )
    ran = subprocess.run(
        [str(bin_dir / "python"), "-c", script],
        env=env, cwd=tmp_path, capture_output=True, text=True, timeout=600,
    )
    assert ran.returncode == 0, ran.stderr
    there = json.loads(ran.stdout)
    assert there["file"].startswith(str(env_dir)), there["file"]
    here = lagrangian.load(path=MECHANISMS / "mechanism0.yaml").run(t_end=0.2)
    assert there["rows"] == len(here.t) and there["steps"] == here.summary["steps"]
    assert np.float64(there["Bx"]) == here["B.x"][-1]
