"""Lagrangian mechanics of multibody systems from Python.

Mechanism files (YAML, as ``lagrangian run`` reads them) become problems; a run gives NumPy
arrays, its summary, its sensitivities and an animation that notebooks show inline::

    import lagrangian
    problem = lagrangian.load("mechanisms/mechanism0.yaml", set={"k": 200})
    print(problem.check())              # DOF, constraints, consistent initial point
    result = problem.run(t_end=2.0)
    result["B.y"]                       # a NumPy array over result.t
    result.summary["energy_drift"]
    result.animate("mechanism0.html")   # or display `result` in Jupyter

Parameter studies run in parallel threads (runs release the GIL) or on a Dask cluster::

    table = lagrangian.sweep(problem, {"k": [100, 200, 400], "m": [1, 2]}, end=["B.y"])

The mass–spring course API is :mod:`lagrangian.mass_spring`. Errors are
:class:`LagrangianError`; mistakes in a file are :class:`MechanismError` with ``file``,
``line``, ``column`` and ``field``.
"""

from __future__ import annotations

import html as _html
import itertools
import json
import os
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Dict, Iterable, List, Mapping, Optional, Sequence, Union

import numpy as np

from . import _lagrangian as _native
from ._lagrangian import LagrangianError, MechanismError, __version__

__all__ = [
    "load",
    "Problem",
    "Check",
    "Result",
    "sweep",
    "Sweep",
    "LagrangianError",
    "MechanismError",
    "__version__",
]

PathLike = Union[str, "os.PathLike[str]"]


def load(source: PathLike, set: Optional[Mapping[str, float]] = None) -> "Problem":
    """A problem from a mechanism file (a path) or its text, with ``set`` replacing parameter
    values (``{"k": 200}``, as ``--set k=200``).

    A string with a line break is the file's text; otherwise it is a path."""
    if isinstance(source, os.PathLike) or (isinstance(source, str) and "\n" not in source):
        path = os.fspath(source)
        with open(path, encoding="utf-8") as f:
            text = f.read()
        return Problem(text, name=path, set=set)
    if isinstance(source, str):
        return Problem(source, name="<text>", set=set)
    raise TypeError(f"load() takes a path or the file's text, not {type(source).__name__}")


class Problem:
    """A mechanism built from its file text, with parameter overrides.

    A problem pickles as its text, name and overrides, so it travels to other processes
    (Dask workers) and is rebuilt there."""

    def __init__(self, text: str, name: str = "<text>", set: Optional[Mapping[str, float]] = None):
        self.text = text
        self.name = name
        self.overrides: Dict[str, float] = {k: float(v) for k, v in (set or {}).items()}
        self._native = _native.Problem(text, name, list(self.overrides.items()))

    def __reduce__(self):
        return (Problem, (self.text, self.name, self.overrides))

    def __repr__(self) -> str:
        sets = "".join(f", {k}={v:g}" for k, v in self.overrides.items())
        return f"<lagrangian.Problem {self.title!r} from {self.name}{sets}>"

    @property
    def title(self) -> str:
        """The file's title."""
        return self._native.title

    @property
    def parameters(self) -> Dict[str, float]:
        """The named parameters with their values (overrides applied)."""
        return dict(self._native.parameters)

    @property
    def coordinates(self) -> List[str]:
        """The names of the generalized coordinates."""
        return list(self._native.coordinates)

    @property
    def t0(self) -> float:
        return self._native.times[0]

    @property
    def t_end(self) -> float:
        return self._native.times[1]

    @property
    def step(self) -> float:
        return self._native.times[2]

    def with_parameters(self, **values: float) -> "Problem":
        """The same file with more parameter values replaced."""
        return Problem(self.text, self.name, {**self.overrides, **values})

    def check(self) -> "Check":
        """Coordinates, constraints, degrees of freedom and the consistent initial point (as
        ``lagrangian check``). Raises :class:`LagrangianError` when there is none."""
        data, report = self._native.check()
        return Check(json.loads(data), report)

    def equilibrium(self, hold_pins: bool = False, max_iterations: int = 500) -> Dict[str, Any]:
        """The static equilibrium downhill from the guesses, as ``lagrangian equilibrium``
        writes it to ``equilibrium.json``: ``q`` with ``coordinates``, ``stability``
        (``"stable"``, ``"unstable"``, ``"neutral"``), ``hessian_eigenvalues`` on the
        constraint manifold, ``potential_energy``, ``residual``, each constraint's multipliers
        and reactions, and with ``hold_pins`` the force holding each pinned coordinate."""
        return json.loads(self._native.equilibrium(hold_pins, max_iterations, self.name))

    def modes(self, at: str = "initial") -> Dict[str, Any]:
        """The vibration modes about the consistent initial configuration (``at="initial"``)
        or the equilibrium (``"equilibrium"``), as ``lagrangian modes`` writes them to
        ``modes.json``: each mode's ``omega`` (rad/s), ``hz``, ``kind``, ``damping_ratio`` and
        ``shape``; the damped roots; point shapes."""
        return json.loads(self._native.modes(at))

    def run(
        self,
        t_end: Optional[float] = None,
        step: Optional[float] = None,
        steps: Optional[int] = None,
        output_every: Optional[int] = None,
        method: Optional[str] = None,
        rho_inf: Optional[float] = None,
        columns: Optional[Sequence[str]] = None,
        sensitivity: Optional[Sequence[str]] = None,
        tol: Optional[float] = None,
        output_dt: Optional[float] = None,
        output_at: Optional[Sequence[float]] = None,
        output_every_step: bool = False,
    ) -> "Result":
        """Integrate from consistent initial values, with ``lagrangian run``'s options:
        ``t_end`` (the step stays), ``steps`` or ``step``, ``output_every``, ``method``
        (``"genalpha"``, ``"dop853"``, ``"radau"`` or ``"rk4"``), ``rho_inf``, ``columns`` (groups: positions,
        velocities, accelerations, multipliers, reactions, momenta, energies, ledger) and
        ``sensitivity`` (parameter names: every column's derivative with respect to each) and
        ``tol`` (error control instead of a fixed step: DOP853, of order 8, unless
        ``method="genalpha"``; rows at 1000 even intervals of the span and at the end, or at
        every accepted step with ``output_every_step=True``), or ``output_dt`` / ``output_at`` (rows every ``dt`` and at the end, or at the listed
        times, interpolated between steps and projected onto the constraints).

        The GIL is released while the run goes on; Ctrl-C stops it after the current step
        and raises ``KeyboardInterrupt``."""
        names, data, summary, scene, snames, sdata = self._native.run(
            t_end=t_end,
            step=step,
            steps=steps,
            output_every=output_every,
            method=method,
            rho_inf=rho_inf,
            columns=list(columns) if columns is not None else None,
            sensitivity=list(sensitivity or []),
            source=self.name,
            tol=tol,
            output_dt=output_dt,
            output_at=list(output_at) if output_at is not None else None,
            output_every_step=output_every_step,
        )
        return Result(names, data, json.loads(summary), scene, snames, sdata)


class Check(dict):
    """What ``Problem.check`` found: ``dof``, ``n_coordinates``, ``n_constraints``, ``rank``,
    ``redundant``, ``max_constraint_residual``, the consistent ``q``, ``v``, ``qdd``,
    ``lambda``; printing shows ``lagrangian check``'s report."""

    def __init__(self, data: Dict[str, Any], report: str):
        super().__init__(data)
        self.report = report

    def __str__(self) -> str:
        return self.report.rstrip()


class Result:
    """A run's trajectory (``t``, ``columns``, ``result["B.x"]``), its ``summary`` (as
    ``summary.json``), its sensitivities (``result["d(B.x)/d(k)"]``) and its animation."""

    def __init__(self, names, data, summary, scene, sensitivity_names=(), sensitivity=None):
        self.columns: List[str] = list(names)
        self.data: np.ndarray = np.asarray(data, dtype=float)
        self.summary: Dict[str, Any] = summary
        self.scene: str = scene
        self.sensitivity_columns: List[str] = list(sensitivity_names)
        self.sensitivity: np.ndarray = (
            np.asarray(sensitivity, dtype=float)
            if sensitivity is not None
            else np.zeros((len(self.data), 0))
        )
        self._index = {n: i for i, n in enumerate(self.columns)}
        self._sindex = {n: i for i, n in enumerate(self.sensitivity_columns)}

    @property
    def t(self) -> np.ndarray:
        """The times of the rows."""
        return self.data[:, 0]

    def __getitem__(self, name: str) -> np.ndarray:
        if name in self._index:
            return self.data[:, self._index[name]]
        if name in self._sindex:
            return self.sensitivity[:, self._sindex[name]]
        near = [c for c in self.columns + self.sensitivity_columns if name.lower() in c.lower()]
        hint = f"; did you mean {', '.join(near[:5])}?" if near else ""
        raise KeyError(f"no column {name!r}{hint}")

    def __contains__(self, name: str) -> bool:
        return name in self._index or name in self._sindex

    def keys(self) -> List[str]:
        return self.columns + self.sensitivity_columns

    def __len__(self) -> int:
        return len(self.data)

    def __repr__(self) -> str:
        s = self.summary
        return (
            f"<lagrangian.Result {s.get('title', '')!r}: {len(self.data)} rows × "
            f"{len(self.columns)} columns, t = {s.get('t0')} … {s.get('t_end')}, "
            f"{s.get('steps')} steps>"
        )

    def to_pandas(self):
        """The trajectory (and sensitivities) as a pandas DataFrame indexed by ``t``."""
        try:
            import pandas as pd
        except ImportError as e:  # pragma: no cover - depends on the environment
            raise ImportError("to_pandas() needs pandas: pip install pandas") from e
        frame = pd.DataFrame(self.data, columns=self.columns)
        for name in self.sensitivity_columns:
            frame[name] = self[name]
        return frame.set_index("t")

    def animation_html(
        self,
        fps: Optional[float] = None,
        max_frames: Optional[int] = None,
        trails: Optional[Sequence[str]] = None,
        colour: Optional[str] = None,
    ) -> str:
        """The offline animation page (one HTML document, no network) of the run."""
        return _native.animation_html(
            self.scene,
            self.columns,
            np.ascontiguousarray(self.data),
            fps=fps,
            max_frames=max_frames,
            trails=list(trails) if trails is not None else None,
            colour=colour,
        )

    def animate(self, path: PathLike, **options) -> str:
        """Write the animation page to ``path`` (options as :meth:`animation_html`); the
        path."""
        page = self.animation_html(**options)
        path = os.fspath(path)
        partial = path + ".partial"
        with open(partial, "w", encoding="utf-8") as f:
            f.write(page)
        os.replace(partial, path)
        return path

    def _repr_html_(self) -> str:
        page = self.animation_html()
        return (
            '<iframe style="width:100%;height:520px;border:0" '
            f'srcdoc="{_html.escape(page, quote=True)}"></iframe>'
        )


# ---- parameter sweeps ---------------------------------------------------------------------

SUMMARY_FIELDS = (
    "steps",
    "newton_iterations",
    "solve_seconds",
    "max_constraint_residual",
    "energy_start",
    "energy_end",
    "energy_drift",
)


def _cases(grid: Mapping[str, Iterable[float]]) -> List[Dict[str, float]]:
    names = list(grid)
    values = [list(grid[n]) for n in names]
    return [dict(zip(names, combo)) for combo in itertools.product(*values)]


def _run_case(problem: Problem, case: Dict[str, float], run: Dict[str, Any], end: Sequence[str]):
    """One case of a sweep: its parameters, summary figures and end values (or its error)."""
    row: Dict[str, Any] = dict(case)
    try:
        result = problem.with_parameters(**case).run(**run)
    except LagrangianError as e:
        row["error"] = str(e)
        return row
    for field in SUMMARY_FIELDS:
        row[field] = result.summary.get(field)
    row["t_end"] = result.summary.get("t_end")
    for name in end:
        row[name] = float(result[name][-1])
    row["error"] = None
    return row


class Sweep:
    """The table of a sweep: one row per case — the parameters, the summary figures
    (:data:`SUMMARY_FIELDS`), ``t_end``, the chosen end values, and ``error`` (``None``, or
    why the case failed)."""

    def __init__(self, rows: List[Dict[str, Any]]):
        self.rows = rows

    def __len__(self) -> int:
        return len(self.rows)

    def __getitem__(self, name: str) -> np.ndarray:
        return np.array([r.get(name) for r in self.rows])

    def columns(self) -> List[str]:
        seen: Dict[str, None] = {}
        for r in self.rows:
            seen.update(dict.fromkeys(r))
        return list(seen)

    def to_pandas(self):
        import pandas as pd

        return pd.DataFrame(self.rows, columns=self.columns())

    def __repr__(self) -> str:
        return f"<lagrangian.Sweep: {len(self.rows)} cases, columns {self.columns()}>"


def sweep(
    problem: Problem,
    grid: Mapping[str, Iterable[float]],
    end: Sequence[str] = (),
    client=None,
    workers: Optional[int] = None,
    **run: Any,
) -> Sweep:
    """Run ``problem`` for every combination of the parameter values in ``grid``
    (``{"k": [100, 200], "m": [1, 2]}``: four cases), with ``run``'s options for each run, and
    tabulate each case's summary figures and the last value of each column in ``end``.

    Without ``client`` the cases run on a thread pool of ``workers`` threads (default: the
    machine's cores; runs release the GIL, so they run in parallel). With a Dask distributed
    ``client`` they run on its workers (a laptop ``LocalCluster``, or a cluster from
    dask-jobqueue): the problem travels as its file text and overrides. A failing case gives
    its message in the ``error`` column instead of stopping the sweep."""
    cases = _cases(grid)
    unknown = [n for n in grid if n not in problem.parameters]
    if unknown:
        known = ", ".join(problem.parameters) or "none"
        raise LagrangianError(f"unknown parameter(s) {', '.join(unknown)}; the file has: {known}")
    end = list(end)
    if client is not None:
        futures = client.map(
            _run_case,
            [problem] * len(cases),
            cases,
            [run] * len(cases),
            [end] * len(cases),
            pure=False,
        )
        return Sweep(client.gather(futures))
    workers = workers or os.cpu_count() or 1
    with ThreadPoolExecutor(max_workers=workers) as pool:
        rows = list(pool.map(lambda c: _run_case(problem, c, run, end), cases))
    return Sweep(rows)
