"""Bodies and joints from Python: a mechanism of rigid bodies given by mass, centre of mass and
inertia, joined by revolute, prismatic, cylindrical, spherical, universal, planar and fixed
joints and gears, with drives and forces along the joint coordinates::

    import math
    from lagrangian import Multibody

    arm = Multibody(dim=3, title="compound pendulum")
    arm.body("Rod", mass=2.0, com=[0.6, 0, 0], inertia=[1e-6, 0.24, 0.24],
             markers={"Tip": [1.2, 0, 0]})
    arm.joint("hinge", "revolute", "ground", "Rod",
              parent_frame={"z": [0, -1, 0]}, child_frame={"z": [0, -1, 0]},
              initial=-math.pi / 2 + 0.1)
    result = arm.problem().run(t_end=2.0)
    result["hinge"], result["Rod.Tip.z"]

It is the Rust builder (``lagrangian::spec::multibody``): :meth:`Multibody.problem` builds
the bodies and joints from its values with the file reader's builder (a tree of bodies runs in
joint coordinates), so they have the file's equations, names and checks — a mistake the reader
finds raises :class:`MechanismError` naming the joint or body and the key, at its line in
:meth:`to_yaml`'s text. It also writes the mechanism file it stands for
(:meth:`Multibody.to_yaml`, :meth:`Multibody.save`). docs/yaml.md ("Bodies and joints") says what each
keyword means; anything else a file may hold (springs between markers, outputs, solver
settings) goes in with :meth:`Multibody.yaml`.
"""

from __future__ import annotations

import math
import os
from typing import TYPE_CHECKING, Any, List, Mapping, Optional, Sequence, Tuple, Union

import numpy as np

from . import _lagrangian as _native
from ._page import PathLike

if TYPE_CHECKING:
    from . import Problem

__all__ = ["Multibody", "JOINT_TYPES"]

#: The joint kinds by the names a file gives them (``type: revolute``).
JOINT_TYPES: Tuple[str, ...] = tuple(_native.JOINT_TYPES)

#: A number, a list of numbers or a NumPy array.
Vector = Union[Sequence[float], "np.ndarray[Any, Any]"]
Frame = Mapping[str, Any]
Side = Tuple[Optional[List[float]], Optional[List[float]], Optional[List[float]], Optional[float]]


def _number(x: Any, what: str) -> float:
    try:
        value = float(x)
    except (TypeError, ValueError):
        raise TypeError(f"{what} is a number, not {x!r}") from None
    if not math.isfinite(value):
        raise ValueError(f"{what} must be finite, not {value}")
    return value


def _array(x: Any, what: str, shapes: Sequence[Tuple[int, ...]]) -> "np.ndarray[Any, Any]":
    """``x`` as an array of floats of one of ``shapes``, finite."""
    try:
        a = np.asarray(x, dtype=np.float64)
    except (TypeError, ValueError):
        raise TypeError(f"{what} is an array of numbers, not {x!r}") from None
    if a.shape not in shapes:
        want = " or ".join(str(list(s)) for s in shapes)
        raise ValueError(f"{what} has shape {list(a.shape)}; it takes {want}")
    if not np.all(np.isfinite(a)):
        raise ValueError(f"{what} must be finite: {a.tolist()}")
    return a


def _vector(x: Any, what: str, sizes: Sequence[int]) -> List[float]:
    values: List[float] = _array(x, what, [(n,) for n in sizes]).tolist()
    return values


def _numbers(x: Any, what: str) -> List[float]:
    """One number or a few (a joint's coordinates), as a list."""
    if x is None:
        return []
    if np.ndim(x) == 0:
        return [_number(x, what)]
    return _vector(x, what, range(1, 7))


def _side(frame: Optional[Frame], what: str) -> Side:
    """A joint frame ``{"at": …, "z": …, "x": …, "angle": …}`` as the native side."""
    if frame is None:
        return (None, None, None, None)
    if not isinstance(frame, Mapping):
        raise TypeError(f"{what} is a mapping of at, z, x, angle, not {frame!r}")
    unknown = sorted(set(frame) - {"at", "z", "x", "angle"})
    if unknown:
        raise ValueError(f"{what}: unknown key(s) {', '.join(map(str, unknown))}; "
                         "a joint frame takes at, z, x (in space) or at, angle (in the plane)")
    at = _vector(frame["at"], f"{what}['at']", (2, 3)) if "at" in frame else None
    z = _vector(frame["z"], f"{what}['z']", (3,)) if "z" in frame else None
    x = _vector(frame["x"], f"{what}['x']", (3,)) if "x" in frame else None
    angle = _number(frame["angle"], f"{what}['angle']") if "angle" in frame else None
    return (at, z, x, angle)


class Multibody:
    """A mechanism of bodies and joints in ``dim`` = 2 or 3 dimensions, gravity 9.81 along −y
    (plane) or −z (space) unless ``gravity`` is given. Each method returns the builder, so
    calls chain."""

    def __init__(
        self,
        dim: int = 3,
        *,
        title: Optional[str] = None,
        gravity: Optional[Vector] = None,
        t_end: Optional[float] = None,
        parameters: Optional[Mapping[str, float]] = None,
    ) -> None:
        if isinstance(dim, bool) or not isinstance(dim, int):
            raise TypeError(f"dim is 2 or 3, not {dim!r}")
        self.dim = dim
        self._native = _native.Multibody(dim)
        if title is not None:
            self._native.title(str(title))
        if gravity is not None:
            self._native.gravity(_vector(gravity, "gravity", (dim,)))
        if t_end is not None:
            self._native.t_end(_number(t_end, "t_end"))
        for name, value in (parameters or {}).items():
            self.parameter(name, value)

    def __repr__(self) -> str:
        return f"<lagrangian.Multibody in {self.dim}D>"

    def parameter(self, name: str, value: float) -> "Multibody":
        """A parameter the expressions of drives and forces may use (``PhysicalParams``); a
        problem's ``set=`` and ``with_parameters`` change it."""
        self._native.parameter(str(name), _number(value, f"parameter {name}"))
        return self

    def body(
        self,
        name: str,
        mass: float,
        *,
        com: Optional[Vector] = None,
        inertia: Union[float, Vector, None] = None,
        position: Optional[Vector] = None,
        orientation: Any = None,
        markers: Optional[Mapping[str, Vector]] = None,
        velocity: Optional[Vector] = None,
        angular_velocity: Union[float, Vector, None] = None,
    ) -> "Multibody":
        """A rigid body named ``name`` (its frame's origin is the point ``name`` of the results,
        its markers ``name.marker``): ``mass``; ``com``, the centre of mass in the body frame;
        ``inertia`` about the centre of mass in body axes — three principal moments, a 3×3
        tensor, or in the plane one moment; ``position`` of the frame's origin at the start
        (world; without it a joint places the body); ``orientation`` at the start — a 3×3
        rotation matrix (body axes as columns), ``{"axis": [...], "angle": a}`` or
        ``(axis, angle)``, or in the plane an angle; ``markers``, named points in the body
        frame; ``velocity`` of the origin and ``angular_velocity`` (world; in the plane a
        number) at the start, held during consistent initialization — a spinning top or rotor
        (an angular velocity needs ``position``: a body placed by its joint starts with the
        joint's ``rate``)."""
        d = self.dim
        kw: dict[str, Any] = {"com": None, "diagonal": None, "tensor": None, "moment": None,
                              "position": None, "axis_angle": None, "rotation": None,
                              "angle": None, "markers": [], "velocity": None,
                              "angular_velocity": None}
        what = f"body {name}"
        if com is not None:
            kw["com"] = _vector(com, f"{what}: com", (d,))
        if inertia is not None:
            if np.ndim(inertia) == 0:
                kw["moment"] = _number(inertia, f"{what}: inertia")
            else:
                i = _array(inertia, f"{what}: inertia", [(3,), (3, 3)])
                kw["diagonal" if i.ndim == 1 else "tensor"] = i.tolist()
        if position is not None:
            kw["position"] = _vector(position, f"{what}: position", (d,))
        if orientation is not None:
            kw.update(_orientation(orientation, f"{what}: orientation"))
        for marker, at in (markers or {}).items():
            kw["markers"].append((str(marker), _vector(at, f"{what}: marker {marker}", (d,))))
        if velocity is not None:
            kw["velocity"] = _vector(velocity, f"{what}: velocity", (d,))
        if angular_velocity is not None:
            if d == 2 and np.ndim(angular_velocity) == 0:
                kw["angular_velocity"] = [_number(angular_velocity, f"{what}: angular_velocity")]
            else:
                kw["angular_velocity"] = _vector(angular_velocity, f"{what}: angular_velocity",
                                                 (3,) if d == 3 else (1,))
        self._native.body(str(name), _number(mass, f"{what}: mass"), **kw)
        return self

    def joint(
        self,
        name: str,
        type: str,
        parent: str,
        child: str,
        *,
        parent_frame: Optional[Frame] = None,
        child_frame: Optional[Frame] = None,
        initial: Union[float, Vector, None] = None,
        coordinates: Optional[Sequence[str]] = None,
        dh: Optional[Vector] = None,
        rate: Union[float, Vector, None] = None,
    ) -> "Multibody":
        """A joint named ``name`` of ``type`` (one of :data:`JOINT_TYPES`) from ``parent`` (a
        body or ``"ground"``) to ``child``. Each side's joint frame is a mapping: ``at`` (its
        origin in that body's frame), ``z`` (the axis), ``x`` (the direction of zero angle),
        or in the plane ``angle``; without one the body's own frame. ``initial``: the joint
        coordinate(s) at the start; ``coordinates``: names for them (default after the joint);
        ``dh``: the child's frame in standard Denavit–Hartenberg form ``[d, a, alpha]``
        (``[theta, a, alpha]`` for a prismatic joint); ``rate``: the coordinate(s)' rate(s) at
        the start, held during consistent initialization."""
        if type not in JOINT_TYPES:
            raise ValueError(f"joint {name}: unknown type {type!r}; one of "
                             f"{', '.join(JOINT_TYPES)} (a gear is added by gear())")
        what = f"joint {name}"
        start = _numbers(initial, f"{what}: initial")
        rates = _numbers(rate, f"{what}: rate")
        self._native.joint(
            str(name), type, str(parent), str(child),
            parent_frame=_side(parent_frame, f"{what}: parent_frame"),
            child_frame=_side(child_frame, f"{what}: child_frame"),
            initial=start,
            coordinates=[str(c) for c in (coordinates or [])],
            dh=_vector(dh, f"{what}: dh", (3,)) if dh is not None else None,
            rates=rates,
        )
        return self

    def gear(self, name: str, a: str, b: str, ratio: float, offset: float = 0.0) -> "Multibody":
        """A gear (coupler) ``b = ratio·a + offset`` between joint coordinates ``a`` and ``b``."""
        self._native.gear(str(name), str(a), str(b), _number(ratio, f"gear {name}: ratio"),
                          _number(offset, f"gear {name}: offset"))
        return self

    def drive(self, name: str, quantity: str, motion: str) -> "Multibody":
        """A drive: ``quantity`` (a joint coordinate or any scalar expression) follows
        ``motion`` (an expression of ``t``); the result's column ``drive:<name>`` is the force
        or torque it takes."""
        self._native.drive(str(name), str(quantity), str(motion))
        return self

    def force(self, coordinate: str, force: str) -> "Multibody":
        """A generalized force along a joint coordinate, an expression (a joint spring–damper
        ``"-k*hinge - c*hinge'"``, a motor torque)."""
        self._native.force(str(coordinate), str(force))
        return self

    def yaml(self, text: str) -> "Multibody":
        """More of a mechanism file as YAML text of top-level sections (``Output``,
        ``SolverParams``, ``PartData`` entries other than bodies and joints, …), merged section
        by section into what the builder writes (a key given twice is refused)."""
        self._native.yaml(str(text))
        return self

    def to_yaml(self) -> str:
        """The mechanism file this builder stands for."""
        text: str = self._native.to_yaml()
        return text

    def save(self, path: PathLike) -> None:
        """Write the mechanism file (``lagrangian run`` runs it)."""
        with open(os.fspath(path), "w", encoding="utf-8") as f:
            f.write(self.to_yaml())

    def problem(self, set: Optional[Mapping[str, float]] = None) -> "Problem":
        """The :class:`Problem` of the mechanism, with ``set`` replacing parameter values,
        built from the builder's values by the file reader's builder (no text in between; the
        problem keeps a copy, so later calls on this builder do not change it). A mistake the
        reader finds raises :class:`MechanismError`; its ``line`` and ``column`` are in
        :meth:`to_yaml`'s text."""
        from . import Problem

        return Problem._from_builder(self._native.copy(), name="multibody.yaml", set=set)


def _orientation(o: Any, what: str) -> dict[str, Any]:
    """A body's starting orientation as the native keyword it is."""
    if isinstance(o, Mapping):
        if set(o) != {"axis", "angle"}:
            raise ValueError(f"{what}: a mapping takes axis and angle, not {sorted(o)}")
        axis = _vector(o["axis"], f"{what}['axis']", (3,))
        return {"axis_angle": (axis, _number(o["angle"], f"{what}['angle']"))}
    if isinstance(o, tuple) and len(o) == 2:
        axis = _vector(o[0], f"{what} axis", (3,))
        return {"axis_angle": (axis, _number(o[1], f"{what} angle"))}
    if isinstance(o, (int, float, np.number)):
        return {"angle": _number(o, what)}
    matrix: List[List[float]] = _array(o, what, [(3, 3)]).tolist()
    return {"rotation": matrix}
