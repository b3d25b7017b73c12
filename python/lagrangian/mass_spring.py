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


class MassSpringSystem2d(MassSpringSystem):
    """A mass–spring system in the plane (positions ``[x, y]``)."""

    def __new__(cls) -> "MassSpringSystem2d":
        return super().__new__(cls, 2)


class MassSpringSystem3d(MassSpringSystem):
    """A mass–spring system in space (positions ``[x, y, z]``)."""

    def __new__(cls) -> "MassSpringSystem3d":
        return super().__new__(cls, 3)
