"""What a careful user relies on: exceptions that pickle with their class (process pools,
Dask), memory refused before it is spent (OutOfMemory, a MemoryError), runs streamed to disk,
Ctrl-C and Cancel stopping runs, sweeps and `simulate` within a second with the state left
consistent, and messages that name the Python arguments, not command-line flags."""

import os
import pickle
import signal
import threading
import time
from concurrent.futures import ProcessPoolExecutor
import multiprocessing

import numpy as np
import pytest

import lagrangian
from lagrangian import mass_spring as ms
from conftest import MECHANISMS, read_csv

MECHANISM0 = MECHANISMS / "mechanism0.yaml"
BAD = "Dimension: 2\nPartData:\n  Particles: { A: 1 }\n  Springs: { AB: [10, 1] }\n"


def test_exceptions_pickle_with_their_class_message_and_position():
    with pytest.raises(lagrangian.MechanismError) as e:
        lagrangian.load(BAD)
    err = e.value
    assert type(err).__module__ == "lagrangian" and lagrangian.LagrangianError.__module__ == "lagrangian"
    back = pickle.loads(pickle.dumps(err))
    assert type(back) is lagrangian.MechanismError and str(back) == str(err)
    assert (back.file, back.line, back.column, back.field, back.reason) == (
        "<text>", 4, 14, "PartData.Springs.AB", err.reason)
    with pytest.raises(lagrangian.LagrangianError) as e:
        lagrangian.load(MECHANISM0).run(t_end=-1)
    back = pickle.loads(pickle.dumps(e.value))
    assert type(back) is lagrangian.LagrangianError and str(back) == str(e.value)
    # a case failing in another process arrives as the same exception
    spawn = multiprocessing.get_context("spawn")
    with ProcessPoolExecutor(1, mp_context=spawn) as pool:
        with pytest.raises(lagrangian.MechanismError, match="unknown point 'B'") as e:
            pool.submit(lagrangian.load, BAD).result()
    assert e.value.line == 4 and e.value.field == "PartData.Springs.AB"


def test_a_failure_on_a_dask_worker_is_caught_as_lagrangian_error():
    distributed = pytest.importorskip("distributed")
    with distributed.LocalCluster(
        n_workers=1, threads_per_worker=1, processes=True, dashboard_address=None
    ) as cluster, distributed.Client(cluster) as client:
        future = client.submit(lagrangian.load, BAD)
        try:
            future.result()
            raise AssertionError("the bad file was accepted")
        except lagrangian.LagrangianError as err:
            assert isinstance(err, lagrangian.MechanismError) and err.line == 4


@pytest.fixture
def memory_cap():
    """At most 40 MB for a run (LAGRANGIAN_MAX_MEMORY)."""
    os.environ["LAGRANGIAN_MAX_MEMORY"] = "4e7"
    yield
    del os.environ["LAGRANGIAN_MAX_MEMORY"]


def test_a_run_too_large_for_the_address_space_raises_memory_error():
    """Under an address-space limit (RLIMIT_AS, `ulimit -v`) a run whose rows would not fit is
    refused with MemoryError before it allocates them; the interpreter lives on (it aborted
    with SIGABRT on a failed allocation before)."""
    import subprocess
    import sys

    script = f"""
import resource, lagrangian
import numpy  # mapped before the limit is measured
_, hard = resource.getrlimit(resource.RLIMIT_AS)
size = int(open('/proc/self/status').read().split('VmSize:')[1].split()[0]) * 1024
resource.setrlimit(resource.RLIMIT_AS, (size + 300_000_000, hard))
problem = lagrangian.load({str(MECHANISM0)!r})
try:
    problem.run(t_end=200.0, steps=2_000_000, method="genalpha")
    print("ran")
except MemoryError as e:
    print("MemoryError:", e)
print("alive")
"""
    env = {k: v for k, v in os.environ.items() if k != "LAGRANGIAN_MAX_MEMORY"}
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          timeout=300, env=env)
    assert done.returncode == 0, done.stderr[-2000:]
    assert "MemoryError:" in done.stdout and "address-space limit" in done.stdout, done.stdout
    assert done.stdout.strip().endswith("alive")


def test_rows_that_would_not_fit_are_refused_before_the_run_and_stream_to_disk(memory_cap, tmp_path):
    problem = lagrangian.load(MECHANISM0)
    # 200 001 rows × 25 columns: ~50 MB of rows, twice that with the array
    with pytest.raises(lagrangian.OutOfMemory) as e:
        problem.run(t_end=20.0, steps=200_000, method="genalpha")
    assert isinstance(e.value, MemoryError) and isinstance(e.value, lagrangian.LagrangianError)
    message = str(e.value)
    assert "200002 rows" in message and "copied into arrays" in message
    assert "output_every" in message and "--" not in message
    # every 100th row fits; the same run streamed to files keeps every row
    thinned = problem.run(t_end=20.0, steps=200_000, method="genalpha", output_every=100)
    assert len(thinned) == 2001
    disk = problem.run(t_end=20.0, steps=200_000, method="genalpha", out=tmp_path / "run")
    assert disk.folder == str(tmp_path / "run") and len(disk) == 200_001
    assert isinstance(disk["B.y"], np.memmap)
    assert disk.columns == thinned.columns
    assert np.array_equal(disk["B.y"][::100], thinned["B.y"])
    assert np.array_equal(disk.t[::100], thinned.t)
    assert disk.summary["steps"] == 200_000 and disk.summary["outputs"]["formats"] == ["npy"]


def test_a_run_written_to_a_folder_reads_back_as_the_run_in_memory(cli, tmp_path):
    import subprocess

    problem = lagrangian.load(MECHANISM0, set={"k": 200})
    memory = problem.run(t_end=0.5, method="genalpha", sensitivity=["k"])
    disk = problem.run(t_end=0.5, method="genalpha", sensitivity=["k"], out=tmp_path / "a",
                       formats=["npy", "csv"])
    assert disk.columns == memory.columns and np.array_equal(disk.data, memory.data)
    assert disk.sensitivity_columns == memory.sensitivity_columns
    assert np.allclose(disk.sensitivity, memory.sensitivity, rtol=1e-11, atol=1e-12)
    assert (tmp_path / "a" / "trajectory.csv").exists()
    # a folder the command line wrote, CSV only
    out = tmp_path / "cli"
    subprocess.run([cli, "run", MECHANISM0, "--set", "k=200", "--t-end", "0.5", "--integrator",
                    "genalpha", "--format", "csv", "--quiet", "--out", out], check=True)
    read = lagrangian.open_run(out)
    header, rows = read_csv(out / "trajectory.csv")
    assert read.columns == header and np.allclose(read["B.y"], memory["B.y"], rtol=1e-11, atol=1e-12)
    assert not read["B.y"].flags.writeable and not disk["B.y"].flags.writeable
    # a run kept in memory hands out each column as a contiguous, read-only float64 view of the
    # record (the array is column-major), no copy
    column = memory["B.y"]
    assert column.dtype == np.float64 and column.flags.c_contiguous and not column.flags.writeable
    assert column.base is not None and np.shares_memory(column, memory.data)
    assert memory.sensitivity[:, 0].flags.c_contiguous
    with pytest.raises(ValueError, match="out="):
        problem.run(t_end=0.1, formats=["csv"])
    # a Parquet table alone: pandas (pyarrow) reads it back bit for bit
    parquet = problem.run(t_end=0.5, method="genalpha", out=tmp_path / "pq", formats=["parquet"])
    assert sorted(os.listdir(tmp_path / "pq")) == ["scene.json", "summary.json", "trajectory.parquet"]
    assert parquet.columns == memory.columns and np.array_equal(parquet.data, memory.data)
    with pytest.raises(lagrangian.LagrangianError, match="unknown format .hdf5.: expected csv, npy or parquet"):
        problem.run(t_end=0.1, out=tmp_path / "bad", formats=["hdf5"])


def sigint_after(seconds):
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    timer = threading.Timer(seconds, lambda: os.kill(os.getpid(), signal.SIGINT))
    timer.start()
    return timer, previous


def test_ctrl_c_stops_simulate_and_leaves_the_system_at_its_last_step():
    mss = ms.MassSpringSystem2d()
    mss.gravity = [0, -9.81]
    f = mss.add(ms.Fix([0, 0]))
    chain = mss.add(ms.Chain(f, [20, 0], 100, 0.1, 1000.0))
    assert len(chain) == 100
    timer, previous = sigint_after(0.5)
    start = time.monotonic()
    try:
        with pytest.raises(KeyboardInterrupt):
            mss.simulate(tend=1000.0, steps=10_000_000)  # minutes of work
    finally:
        timer.join()
        signal.signal(signal.SIGINT, previous)
    assert time.monotonic() - start < 2.0
    t = mss.t
    assert 0 < t < 1000.0
    ys = [m.pos[1] for m in mss.masses]
    assert all(np.isfinite(ys)) and min(ys) < -1e-3  # it was falling
    # the system goes on from where it stopped
    mss.simulate(tend=0.01, steps=10)
    assert abs(mss.t - (t + 0.01)) < 1e-12


def test_ctrl_c_stops_a_threaded_sweep_and_cancel_stops_a_run():
    problem = lagrangian.load(MECHANISM0)
    timer, previous = sigint_after(0.5)
    start = time.monotonic()
    try:
        with pytest.raises(KeyboardInterrupt):
            # four cases of ~10 s each on two threads
            lagrangian.sweep(problem, {"k": [100, 200, 300, 400]}, t_end=5000.0,
                             method="genalpha", output_every=1000, workers=2)
    finally:
        timer.join()
        signal.signal(signal.SIGINT, previous)
    assert time.monotonic() - start < 2.0
    cancel = lagrangian.Cancel()
    assert not cancel.is_set
    timer = threading.Timer(0.3, cancel.set)
    timer.start()
    start = time.monotonic()
    with pytest.raises(KeyboardInterrupt, match="cancelled"):
        problem.run(t_end=5000.0, method="genalpha", output_every=1000, cancel=cancel)
    timer.join()
    assert cancel.is_set and time.monotonic() - start < 1.5


def test_messages_name_the_python_arguments():
    problem = lagrangian.load(MECHANISM0)
    cases = [
        (dict(t_end=-1), "t_end=-1 must be finite and after t0"),
        (dict(tol=-1), "tol=-1 must lie in (0, 1)"),
        (dict(step=1e-300), "step=1e-300 must be positive"),
        (dict(steps=10, step=0.1), "give either steps or step"),
        (dict(method="dop853", steps=10), 'method="dop853" chooses its own steps'),
        (dict(method="euler"), 'method="euler": expected genalpha'),
        (dict(rho_inf=2, method="genalpha"), "rho_inf=2 must lie in [0, 1)"),
        # the file's tolerance and order run the Taylor series, where ρ∞ would do nothing
        (dict(rho_inf=0.5), "rho_inf=0.5 applies to generalized-α; this run's method is taylor"),
        (dict(output_every=2, output_dt=0.1), "give one of output_every, output_dt"),
    ]
    for options, text in cases:
        with pytest.raises(lagrangian.LagrangianError) as e:
            problem.run(**options)
        assert text in str(e.value) and "--" not in str(e.value), (options, str(e.value))
    with pytest.raises(lagrangian.MechanismError) as e:
        lagrangian.load(MECHANISM0, set={"zz": 1})
    assert "cannot set 'zz'" in str(e.value) and "--set" not in str(e.value)
