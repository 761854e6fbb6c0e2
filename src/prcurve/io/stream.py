"""Streaming: fold files larger than memory, batch by batch, into the count state.

:func:`stream_scores` reads CSV, TSV, Parquet or JSON Lines data (one file,
several files, or a folder of them) with pyarrow (Parquet by row groups) in batches of
``batch_rows`` rows, and folds every batch into each score column's state, so
memory is bounded by the state and one batch, never by the number of rows
(docs/scale.md):

- **exact** (:class:`prcurve.ThresholdCounts`) while the number of distinct
  scores is at most ``max_distinct``. Batches are counted on their own and
  merged (merge is exact: equal to counting all rows at once), a few at a time
  in a stack whose sizes at least double downwards, so that the total merge
  work is O(n log n) rather than one full merge per batch.
- **binned** (:class:`prcurve.BinnedCounts`) once that budget is exceeded:
  the exact state so far is binned with :meth:`~prcurve.ThresholdCounts.to_binned`
  (equal to binning its rows) and later batches are binned as they come. The
  edges are ``switch_bins`` equal-width bins over the full range of the
  column's scores, found by one extra pass over that column at switch time,
  so they do not depend on the batch order and equal the in-memory
  ``pr_curve(..., bins=switch_bins)``; or the edges given as ``switch_bins``.
  ``bins=`` bins from the first row instead (again over the full range).

A binned result carries :class:`~prcurve.core.binned.APBounds`: the lowest and
highest step AP the exact data could have, given only the bins
(:func:`~prcurve.core.binned.ap_bounds`). Finding the files, choosing the columns
and reading batches is :mod:`prcurve.io.batches`' job.

``pyarrow`` is imported only when a file is streamed.

Examples
--------
>>> import os, tempfile
>>> import numpy as np
>>> import pyarrow as pa, pyarrow.parquet as pq
>>> from prcurve.io.stream import stream_counts
>>> folder = tempfile.mkdtemp()
>>> for part in range(3):
...     rng = np.random.default_rng(part)
...     table = pa.table({"label": rng.random(1000) < 0.1, "score": rng.random(1000)})
...     pq.write_table(table, os.path.join(folder, f"part{part}.parquet"))
>>> exact = stream_counts(folder, label="label", score="score", batch_rows=256)
>>> exact.mode, exact.rows, len(exact.counts)
('exact', 3000, 3000)
>>> binned = stream_counts(folder, label="label", score="score", max_distinct=500,
...                        switch_bins=100)
>>> binned.mode, binned.counts.n_bins, binned.ap_bounds.method
('binned', 100, 'step')
>>> b = binned.ap_bounds
>>> bool(b.lower <= exact.curve().average_precision() <= b.upper)
True
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any, Literal

import numpy as np
from numpy.typing import ArrayLike, NDArray

from prcurve.core.binned import APBounds, BinnedCounts, ap_bounds, resolve_edges
from prcurve.core.counts import ThresholdCounts
from prcurve.core.curve import PRCurve
from prcurve.core.merge import ExactAccumulator
from prcurve.errors import InvalidInputError
from prcurve.io.batches import (
    Batch,
    BatchReader,
    check_decimal_commas,
    choose_columns,
    input_files,
    open_dataset,
    parquet_statistics_range,
    score_range,
)
from prcurve.io.readers import RowsCallback
from prcurve.io.rows import LabelRule, check_weight_totals
from prcurve.io.text import CsvDialect
from prcurve.validation.arrays import check_edges, check_n_bins
from prcurve.validation.files import (
    check_batch_rows,
    check_max_distinct,
    empty_input,
    no_positives,
    no_positives_left,
    no_rows_left,
    positive_not_found,
)
from prcurve.validation.labels import BinaryLabels

__all__ = [
    "DEFAULT_BATCH_ROWS",
    "DEFAULT_MAX_DISTINCT",
    "DEFAULT_SWITCH_BINS",
    "APBounds",
    "StreamedCounts",
    "StreamedInput",
    "ap_bounds",
    "distinct_scores",
    "parquet_statistics_range",
    "stream_counts",
    "stream_scores",
]

F64 = NDArray[np.float64]


Mode = Literal["exact", "binned"]


DEFAULT_MAX_DISTINCT = 1 << 22


DEFAULT_SWITCH_BINS = 1 << 20


DEFAULT_BATCH_ROWS = 1 << 20


_CODED_ROWS = 1 << 21
"""Binned rows whose codes are counted together (16 MiB of codes)."""


@dataclass(frozen=True)
class StreamedCounts:
    """One score column's streamed state.

    ``mode`` says which state produced the numbers: ``"exact"`` (``counts`` is
    a :class:`~prcurve.ThresholdCounts`) or ``"binned"`` (a
    :class:`~prcurve.BinnedCounts`, with ``ap_bounds``). ``switched_at_row``
    is the number of rows read when the exact state outgrew ``max_distinct``
    (None if it never did or ``bins`` binned from the start).
    """

    column: str
    counts: ThresholdCounts | BinnedCounts
    mode: Mode
    rows: int
    max_distinct: int | None
    switched_at_row: int | None = None
    ap_bounds: APBounds | None = None
    rows_dropped: int = 0
    dropped: dict[str, int] = field(default_factory=dict)

    def curve(self) -> PRCurve:
        """Every view of the state: :meth:`prcurve.PRCurve.from_counts`."""
        return PRCurve.from_counts(self.counts)


@dataclass(frozen=True)
class StreamedInput:
    """A streamed input (one file, several files or a folder) and its models."""

    path: str
    format: str
    files: int
    n_rows: int
    batches: int
    label_column: str
    label_chosen: str
    positive_label: Any
    weight_column: str | None
    scores_chosen: str
    models: list[StreamedCounts]
    skipped_columns: list[str]
    engine: str = "stream"
    """``"stream"`` (:func:`stream_scores`), ``"dask"`` (``prcurve report --dask``) or
    ``"workers"`` (``prcurve report --workers N``, :mod:`prcurve.io.workers`)."""


class _ColumnState:
    """One score column's state: exact (a merge stack) until the budget, then binned."""

    def __init__(self, column: str, max_distinct: int | None) -> None:
        self.column = column
        self.max_distinct = max_distinct
        # Exact batches: buffered into wide runs, merged as sorted runs (core/merge.py).
        self.accumulator = ExactAccumulator()
        self.checked_at = 0  # the accumulator's size when max_distinct was last checked
        self.binned: BinnedCounts | None = None
        self.switched_at: int | None = None
        self.rows = 0
        self.dropped: dict[str, int] = {}
        self.rows_dropped = 0
        self.positives = 0  # kept positive rows, whatever their weight
        self.codes: NDArray[np.intp] | None = None  # binned rows not yet counted: codes
        self.coded = 0  # how many of them (count_codes)
        self.code_counts: NDArray[np.int64] | None = None  # counted, not yet in the state
        # The first max_distinct + 1 rows or more, held raw until their distinct scores
        # are counted once (one sort of the scores alone): a column past the budget is
        # binned from its raw rows, without an exact state first (screen).
        self.first: list[tuple[NDArray[np.floating[Any]], NDArray[np.bool_], F64 | None]] = []
        self.first_rows = 0
        self.screened = max_distinct is None

    def start_binned(self, edges: F64) -> None:
        self.binned = BinnedCounts(edges)

    def count_codes(self, final: bool = False) -> None:
        """Count the rows waiting as codes, in integers (one ``bincount``); with ``final``,
        add the counts to the binned state."""
        if self.coded and self.codes is not None and self.binned is not None:
            counts = np.bincount(self.codes[:self.coded], minlength=2 * self.binned.n_bins)
            if self.code_counts is None:
                self.code_counts = counts
            else:
                np.add(self.code_counts, counts, out=self.code_counts)
        self.coded = 0
        if final and self.code_counts is not None and self.binned is not None:
            self.binned._add_code_counts(self.code_counts)
            self.code_counts = None

    def add(self, batch: Batch, rows_read: int, switch: Callable[[], F64]) -> None:
        scores = batch.scores[self.column]
        positive, weights = batch.positive, batch.weights
        keep = batch.keep[self.column]
        for reason, count in batch.dropped.get(self.column, {}).items():
            self.dropped[reason] = self.dropped.get(reason, 0) + count
        if keep is not None:
            self.rows_dropped += int(keep.shape[0] - np.count_nonzero(keep))
            scores, positive = scores[keep], positive[keep]
            weights = None if weights is None else weights[keep]
        n = int(scores.shape[0])
        if n == 0:
            return
        self.rows += n
        self.positives += int(np.count_nonzero(positive))
        if self.binned is not None:
            self.add_binned(scores, positive, weights)
        elif not self.screened:
            self.first.append((scores, positive, weights))
            self.first_rows += n
            if self.max_distinct is not None and self.first_rows > self.max_distinct:
                self.screen(rows_read, switch)
        else:
            self.add_exact(scores, positive, weights, rows_read, switch)

    def screen(self, rows_read: int, switch: Callable[[], F64]) -> None:
        """Count the distinct scores of the rows held raw: past the budget, bin them (the
        state equals binning every row: ``to_binned`` of the exact state would give the
        same bins); else count them exactly, as every later batch."""
        first, self.first, self.screened = self.first, [], True
        distinct = distinct_scores([scores for scores, _, _ in first])
        if self.max_distinct is not None and distinct > self.max_distinct:
            self.binned = BinnedCounts(switch())
            self.switched_at = rows_read
            for scores, positive, weights in first:
                self.add_binned(scores, positive, weights)
            return
        for scores, positive, weights in first:
            self.accumulator.add(scores, BinaryLabels(positive=positive, soft=None), weights)
        self.checked_at = distinct  # an exact count: the next one when 1.5 times as many

    def add_binned(self, scores: NDArray[np.floating[Any]], positive: NDArray[np.bool_],
                   weights: F64 | None) -> None:
        n = int(scores.shape[0])
        if self.binned is not None:
            if weights is None and n <= _CODED_ROWS:
                # Codes 2 * bin + label of a few batches, counted together: one count
                # of 2 * bins per 2^21 rows rather than one per batch.
                if self.coded + n > _CODED_ROWS:
                    self.count_codes()
                if self.codes is None:
                    self.codes = np.empty(_CODED_ROWS, dtype=np.intp)
                self.binned._codes(scores, positive, self.codes[self.coded:self.coded + n])
                self.coded += n
            elif weights is None:
                self.binned._add_codes(self.binned._codes(scores, positive))
            else:
                self.binned._add_checked(scores, BinaryLabels(positive=positive, soft=None),
                                         weights)

    def add_exact(self, scores: NDArray[np.floating[Any]], positive: NDArray[np.bool_],
                  weights: F64 | None, rows_read: int, switch: Callable[[], F64]) -> None:
        self.accumulator.add(scores, BinaryLabels(positive=positive, soft=None), weights)
        if self.max_distinct is None:
            return
        # len() bounds the distinct scores from above (rows not yet counted included):
        # count them exactly only when it has passed the limit and grown by half since.
        size = len(self.accumulator)
        if size > self.max_distinct and size > 1.5 * self.checked_at:
            self.check_budget(rows_read, switch)

    def check_budget(self, rows_read: int, switch: Callable[[], F64]) -> ThresholdCounts:
        """Count the exact state (returned); past the budget, bin it from here on."""
        exact = self.accumulator.counts()
        self.checked_at = len(exact)
        if self.max_distinct is not None and len(exact) > self.max_distinct:
            self.binned = exact.to_binned(switch())
            self.accumulator = ExactAccumulator()
            self.switched_at = rows_read
        return exact

    def exact(self) -> ThresholdCounts:
        return self.accumulator.counts()

    def result(self, rows_read: int, switch: Callable[[], F64]) -> StreamedCounts:
        for scores, positive, weights in self.first:  # a column within the budget
            self.accumulator.add(scores, BinaryLabels(positive=positive, soft=None), weights)
        self.first = []
        self.count_codes(final=True)
        exact: ThresholdCounts | None = None
        if self.binned is None and self.max_distinct is not None and (
                len(self.accumulator) > self.max_distinct):
            # The last check: exact only within the budget, whatever the batches' order
            # (the checks on the way skip sizes within 1.5x of the last count). The
            # state is then a function of the rows alone, as on Dask (issue 26, item 7).
            exact = self.check_budget(rows_read, switch)
        if self.binned is not None:
            return StreamedCounts(self.column, self.binned, "binned", self.rows,
                                  self.max_distinct, self.switched_at, ap_bounds(self.binned),
                                  self.rows_dropped, dict(self.dropped))
        # The state the last check counted, not counted a second time.
        return StreamedCounts(self.column, self.exact() if exact is None else exact, "exact",
                              self.rows, self.max_distinct, None, None, self.rows_dropped,
                              dict(self.dropped))


def distinct_scores(parts: list[NDArray[np.floating[Any]]]) -> int:
    """The number of distinct values (``==``: -0.0 is 0.0) of the scores: one sort of a
    copy, and a count of the neighbours that differ. (pyarrow's ``count_distinct`` took
    3.7 s and 1.8 GB for 5 million float64 values; this 0.1 s.)"""
    values = np.sort(np.concatenate(parts)) if len(parts) > 1 else np.sort(parts[0])
    return int(np.count_nonzero(values[1:] != values[:-1])) + int(values.shape[0] > 0)


def _edges_for(bins: int | ArrayLike, reader: BatchReader, column: str, name: str) -> F64:
    if isinstance(bins, (int, np.integer)) and not isinstance(bins, bool):
        check_n_bins(name, bins)
        low, high = score_range(reader, column)
        if not math.isfinite(low):  # no rows: any edges do
            low, high = 0.0, 1.0
        # The same edges as the in-memory path over all the scores (resolve_edges).
        return resolve_edges(int(bins), np.array([low, high]))
    return check_edges(name, bins)


def stream_scores(
    source: str | Path | Sequence[str | Path],
    *,
    label: str | None = None,
    scores: Sequence[str] = (),
    weight: str | None = None,
    positive: str | None = None,
    max_distinct: int | None = DEFAULT_MAX_DISTINCT,
    switch_bins: int | ArrayLike = DEFAULT_SWITCH_BINS,
    bins: int | ArrayLike | None = None,
    drop_invalid: bool = False,
    input_format: str | None = None,
    batch_rows: int = DEFAULT_BATCH_ROWS,
    on_rows: RowsCallback | None = None,
    delimiter: str | None = None,
    decimal: str = ".",
) -> StreamedInput:
    """Stream files of labels and scores into one count state per score column.

    Parameters
    ----------
    source : str, Path or sequence of them
        A CSV, TSV, Parquet or JSON Lines file (text formats may be
        compressed), several files of one format, or a folder of them (files
        whose names start with ``.`` or ``_`` are skipped).
    label, scores, weight, positive, drop_invalid, input_format
        As in :func:`prcurve.io.load_scores`: the label column (default the
        first of label, y, y_true, target, truth), the score columns (default
        every other numeric column), a weight column, the positive label value
        as text, and whether rows with an invalid value are skipped (counted)
        rather than an error. Labels are hard: booleans, {0, 1}, {-1, 1}, or
        ``positive``.
    max_distinct : int or None, default 2**22
        The exact state's budget: once a column has more distinct scores, it
        switches to bins. None keeps it exact whatever its size.
    switch_bins : int or array_like, default 2**20
        The bins after a switch: that many equal-width bins over the column's
        full score range (one extra pass over the column), or explicit edges.
    bins : int or array_like, optional
        Bin from the first row: equal-width bins over the full range (one
        extra pass) or explicit edges; ``max_distinct`` then does not apply.
        Equal to the in-memory ``pr_curve(..., bins=bins)``.
    batch_rows : int, default 2**20
        Rows per batch; memory is O(batch_rows + state).
    on_rows : callable, optional
        Called with the number of rows after each batch (a progress bar).
    delimiter, decimal : str, optional
        CSV and TSV: the character between fields (by default sniffed per file) and
        the decimal mark, as in :func:`prcurve.io.load_scores`.

    Returns
    -------
    StreamedInput
        ``models[i]`` is a :class:`StreamedCounts` per score column, saying
        which ``mode`` produced its state.

    Raises
    ------
    InvalidInputError
        As :func:`prcurve.io.load_scores`, with the file and its row numbers.
    """
    max_distinct = check_max_distinct("max_distinct", max_distinct)
    batch_rows = check_batch_rows("batch_rows", batch_rows)
    dialect = CsvDialect.of(delimiter, decimal)
    files, fmt, name = input_files(source, input_format)
    dataset = open_dataset(files, fmt, dialect=dialect)
    try:
        columns = choose_columns(dataset.schema, name, label, scores, weight)
    except InvalidInputError:
        if not scores and fmt in ("csv", "tsv"):  # decimal commas read as text: say so
            check_decimal_commas(files[0], fmt, dialect, [label, weight])
        raise
    labels = LabelRule(columns.label, positive)
    reader = BatchReader(files, fmt, name, columns, labels, drop_invalid, batch_rows, dialect)
    states = {s: _ColumnState(s, None if bins is not None else max_distinct)
              for s in columns.scores}
    if bins is not None:
        for column, state in states.items():
            state.start_binned(_edges_for(bins, reader, column, "bins"))
    rows = batches = 0
    any_positive = False
    for rows, batch in reader.batches(columns.scores, on_rows):
        batches += 1
        any_positive = any_positive or bool(batch.positive.any())
        for column, state in states.items():
            state.add(batch, rows, partial(_edges_for, switch_bins, reader, column,
                                           "switch_bins"))
    if rows == 0:
        raise empty_input(name, "no rows")
    if not any_positive:
        if positive is not None:
            raise positive_not_found(positive, columns.label, labels.values_seen())
        raise no_positives(columns.label, name, np.array([0]))
    models = [state.result(rows, partial(_edges_for, switch_bins, reader, column, "switch_bins"))
              for column, state in states.items()]
    for model, state in zip(models, states.values(), strict=True):
        if model.rows == 0:
            raise no_rows_left(model.column, name, rows)
        if state.positives == 0:  # every positive row was dropped for this column
            raise no_positives_left(model.column, name)
        check_weight_totals(columns.weight, name, model.counts.n_pos,
                            model.counts.n_pos + model.counts.n_neg)
    return StreamedInput(
        path=name, format=fmt, files=len(files), n_rows=rows, batches=batches,
        label_column=columns.label, label_chosen=columns.label_chosen,
        positive_label=labels.value, weight_column=columns.weight,
        scores_chosen=columns.scores_chosen, models=models, skipped_columns=columns.skipped,
    )


def stream_counts(
    source: str | Path | Sequence[str | Path],
    *,
    label: str,
    score: str,
    weight: str | None = None,
    positive: str | None = None,
    max_distinct: int | None = DEFAULT_MAX_DISTINCT,
    switch_bins: int | ArrayLike = DEFAULT_SWITCH_BINS,
    bins: int | ArrayLike | None = None,
    drop_invalid: bool = False,
    input_format: str | None = None,
    batch_rows: int = DEFAULT_BATCH_ROWS,
    on_rows: RowsCallback | None = None,
    delimiter: str | None = None,
    decimal: str = ".",
) -> StreamedCounts:
    """One score column of :func:`stream_scores`: its state, mode and AP bounds.

    Examples
    --------
    >>> import os, tempfile
    >>> from prcurve.io.stream import stream_counts
    >>> path = os.path.join(tempfile.mkdtemp(), "s.csv")
    >>> with open(path, "w") as f:
    ...     _ = f.write("y,s\\n1,0.9\\n0,0.8\\n1,0.7\\n0,0.1\\n")
    >>> streamed = stream_counts(path, label="y", score="s", batch_rows=2)
    >>> streamed.mode, streamed.counts.tp.tolist(), streamed.counts.fp.tolist()
    ('exact', [1.0, 1.0, 2.0, 2.0], [0.0, 1.0, 1.0, 2.0])
    """
    streamed = stream_scores(
        source, label=label, scores=[score], weight=weight, positive=positive,
        max_distinct=max_distinct, switch_bins=switch_bins, bins=bins,
        drop_invalid=drop_invalid, input_format=input_format, batch_rows=batch_rows,
        on_rows=on_rows, delimiter=delimiter, decimal=decimal,
    )
    return streamed.models[0]
