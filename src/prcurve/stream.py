"""Streaming: fold files larger than memory, batch by batch, into the count state.

:func:`stream_scores` reads CSV, TSV, Parquet or JSON Lines data (one file,
several files, or a folder of them) with ``pyarrow.dataset`` in batches of
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

A binned result carries :class:`APBounds`: the lowest and highest step AP the
exact data could have, given only the bins (:func:`ap_bounds`).

``pyarrow`` is imported only when a file is streamed.

Examples
--------
>>> import os, tempfile
>>> import numpy as np
>>> import pyarrow as pa, pyarrow.parquet as pq
>>> from prcurve.stream import stream_counts
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
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any, Literal

import numpy as np
from numpy.typing import ArrayLike, NDArray

from prcurve.binned import BinnedCounts, resolve_edges
from prcurve.counts import ThresholdCounts
from prcurve.curve import PRCurve
from prcurve.validation.arrays import check_edges, check_n_bins, wrong_type
from prcurve.validation.files import (
    cannot_stream,
    check_batch_rows,
    check_max_distinct,
    empty_input,
    inconsistent_labels,
    invalid_scores,
    invalid_weights,
    labels_not_binary,
    missing_column,
    missing_file,
    missing_labels,
    mixed_formats,
    no_input_files,
    no_label_column,
    no_positives,
    no_rows_left,
    no_score_columns,
    positive_not_found,
    unreadable_input,
)
from prcurve.validation.labels import BinaryLabels

__all__ = [
    "DEFAULT_BATCH_ROWS",
    "DEFAULT_MAX_DISTINCT",
    "DEFAULT_SWITCH_BINS",
    "STREAM_FORMATS",
    "APBounds",
    "StreamedCounts",
    "StreamedInput",
    "ap_bounds",
    "parquet_statistics_range",
    "stream_counts",
    "stream_scores",
]

F64 = NDArray[np.float64]
Mode = Literal["exact", "binned"]
RowsCallback = Callable[[int], None]

DEFAULT_MAX_DISTINCT = 1 << 22
"""Distinct scores kept exactly before switching to bins (0.1 GB of state; merging
it peaks near 0.5 GB: a 10^8-row report stays under 1 GB, docs/benchmarks.md)."""
DEFAULT_SWITCH_BINS = 1 << 20
"""Equal-width bins used after the switch (16 MiB of state)."""
DEFAULT_BATCH_ROWS = 1 << 20
"""Rows read at a time."""
_READAHEAD = 2  # batches read ahead of the one being counted (pyarrow's default is 16)
STREAM_FORMATS: tuple[str, ...] = ("csv", "tsv", "parquet", "jsonl")
"""The formats that can be read in batches (.npz is read whole)."""


# -- AP bounds of a binned state ------------------------------------------------------


@dataclass(frozen=True)
class APBounds:
    """Where the exact AP of binned data can lie.

    ``binned`` is the AP of the binned curve (each bin one tie group);
    ``lower`` and ``upper`` bound the AP of the exact, unbinned data whatever
    the order of the samples inside each bin. ``max_error`` is the largest
    possible ``|binned - exact|``.
    """

    method: str
    binned: float
    lower: float
    upper: float

    @property
    def max_error(self) -> float:
        return max(self.binned - self.lower, self.upper - self.binned)

    def to_dict(self) -> dict[str, Any]:
        def number(x: float) -> float | None:
            return None if math.isnan(x) else float(x)

        return {"method": self.method, "binned": number(self.binned),
                "lower": number(self.lower), "upper": number(self.upper),
                "max_error": number(self.max_error)}


def ap_bounds(binned: BinnedCounts) -> APBounds:
    """Lower and upper bounds on the exact step AP of the data behind ``binned``.

    Inside a bin the order of positives and negatives is unknown; the bins
    themselves are ordered (a score above the edges goes to the top bin, so
    clipping keeps the order). With ``T`` (``B``) the positive (all) weight in
    the bins above and ``p``, ``n`` the bin's weights, a positive group
    entering after positive weight ``x`` of its bin has precision

    - at most ``(T + x) / (B + x) <= (T + p) / (B + p)``: the bin's positives
      all ranked above its negatives, as one group. Summed, this is the step
      AP of that ordering: ``upper``.
    - at least ``f(x) = (T + x) / (B + n + x)``: all of the bin's negatives
      ranked above. ``f`` increases, so the step sum is at least
      ``∫_0^p f(x) dx = p - (B + n - T) ln((B + n + p) / (B + n))``, the
      Davis–Goadrich area of the "negatives first" ordering: ``lower``.

    Both hold for any weights, ties and soft labels; ``lower <= binned <= upper``.

    Examples
    --------
    >>> from prcurve import BinnedCounts
    >>> from prcurve.stream import ap_bounds
    >>> b = BinnedCounts.from_scores([1, 0, 1, 0], [0.9, 0.8, 0.3, 0.2], [0, 0.5, 1])
    >>> bounds = ap_bounds(b)
    >>> round(bounds.lower, 4), round(bounds.binned, 4), round(bounds.upper, 4)
    (0.3657, 0.5, 0.8333)

    The exact step AP of these four samples is 0.8333: they are in the best
    order inside each bin. With few samples per bin the lower bound is loose
    (it allows positives of any weight); it tightens as bins fill.
    """
    if not isinstance(binned, BinnedCounts):
        raise wrong_type("binned", binned, "BinnedCounts")
    pos = binned.pos[::-1]  # highest bin first
    neg = binned.neg[::-1]
    n_pos = float(pos.sum())
    if n_pos == 0:
        return APBounds("step", math.nan, math.nan, math.nan)
    T = np.cumsum(pos) - pos  # positive weight above each bin
    B = np.cumsum(pos + neg) - (pos + neg)  # all weight above each bin
    has = pos > 0
    T, B, p, n = T[has], B[has], pos[has], neg[has]
    upper = float(np.sum(p * (T + p) / (B + p)) / n_pos)
    binned_ap = float(np.sum(p * (T + p) / (B + n + p)) / n_pos)
    D = B + n
    with np.errstate(divide="ignore", invalid="ignore"):
        # D = 0 only for the first weighted bin without negatives (T = 0): f = 1.
        area = np.where(D > 0, p - (D - T) * np.log1p(p / np.where(D > 0, D, 1.0)), p)
    lower = float(np.sum(area) / n_pos)
    # Rounding can cross a bound by an ulp; the bound is the mathematical one.
    lower = min(lower, binned_ap)
    upper = max(upper, binned_ap)
    return APBounds("step", binned_ap, lower, upper)


# -- results -----------------------------------------------------------------------------


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
    """``"stream"`` (:func:`stream_scores`) or ``"dask"`` (``prcurve report --dask``)."""


# -- reading ----------------------------------------------------------------------------


def _files(source: str | Path | Sequence[str | Path], input_format: str | None
           ) -> tuple[list[str], str, str]:
    """The files of ``source``, their one format, and a name for messages."""
    from prcurve.io import FORMATS, detect_format

    if isinstance(source, (str, Path)):
        sources = [source]
        name = str(source)
    else:
        sources = list(source)
        name = ", ".join(map(str, sources[:3])) + (", ..." if len(sources) > 3 else "")
        if not sources:
            raise missing_file("")
    files: list[str] = []
    for one in sources:
        path = Path(one)
        if not path.exists():
            raise missing_file(str(one))
        if path.is_dir():
            found = sorted(
                str(p) for p in path.rglob("*")
                if p.is_file() and not p.name.startswith((".", "_"))
                and (input_format is not None or _known(p, FORMATS))
            )
            if not found:
                raise no_input_files(str(one), list(FORMATS))
            files.extend(found)
        else:
            files.append(str(path))
    formats = [detect_format(f, input_format) for f in files]
    if len(set(formats)) > 1:
        raise mixed_formats(formats)
    fmt = formats[0]
    if fmt not in STREAM_FORMATS:
        raise cannot_stream(files[0], fmt)
    return files, fmt, name


def _known(path: Path, formats: dict[str, str]) -> bool:
    suffixes = [s.lower() for s in path.suffixes]
    if suffixes and suffixes[-1] in (".gz", ".bz2", ".zst", ".lz4"):
        suffixes = suffixes[:-1]
    return bool(suffixes) and suffixes[-1] in formats


def _dataset(files: list[str], fmt: str, promote: Sequence[str] = ()) -> Any:
    from prcurve.io import _need

    ds = _need("pyarrow.dataset", f"{fmt} files in batches")
    if fmt == "parquet":
        file_format: Any = ds.ParquetFileFormat()
    elif fmt in ("csv", "tsv"):
        pacsv = _need("pyarrow.csv", "CSV and TSV files")
        file_format = ds.CsvFileFormat(
            parse_options=pacsv.ParseOptions(delimiter="," if fmt == "csv" else "\t"))
    else:
        file_format = ds.JsonFileFormat()
    dataset = ds.dataset(files, format=file_format)
    if fmt == "parquet" or not promote:
        return dataset
    # Text formats: pyarrow infers each column's type from the first block of the first
    # file; a number with a fraction in a later block of an integer column would stop
    # the read. Integer score and weight columns (``promote``) are read as float64.
    pa = _need("pyarrow", "files in batches")
    schema = pa.schema([
        pa.field(f.name, pa.float64()) if f.name in promote and pa.types.is_integer(f.type)
        else f for f in dataset.schema])
    return ds.dataset(files, format=file_format, schema=schema)


@dataclass
class _Columns:
    label: str
    label_chosen: str
    scores: list[str]
    scores_chosen: str
    weight: str | None
    skipped: list[str]


def _choose_columns(schema: Any, name: str, label: str | None, scores: Sequence[str],
                    weight: str | None) -> _Columns:
    """Label, score and weight columns from the schema, as :func:`prcurve.io.load_scores`."""
    from prcurve.io import LABEL_CANDIDATES, _need

    pa = _need("pyarrow", "files in batches")

    names = list(schema.names)
    if label is not None:
        if label not in names:
            raise missing_column("--label", label, name, names)
        label_chosen = "option"
    else:
        lowered = {n.lower(): n for n in names}
        found = [c for c in LABEL_CANDIDATES if c in names] or [
            lowered[c] for c in LABEL_CANDIDATES if c in lowered]
        if not found:
            raise no_label_column(name, LABEL_CANDIDATES, names)
        label, label_chosen = found[0], "auto"
    if weight is not None and weight not in names:
        raise missing_column("--weight", weight, name, names)
    used = {label} | ({weight} if weight is not None else set())
    if scores:
        for column in scores:
            if column not in names:
                raise missing_column("--score", column, name, names)
        chosen, how = list(scores), "option"
    else:
        def numeric(t: Any) -> bool:
            return bool(pa.types.is_integer(t) or pa.types.is_floating(t)
                        or pa.types.is_decimal(t))

        chosen = [n for n in names if n not in used and numeric(schema.field(n).type)]
        how = "auto"
        if not chosen:
            raise no_score_columns(name, names)
    skipped = [n for n in names if n not in used and n not in chosen]
    return _Columns(label, label_chosen, chosen, how, weight, skipped)


class _Labels:
    """Positive masks of label batches, consistent across batches."""

    def __init__(self, column: str, name: str, positive: str | None) -> None:
        self.column, self.name, self.positive = column, name, positive
        self.target: Any = None
        self.resolved = False
        self.seen_zero = self.seen_minus_one = False
        self.value: Any = None  # the positive value, for the report

    def mask(self, values: NDArray[Any]) -> NDArray[np.bool_]:
        from prcurve.io import _positive_value

        if self.positive is not None:
            if not self.resolved:
                self.target = _positive_value(self.positive, values, self.column)
                self.value, self.resolved = self.target, True
            target = self.target
            if values.dtype.kind == "O":
                return np.array([v == target or (isinstance(v, str) and v == str(target))
                                 for v in values.tolist()], dtype=bool)
            return np.asarray(values == target, dtype=bool)
        kind = values.dtype.kind
        if kind == "O" and all(isinstance(v, bool) for v in values.tolist()):
            values, kind = values.astype(bool), "b"
        if kind == "b":
            self.value = True if self.value is None else self.value
            return np.asarray(values, dtype=bool)
        if kind not in "iuf":
            raise labels_not_binary(self.column, self.name, values.astype(str))
        one = values == 1
        zero = values == 0
        if (zero | one).all():
            self.seen_zero = self.seen_zero or bool(zero.any())
        elif ((values == -1) | one).all():
            self.seen_minus_one = True
        else:
            raise labels_not_binary(self.column, self.name, values)
        if self.seen_zero and self.seen_minus_one:
            raise inconsistent_labels(self.column, self.name)
        self.value = 1
        return np.asarray(one, dtype=bool)


@dataclass
class _Batch:
    positive: NDArray[np.bool_]
    weights: F64 | None
    scores: dict[str, NDArray[np.floating[Any]]]
    keep: dict[str, NDArray[np.bool_] | None]
    dropped: dict[str, dict[str, int]]


def _numbers(pa: Any, column: Any) -> NDArray[Any]:
    """A numeric column as NumPy without a copy when it has no nulls (float32 kept)."""
    from prcurve.io import _arrow_to_numpy

    if pa.types.is_floating(column.type) and column.null_count == 0:
        return np.asarray(column.to_numpy(zero_copy_only=False))
    return _arrow_to_numpy(pa, column)


class _Reader:
    """The batches of the input, checked: one place for every row-level rule."""

    def __init__(self, files: list[str], fmt: str, name: str, columns: _Columns,
                 labels: _Labels, drop_invalid: bool, batch_rows: int) -> None:
        self.files, self.fmt, self.name = files, fmt, name
        self.columns, self.labels = columns, labels
        self.drop_invalid, self.batch_rows = drop_invalid, batch_rows

    def batches(self, scores: Sequence[str], on_rows: RowsCallback | None = None
                ) -> Iterator[tuple[int, _Batch]]:
        """(rows read so far, checked batch) for each batch, file by file."""
        from prcurve.io import _need

        pa = _need("pyarrow", "files in batches")

        c = self.columns
        wanted = [c.label, *([c.weight] if c.weight else []),
                  *[s for s in scores if s not in (c.label, c.weight)]]
        dataset = _dataset(self.files, self.fmt, [*c.scores, *([c.weight] if c.weight else [])])
        rows = 0
        for fragment, path in zip(dataset.get_fragments(), self.files, strict=False):
            first_row = 1
            try:
                # A few batches decoded ahead: overlap without holding a file in memory.
                stream = fragment.to_batches(schema=dataset.schema, columns=wanted,
                                             batch_size=self.batch_rows,
                                             batch_readahead=_READAHEAD, use_threads=True)
                for record in stream:
                    n = record.num_rows
                    if n == 0:
                        continue
                    batch = self._check(pa, record, scores, fragment.path or path, first_row)
                    first_row += n
                    rows += n
                    if on_rows is not None:
                        on_rows(n)
                    yield rows, batch
            except (pa.ArrowInvalid, pa.ArrowTypeError, OSError) as error:
                raise unreadable_input(str(fragment.path or path), self.fmt,
                                                   str(error) or type(error).__name__
                                                   ) from None

    def _check(self, pa: Any, record: Any, scores: Sequence[str], path: str,
               first_row: int) -> _Batch:
        from prcurve.io import _check_scores, _first_rows, _missing

        c = self.columns
        n = record.num_rows

        def rows_of(mask: NDArray[np.bool_]) -> list[int]:
            return [r + first_row - 1 for r in _first_rows(mask)]

        label_values = _numbers(pa, record.column(c.label))
        label_missing = _missing(label_values)
        if label_missing.any():
            if not self.drop_invalid:
                raise missing_labels(c.label, path, int(label_missing.sum()),
                                                 rows_of(label_missing))
            positive = np.zeros(n, dtype=bool)
            positive[~label_missing] = self.labels.mask(label_values[~label_missing])
        else:
            positive = self.labels.mask(label_values)
        weights: F64 | None = None
        weight_missing = None
        if c.weight is not None:
            weights, bad = _check_scores(_numbers(pa, record.column(c.weight)))
            for reason, found in (("score_non_numeric", "non-numeric"),
                                  ("score_infinite", "infinite")):
                if bad[reason].any():
                    raise invalid_weights(c.weight, path, found,
                                                      rows_of(bad[reason]),
                                                      int(bad[reason].sum()))
            negative = weights < 0
            if negative.any():
                raise invalid_weights(c.weight, path, "negative",
                                                  rows_of(negative), int(negative.sum()))
            weight_missing = bad["score_missing_or_nan"]
            if weight_missing.any() and not self.drop_invalid:
                raise invalid_weights(c.weight, path, "missing or NaN",
                                                  rows_of(weight_missing),
                                                  int(weight_missing.sum()))
        out = _Batch(positive, weights, {}, {}, {})
        for column in scores:
            values = _numbers(pa, record.column(column))
            if values.dtype.kind == "f":
                finite = np.isfinite(values)
                clean = bool(finite.all())
                floats: NDArray[np.floating[Any]] = values
                if not clean:
                    floats, bad = _check_scores(values)
            else:
                floats, bad = _check_scores(values)
                clean = not any(m.any() for m in bad.values())
            drop = None
            if not clean:
                invalid = (bad["score_missing_or_nan"] | bad["score_non_numeric"]
                           | bad["score_infinite"])
                if not self.drop_invalid:
                    raise invalid_scores(
                        column, path, int(bad["score_missing_or_nan"].sum()),
                        int(bad["score_non_numeric"].sum()), int(bad["score_infinite"].sum()),
                        rows_of(invalid))
                drop = invalid
                out.dropped[column] = {k: int(m.sum()) for k, m in bad.items() if m.any()}
            for reason, mask in (("label_missing", label_missing),
                                 ("weight_missing_or_nan", weight_missing)):
                if mask is not None and mask.any():
                    drop = mask if drop is None else drop | mask
                    out.dropped.setdefault(column, {})[reason] = int(mask.sum())
            out.scores[column] = floats
            out.keep[column] = None if drop is None else ~drop
        return out


# -- the states ----------------------------------------------------------------------------


class _ColumnState:
    """One score column's state: exact (a merge stack) until the budget, then binned."""

    def __init__(self, column: str, max_distinct: int | None) -> None:
        self.column = column
        self.max_distinct = max_distinct
        self.stack: list[ThresholdCounts] = []
        self.binned: BinnedCounts | None = None
        self.switched_at: int | None = None
        self.rows = 0
        self.dropped: dict[str, int] = {}
        self.rows_dropped = 0

    def start_binned(self, edges: F64) -> None:
        self.binned = BinnedCounts(edges)

    def add(self, batch: _Batch, rows_read: int, switch: Callable[[], F64]) -> None:
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
        labels = BinaryLabels(positive=positive, soft=None)
        if self.binned is not None:
            self.binned._add_checked(scores, labels, weights)
            return
        self.stack.append(ThresholdCounts._from_checked(scores, labels, weights))
        # Merge while the one below is at most twice as large: sizes at least double
        # downwards, so each row takes part in O(log n) merges.
        while len(self.stack) >= 2 and len(self.stack[-2]) <= 2 * len(self.stack[-1]):
            top = self.stack.pop()
            self.stack[-1] = self.stack[-1].merge(top)
        if self.max_distinct is not None and sum(map(len, self.stack)) > self.max_distinct:
            exact = self.exact()
            self.stack = [exact]
            if len(exact) > self.max_distinct:
                self.binned = exact.to_binned(switch())
                self.stack = []
                self.switched_at = rows_read

    def exact(self) -> ThresholdCounts:
        total = ThresholdCounts.empty()
        for state in reversed(self.stack):  # smallest first
            total = state.merge(total) if len(total) else state
        return total

    def result(self) -> StreamedCounts:
        if self.binned is not None:
            return StreamedCounts(self.column, self.binned, "binned", self.rows,
                                  self.max_distinct, self.switched_at, ap_bounds(self.binned),
                                  self.rows_dropped, dict(self.dropped))
        return StreamedCounts(self.column, self.exact(), "exact", self.rows, self.max_distinct,
                              None, None, self.rows_dropped, dict(self.dropped))


def _parquet_range(reader: _Reader, column: str) -> tuple[float, float] | None:
    """The score range from Parquet's row-group statistics, without reading the data.

    Only when every row is kept (no ``drop_invalid``: a NaN or infinite score
    stops the main pass anyway) and every row group of every file has them.
    """
    if reader.fmt != "parquet" or reader.drop_invalid:
        return None
    return parquet_statistics_range(reader.files, column)


def parquet_statistics_range(files: Sequence[str], column: str) -> tuple[float, float] | None:
    """The smallest and largest value of ``column`` in Parquet ``files``, from their
    row-group statistics; None when a row group lacks them or has nulls."""
    from prcurve.io import _need

    pq = _need("pyarrow.parquet", "Parquet files")
    low, high = math.inf, -math.inf
    for path in files:
        metadata = pq.ParquetFile(path).metadata
        names = [metadata.schema.column(i).name for i in range(metadata.num_columns)]
        if column not in names:
            return None
        where = names.index(column)
        for g in range(metadata.num_row_groups):
            group = metadata.row_group(g)
            if group.num_rows == 0:
                continue
            stats = group.column(where).statistics
            if stats is None or not stats.has_min_max or stats.null_count:
                return None
            lo, hi = stats.min, stats.max
            if not isinstance(lo, (int, float)) or not isinstance(hi, (int, float)):
                return None
            low, high = min(low, float(lo)), max(high, float(hi))
    if not (math.isfinite(low) and math.isfinite(high)):
        return None
    return low + 0.0, high + 0.0  # + 0.0: Parquet writes a minimum 0 as -0.0


def _score_range(reader: _Reader, column: str) -> tuple[float, float]:
    """The smallest and largest kept score of ``column``: from Parquet statistics, or
    one pass over that column."""
    from_statistics = _parquet_range(reader, column)
    if from_statistics is not None:
        return from_statistics
    low, high = math.inf, -math.inf
    for _, batch in reader.batches([column]):
        scores = batch.scores[column]
        keep = batch.keep[column]
        if keep is not None:
            scores = scores[keep]
        if scores.shape[0]:
            low = min(low, float(scores.min()))
            high = max(high, float(scores.max()))
    return low, high


def _edges_for(bins: int | ArrayLike, reader: _Reader, column: str, name: str) -> F64:
    if isinstance(bins, (int, np.integer)) and not isinstance(bins, bool):
        check_n_bins(name, bins)
        low, high = _score_range(reader, column)
        if not math.isfinite(low):  # no rows: any edges do
            low, high = 0.0, 1.0
        # The same edges as the in-memory path over all the scores (resolve_edges).
        return resolve_edges(int(bins), np.array([low, high]))
    return check_edges(name, bins)


# -- the public functions ------------------------------------------------------------------


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
    files, fmt, name = _files(source, input_format)
    dataset = _dataset(files, fmt)
    columns = _choose_columns(dataset.schema, name, label, scores, weight)
    labels = _Labels(columns.label, name, positive)
    reader = _Reader(files, fmt, name, columns, labels, drop_invalid, batch_rows)
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
            raise positive_not_found(positive, columns.label, np.array([]))
        raise no_positives(columns.label, name, np.array([0]))
    models = [state.result() for state in states.values()]
    for model in models:
        if model.rows == 0:
            raise no_rows_left(model.column, name, rows)
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
) -> StreamedCounts:
    """One score column of :func:`stream_scores`: its state, mode and AP bounds.

    Examples
    --------
    >>> import os, tempfile
    >>> from prcurve.stream import stream_counts
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
        on_rows=on_rows,
    )
    return streamed.models[0]
