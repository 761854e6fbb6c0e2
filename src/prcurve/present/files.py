"""The files of a report written safely: never over an input, the same bytes every run.

:func:`replace_file` writes a file through a new file beside it, renamed onto
it, so that an existing file or link in the output folder is replaced and never
written into (a link's target, an input perhaps, is untouched).
:func:`write_plots` draws the report's pictures with fixed metadata: no date,
no writer version, SVG ids from a fixed salt, so two runs give the same bytes.
"""

from __future__ import annotations

import os
import uuid
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from prcurve.core.curve import PRCurve

__all__ = ["STABLE_METADATA", "replace_file", "write_plots"]


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


def write_plots(folder: Path, curves: Mapping[str, PRCurve], inputs: Mapping[str, str], *,
                ap_method: str, beta: float) -> list[Path]:
    """pr_curve.png, pr_curve.svg and threshold.png of ``curves`` (``inputs``: each curve's
    input name, for the panel titles); returns the paths written."""
    # Figures built without pyplot: no GUI backend, no global state, nothing to close.
    import matplotlib
    from matplotlib.figure import Figure

    from prcurve.present import plot

    written = []
    groups = plot.group_by_prevalence(curves)
    style = {"ap_method": ap_method, "beta": beta}
    if len(groups) == 1:
        figure = Figure(figsize=plot.PR_FIGSIZE, layout="constrained")
        plot.plot_pr_curves(curves, figure.add_subplot(), **style)  # type: ignore[arg-type]
    else:  # one panel per prevalence: each has its own unachievable region (Boyd et al.)
        titles = []
        for group in groups:
            names = ", ".join(dict.fromkeys(inputs[name] for name in group))
            titles.append(f"{names} (π = {next(iter(group.values())).prevalence:.3g})")
        figure = Figure(layout="constrained")
        plot.plot_pr_curves_grid(groups, titles=titles, figure=figure,
                                 **style)  # type: ignore[arg-type]
    # The same bytes on every run: no date in the metadata, SVG ids from a fixed salt.
    with matplotlib.rc_context({"svg.hashsalt": "prcurve"}):
        for suffix in ("png", "svg"):
            path = folder / f"pr_curve.{suffix}"
            replace_file(path, lambda temp, s=suffix: figure.savefig(  # type: ignore[misc]
                temp, format=s, dpi=plot.DPI, metadata=STABLE_METADATA[s]))
            written.append(path)
    grid = plot.plot_thresholds_grid(curves, beta=beta, figure=Figure(layout="constrained"))
    path = folder / "threshold.png"
    replace_file(path, lambda temp: grid.savefig(temp, format="png", dpi=plot.DPI,
                                                 metadata=STABLE_METADATA["png"]))
    written.append(path)
    return written
