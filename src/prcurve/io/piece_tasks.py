"""One piece of Parquet input (consecutive row groups of a file) read and counted: what
the tasks of :mod:`prcurve.io.dask` and the local worker processes of
:mod:`prcurve.io.workers` (``prcurve report --workers N``) share.

- :class:`TaskSpec`: what every task needs (columns, bins, label rules, the budget);
- :func:`parquet_pieces`: the files cut into pieces of about :data:`PIECE_ROWS` rows;
- :func:`read_piece` and :func:`count_piece`: a piece's columns, then its states (or
  ranges), or what is wrong with its rows, as a :class:`~prcurve.io.dask_parts.Part`;
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

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

from prcurve.core.binned import BinnedCounts, empty_over
from prcurve.core.counts import ThresholdCounts
from prcurve.errors import InvalidInputError
from prcurve.io.dask_budget import packed, read_groups, unpacked
from prcurve.io.dask_parts import Budget, Part, State, some_values, within_budget
from prcurve.io.readers import need
from prcurve.io.rows import LabelRule, RowProblem, check_block
from prcurve.validation.arrays import distinct_values
from prcurve.validation.files import dask_partition_error
from prcurve.validation.labels import BinaryLabels, check_labels

__all__ = ["PIECE_ROWS", "Piece", "TaskSpec", "count_piece", "empty_states", "parquet_pieces",
           "raise_problem", "read_piece"]

PIECE_ROWS = 1 << 22  # rows of consecutive row groups read at a time (at least one group)
_FEW_LABELS = 3  # a partition with more distinct labels has soft labels (checked there)


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


    @property
    def columns(self) -> list[str]:
        return [self.label, *([self.weight] if self.weight else []),
                *[s for s in self.scores if s not in (self.label, self.weight)]]


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
    rule = LabelRule(spec.rule.column, spec.rule.positive)
    try:
        block = check_block(columns[spec.label], rule,
                            None if spec.weight is None else columns[spec.weight], spec.weight,
                            {s: columns[s] for s in spec.scores}, spec.drop_invalid)
    except RowProblem as problem:
        empty.problem = (index, problem)
        return empty
    empty.rules = [(index, rule)]
    empty.positives = int(np.count_nonzero(block.positive))
    states: list[State] = []
    for column, edges in zip(spec.scores, spec.edges, strict=True):
        keep = block.keep[column]
        scores, positive, weights = block.scores[column], block.positive, block.weights
        if keep is not None:
            scores, positive = scores[keep], positive[keep]
            weights = None if weights is None else weights[keep]
        empty.kept.append(int(scores.shape[0]))
        empty.kept_positives.append(int(np.count_nonzero(positive)))
        empty.dropped.append(dict(block.dropped.get(column, {})))
        if spec.mode == "range":
            continue
        labels = BinaryLabels(positive=positive, soft=None)
        if edges is None:
            states.append(within_budget(ThresholdCounts._from_checked(scores, labels, weights),
                                        spec.within, len(states)))
        else:
            binned = empty_over(edges)
            binned._add_checked(scores, labels, weights, threads=1)  # threads: Dask's
            states.append(binned)
    if spec.mode == "range":
        empty.ranges = [_range(block.scores[c], block.keep[c]) for c in spec.scores]
    else:
        empty.states = states
    return empty


def _range(scores: NDArray[Any], keep: NDArray[np.bool_] | None) -> tuple[float, float]:
    kept = scores if keep is None else scores[keep]
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
