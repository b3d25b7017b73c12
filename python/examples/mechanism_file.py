"""A mechanism file from Python: load it with a parameter changed, check it, run it in memory
and to files, read the columns, sweep a parameter, catch a file's error with its place. Run it
from the repository's root with ``python python/examples/mechanism_file.py``; ``mypy --strict``
checks it (python/tests/test_types.py)."""

import tempfile
from typing import Dict, List

import numpy as np

import lagrangian


def main() -> None:
    problem = lagrangian.load(path="mechanisms/double_pendulum.yaml", set={"m2": 0.5})
    longer = problem.with_parameters(l2=0.9)
    check = longer.check()
    print(f"{problem.title}: {check['dof']} degrees of freedom, l2 = {longer.parameters['l2']}")

    result = problem.run(t_end=1.0, method="dop853", tol=1e-8, output_dt=0.1)
    t: np.ndarray = result.t
    first = result.keys()[1]
    column: np.ndarray = result[first]
    print(f"{len(result)} rows to t = {t[-1]:.1f}; {first} ends at {column[-1]:.6f}")
    steps: int = result.summary["steps"]
    print(f"{steps} steps")

    with tempfile.TemporaryDirectory() as folder:
        on_disk = problem.run(t_end=0.5, out=folder)
        again = lagrangian.open_run(folder)
        assert np.array_equal(on_disk.data, again.data)

    cases: Dict[str, List[float]] = {"m1": [0.5, 1.0, 2.0]}
    table = lagrangian.sweep(problem, cases, end=[first], t_end=0.5, workers=2)
    assert not any(row["error"] for row in table.rows)
    print(table[first])

    try:
        lagrangian.load(text="Dimension: 2\nPartData:\n  Particles: { A: q }\n")
    except lagrangian.MechanismError as e:
        print(f"line {e.line}, column {e.column}: {e.reason}")


if __name__ == "__main__":
    main()
