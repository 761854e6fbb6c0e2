"""One piece of Parquet input (consecutive row groups of a file) read and counted: what
the tasks of :mod:`prcurve.io.dask` and the local worker processes of
:mod:`prcurve.io.workers` (``prcurve report --workers N``) share.

- :class:`TaskSpec`: what every task needs (columns, bins, label rules, the budget),
  its equal-width edges sent as (low, high, bins) (:func:`packed`);
- :func:`parquet_pieces`: the files cut into pieces of about :data:`PIECE_ROWS` rows;
- :func:`read_piece` and :func:`count_piece`: a piece's columns, then its states (or
  ranges), or what is wrong with its rows, as a :class:`~prcurve.io.dask_parts.Part`;
- :func:`check_rows`, :func:`kept_rows` and :func:`check_piece`: a piece's rows checked
  by ``prcurve report``'s file rules and each score column's kept rows, for the counts,
  the workers' held rows and the budget's screen alike;
- :func:`raise_problem`: the first problem of a merged result raised with its file and
  row (in the process that called, never in a task).

Examples
--------
>>> import numpy as np
>>> from prcurve.io.piece_tasks import TaskSpec, count_piece
>>> spec = TaskSpec("y", ["s"], None, [None])
>>> columns = {"y": np.array([1, 0, 1]), "s": np.array([0.9, 0.5, 0.1])}
>>> part = count_piece(columns, 3, 0, spec)
>>> part.states[0].tp.tolist(), part.problem
([1.0, 1.0, 2.0], None)
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

from prcurve.core.bin_edges import equal_width_edges
from prcurve.core.binned import BinnedCounts, empty_over, resolve_edges
from prcurve.core.counts import ThresholdCounts
from prcurve.errors import InvalidInputError
from prcurve.io.dask_parts import Budget, Part, State, some_values, within_budget
from prcurve.io.readers import arrow_numbers, need
from prcurve.io.rows import CheckedBlock, LabelRule, RowProblem, check_block
from prcurve.validation.arrays import distinct_values
from prcurve.validation.files import dask_partition_error
from prcurve.validation.labels import BinaryLabels, check_labels

__all__ = ["PIECE_ROWS", "Kept", "Piece", "TaskSpec", "check_piece", "check_rows", "count_piece",
           "empty_states", "equal_edges", "equal_width_over", "kept_rows", "packed",
           "parquet_pieces", "raise_problem", "read_groups", "read_piece", "unpacked"]

PIECE_ROWS = 1 << 22  # rows of consecutive row groups read at a time (at least one group)
_FEW_LABELS = 3  # a partition with more distinct labels has soft labels (checked there)

Kept = tuple[NDArray[Any], NDArray[np.bool_], NDArray[np.float64] | None]
"""One score column's kept rows: (scores, positive, weights or None)."""


@functools.lru_cache(maxsize=8)
def equal_edges(low: float, high: float, n_bins: int) -> NDArray[np.float64]:
    """Equal-width edges, one array per process for each (low, high, bins): every task
    of a worker gets the same object (``empty_over`` checks it once)."""
    return equal_width_edges(low, high, n_bins)


def packed(edges: NDArray[np.float64] | None) -> Any:
    """Equal-width edges as (low, high, bins), to cross to the workers (Dask warns about
    graphs over 10 MB); other edges as they are."""
    if edges is None or edges.shape[0] < 2:
        return edges
    compact = (float(edges[0]), float(edges[-1]), int(edges.shape[0] - 1))
    return compact if np.array_equal(equal_edges(*compact), edges) else edges


def unpacked(edges: Any) -> NDArray[np.float64] | None:
    """The edges of :func:`packed`, rebuilt once per process."""
    return equal_edges(*edges) if isinstance(edges, tuple) else edges


@dataclass
class TaskSpec:
    """What every task needs: the columns, the bins, and how labels are read.

    ``rule`` set: the file rules of ``prcurve report`` (:func:`check_block`);
    else the library's (``from_scores`` with ``pos_label``, soft labels allowed).
    ``mode`` is ``"count"`` (states) or ``"range"`` (each column's smallest and
    largest valid score, for equal-width bins).
    """

    label: str
    scores: list[str]
    weight: str | None
    edges: list[NDArray[np.float64] | None]
    pos_label: Any = None
    rule: LabelRule | None = None
    mode: str = "count"
    drop_invalid: bool = False
    # The distinct-score budget of ``prcurve report`` (issue 26, item 7): an exact
    # column's state past ``budget`` thresholds is binned over its ``switch_edges``.
    budget: int | None = None
    switch_edges: list[NDArray[np.float64] | None] | None = None

    @property
    def within(self) -> Budget | None:
        if self.budget is None or self.switch_edges is None:
            return None
        return self.budget, self.switch_edges

    def __getstate__(self) -> dict[str, Any]:
        # Equal-width edges as (low, high, bins): Dask warns about graphs over 10 MB.
        state = dict(self.__dict__)
        state["edges"] = [packed(e) for e in self.edges]
        if self.switch_edges is not None:
            state["switch_edges"] = [packed(e) for e in self.switch_edges]
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        state["edges"] = [unpacked(e) for e in state["edges"]]
        if state.get("switch_edges") is not None:
            state["switch_edges"] = [unpacked(e) for e in state["switch_edges"]]
        self.__dict__.update(state)

    def ranging(self) -> TaskSpec:
        """This spec asking each piece for its score columns' ranges (``mode="range"``):
        the pass that places equal-width bins where Parquet statistics do not."""
        return TaskSpec(self.label, self.scores, self.weight, [None] * len(self.scores),
                        rule=self.rule, mode="range", drop_invalid=self.drop_invalid)

    @property
    def columns(self) -> list[str]:
        return [self.label, *([self.weight] if self.weight else []),
                *[s for s in self.scores if s not in (self.label, self.weight)]]


def equal_width_over(n_bins: int, ranges: Sequence[Any],
                     result: Part | None = None) -> list[NDArray[np.float64] | None]:
    """``n_bins`` equal-width bins over each column's (low, high), or over the ranges a
    range pass found (``result``: a column without kept scores over (0, 1))."""
    if result is not None:
        ranges = [r if np.isfinite(r[0]) else (0.0, 1.0) for r in result.ranges]
    return [resolve_edges(n_bins, np.array([float(lo), float(hi)])) for lo, hi in ranges]


def empty_states(spec: TaskSpec) -> list[State]:
    return [ThresholdCounts.empty() if e is None else empty_over(e) for e in spec.edges]


def count_piece(columns: dict[str, NDArray[Any]], n: int, index: int, spec: TaskSpec) -> Part:
    """One piece's (or partition's) states, or ranges, or what is wrong with its rows:
    ``columns`` hold its ``n`` rows, ``index`` is its place among the pieces."""
    empty = Part([(index, n)], empty_states(spec),
                  ranges=[(np.inf, -np.inf)] * len(spec.scores))
    if n == 0:
        return empty
    if spec.rule is None:
        return _count_library(columns, index, spec, empty)
    kept = check_piece(empty, columns, index, spec)
    if kept is None:
        return empty
    if spec.mode == "range":
        empty.ranges = [_range(scores) for scores, _, _ in kept]
        return empty
    states: list[State] = []
    for (scores, positive, weights), edges in zip(kept, spec.edges, strict=True):
        labels = BinaryLabels(positive=positive, soft=None)
        if edges is None:
            states.append(within_budget(ThresholdCounts._from_checked(scores, labels, weights),
                                        spec.within, len(states)))
        else:
            binned = empty_over(edges)
            binned._add_checked(scores, labels, weights, threads=1)  # threads: Dask's
            states.append(binned)
    empty.states = states
    return empty


def check_rows(columns: dict[str, NDArray[Any]], spec: TaskSpec
               ) -> tuple[LabelRule, CheckedBlock]:
    """A piece's rows checked by ``prcurve report``'s file rules (:func:`check_block`):
    the label rule they showed (a fresh one, merged with the others' by the caller) and
    the checked block. Raises :class:`~prcurve.io.rows.RowProblem` at a bad row."""
    rule = LabelRule(spec.label, None if spec.rule is None else spec.rule.positive)
    block = check_block(columns[spec.label], rule,
                        None if spec.weight is None else columns[spec.weight], spec.weight,
                        {s: columns[s] for s in spec.scores}, spec.drop_invalid)
    return rule, block


def kept_rows(block: CheckedBlock, column: str) -> Kept:
    """The rows of ``block`` that ``column`` keeps (all of them without ``drop_invalid``)."""
    keep = block.keep[column]
    scores, positive, weights = block.scores[column], block.positive, block.weights
    if keep is not None:
        scores, positive = scores[keep], positive[keep]
        weights = None if weights is None else weights[keep]
    return scores, positive, weights


def check_piece(part: Part, columns: dict[str, NDArray[Any]], index: int, spec: TaskSpec
                ) -> list[Kept] | None:
    """:func:`check_rows` of piece ``index``, noted in ``part`` (its label rule, positives,
    and per column the kept rows, kept positives and dropped rows by reason); returns
    each score column's kept rows, or None after noting the piece's problem."""
    try:
        rule, block = check_rows(columns, spec)
    except RowProblem as problem:
        part.problem = (index, problem)
        return None
    part.rules = [(index, rule)]
    part.positives = int(np.count_nonzero(block.positive))
    kept = []
    for column in spec.scores:
        scores, positive, weights = kept_rows(block, column)
        part.kept.append(int(scores.shape[0]))
        part.kept_positives.append(int(np.count_nonzero(positive)))
        part.dropped.append(dict(block.dropped.get(column, {})))
        kept.append((scores, positive, weights))
    return kept


def _range(kept: NDArray[Any]) -> tuple[float, float]:
    if not kept.shape[0]:
        return np.inf, -np.inf
    return float(np.min(kept)), float(np.max(kept))


def _count_library(columns: dict[str, NDArray[Any]], index: int, spec: TaskSpec,
                   empty: Part) -> Part:
    y = columns[spec.label]
    w = None if spec.weight is None else np.asarray(columns[spec.weight], dtype=np.float64)
    states: list[State] = []
    try:
        if spec.pos_label is not None:
            # Whether pos_label occurs is a property of the whole, not of a partition: a
            # partition of negatives only is fine. Its labels become booleans here, and
            # the absent-pos_label rule is applied to the whole (pr_counts_columns).
            positive = check_labels(spec.label, y, spec.pos_label, check_positive=False)
            y = np.asarray(positive.positive, dtype=bool)  # set whenever pos_label is given
            if y.any():
                empty.matched = True
            else:
                empty.unmatched = some_values(distinct_values(columns[spec.label]).tolist())
        for score, e in zip(spec.scores, spec.edges, strict=True):
            s = columns[score]
            if e is None:
                states.append(ThresholdCounts.from_scores(y, s, sample_weight=w))
            else:
                states.append(BinnedCounts.from_scores(y, s, e, sample_weight=w))
        if spec.pos_label is None:  # labels checked above: hard ones noted for the whole
            values = np.unique(np.asarray(y))
            if values.shape[0] > _FEW_LABELS:
                empty.soft = True
            else:
                empty.labels = values.tolist()
    except (InvalidInputError, ValueError, TypeError) as error:
        empty.problem = (index, str(error))
        return empty
    empty.states = states
    return empty


def read_groups(path: str, groups: list[int], spec: TaskSpec, use_threads: bool = False
                ) -> tuple[dict[str, NDArray[Any]], int]:
    """The spec's columns of row groups of one Parquet file, as a task reads them."""
    pa = need("pyarrow", "Parquet files")
    pq = need("pyarrow.parquet", "Parquet files")
    with pq.ParquetFile(path) as file:
        # One thread in a task: a worker's threads are Dask's to give (pyarrow's own pool
        # would make one single-threaded worker use every core of its machine).
        table = file.read_row_groups(groups, columns=spec.columns, use_threads=use_threads)
    columns = {name: arrow_numbers(pa, table.column(name)) for name in spec.columns}
    return columns, int(table.num_rows)


def read_piece(path: str, groups: list[int], index: int, spec: TaskSpec
                ) -> tuple[dict[str, NDArray[Any]], int] | Part:
    """Row groups of one Parquet file: the spec's columns and rows, or (unreadable) the
    result that says so."""
    try:
        return read_groups(path, groups, spec)
    except (OSError, ValueError, TypeError) as error:
        return Part([(index, 0)], empty_states(spec), problem=(index, f"cannot read "
                     f"{path!r}: {error}"))



@dataclass(frozen=True)
class Piece:
    path: str
    groups: list[int]
    first_row: int  # the file's row number of the piece's first row


def parquet_pieces(files: Sequence[str]) -> list[Piece]:
    """Consecutive row groups of each file, about ``PIECE_ROWS`` rows per piece."""
    pq = need("pyarrow.parquet", "Parquet files")
    pieces = []
    for path in files:
        metadata = pq.read_metadata(path)
        groups: list[int] = []
        rows = 0
        first = 1
        for g in range(metadata.num_row_groups):
            groups.append(g)
            rows += metadata.row_group(g).num_rows
            if rows >= PIECE_ROWS:
                pieces.append(Piece(path, groups, first))
                first += rows
                groups, rows = [], 0
        if groups or not pieces or pieces[-1].path != path:
            pieces.append(Piece(path, groups, first))
    return pieces



def raise_problem(result: Part, pieces: list[Piece] | None, name: str) -> None:
    """The first problem found, with its file and row (or the data's row)."""
    if result.problem is None:
        return
    index, problem = result.problem
    if pieces is not None:
        path, first_row = pieces[index].path, pieces[index].first_row
    else:
        sizes = dict(result.sizes)
        path, first_row = name, 1 + sum(sizes[i] for i in sizes if i < index)
    if isinstance(problem, RowProblem):
        raise problem.error(path, first_row)
    raise dask_partition_error(index, first_row, problem)
