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

A long run can go to files instead of memory (``problem.run(out="results")``: NumPy files
read back memory-mapped), and :func:`open_run` reads a folder that ``lagrangian run`` wrote.

The mass–spring course API is :mod:`lagrangian.mass_spring`. Errors are
:class:`LagrangianError`; mistakes in a file are :class:`MechanismError` with ``file``,
``line``, ``column`` and ``field``; a run that would not fit in memory raises
:class:`OutOfMemory` (a ``MemoryError``) before it starts. They pickle, so a case failing on a
Dask worker or in a process pool arrives as the same exception. Ctrl-C stops a run, a sweep
or ``simulate`` after the current step; :class:`Cancel` does so from another thread.
"""

from __future__ import annotations

import importlib
import itertools
import json
import os
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Dict, Iterable, List, Mapping, Optional, Sequence, Tuple, Union

import numpy as np

from . import _lagrangian as _native
from ._lagrangian import Cancel, __version__
from ._page import PathLike, animation_page, iframe, write_page
from .errors import LagrangianError, MechanismError, OutOfMemory
from .multibody import JOINT_TYPES, Multibody

__all__ = [
    "load",
    "open_run",
    "Problem",
    "Multibody",
    "JOINT_TYPES",
    "Check",
    "Result",
    "sweep",
    "Sweep",
    "Cancel",
    "LagrangianError",
    "MechanismError",
    "OutOfMemory",
    "__version__",
]



def load(
    source: Optional[PathLike] = None,
    set: Optional[Mapping[str, float]] = None,
    *,
    text: Optional[str] = None,
    path: Optional[PathLike] = None,
) -> "Problem":
    """A problem from a mechanism file, with ``set`` replacing parameter values
    (``{"k": 200}``, as ``--set k=200``).

    Say which it is with ``path=`` (a file) or ``text=`` (the file's text). A positional
    ``source`` is a path when it is an ``os.PathLike`` or names an existing file, and text
    when it has a line break or a ``key: value`` colon (``"Dimension: 1"``); any other string
    is a path (a missing file raises ``FileNotFoundError`` naming it)."""
    given = [x is not None for x in (source, text, path)]
    if sum(given) != 1:
        raise TypeError("load() takes one of a source, text= or path=")
    if text is not None:
        if not isinstance(text, str):
            raise TypeError(f"text= takes a str, not {type(text).__name__}")
        return Problem(text, name="<text>", set=set)
    if path is None:
        if isinstance(source, os.PathLike):
            path = source
        elif isinstance(source, str):
            looks_like_text = "\n" in source or (": " in source and not os.path.exists(source))
            if looks_like_text:
                return Problem(source, name="<text>", set=set)
            path = source
        else:
            raise TypeError(
                f"load() takes a path or the file's text, not {type(source).__name__}"
            )
    name = os.fspath(path)
    with open(name, encoding="utf-8") as f:
        content = f.read()
    return Problem(content, name=name, set=set)


class Problem:
    """A mechanism built from its file text (or a :class:`Multibody` builder), with parameter
    overrides.

    A problem pickles as its text, name and overrides, so it travels to other processes
    (Dask workers) and is rebuilt there."""

    def __init__(
        self, text: str, name: str = "<text>", set: Optional[Mapping[str, float]] = None
    ) -> None:
        self._text: Optional[str] = text
        self._builder: Any = None
        self.name = name
        self.overrides: Dict[str, float] = {k: float(v) for k, v in (set or {}).items()}
        self._native = _native.Problem(text, name, list(self.overrides.items()))

    @classmethod
    def _from_builder(
        cls, builder: Any, name: str, set: Optional[Mapping[str, float]] = None
    ) -> "Problem":
        """The problem of a native ``Multibody`` builder (a copy the caller no longer
        changes), built from its values by the file reader's builder."""
        p = cls.__new__(cls)
        p._text = None
        p._builder = builder
        p.name = name
        p.overrides = {k: float(v) for k, v in (set or {}).items()}
        p._native = _native.Problem.from_multibody(builder, list(p.overrides.items()))
        return p

    @property
    def text(self) -> str:
        """The mechanism file's text (for a :class:`Multibody`'s problem, the file it stands
        for, written when asked)."""
        if self._text is None:
            self._text = str(self._builder.to_yaml())
        return self._text

    def __reduce__(self) -> Tuple[Any, ...]:
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
        if self._builder is not None:
            return Problem._from_builder(self._builder, self.name, {**self.overrides, **values})
        return Problem(self.text, self.name, {**self.overrides, **values})

    def check(self) -> "Check":
        """Coordinates, constraints, degrees of freedom and the consistent initial point (as
        ``lagrangian check``). Raises :class:`LagrangianError` when there is none."""
        data, report = self._native.check()
        return Check(data, report)

    def equilibrium(self, hold_pins: bool = False, max_iterations: int = 500) -> Dict[str, Any]:
        """The static equilibrium downhill from the guesses, as ``lagrangian equilibrium``
        writes it to ``equilibrium.json``: ``q`` with ``coordinates``, ``stability``
        (``"stable"``, ``"unstable"``, ``"neutral"``), ``hessian_eigenvalues`` on the
        constraint manifold, ``potential_energy``, ``residual``, each constraint's multipliers
        and reactions, and with ``hold_pins`` the force holding each pinned coordinate."""
        data: Dict[str, Any] = self._native.equilibrium(hold_pins, max_iterations, self.name)
        return data

    def modes(self, at: str = "initial") -> Dict[str, Any]:
        """The vibration modes about the consistent initial configuration (``at="initial"``)
        or the equilibrium (``"equilibrium"``), as ``lagrangian modes`` writes them to
        ``modes.json``: each mode's ``omega`` (rad/s), ``hz``, ``kind``, ``damping_ratio`` and
        ``shape``; the damped roots; point shapes. ``at="motion"``: about the initial state
        with its velocities, a steady motion (a top spinning in its Euler angles) — the roots
        ``damped`` with the gyroscopic forces (a top's nutation), ``max_acceleration`` and
        ``varies_along_motion`` saying how steady it is. A motion steady only in a moving frame
        (a top given as a body, a conical pendulum in Cartesian coordinates) is linearized in
        that frame, named in ``moving_frame`` (``[("rotation about z", 1.5), ...]``, rates in
        rad/s); the roots are the motion's there."""
        data: Dict[str, Any] = self._native.modes(at)
        return data

    def state_space(
        self, inputs: Sequence[str], outputs: Sequence[str], at: str = "initial"
    ) -> Dict[str, Any]:
        """A state-space model for control about the initial configuration (``at="initial"``),
        the equilibrium (``"equilibrium"``) or the initial steady motion (``"motion"``), as
        ``lagrangian linearize``: ``ẋ = A x + B u``,
        ``z = C x + D u`` with ``x = (y, ẏ)`` the minimal coordinates on the constraint
        manifold (``δq = N y``, ``N`` = ``basis``), inputs ``u`` the named parameters (of
        forces), outputs ``z`` the named columns. Returns ``a``, ``b``, ``c``, ``d``,
        ``basis`` as 2-D NumPy arrays of their shapes (empty ones too), ``e`` (the drift), ``q``
        and ``v`` as 1-D arrays, and ``inputs``, ``outputs``, ``t``."""
        data: Dict[str, Any] = self._native.state_space(
            [str(i) for i in inputs], [str(o) for o in outputs], at
        )
        return data

    def fit(
        self,
        vary: Sequence[str],
        targets: Union[PathLike, Mapping[str, Any]],
        *,
        max_iterations: int = 50,
        tolerance: float = 1e-12,
        cancel: Optional[Cancel] = None,
    ) -> Dict[str, Any]:
        """Adjust the parameters ``vary`` so that the run meets ``targets`` in the least-squares
        sense, as ``lagrangian fit`` (Levenberg–Marquardt by the file's method: generalized-α
        with the exact sensitivities of its run; DOP853, Radau IIA or the Taylor method stopping
        at the target times, the Jacobian from differences of runs). ``targets``: a CSV file
        (a column ``t``, columns named as coordinates; an empty cell is no target) or a mapping
        — a dict of arrays, a pandas DataFrame — with ``"t"`` and coordinate columns (NaN: no
        target). Returns ``parameters`` and ``start`` (name → value), ``initial_cost``,
        ``cost``, ``history`` (the cost after each accepted step), ``iterations`` and
        ``targets`` (how many); ``problem.with_parameters(**r["parameters"])`` is the fitted
        mechanism. Ctrl-C or ``cancel.set()`` stops it (``KeyboardInterrupt``)."""
        names = [str(v) for v in vary]
        if isinstance(targets, (str, os.PathLike)):
            with open(targets, encoding="utf-8") as f:
                text = f.read()
            data = self._native.fit(names, csv=text, source=str(targets),
                                    max_iterations=max_iterations, tolerance=tolerance,
                                    cancel=cancel)
        else:
            if "t" not in targets:
                raise ValueError("targets: a mapping needs the times as 't'")
            t = [float(x) for x in np.asarray(targets["t"], dtype=np.float64)]
            cols = [(str(k), [float(x) for x in np.asarray(targets[k], dtype=np.float64)])
                    for k in targets.keys() if str(k) != "t"]
            data = self._native.fit(names, t=t, columns=cols, max_iterations=max_iterations,
                                    tolerance=tolerance, cancel=cancel)
        report: Dict[str, Any] = data
        report["parameters"] = {n: v for n, v in report["parameters"]}
        report["start"] = {n: v for n, v in report["start"]}
        return report

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
        out: Optional[PathLike] = None,
        formats: Optional[Sequence[str]] = None,
        cancel: Optional[Cancel] = None,
    ) -> "Result":
        """Integrate from consistent initial values, with ``lagrangian run``'s options:
        ``t_end`` (the step stays), ``steps`` or ``step``, ``output_every``, ``method``
        (``"genalpha"``, ``"dop853"``, ``"radau"``, ``"taylor"`` or ``"rk4"``), ``rho_inf``, ``columns``
        (groups: positions, velocities, accelerations, multipliers, reactions, momenta, user,
        energies, ledger; and columns of your own, ``"name = expression"`` in the file's
        names — ``"h = Arm.Tip.z"``, ``"F = AB.force"``, ``"w = Arm.omega"``,
        ``"q = quaternion(Arm)"``, ``"e = euler(Arm, ZYX)"``) and ``sensitivity`` (parameter names: every column's derivative with
        respect to each) and ``tol`` (error control instead of a fixed step: DOP853, of order 8,
        unless ``method="genalpha"``; rows at 1000 even intervals of the span and at the end, or
        at every accepted step with ``output_every_step=True``), or ``output_dt`` /
        ``output_at`` (rows every ``dt`` and at the end, or at the listed times, interpolated
        between steps and projected onto the constraints).

        The rows are kept in memory, unless ``out`` names a folder: the run then streams them
        to files there as ``lagrangian run --out`` does (``formats``: ``["npy"]`` by default,
        or any of ``"csv"``, ``"npy"``, ``"parquet"``) and the result reads them (the ``npy``
        files memory-mapped), so a run larger than the memory can be kept and looked at. A run whose rows would not fit in the memory
        available raises :class:`OutOfMemory` before it starts.

        The GIL is released while the run goes on; Ctrl-C stops it after the current step and
        raises ``KeyboardInterrupt``, as does ``cancel.set()`` from another thread."""
        options: Dict[str, Any] = dict(
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
            cancel=cancel,
        )
        if out is not None:
            folder, _summary = self._native.run(
                **options,
                out=os.fspath(out),
                formats=list(formats) if formats is not None else None,
            )
            return open_run(folder)
        if formats is not None:
            raise ValueError("formats are the files of a run written to a folder: give out= too")
        names, data, summary, scene, snames, sdata, going = self._native.run(**options)
        result = Result(names, data, summary, scene, snames, sdata)
        result._going = going
        return result


def open_run(folder: PathLike) -> "Result":
    """The results of a run written to ``folder`` (by ``Problem.run(out=...)`` or
    ``lagrangian run --out``): its ``npy`` files memory-mapped (nothing is read until a column
    is used), else its ``trajectory.csv``, else its ``trajectory.parquet`` (read by pandas,
    which needs pyarrow or fastparquet); the summary, the scene and the sensitivities."""
    folder = os.fspath(folder)
    with open(os.path.join(folder, "summary.json"), encoding="utf-8") as f:
        summary = json.load(f)
    scene_path = os.path.join(folder, "scene.json")
    scene = "{}"
    if os.path.exists(scene_path):
        with open(scene_path, encoding="utf-8") as f:
            scene = f.read()
    npy = os.path.join(folder, "npy")
    parts: List[Tuple[np.ndarray, List[str]]] = []
    if os.path.exists(os.path.join(npy, "columns.json")):
        with open(os.path.join(npy, "columns.json"), encoding="utf-8") as f:
            groups: Dict[str, List[str]] = json.load(f)
        order = ["t", *_GROUPS]
        for group in sorted(groups, key=lambda g: (order.index(g) if g in order else 99, g)):
            array = np.load(os.path.join(npy, f"{group}.npy"), mmap_mode="r")
            parts.append((array.reshape(len(array), -1), list(groups[group])))
    elif not os.path.exists(os.path.join(folder, "trajectory.csv")) and os.path.exists(
        os.path.join(folder, "trajectory.parquet")
    ):
        frame = _pandas().read_parquet(os.path.join(folder, "trajectory.parquet"))
        parts.append((frame.to_numpy(dtype=np.float64), [str(c) for c in frame.columns]))
    else:
        with open(os.path.join(folder, "trajectory.csv"), encoding="utf-8") as f:
            header = f.readline().strip().split(",")
        data = np.loadtxt(os.path.join(folder, "trajectory.csv"), delimiter=",", skiprows=1, ndmin=2)
        parts.append((data, header))
    snames: List[str] = []
    sdata = None
    sens_path = os.path.join(folder, "sensitivity.csv")
    if os.path.exists(sens_path):
        with open(sens_path, encoding="utf-8") as f:
            snames = f.readline().strip().split(",")[1:]
        sdata = np.loadtxt(sens_path, delimiter=",", skiprows=1, ndmin=2)[:, 1:]
    return Result.of_parts(parts, summary, scene, snames, sdata, folder=folder)


# the column groups in the order of the columns (`lagrangian::problem::GROUPS`)
_GROUPS = tuple(_native.GROUPS)


class Check(Dict[str, Any]):
    """What ``Problem.check`` found: ``dof``, ``n_coordinates``, ``n_constraints``, ``rank``,
    ``redundant``, ``max_constraint_residual``, the consistent ``q``, ``v``, ``qdd``,
    ``lambda``; printing shows ``lagrangian check``'s report."""

    def __init__(self, data: Dict[str, Any], report: str) -> None:
        super().__init__(data)
        self.report = report

    def __str__(self) -> str:
        return self.report.rstrip()



def _pandas() -> Any:
    """pandas, imported by name so the package type-checks without pandas-stubs."""
    try:
        return importlib.import_module("pandas")
    except ImportError as e:  # pragma: no cover - depends on the environment
        raise ImportError("to_pandas() needs pandas: pip install pandas") from e


class Result:
    """A run's trajectory (``t``, ``columns``, ``result["B.x"]``), its ``summary`` (as
    ``summary.json``), its sensitivities (``result["d(B.x)/d(k)"]``) and its animation. A run
    written to a folder (``folder``) keeps its columns there, memory-mapped. The arrays are
    read-only views of the record (``.copy()`` one to change it)."""

    def __init__(
        self,
        names: Sequence[str],
        data: Any,
        summary: Dict[str, Any],
        scene: str,
        sensitivity_names: Sequence[str] = (),
        sensitivity: Optional[Any] = None,
    ) -> None:
        # the run's record: read-only, so a column taken out cannot change it by accident
        data = np.asarray(data, dtype=float)
        data.setflags(write=False)
        self._setup([(data, list(names))], summary, scene, sensitivity_names, sensitivity)
        self._data: Optional[np.ndarray] = data

    @classmethod
    def of_parts(
        cls,
        parts: List[Tuple[np.ndarray, List[str]]],
        summary: Dict[str, Any],
        scene: str,
        sensitivity_names: Sequence[str] = (),
        sensitivity: Optional[np.ndarray] = None,
        folder: Optional[str] = None,
    ) -> "Result":
        """A result whose columns are held in blocks (the ``npy`` files of a run's folder)."""
        result = cls.__new__(cls)
        for array, _ in parts:
            array.setflags(write=False)
        result._setup(parts, summary, scene, sensitivity_names, sensitivity)
        result._data = parts[0][0] if len(parts) == 1 else None
        result.folder = folder
        return result

    def _setup(
        self,
        parts: List[Tuple[np.ndarray, List[str]]],
        summary: Dict[str, Any],
        scene: str,
        sensitivity_names: Sequence[str],
        sensitivity: Optional[Any],
    ) -> None:
        self._parts = parts
        self.columns: List[str] = [n for _, names in parts for n in names]
        self.summary: Dict[str, Any] = summary
        self.scene: str = scene
        self.folder: Optional[str] = None
        rows = len(parts[0][0]) if parts else 0
        self.sensitivity_columns: List[str] = list(sensitivity_names)
        self.sensitivity: np.ndarray = (
            np.asarray(sensitivity, dtype=float)
            if sensitivity is not None
            else np.zeros((rows, 0))
        )
        self.sensitivity.setflags(write=False)
        self._index = {
            n: (p, k) for p, (_, names) in enumerate(parts) for k, n in enumerate(names)
        }
        self._sindex = {n: i for i, n in enumerate(self.sensitivity_columns)}
        self._going: Optional[_native.Continuation] = None
        self._span = 1

    def __getstate__(self) -> Dict[str, Any]:
        # the run to go on with stays in this process: a copy elsewhere does not go on
        state = dict(self.__dict__)
        state["_going"] = None
        return state

    def continue_run(self, t_end: float, cancel: Optional[Cancel] = None) -> "Result":
        """Go on with this run to ``t_end``: the integrator continues from its whole state
        (positions, velocities, accelerations, the scheme's own variables, the step size and
        the error control's history) and the columns from theirs (the ledger's integrals,
        unwrapped angles), so a run continued in ``n`` pieces gives what one run to the same
        end time gives, to round-off.

        The new result holds the rows *after* this one's last time (its first row is the
        first step or output time past it): ``np.concatenate([a.data, b.data])`` is the
        whole run. Its ``summary`` is of the whole run so far. Only the newest result of a
        run goes on (an older one raises :class:`LagrangianError`); a continuation stopped by
        Ctrl-C or ``cancel`` leaves the run where it stopped, and the same result goes on
        from there. A run written to files (``out=``) or opened from a folder does not go
        on: run it in memory."""
        if self._going is None:
            raise LagrangianError(
                "only a run kept in memory goes on (Problem.run without out=); this result "
                + ("was read from " + self.folder if self.folder else "has no run to go on with")
            )
        names, data, summary, scene, snames, sdata = self._going.until(
            float(t_end), self._span, cancel
        )
        result = Result(names, data, summary, scene, snames, sdata)
        result._going, result._span = self._going, self._span + 1
        return result

    @property
    def data(self) -> np.ndarray:
        """All columns as one ``(rows, columns)`` array (for a run in a folder, read into
        memory on first use)."""
        if self._data is None:
            self._data = np.hstack([np.asarray(a) for a, _ in self._parts])
        return self._data

    @property
    def t(self) -> np.ndarray:
        """The times of the rows."""
        return self["t"]

    def __getitem__(self, name: str) -> np.ndarray:
        if name in self._index:
            p, k = self._index[name]
            column: np.ndarray = self._parts[p][0][:, k]
            return column
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
        return len(self._parts[0][0]) if self._parts else 0

    def __repr__(self) -> str:
        s = self.summary
        return (
            f"<lagrangian.Result {s.get('title', '')!r}: {len(self)} rows × "
            f"{len(self.columns)} columns, t = {s.get('t0')} … {s.get('t_end')}, "
            f"{s.get('steps')} steps>"
        )

    def to_pandas(self) -> Any:
        """The trajectory (and sensitivities) as a pandas DataFrame indexed by ``t``."""
        pd = _pandas()
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
        frames: Optional[bool] = None,
    ) -> str:
        """The offline animation page (one HTML document, no network) of the run;
        ``frames=True`` shows the 3D bodies' axes at first (the page has a switch)."""
        return animation_page(
            self.scene, self.columns, self.data, fps, max_frames, trails, colour, frames
        )

    def animate(self, path: PathLike, **options: Any) -> str:
        """Write the animation page to ``path`` (options as :meth:`animation_html`); the
        path."""
        return write_page(path, self.animation_html(**options))

    def _repr_html_(self) -> str:
        return iframe(self.animation_html())


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


def _run_case(
    problem: Problem,
    case: Dict[str, float],
    run: Dict[str, Any],
    end: Sequence[str],
    cancel: Optional[Cancel] = None,
) -> Dict[str, Any]:
    """One case of a sweep: its parameters, summary figures and end values (or its error)."""
    row: Dict[str, Any] = dict(case)
    try:
        result = problem.with_parameters(**case).run(**run, cancel=cancel)
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

    def __init__(self, rows: List[Dict[str, Any]]) -> None:
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

    def to_pandas(self) -> Any:
        return _pandas().DataFrame(self.rows, columns=self.columns())

    def __repr__(self) -> str:
        return f"<lagrangian.Sweep: {len(self.rows)} cases, columns {self.columns()}>"


def sweep(
    problem: Problem,
    grid: Mapping[str, Iterable[float]],
    end: Sequence[str] = (),
    client: Any = None,
    workers: Optional[int] = None,
    **run: Any,
) -> Sweep:
    """Run ``problem`` for every combination of the parameter values in ``grid``
    (``{"k": [100, 200], "m": [1, 2]}``: four cases), with ``run``'s options for each run, and
    tabulate each case's summary figures and the last value of each column in ``end``.

    Without ``client`` the cases run on a thread pool of ``workers`` threads (default: the
    machine's cores; runs release the GIL, so they run in parallel; Ctrl-C stops the running
    cases after their current step and raises ``KeyboardInterrupt``). With a Dask distributed
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
    workers = max(1, min(workers or os.cpu_count() or 1, len(cases) or 1))
    cancel = Cancel()
    pool = ThreadPoolExecutor(max_workers=workers)
    try:
        futures = [pool.submit(_run_case, problem, c, run, end, cancel) for c in cases]
        rows = [f.result() for f in futures]
    except BaseException:
        # Ctrl-C (or any failure here): the running cases stop after their current step, the
        # waiting ones do not start
        cancel.set()
        pool.shutdown(wait=True, cancel_futures=True)
        raise
    pool.shutdown()
    return Sweep(rows)
