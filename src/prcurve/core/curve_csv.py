"""A curve's CSV written a block of thresholds at a time (issue 26, item 6).

``PRCurve.to_table(columns).write_csv(path)`` holds every column of the table at once:
at 3*10^7 thresholds, six float64 columns are 1.4 GB, and the polars writer's frame of
them as much again. :func:`write_curve_csv` writes the same bytes while holding one
block of :data:`CURVE_CSV_BLOCK` thresholds of each column: each block's columns are
computed from the state's own counts (uint32 or float64: ``ThresholdCounts``'
invariant) with the formulas of :mod:`prcurve.core.curve_blocks`, which the full
arrays use too (element-wise, so every value is the same bit for bit), and written by
:func:`prcurve.core.csv_writers.numeric_csv` with what the whole table would decide:
the writer (by the whole table's length) and, for the columns that may hold whole
numbers of 10^10 or more (threshold and the counts), whether the column is whole
numbers throughout (an integer's text differs from a float's there: ``10000000000``
against ``1e+10``). Precision, recall and F1 lie in [0, 1], where a whole number's text
is the same either way (``1``, ``0``).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from prcurve.core import curve_blocks as blocks
from prcurve.core.counts import scale_exponent
from prcurve.core.csv_writers import _whole, numeric_csv
from prcurve.core.curve import _TABLE_COLUMNS, PRCurve
from prcurve.core.safe_files import replace_file
from prcurve.core.undefined import undefined_scope
from prcurve.validation.arrays import check_choice

__all__ = ["CURVE_CSV_BLOCK", "curve_block_columns", "curve_rows", "write_curve_csv"]

CURVE_CSV_BLOCK = 1 << 18
"""Thresholds written at a time: 2 MiB per float64 column of the block (at 3*10^7
thresholds, 2^18 kept the peak 0.1-0.2 GB under 2^20; docs/benchmarks.md)."""

_COUNT_COLUMNS = ("threshold", "tp", "fp", "fn", "tn")
"""Columns that can hold whole numbers of 10^10 or more (the others lie in [0, 1])."""


def curve_block_columns(curve: PRCurve, columns: tuple[str, ...], start: int, stop: int
                        ) -> dict[str, NDArray[Any]]:
    """Rows ``start:stop`` of ``curve.to_table(columns)``'s columns, the same values,
    computed from that block of the state alone (:func:`curve_rows`).

    Examples
    --------
    >>> from prcurve import pr_curve
    >>> from prcurve.core.curve_csv import curve_block_columns
    >>> c = pr_curve([1, 0, 1, 0], [0.9, 0.8, 0.7, 0.6])
    >>> part = curve_block_columns(c, ("threshold", "precision", "tp"), 1, 3)
    >>> [v.tolist() for v in part.values()]
    [[0.8, 0.7], [0.5, 0.6666666666666666], [1.0, 2.0]]
    """
    return curve_rows(curve, columns, slice(start, stop))


def curve_rows(curve: PRCurve, columns: tuple[str, ...],
               rows: slice | NDArray[np.integer[Any]]) -> dict[str, NDArray[Any]]:
    """The ``rows`` (a slice, or indices) of ``curve.to_table(columns)``'s columns, the
    same values, computed from those rows of the state alone: no full-length array (a
    thinned curve's points, a block of its CSV). Call it inside the curve's
    ``undefined_scope`` (as ``to_table`` computes its views).

    Examples
    --------
    >>> import numpy as np
    >>> from prcurve import pr_curve
    >>> from prcurve.core.curve_csv import curve_rows
    >>> c = pr_curve([1, 0, 1, 0], [0.9, 0.8, 0.7, 0.6])
    >>> [v.tolist() for v in curve_rows(c, ("recall", "fn"), np.array([0, 3])).values()]
    [[0.5, 1.0], [1.0, 0.0]]
    """
    counts = curve.counts
    n_pos, n_neg = counts.n_pos, counts.n_neg
    # Full-length views the curve has cached already (a picture asked for them) are read,
    # not computed again: the same values (PRCurve's cached properties use these formulas).
    cached = {name: values for name, values in vars(curve).items()
              if name in _CACHED_VIEWS and isinstance(values, np.ndarray)}
    made: dict[str, NDArray[Any]] = {}

    def tp() -> NDArray[np.float64]:  # float64 (uint32 counts converted: exact)
        if "tp" not in made:
            made["tp"] = counts._tp[rows].astype(np.float64, copy=False)
        return made["tp"]

    def fp() -> NDArray[np.float64]:
        if "fp" not in made:
            made["fp"] = counts._fp[rows].astype(np.float64, copy=False)
        return made["fp"]

    views: dict[str, Callable[[], NDArray[Any]]] = {
        "threshold": lambda: counts.thresholds[rows],
        "precision": lambda: blocks.precisions(tp(), fp()),
        "recall": lambda: blocks.recalls(tp(), n_pos),
        "tp": tp,
        "fp": fp,
        "fn": lambda: n_pos - tp(),
        "tn": lambda: n_neg - fp(),
        # PRCurve.f_beta(1.0): the counts in units of 2**-k, k from the totals.
        "f1": lambda: blocks.f_betas(tp(), fp(), n_pos - tp(),
                                     scale_exponent(n_pos + n_neg), 1.0),
    }
    return {name: cached[name][rows] if name in cached else views[name]()
            for name in columns}


_CACHED_VIEWS = frozenset(("precision", "recall", "fn", "tn"))
"""``PRCurve``'s full-length views kept on the curve once computed (``cached_property``)."""


_CHECK_BLOCK = 1 << 16
"""Values of FN or TN computed at a time to test them for whole numbers."""


def _not_whole(curve: PRCurve, columns: tuple[str, ...]) -> set[str]:
    """The columns among :data:`_COUNT_COLUMNS` that are not whole numbers throughout
    (:func:`prcurve.core.csv_writers._whole`, which tests a piece at a time and fails a
    column of fractions on its first values; FN and TN a block at a time: the test holds
    for a column when it holds for each block). Integer counts (and the totals then)
    are whole; an integer threshold column is written as integers anyway."""
    counts = curve.counts
    integer_counts = counts._tp.dtype.kind in "iu"
    stored = {"threshold": counts.thresholds, "tp": counts._tp, "fp": counts._fp}
    out = set()
    for name in columns:
        if name not in _COUNT_COLUMNS or (name != "threshold" and integer_counts) or (
                name == "threshold" and counts.thresholds.dtype.kind in "iu"):
            continue
        if name in stored:  # float64, read in place
            if not _whole(np.ascontiguousarray(stored[name], dtype=np.float64)):
                out.add(name)
            continue
        for start in range(0, len(curve), _CHECK_BLOCK):
            values = curve_block_columns(curve, (name,), start, start + _CHECK_BLOCK)[name]
            if not _whole(values):
                out.add(name)
                break
    return out


def write_curve_csv(curve: PRCurve, path: str | Path, columns: tuple[str, ...],
                    *, block: int = CURVE_CSV_BLOCK) -> None:
    """Write ``curve.to_table(columns).write_csv(path)``'s bytes, ``block`` thresholds
    at a time (memory: one block of each column, not the table).

    A curve of ``block`` thresholds or fewer, or one whose table Python's writer would
    write (:func:`prcurve.core.csv_writers.csv_writer` ``python``, or neither pyarrow
    nor polars installed), is written by the table itself. The file is written beside
    ``path`` and renamed onto it (:func:`prcurve.core.safe_files.replace_file`).
    Undefined values (NaN) warn as ``to_table``'s do, once per block.

    Raises
    ------
    InvalidInputError
        A column ``to_table`` does not know.

    Examples
    --------
    >>> import os, tempfile
    >>> from pathlib import Path
    >>> from prcurve import pr_curve
    >>> from prcurve.core.curve_csv import write_curve_csv
    >>> c = pr_curve([1, 0, 1, 0, 1], [0.9, 0.8, 0.7, 0.6, 0.5])
    >>> folder = tempfile.mkdtemp()
    >>> write_curve_csv(c, os.path.join(folder, "a.csv"), ("threshold", "tp"), block=2)
    >>> c.to_table(("threshold", "tp")).write_csv(os.path.join(folder, "b.csv"))
    >>> a, b = (Path(folder, name).read_bytes() for name in ("a.csv", "b.csv"))
    >>> a == b, a.decode().split()[:3]
    (True, ['threshold,tp', '0.9,1', '0.8,1'])
    """
    for column in columns:  # to_table's check and message
        check_choice("columns", column, _TABLE_COLUMNS)
    n = len(curve)
    if n <= block or not columns:
        curve.to_table(columns).write_csv(path)
        return
    not_whole = _not_whole(curve, columns)
    with undefined_scope(curve.zero_division):
        first = curve_block_columns(curve, columns, 0, block)
    write_first = numeric_csv(first, None, not_whole=not_whole, table_rows=n)
    del first  # write_first holds what it needs
    if write_first is None:  # Python's writer: the whole table, as before
        curve.to_table(columns).write_csv(path)
        return

    def save(temp: Path) -> None:
        with open(temp, "wb") as file:
            write_first(file)  # the header and the first block
            for start in range(block, n, block):
                with undefined_scope(curve.zero_division):
                    part = curve_block_columns(curve, columns, start, min(start + block, n))
                write = numeric_csv(part, None, header=False, not_whole=not_whole,
                                    table_rows=n)
                if write is None:  # not reached: the first block's writer writes them all
                    raise RuntimeError("no CSV writer for a block of the curve")
                write(file)

    replace_file(Path(path), save, argument="path")
