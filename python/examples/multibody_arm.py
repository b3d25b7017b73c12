"""Bodies and joints from Python: a two-link arm in space, each link given by its mass, centre
of mass and inertia, on revolute joints about the horizontal y axis, released from rest and
swinging under gravity. Prints the tip's lowest point and the energy the run kept."""

import lagrangian
from lagrangian import Multibody

hinge = {"z": [0.0, -1.0, 0.0]}  # joint axes along −y: the angles turn x towards z
arm = (
    Multibody(dim=3, title="two-link arm", t_end=3.0)
    .body("Upper", 1.5, com=[0.4, 0.0, 0.0], inertia=[0.002, 0.08, 0.08],
          markers={"Elbow": [0.8, 0.0, 0.0]})
    .body("Lower", 0.7, com=[0.3, 0.0, 0.0], inertia=[0.001, 0.02, 0.02],
          markers={"Tip": [0.6, 0.0, 0.0]})
    .joint("shoulder", "revolute", "ground", "Upper", parent_frame=hinge, child_frame=hinge,
           initial=0.0)
    .joint("elbow", "revolute", "Upper", "Lower",
           parent_frame={"at": [0.8, 0.0, 0.0], **hinge}, child_frame=hinge, initial=0.5)
)
problem: lagrangian.Problem = arm.problem()
result = problem.run(tol=1e-9)
tip = result["Lower.Tip.z"]
print(f"{problem.title}: coordinates {', '.join(problem.coordinates[-2:])} and "
      f"{len(problem.coordinates) - 2} of the links' frames")
print(f"lowest tip height {tip.min():.6f} m at t = {result.t[tip.argmin()]:.4f} s")
print(f"relative energy drift {result.summary['energy_drift']:.2e}")
