"""Mass–spring systems in 2D and 3D with the API of the C++/pybind11 mass–spring course code::

    from lagrangian import mass_spring as ms

    mss = ms.MassSpringSystem3d()
    mss.gravity = [0, -9.81, 0]
    f = mss.add(ms.Fix([0, 0, 0]))
    m1 = mss.add(ms.Mass(1.0, [1, 0, 0]))
    m2 = mss.add(ms.Mass(1.0, [2, 0, 0]))
    mss.add(ms.Spring(1.0, 20.0, [f, m1]))
    mss.add(ms.Spring(1.0, 20.0, [m1, m2]))
    mss.add(ms.DistanceConstraint(1.0, [m1, m2]))
    mss.simulate(tend=5, steps=500)
    print(mss)
    for m in mss.masses:
        print(m.pos)

``add`` returns a :class:`Connector` for a ``Fix`` or a ``Mass``, the index of a ``Spring`` or
``DistanceConstraint``, and the list of the masses' connectors of a ``Chain``. The ``masses``
list holds views of the system: their ``pos`` and ``vel`` are the current ones after
``simulate`` (and can be set, e.g. to give initial velocities). ``simulate(tend, steps)``
integrates over ``tend`` seconds from the current state with generalized-α (ρ∞ = 0.8), with
consistent initial values first; ``constraint_forces`` are the rods' forces after it. Calls go
on from one another as one run (an animation drawn call by call equals one long call), until
the system is changed or ``reset()`` is called.
"""

import html as _html
from typing import Any, Optional, Sequence

import numpy as np

from ._page import PathLike, animation_page, iframe, write_page
from ._lagrangian import (
    Chain,
    Connector,
    DistanceConstraint,
    Fix,
    Force,
    Mass,
    MassSpringSystem,
    Spring,
)

__all__ = [
    "MassSpringSystem2d",
    "MassSpringSystem3d",
    "MassSpringSystem",
    "Mass",
    "Fix",
    "Spring",
    "DistanceConstraint",
    "Force",
    "Chain",
    "Connector",
]


class _Pictures(MassSpringSystem):
    """The recorded trajectory as the offline animation page (``record = True`` first)."""

    def animation_html(
        self,
        fps: Optional[float] = None,
        max_frames: Optional[int] = None,
        trails: Optional[Sequence[str]] = None,
        colour: Optional[str] = None,
    ) -> str:
        """One HTML document (no network) playing the recorded steps: masses ``m0``, ``m1``,
        …, fixes ``F0``, …, springs and rods; ``trails=["m3"]`` draws a mass's path."""
        tr = self.trajectory
        if tr is None or len(tr["t"]) < 2:
            raise ValueError(
                "nothing to animate: set record = True before simulate, then simulate"
            )
        n, masses, dim = tr["pos"].shape
        names = ["t"] + [f"m{i}.{a}" for i in range(masses) for a in "xyz"[:dim]]
        data = np.column_stack([tr["t"], tr["pos"].reshape(n, masses * dim)])
        return animation_page(self.scene(), names, data, fps, max_frames, trails, colour)

    def animate(self, path: PathLike, **options: Any) -> str:
        """Write :meth:`animation_html` (options as there) to ``path`` (replaced whole, never
        half written); the path."""
        return write_page(path, self.animation_html(**options))

    def _repr_html_(self) -> str:
        """Jupyter shows the recorded motion (or the system's text before a recorded run)."""
        if self.trajectory is None or len(self.trajectory["t"]) < 2:
            return f"<pre>{_html.escape(str(self))}</pre>"
        return iframe(self.animation_html())


class MassSpringSystem2d(_Pictures):
    """A mass–spring system in the plane (positions ``[x, y]``)."""

    def __new__(cls) -> "MassSpringSystem2d":
        return super().__new__(cls, 2)


class MassSpringSystem3d(_Pictures):
    """A mass–spring system in space (positions ``[x, y, z]``)."""

    def __new__(cls) -> "MassSpringSystem3d":
        return super().__new__(cls, 3)
