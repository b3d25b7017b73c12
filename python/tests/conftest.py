"""Shared fixtures: the repository's root, the command-line tool and the Rust examples (built
with `cargo build --release` when missing)."""

import os
import pathlib
import subprocess

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
MECHANISMS = ROOT / "mechanisms"


def _built(path: pathlib.Path, *cargo_args: str) -> pathlib.Path:
    if not path.exists():
        subprocess.run(["cargo", "build", "--release", "-q", *cargo_args], cwd=ROOT, check=True)
    return path


@pytest.fixture(scope="session")
def cli() -> pathlib.Path:
    """The `lagrangian` binary."""
    return _built(ROOT / "target" / "release" / "lagrangian")


@pytest.fixture(scope="session")
def course_example() -> pathlib.Path:
    """The Rust version of the course's Python example."""
    return _built(ROOT / "target" / "release" / "examples" / "course", "--example", "course")


def read_csv(path):
    """Header and rows (as a float array) of a CSV file."""
    import numpy as np

    with open(path) as f:
        header = f.readline().strip().split(",")
    return header, np.loadtxt(path, delimiter=",", skiprows=1, ndmin=2)
