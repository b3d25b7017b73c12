"""The animation page written to a file or shown in a notebook (shared by results and the
course API's systems)."""

import html
import os
from typing import Union

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


def iframe(page: str) -> str:
    """``page`` as a notebook cell shows it: an iframe holding the document."""
    return (
        '<iframe style="width:100%;height:520px;border:0" '
        f'srcdoc="{html.escape(page, quote=True)}"></iframe>'
    )
