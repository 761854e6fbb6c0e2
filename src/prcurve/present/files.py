"""The files of a report written safely: never over an input, the same bytes every run.

:func:`replace_file` writes a file through a new file beside it, renamed onto
it, so that an existing file or link in the output folder is replaced and never
written into (a link's target, an input perhaps, is untouched).
:func:`save_figure` saves a picture with fixed metadata (no date, no writer
version, SVG ids from a fixed salt), so two runs give the same bytes, and
:func:`write_text` writes a text file. Every file prcurve writes (``report``,
``demo``, ``coco``, ``voc``, :meth:`prcurve.present.report.Report.write`) goes
through them.
"""

from __future__ import annotations

import os
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

__all__ = ["STABLE_METADATA", "preload_picture_modules", "replace_file", "save_figure",
           "write_text"]


STABLE_METADATA: dict[str, dict[str, Any]] = {
    "png": {"Software": None},
    "svg": {"Date": None, "Creator": None},
}
"""Picture metadata left out: a date (SVG) and the writer's version, which would differ
between runs and machines."""


def replace_file(path: Path, write: Callable[[Path], object]) -> None:
    """Write ``path`` through a new file beside it, renamed onto it.

    An existing file or link at ``path`` is replaced, never written into (a
    link's target is untouched); a failed write leaves ``path`` as it was.

    Examples
    --------
    >>> import os, tempfile
    >>> from pathlib import Path
    >>> from prcurve.present.files import replace_file
    >>> folder = Path(tempfile.mkdtemp())
    >>> (folder / "input.csv").write_text("kept")
    4
    >>> os.symlink(folder / "input.csv", folder / "out.csv")
    >>> replace_file(folder / "out.csv", lambda temp: temp.write_text("new"))
    >>> (folder / "input.csv").read_text(), (folder / "out.csv").read_text()
    ('kept', 'new')
    """
    temp = path.with_name(f".{path.name}.{uuid.uuid4().hex}.prcurve-tmp")
    try:
        write(temp)  # created by the writer, with the usual permissions
        os.replace(temp, path)
    except BaseException:
        temp.unlink(missing_ok=True)
        raise


def save_figure(figure: Any, path: Path, *, dpi: float) -> None:
    """Save a matplotlib figure to ``path`` (format from its suffix) through
    :func:`replace_file`, with :data:`STABLE_METADATA` and SVG ids from a fixed salt,
    so two runs give the same bytes.

    Examples
    --------
    >>> import tempfile
    >>> from pathlib import Path
    >>> from matplotlib.figure import Figure
    >>> from prcurve.present.files import save_figure
    >>> folder = Path(tempfile.mkdtemp())
    >>> figure = Figure()
    >>> _ = figure.add_subplot().plot([0, 1], [1, 0])
    >>> save_figure(figure, folder / "a.svg", dpi=72)
    >>> save_figure(figure, folder / "b.svg", dpi=72)
    >>> (folder / "a.svg").read_bytes() == (folder / "b.svg").read_bytes()
    True
    """
    import matplotlib

    fmt = path.suffix.lstrip(".").lower()
    with matplotlib.rc_context({"svg.hashsalt": "prcurve"}):
        replace_file(path, lambda temp: figure.savefig(
            temp, format=fmt, dpi=dpi, metadata=STABLE_METADATA.get(fmt, {})))


def write_text(path: Path, text: str) -> Path:
    """Write ``text`` (UTF-8) to ``path`` through :func:`replace_file`; returns ``path``."""
    replace_file(path, lambda temp: temp.write_text(text, encoding="utf-8"))
    return path


_PICTURE_MODULES = ("matplotlib.figure", "matplotlib.backends.backend_agg",
                    "matplotlib.backends.backend_svg", "bokeh.embed", "bokeh.layouts",
                    "bokeh.models", "bokeh.plotting", "bokeh.resources")
"""What :meth:`Report.write` imports to draw its pictures: about 2 s of Python."""


def preload_picture_modules() -> None:
    """Import what :meth:`prcurve.present.report.Report.write` draws with, in a
    background thread, so that it overlaps the counting (which runs in NumPy and
    pyarrow, mostly without the GIL): ``prcurve report --out`` calls it before it
    reads its inputs. A module that fails to import is left to fail where it is used,
    with its message.
    """
    import importlib
    import threading

    def load() -> None:
        for name in _PICTURE_MODULES:
            try:
                importlib.import_module(name)
            except Exception:  # reported where the module is used, with its message
                return

    threading.Thread(target=load, name="prcurve-preload", daemon=True).start()
