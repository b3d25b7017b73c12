"""Type hints of the native extension `lagrangian._lagrangian` (PyO3)."""

from typing import Any, Dict, List, Optional, Sequence, Tuple, Type, TypedDict, TypeVar, Union, overload

from typing_extensions import Unpack

import numpy as np
import numpy.typing as npt

__version__: str
GROUPS: List[str]

class Cancel:
    """A flag that stops the runs given it after their current step."""

    def __init__(self) -> None: ...
    def set(self) -> None: ...
    @property
    def is_set(self) -> bool: ...

class RunOptions(TypedDict, total=False):
    """The keywords of ``Problem.run`` (as ``lagrangian run``'s options), in memory or with
    ``out``."""

    t_end: Optional[float]
    step: Optional[float]
    steps: Optional[int]
    output_every: Optional[int]
    method: Optional[str]
    rho_inf: Optional[float]
    columns: Optional[Sequence[str]]
    sensitivity: Sequence[str]
    source: Optional[str]
    tol: Optional[float]
    output_dt: Optional[float]
    output_at: Optional[Sequence[float]]
    output_every_step: bool
    formats: Optional[Sequence[str]]
    cancel: Optional[Cancel]

class Continuation:
    """A run kept in memory between its spans (``Result.continue_run``)."""

    def until(
        self, t_end: float, span: int, cancel: Optional[Cancel] = None
    ) -> Tuple[List[str], npt.NDArray[np.float64], Dict[str, Any], str, List[str],
               npt.NDArray[np.float64]]: ...

_Side = Tuple[Optional[Sequence[float]], Optional[Sequence[float]], Optional[Sequence[float]],
              Optional[float]]

JOINT_TYPES: List[str]

class Multibody:
    def __init__(self, dim: int) -> None: ...
    def title(self, title: str) -> None: ...
    def parameter(self, name: str, value: float) -> None: ...
    def gravity(self, g: Sequence[float]) -> None: ...
    def t_end(self, t: float) -> None: ...
    def body(
        self,
        name: str,
        mass: float,
        com: Optional[Sequence[float]] = None,
        diagonal: Optional[Sequence[float]] = None,
        tensor: Optional[Sequence[Sequence[float]]] = None,
        moment: Optional[float] = None,
        position: Optional[Sequence[float]] = None,
        axis_angle: Optional[Tuple[Sequence[float], float]] = None,
        rotation: Optional[Sequence[Sequence[float]]] = None,
        angle: Optional[float] = None,
        markers: Sequence[Tuple[str, Sequence[float]]] = ...,
        velocity: Optional[Sequence[float]] = None,
        angular_velocity: Optional[Sequence[float]] = None,
    ) -> None: ...
    def joint(
        self,
        name: str,
        kind_name: str,
        parent: str,
        child: str,
        parent_frame: _Side = ...,
        child_frame: _Side = ...,
        initial: Sequence[float] = ...,
        coordinates: Sequence[str] = ...,
        dh: Optional[Sequence[float]] = None,
        rates: Sequence[float] = ...,
    ) -> None: ...
    def gear(self, name: str, a: str, b: str, ratio: float, offset: float) -> None: ...
    def drive(self, name: str, quantity: str, motion: str) -> None: ...
    def force(self, coordinate: str, force: str) -> None: ...
    def yaml(self, text: str) -> None: ...
    def to_yaml(self) -> str: ...
    def copy(self) -> "Multibody": ...

class Problem:
    def __init__(self, text: str, name: str, sets: Sequence[Tuple[str, float]] = ...) -> None: ...
    @staticmethod
    def from_multibody(
        builder: Multibody, sets: Sequence[Tuple[str, float]] = ...
    ) -> "Problem": ...
    @property
    def title(self) -> str: ...
    @property
    def parameters(self) -> List[Tuple[str, float]]: ...
    @property
    def coordinates(self) -> List[str]: ...
    @property
    def times(self) -> Tuple[float, float, float]: ...
    def check(self) -> Tuple[Dict[str, Any], str]: ...
    def equilibrium(
        self, hold_pins: bool = False, max_iterations: int = 500, source: Optional[str] = None
    ) -> Dict[str, Any]: ...
    def modes(self, at: str = "initial") -> Dict[str, Any]: ...
    def state_space(
        self, inputs: Sequence[str], outputs: Sequence[str], at: str = "initial"
    ) -> Dict[str, Any]: ...
    def fit(
        self,
        vary: Sequence[str],
        csv: Optional[str] = None,
        source: Optional[str] = None,
        t: Optional[Sequence[float]] = None,
        columns: Optional[Sequence[Tuple[str, Sequence[float]]]] = None,
        max_iterations: int = 50,
        tolerance: float = 1e-12,
        cancel: Optional[Cancel] = None,
    ) -> Dict[str, Any]: ...
    @overload
    def run(
        self, *, out: None = None, **options: Unpack[RunOptions]
    ) -> Tuple[
        List[str],
        npt.NDArray[np.float64],
        Dict[str, Any],
        str,
        List[str],
        npt.NDArray[np.float64],
        Continuation,
    ]: ...
    @overload
    def run(
        self, *, out: str, **options: Unpack[RunOptions]
    ) -> Tuple[str, Dict[str, Any]]: ...

def animation_html(
    scene: str,
    names: Sequence[str],
    data: npt.NDArray[np.float64],
    fps: Optional[float] = None,
    max_frames: Optional[int] = None,
    trails: Optional[Sequence[str]] = None,
    colour: Optional[str] = None,
    frames: Optional[bool] = None,
) -> str: ...

class Connector:
    kind: str
    index: int

class Mass:
    def __init__(
        self, mass: float, pos: Sequence[float], vel: Optional[Sequence[float]] = None
    ) -> None: ...
    @property
    def mass(self) -> float: ...
    pos: List[float]
    vel: List[float]

class Fix:
    def __init__(self, pos: Sequence[float]) -> None: ...
    pos: List[float]

class Spring:
    def __init__(
        self,
        length: float,
        stiffness: float,
        connectors: Sequence[Connector],
        damping: float = 0.0,
    ) -> None: ...
    length: float
    stiffness: float
    damping: float
    connectors: List[Connector]

class DistanceConstraint:
    def __init__(self, length: float, connectors: Sequence[Connector]) -> None: ...
    length: float
    connectors: List[Connector]

class Force:
    def __init__(self, connector: Connector, force: Sequence[float]) -> None: ...
    connector: Connector
    force: List[float]

class Chain:
    def __init__(
        self,
        start: Connector,
        end: Sequence[float],
        n: int,
        mass: float,
        stiffness: float,
        damping: float = 0.0,
    ) -> None: ...

_System = TypeVar("_System", bound="MassSpringSystem")

class MassSpringSystem:
    def __new__(cls: Type[_System], dimension: int = 3) -> _System: ...
    @property
    def dimension(self) -> int: ...
    gravity: List[float]
    rho_inf: float
    @overload
    def add(self, element: Union[Fix, Mass]) -> Connector: ...
    @overload
    def add(self, element: Union[Spring, DistanceConstraint, Force]) -> int: ...
    @overload
    def add(self, element: Chain) -> List[Connector]: ...
    @property
    def masses(self) -> List[Mass]: ...
    @property
    def fixes(self) -> List[Fix]: ...
    @property
    def springs(self) -> List[Spring]: ...
    @property
    def constraints(self) -> List[DistanceConstraint]: ...
    @property
    def constraint_forces(self) -> List[float]: ...
    @property
    def t(self) -> float: ...
    def simulate(self, tend: float, steps: int) -> None: ...
    def reset(self) -> None: ...
    def check_jacobian(
        self, jacobian: Optional[npt.NDArray[np.float64]] = None
    ) -> Dict[str, Union[float, str]]: ...
    record: bool
    @property
    def trajectory(self) -> Optional[Dict[str, npt.NDArray[np.float64]]]: ...
    def scene(self) -> str: ...
