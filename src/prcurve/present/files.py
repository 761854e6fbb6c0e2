"""The files of a report written safely: never over an input, the same bytes every run.

The one safe writer is :mod:`prcurve.core.safe_files` (re-exported here):
:func:`replace_file` writes a file through a new file beside it, renamed onto
it, so that an existing file or link in the output folder is replaced and never
written into (a link's target, an input perhaps, is untouched), and
:func:`write_files` writes a report's set of files all or none.
:func:`figure_writer` saves a picture with fixed metadata (no date, no writer
version, SVG ids from a fixed salt), so two runs give the same bytes, as a writer
for :func:`write_files` or :func:`replace_file`.
:func:`stale_outputs` finds the files an earlier run listed in its report.json
that this run does not write, to remove them (docs/report.md, "Files"). Every
file prcurve writes (``report``, ``demo``, ``coco``, ``voc``,
:meth:`prcurve.present.report.Report.write`, :meth:`Table.write_csv`) goes
through them.
"""

from __future__ import annotations

import fnmatch
import json
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import IO, Any

from prcurve.core.safe_files import replace_file, write_files, write_text
from prcurve.validation.files import check_not_an_input
from prcurve.validation.paths import output_is_folder

__all__ = ["MATPLOTLIB_MODULES", "PNG_COMPRESS_LEVEL", "STABLE_METADATA", "check_names_free",
           "figure_writer", "preload_picture_modules", "remove_stale", "replace_file",
           "stale_outputs", "write_files", "write_text"]


STABLE_METADATA: dict[str, dict[str, Any]] = {
    "png": {"Software": None},
    "svg": {"Date": None, "Creator": None},
}
"""Picture metadata left out: a date (SVG) and the writer's version, which would differ
between runs and machines."""


def figure_writer(figure: Any, name: str, *, dpi: float) -> Callable[[Path | IO[bytes]], None]:
    """A writer (for :func:`write_files` or :func:`replace_file`) saving ``figure`` in
    the format of ``name``'s suffix, with :data:`STABLE_METADATA` and SVG ids from a
    fixed salt, to a path or a binary file object (the same bytes), so two runs give
    the same bytes; inside :func:`prcurve.present.style.drawing_style` (the user's
    global matplotlib settings do not reach the file).

    Examples
    --------
    >>> import tempfile
    >>> from pathlib import Path
    >>> from matplotlib.figure import Figure
    >>> from prcurve.present.files import figure_writer, replace_file
    >>> folder = Path(tempfile.mkdtemp())
    >>> figure = Figure()
    >>> _ = figure.add_subplot().plot([0, 1], [1, 0])
    >>> replace_file(folder / "a.svg", figure_writer(figure, "a.svg", dpi=72))
    >>> replace_file(folder / "b.svg", figure_writer(figure, "b.svg", dpi=72))
    >>> (folder / "a.svg").read_bytes() == (folder / "b.svg").read_bytes()
    True
    """
    fmt = Path(name).suffix.lstrip(".").lower()

    def write(temp: Path | IO[bytes]) -> None:
        from prcurve.present.style import drawing_style

        with drawing_style():  # matplotlib's defaults, the SVG ids' fixed salt
            if fmt == "png":
                _save_png(figure, temp, dpi)
            else:
                figure.savefig(temp, format=fmt, dpi=dpi, metadata=STABLE_METADATA.get(fmt, {}))

    return write


PNG_COMPRESS_LEVEL = 1
"""zlib's level for prcurve's PNG files (matplotlib leaves Pillow's default, 6)."""


def _save_png(figure: Any, temp: Path | IO[bytes], dpi: float) -> None:
    """``figure`` as PNG: matplotlib's drawing (``savefig`` to raw RGBA pixels, the same
    pixels as its own PNG), encoded by Pillow as RGB when every pixel is opaque (as a
    figure on its white background is) and at :data:`PNG_COMPRESS_LEVEL`. Lossless: the
    same pixels as matplotlib's PNG, with its resolution (``pHYs``) and no text chunks
    (:data:`STABLE_METADATA`); about the same size, and half the encoding time of
    matplotlib's RGBA at level 6 (issue 26, item 3: docs/report.md)."""
    import io

    import numpy as np
    from PIL import Image

    raw = io.BytesIO()
    figure.savefig(raw, format="rgba", dpi=dpi)
    pixels = raw.getbuffer()
    width = int(figure.get_figwidth() * dpi)  # Agg's canvas: int() of the size in pixels
    height = int(figure.get_figheight() * dpi)
    if width <= 0 or height <= 0 or width * height * 4 != len(pixels):
        del pixels  # not the expected canvas: matplotlib's own PNG writer
        figure.savefig(temp, format="png", dpi=dpi, metadata=STABLE_METADATA["png"],
                       pil_kwargs={"compress_level": PNG_COMPRESS_LEVEL})
        return
    rgba = np.frombuffer(pixels, dtype=np.uint8).reshape(height, width, 4)
    opaque = bool((rgba[:, :, 3] == 255).all())
    image = Image.frombuffer("RGBA", (width, height), rgba, "raw", "RGBA", 0, 1)
    if opaque:  # Pillow drops the alpha band in C: 4x faster than numpy's copy of RGB
        image = image.convert("RGB")
    del rgba, pixels
    image.save(temp, format="png", dpi=(dpi, dpi), compress_level=PNG_COMPRESS_LEVEL)


def stale_outputs(folder: Path, current: Iterable[str], patterns: Sequence[str]) -> list[Path]:
    """The files an earlier run wrote to ``folder`` that this run does not: the names
    listed under ``files`` in the folder's report.json (a prcurve report: its
    ``schema`` starts with ``prcurve.``, or its ``protocol`` is ``coco`` or ``voc``)
    that match one of ``patterns`` (our own file names, e.g. ``curve_*.csv``), are plain
    names in the folder, and are not in
    ``current``. Read before this run writes; nothing else is ever listed.

    Examples
    --------
    >>> import json, tempfile
    >>> from pathlib import Path
    >>> from prcurve.present.files import stale_outputs
    >>> folder = Path(tempfile.mkdtemp())
    >>> _ = (folder / "report.json").write_text(json.dumps(
    ...     {"schema": "prcurve.report/1", "files": ["curve_a.csv", "curve_b.csv",
    ...                                              "../x.csv", "data.csv"]}))
    >>> for name in ("curve_a.csv", "curve_b.csv", "data.csv"):
    ...     _ = (folder / name).write_text("x")
    >>> [p.name for p in stale_outputs(folder, ["curve_a.csv"], ["curve_*.csv"])]
    ['curve_b.csv']
    """
    manifest = folder / "report.json"
    try:
        if manifest.is_symlink() or not manifest.is_file():
            return []
        earlier = json.loads(manifest.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError):  # not ours, or unreadable: kept
        return []
    ours = isinstance(earlier, dict) and (
        str(earlier.get("schema", "")).startswith("prcurve.")  # prcurve report
        or earlier.get("protocol") in ("coco", "voc"))  # prcurve coco / voc
    if not (ours and isinstance(earlier.get("files"), list)):
        return []
    keep = set(current)
    out = []
    for name in earlier["files"]:
        if (not isinstance(name, str) or name in keep or name != Path(name).name
                or name.startswith(".") or "\\" in name
                or not any(fnmatch.fnmatchcase(name, p) for p in patterns)):
            continue
        path = folder / name
        if path.is_symlink() or path.is_file():
            out.append(path)
    return out


def check_names_free(folder: Path, patterns: Sequence[str]) -> None:
    """Refuse, before anything is written, a folder in ``folder`` named like one of our
    outputs (``patterns``): for a command that writes in two steps (``prcurve demo``:
    its data, then the report), so that the second cannot fail on it after the first.

    Raises
    ------
    InvalidInputError
        Such a folder, named (``--out: the output file '...' is a folder``).
    """
    if not folder.is_dir():
        return
    for entry in sorted(folder.iterdir()):
        if (entry.is_dir() and not entry.is_symlink()
                and any(fnmatch.fnmatchcase(entry.name, p) for p in patterns)):
            raise output_is_folder(str(entry))


def remove_stale(paths: Sequence[Path], inputs: Sequence[str | Path]) -> list[Path]:
    """Remove ``paths`` (from :func:`stale_outputs`), never an input or a link's target
    (a link is removed, not followed); returns those removed."""
    removed = []
    for path in paths:
        try:
            check_not_an_input(path, inputs)
        except ValueError:  # an input now (InvalidInputError is a ValueError): kept
            continue
        try:
            path.unlink()
        except OSError:  # gone already, or not ours to remove: left
            continue
        removed.append(path)
    return removed


MATPLOTLIB_MODULES = ("matplotlib.figure", "matplotlib.backends.backend_agg",
                      "matplotlib.backends.backend_svg", "matplotlib.style")
"""What a report's pictures are drawn with (figures without pyplot, the PNG and SVG
writers, :func:`prcurve.present.style.drawing_style`): imported ahead by
:func:`preload_picture_modules` and by :mod:`prcurve.present.picture_process`'s child."""

_PICTURE_MODULES = (*MATPLOTLIB_MODULES, "bokeh.embed", "bokeh.layouts", "bokeh.models",
                    "bokeh.plotting", "bokeh.resources")
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

    thread = threading.Thread(target=load, name="prcurve-preload", daemon=True)
    _preloading.append(thread)
    thread.start()


_preloading: list[Any] = []
"""The threads :func:`preload_picture_modules` started and nobody waited for yet."""


def finish_preloading() -> None:
    """Wait for every import :func:`preload_picture_modules` started.

    Called before this thread imports the same modules itself (:meth:`Report.write
    <prcurve.present.report.Report.write>`) and when ``prcurve report`` returns: a
    command run in a caller's process (``prcurve.cli.main([...])``) never leaves an
    import running in a thread, where the caller would find a half-initialised module in
    ``sys.modules`` (a test's check of matplotlib's settings did: ``module 'matplotlib'
    has no attribute 'rcParams'``).
    """
    while _preloading:
        _preloading.pop().join()
