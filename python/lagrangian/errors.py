"""The exceptions of :mod:`lagrangian`.

They are plain Python classes of module ``lagrangian`` (the native part raises them), so they
pickle with their class, message and attributes: a case that fails in a process pool or on a
Dask worker arrives as the same exception, and ``except lagrangian.LagrangianError`` catches
it there too.
"""

from __future__ import annotations

from typing import Any, Optional, Tuple

__all__ = ["LagrangianError", "MechanismError", "OutOfMemory"]


class LagrangianError(Exception):
    """A mechanism that cannot be built, initialized or integrated; the message says what and
    where (time, step, term)."""

    __module__ = "lagrangian"


class MechanismError(LagrangianError):
    """An error in a mechanism file, with its ``file``, ``line``, ``column``, ``field`` (the
    path of keys) and ``reason`` (the message without the position)."""

    __module__ = "lagrangian"

    def __init__(
        self,
        message: str,
        file: Optional[str] = None,
        line: Optional[int] = None,
        column: Optional[int] = None,
        field: Optional[str] = None,
        reason: Optional[str] = None,
    ):
        super().__init__(message)
        self.file = file
        self.line = line
        self.column = column
        self.field = field
        self.reason = reason

    def __reduce__(self) -> Tuple[Any, ...]:
        return (
            type(self),
            (str(self), self.file, self.line, self.column, self.field, self.reason),
        )


class OutOfMemory(LagrangianError, MemoryError):
    """A run whose results would not fit in the memory available, refused before it starts
    (``except MemoryError`` catches it too): keep fewer rows (``output_every``,
    ``output_dt``), fewer ``columns``, or stream the run to disk (``run(out=...)``)."""

    __module__ = "lagrangian"
