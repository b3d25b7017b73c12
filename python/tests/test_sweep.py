"""Parameter sweeps: on threads and on a Dask LocalCluster of two worker processes, each case
equal to the same run made alone; failing cases reported, not raised."""

import numpy as np
import pytest

import lagrangian
from conftest import MECHANISMS

MECHANISM0 = MECHANISMS / "mechanism0.yaml"
GRID = {"k": [100.0, 200.0, 400.0, 800.0], "m": [0.5, 1.0, 2.0, 4.0]}


def serial(problem, case, t_end):
    return problem.with_parameters(**case).run(t_end=t_end)


def check_against_serial_runs(table, problem, t_end):
    assert len(table) == 16
    for row in table.rows:
        assert row["error"] is None
        alone = serial(problem, {"k": row["k"], "m": row["m"]}, t_end)
        assert row["B.y"] == alone["B.y"][-1] and row["A.x"] == alone["A.x"][-1]
        # Mechanism0 runs its Taylor series (tol 1e-12, order 20): the same steps alone and in
        # the sweep
        assert row["steps"] == alone.summary["steps"] > 0
        assert row["energy_drift"] == alone.summary["energy_drift"]
    assert sorted(zip(table["k"], table["m"])) == sorted(
        (k, m) for k in GRID["k"] for m in GRID["m"]
    )


def test_a_sweep_on_threads_equals_the_runs_made_alone():
    problem = lagrangian.load(MECHANISM0)
    table = lagrangian.sweep(problem, GRID, end=["B.y", "A.x"], t_end=0.2, workers=4)
    check_against_serial_runs(table, problem, 0.2)
    frame = table.to_pandas()
    assert list(frame.columns[:2]) == ["k", "m"] and len(frame) == 16


def test_a_sweep_on_a_dask_local_cluster_equals_the_runs_made_alone():
    distributed = pytest.importorskip("distributed")
    problem = lagrangian.load(MECHANISM0)
    with distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None
    ) as cluster, distributed.Client(cluster) as client:
        table = lagrangian.sweep(problem, GRID, end=["B.y", "A.x"], t_end=0.2, client=client)
        workers = client.run(lambda: __import__("os").getpid())
    assert len(set(workers.values())) == 2
    check_against_serial_runs(table, problem, 0.2)


def test_a_failing_case_is_reported_in_its_row():
    problem = lagrangian.load(MECHANISM0)
    table = lagrangian.sweep(problem, {"L": [1.0, -1.0]}, end=["B.y"], t_end=0.05)
    good, bad = table.rows
    assert good["error"] is None and np.isfinite(good["B.y"])
    assert bad["error"] and "B.y" not in bad
    with pytest.raises(lagrangian.LagrangianError, match="unknown parameter.*stiffness"):
        lagrangian.sweep(problem, {"stiffness": [1.0]})
