"""The animation page written to a file or shown in a notebook (shared by results and the
course API's systems)."""

import html
import os
from typing import Any, Optional, Sequence, Union

import numpy as np

from . import _lagrangian as _native

PathLike = Union[str, "os.PathLike[str]"]


def write_page(path: PathLike, page: str) -> str:
    """Write ``page`` to ``path`` whole (a ``.partial`` file renamed over it, never half
    written); the path."""
    path = os.fspath(path)
    partial = path + ".partial"
    with open(partial, "w", encoding="utf-8") as f:
        f.write(page)
    os.replace(partial, path)
    return path


def animation_page(
    scene: str,
    columns: Sequence[str],
    data: Any,
    fps: Optional[float] = None,
    max_frames: Optional[int] = None,
    trails: Optional[Sequence[str]] = None,
    colour: Optional[str] = None,
    frames: Optional[bool] = None,
) -> str:
    """The offline animation page (one HTML document, no network) of ``data``'s rows under
    ``columns``, drawn with ``scene`` (``scene.json``'s format); ``frames`` shows the bodies'
    axes at first (the page has a switch)."""
    return _native.animation_html(
        scene,
        list(columns),
        np.ascontiguousarray(data),
        fps=fps,
        max_frames=max_frames,
        trails=list(trails) if trails is not None else None,
        colour=colour,
        frames=frames,
    )


def iframe(page: str) -> str:
    """``page`` as a notebook cell shows it: an iframe holding the document."""
    return (
        '<iframe style="width:100%;height:520px;border:0" '
        f'srcdoc="{html.escape(page, quote=True)}"></iframe>'
    )
