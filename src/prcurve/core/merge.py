"""An accumulator that folds batches of scores into one exact count state at about the
cost of sorting them.

Batches are not counted one by one: their rows are buffered until ``run_rows`` rows
(default 2^23) and counted together with one sort (fewer, wider merges: a 10^8-row
stream makes a dozen runs, not a hundred); without weights that sort runs on
:func:`~prcurve.core.sorting.sort_threads` threads, by ranges of values
(:func:`~prcurve.core.sorting.split_sort`), each range counted in its thread. Each run's
state is kept as ascending distinct scores with the positive and negative weight at
each, in a compact form: the scores' own float dtype (float32 scores stay 4 bytes) and,
without weights, ``uint32`` counts while they fit. The runs wait in a stack whose sizes
at least double downwards (each row is merged O(log n) times) and are merged by one
stable ``argsort`` of two ascending runs concatenated (timsort finds the runs and merges
them in linear time), three gathers, and the sum of the weights of a score present in
both; when nearly every score of the shorter run is already in the longer one (a stream
whose scores repeat, so its state stops growing), by a search instead of a sort.
Cumulative counts are computed once, when :meth:`ExactAccumulator.counts` builds the
:class:`~prcurve.ThresholdCounts`; without weights every count is an integer, so the
state equals ``ThresholdCounts.from_scores`` on all the rows bit for bit.

float32 scores without weights (the common case of a model's output at scale) take a
packed path: each class keeps its own run of ``uint64`` words, the score's
order-preserving 32-bit key above its count, so a merge is one stable ``np.sort`` of
two concatenated runs (timsort: linear) and the sum of adjacent words with one key --
no gathers of separate arrays (:mod:`prcurve.core.packed`). The two classes' keys are
joined once, in :meth:`ExactAccumulator.counts`.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import numpy as np
from numpy.typing import NDArray

from prcurve.core.counts import ThresholdCounts, _runs
from prcurve.core.packed import (
    Packed,
    _merge_packed,
    _packed_run,
    _packed_state,
    _unpack,
)
from prcurve.core.sorting import (
    _NoPool,
    _run_lengths,
    locate,
    parts_for,
    run_parts,
    split_sort,
)
from prcurve.validation.labels import BinaryLabels, weight_overflow

__all__ = ["DEFAULT_RUN_ROWS", "MERGE_PIECE", "PACKED_WIDER", "ExactAccumulator", "merge_runs"]

F64 = NDArray[np.float64]
Run = tuple[NDArray[Any], NDArray[Any], NDArray[Any]]
"""Ascending distinct scores, and the positive and negative weight at each."""

DEFAULT_RUN_ROWS = 1 << 23
_UINT32_LIMIT = (1 << 32) - 1


def merge_runs(a: Run, b: Run, dtype: np.dtype[Any] | None = None) -> Run:
    """The union of two runs: ascending distinct scores, weights of a shared score added.

    ``dtype`` is that of the merged weights (by default float64 for float weights; for
    counts uint32 while their total fits, else int64). The runs are merged piece by
    piece (about :data:`MERGE_PIECE` rows of the longer run and the rows of the other
    between the same scores), so the sort and its temporaries stay in
    cache and the only large arrays are the inputs and the output.

    Examples
    --------
    >>> import numpy as np
    >>> from prcurve.core.merge import merge_runs
    >>> v, pos, neg = merge_runs((np.array([0.1, 0.5]), np.array([1, 0]), np.array([0, 2])),
    ...                          (np.array([0.5, 0.9]), np.array([3, 1]), np.array([1, 0])))
    >>> v.tolist(), pos.tolist(), neg.tolist()
    ([0.1, 0.5, 0.9], [1, 3, 1], [0, 3, 0])
    """
    n_a, n_b = a[0].shape[0], b[0].shape[0]
    dtype = _weights_dtype(a, b) if dtype is None else dtype
    if n_a == 0 or n_b == 0:
        values, pos, neg = b if n_a == 0 else a
        return values, pos.astype(dtype, copy=False), neg.astype(dtype, copy=False)
    if n_a < n_b:
        a, b, n_a, n_b = b, a, n_b, n_a  # pieces cut along the longer run
    absorbed = _absorb(a, b, dtype)
    if absorbed is not None:
        return absorbed
    n = n_a + n_b
    out = (np.empty(n, dtype=np.result_type(a[0], b[0])), np.empty(n, dtype=dtype),
           np.empty(n, dtype=dtype))
    a = (a[0], a[1].astype(dtype, copy=False), a[2].astype(dtype, copy=False))
    b = (b[0], b[1].astype(dtype, copy=False), b[2].astype(dtype, copy=False))
    cuts_a = np.arange(MERGE_PIECE, n_a, MERGE_PIECE)
    starts_a = np.concatenate(([0], cuts_a, [n_a]))
    starts_b = np.concatenate(([0], np.searchsorted(b[0], a[0][cuts_a]), [n_b]))
    filled = 0
    for k in range(starts_a.shape[0] - 1):
        part_a = slice(int(starts_a[k]), int(starts_a[k + 1]))
        part_b = slice(int(starts_b[k]), int(starts_b[k + 1]))
        filled += _merge_piece([x[part_a] for x in a], [x[part_b] for x in b], out, filled)
    for array in out:
        array.resize(filled, refcheck=False)  # shared scores counted once: shorter
    return out


def _absorb(longer: Run, shorter: Run, dtype: np.dtype[Any]) -> Run | None:
    """The union of two runs when few of ``shorter``'s scores are new to ``longer`` (a
    stream whose scores repeat: its state stops growing), else None: a search of the
    shorter run's ascending scores among the longer run's, an addition at the scores
    found and an insertion of the few new ones (no sort of the two)."""
    # A few evenly spaced scores first: where most are new (a stream of distinct
    # scores) the whole search would be wasted.
    probe = shorter[0][::max(1, shorter[0].shape[0] // _PROBES)]
    if np.count_nonzero(~locate(longer[0], probe)[1]) > probe.shape[0] // _FEW_NEW:
        return None
    place, found = locate(longer[0], shorter[0])  # each run's scores ascend
    new = np.flatnonzero(~found)
    if new.shape[0] > shorter[0].shape[0] // _FEW_NEW:
        return None
    # Each place is where a score of the shorter run is, or goes, among the longer
    # run's; the found places are distinct, so the additions never collide.
    pos = longer[1].astype(dtype, copy=True)
    neg = longer[2].astype(dtype, copy=True)
    kept = place[found]
    pos[kept] += shorter[1][found].astype(dtype, copy=False)
    neg[kept] += shorter[2][found].astype(dtype, copy=False)
    if new.shape[0] == 0:
        return longer[0], pos, neg
    # np.insert puts each new score before the longer run's score at its place, and
    # new scores with one place in their (ascending) order.
    at = place[new]
    return (np.insert(longer[0], at, shorter[0][new]),
            np.insert(pos, at, shorter[1][new].astype(dtype, copy=False)),
            np.insert(neg, at, shorter[2][new].astype(dtype, copy=False)))


_FEW_NEW = 8
""":func:`merge_runs` searches instead of sorting when at most one in this many scores
of the shorter run is new to the longer one."""
_PROBES = 64  # scores of the shorter run looked up first (about this many)


MERGE_PIECE = 1 << 18
"""Rows of the longer run merged at a time by :func:`merge_runs`."""

PACKED_WIDER = 4
"""The packed path buffers this many times ``run_rows`` rows per run: its rows cost 5
bytes buffered and its runs 8 bytes per distinct score (against 8 + and 12 to 24 on the
general path), and wider runs mean fewer merges (issue 15, item 2)."""


def _weights_dtype(a: Run, b: Run) -> np.dtype[Any]:
    """float64 for weights; for counts uint32 while the total fits, else int64."""
    dtype = np.result_type(a[1], b[1])
    if dtype.kind == "f":
        return np.dtype(np.float64)
    total = sum(int(run[i].sum(dtype=np.int64)) for run in (a, b) for i in (1, 2))
    return np.dtype(np.uint32) if total <= _UINT32_LIMIT else np.dtype(np.int64)


def _merge_piece(a: list[NDArray[Any]], b: list[NDArray[Any]],
                 out: tuple[NDArray[Any], ...], at: int) -> int:
    """Merge one piece of each run into ``out[.][at:]``; return the rows written."""
    both = np.concatenate((a[0], b[0]))
    order = np.argsort(both, kind="stable")  # two ascending runs: a linear-time merge
    m = both.shape[0]
    values = out[0][at:at + m]
    # ``order`` is a permutation, so "clip" never clips; it writes straight into
    # ``out`` (the default "raise" fills a temporary first, then copies it).
    np.take(both, order, out=values, mode="clip")
    pos, neg = out[1][at:at + m], out[2][at:at + m]
    np.take(np.concatenate((a[1], b[1])), order, out=pos, mode="clip")
    np.take(np.concatenate((a[2], b[2])), order, out=neg, mode="clip")
    # A score in both runs appears twice in a row (each run is strictly increasing):
    # add the first's weights to the second and drop the first.
    shared = np.flatnonzero(values[:-1] == values[1:])
    if shared.shape[0] == 0:
        return int(m)
    pos[shared + 1] += pos[shared]
    neg[shared + 1] += neg[shared]
    keep = np.ones(m, dtype=bool)
    keep[shared] = False
    kept = m - shared.shape[0]
    for array in (values, pos, neg):
        array[:kept] = array[keep]
    return int(kept)


class ExactAccumulator:
    """Batches of checked scores and labels folded into one exact count state.

    Parameters
    ----------
    run_rows : int, default 2**23
        Rows buffered before they are counted together (one sort); memory holds at most
        this many rows besides the state.

    Examples
    --------
    >>> import numpy as np
    >>> from prcurve.core.merge import ExactAccumulator
    >>> from prcurve.validation.labels import BinaryLabels
    >>> acc = ExactAccumulator(run_rows=2)
    >>> acc.add(np.array([0.9, 0.5]), BinaryLabels(np.array([True, False]), None), None)
    >>> acc.add(np.array([0.5, 0.1]), BinaryLabels(np.array([True, True]), None), None)
    >>> c = acc.counts()
    >>> c.thresholds.tolist(), c.tp.tolist(), c.fp.tolist()
    ([0.9, 0.5, 0.1], [1.0, 2.0, 3.0], [0.0, 1.0, 1.0])
    """

    def __init__(self, run_rows: int = DEFAULT_RUN_ROWS) -> None:
        self._run_rows = max(1, int(run_rows))
        self._stack: list[Run] = []
        self._buffer: list[tuple[NDArray[Any], BinaryLabels, F64 | None]] = []
        self._buffered = 0
        self._rows = 0
        self._weighted = False
        # The packed path (float32, unweighted): one stack per class, or None once a
        # batch leaves it (weights, soft labels, another dtype, over 2^32 - 1 rows).
        self._packed: tuple[list[Packed], list[Packed]] | None = ([], [])

    def __len__(self) -> int:
        """At least the number of distinct scores so far: the rows of the counted runs
        plus the rows not yet counted."""
        packed = 0 if self._packed is None else sum(
            int(run.shape[0]) for stack in self._packed for run in stack)
        return sum(int(run[0].shape[0]) for run in self._stack) + self._buffered + packed

    def add(self, scores: NDArray[np.floating[Any]], labels: BinaryLabels,
            weights: F64 | None) -> None:
        """Fold one batch (scores, labels and weights that passed validation)."""
        if scores.shape[0] == 0:
            return
        self._weighted = self._weighted or weights is not None or labels.positive is None
        if self._packed is not None and (self._weighted or scores.dtype != np.float32
                                         or self._rows + scores.shape[0] > _UINT32_LIMIT):
            self._leave_packed()
        self._buffer.append((scores, labels, weights))
        self._buffered += int(scores.shape[0])
        self._rows += int(scores.shape[0])
        wider = PACKED_WIDER if self._packed is not None else 1
        if self._buffered >= self._run_rows * wider:
            self.flush()

    def flush(self) -> None:
        """Count the buffered rows as one run and merge it into the stack."""
        if not self._buffer:
            return
        if self._packed is not None:
            # Each class's scores gathered batch by batch (copies: sorted in place).
            classes = [_class_scores(self._buffer, True), _class_scores(self._buffer, False)]
            self._buffer, self._buffered = [], 0
            for stack in self._packed:
                keys = classes.pop(0)
                if keys.shape[0]:
                    stack.append(_packed_run(keys))
                    del keys
                    _settle(stack, _merge_packed)
            return
        run = _count_run(self._buffer, self._weighted)
        self._buffer, self._buffered = [], 0
        self._stack.append(run)
        _settle(self._stack, lambda a, b: merge_runs(a, b, self._dtype()))

    def _leave_packed(self) -> None:
        """Move the packed runs to the general stack (one run) and leave the packed path."""
        if self._packed is None:
            return
        pos_stack, neg_stack = self._packed
        self._packed = None
        if pos_stack or neg_stack:
            self._stack.append(_unpack(_fold(pos_stack, _merge_packed),
                                       _fold(neg_stack, _merge_packed)))
            _settle(self._stack, lambda a, b: merge_runs(a, b, self._dtype()))

    def _dtype(self) -> np.dtype[Any]:
        if self._weighted:
            return np.dtype(np.float64)
        return np.dtype(np.uint32) if self._rows <= _UINT32_LIMIT else np.dtype(np.int64)

    def counts(self) -> ThresholdCounts:
        """The exact state of every row added (the buffer is counted, the stack merged)."""
        self.flush()
        if self._packed is not None:
            # Each class's runs merged into one (kept: more rows may follow), then the
            # two joined straight into the state.
            pos_run = _fold(self._packed[0], _merge_packed)
            neg_run = _fold(self._packed[1], _merge_packed)
            if pos_run is None and neg_run is None:
                return ThresholdCounts.empty()
            return _packed_state(pos_run, neg_run)
        if not self._stack:
            return ThresholdCounts.empty()
        values, pos, neg = _fold(self._stack, lambda a, b: merge_runs(a, b, self._dtype()))
        self._stack = [(values, pos, neg)]
        keep = None if not self._weighted else (pos + neg) > 0  # no zero-weight group
        if keep is not None and not keep.all():
            values, pos, neg = values[keep], pos[keep], neg[keep]
        thresholds = values[::-1].astype(np.float64) + 0.0  # a copy; -0.0 becomes 0.0
        tp, fp = _cumulative_descending(pos), _cumulative_descending(neg)
        n_pos = float(tp[-1]) if tp.shape[0] else 0.0
        n_neg = float(fp[-1]) if fp.shape[0] else 0.0
        if not math.isfinite(n_pos + n_neg):
            raise weight_overflow("sample_weight", max(n_pos, n_neg))
        return ThresholdCounts._trusted(thresholds, tp, fp, n_pos, n_neg)


def _settle(stack: list[Any], merge: Callable[[Any, Any], Any]) -> None:
    """Merge the top of a stack of runs while the one below is at most twice as large:
    sizes at least double downwards, so each row takes part in O(log n) merges."""
    while len(stack) >= 2 and _length(stack[-2]) <= 2 * _length(stack[-1]):
        top = stack.pop()
        below = stack.pop()  # off the stack: freed as soon as merged
        stack.append(merge(below, top))


def _length(run: Run | Packed) -> int:
    """The distinct scores of a run (general or packed)."""
    return int(run[0].shape[0] if isinstance(run, tuple) else run.shape[0])


def _fold(stack: list[Any], merge: Callable[[Any, Any], Any]) -> Any:
    """All runs of a stack merged into one (smallest first); None for an empty stack."""
    while len(stack) >= 2:
        top = stack.pop()
        below = stack.pop()
        stack.append(merge(below, top))
    return stack[0] if stack else None


def _class_scores(batches: list[tuple[NDArray[Any], BinaryLabels, F64 | None]],
                  positive: bool) -> NDArray[Any]:
    """The scores of one class of buffered hard-label batches, joined (a copy)."""
    parts = []
    for scores, labels, _ in batches:
        mask = labels.positive
        if mask is None:  # unreachable: soft labels leave the hard-label paths
            raise TypeError("hard labels expected")
        parts.append(scores[mask] if positive else scores[~mask])
    return parts[0] if len(parts) == 1 else np.concatenate(parts)


def _concatenated(
    batches: list[tuple[NDArray[Any], BinaryLabels, F64 | None]],
) -> tuple[NDArray[Any], NDArray[np.bool_]]:
    """The scores and the positive mask of buffered hard-label batches, joined."""
    if len(batches) == 1:
        scores, labels, _ = batches[0]
        positive = labels.positive
    else:
        scores = np.concatenate([b[0] for b in batches])
        parts = [b[1].positive for b in batches]
        positive = None if any(p is None for p in parts) else np.concatenate(
            [p for p in parts if p is not None])
    if positive is None:  # unreachable: soft labels leave the hard-label paths
        raise TypeError("hard labels expected")
    return scores, positive


def _cumulative_descending(weights: NDArray[Any]) -> F64:
    """Cumulative sums from the top of ascending per-score weights, as float64: in the
    weights' own dtype first (integer counts: exact, and a contiguous sum is fast)."""
    native = np.int64 if weights.dtype.kind in "iu" else np.float64
    reversed_copy = weights[::-1].astype(native)
    with np.errstate(over="ignore"):
        np.cumsum(reversed_copy, out=reversed_copy)
    return reversed_copy.astype(np.float64, copy=False)


def _count_run(
    batches: list[tuple[NDArray[Any], BinaryLabels, F64 | None]], weighted: bool,
) -> Run:
    """One run: the buffered batches counted together (one sort)."""
    if not weighted:
        scores, positive = _concatenated(batches)
        counts = np.uint32 if scores.shape[0] <= _UINT32_LIMIT else np.int64
        # As ThresholdCounts._from_checked (two sorts, integer counts), on several
        # threads when large: the scores and the positives' scores sorted by ranges of
        # values (split_sort: a run of equal scores never straddles two ranges), each
        # range counted in its thread; the ranges' runs, in order, make the run.
        parts = parts_for(scores.shape[0])
        with ThreadPoolExecutor(max_workers=parts) if parts > 1 else _NoPool() as pool:
            split = split_sort(scores, parts, pool, where=positive)
            del scores, positive
            chosen = split.sorted[:0] if split.chosen is None else split.chosen

            def count(k: int) -> Run:
                values, totals = _runs(split.sorted[split.cuts[k]:split.cuts[k + 1]])
                pos_values, pos_counts = _runs(
                    chosen[split.chosen_cuts[k]:split.chosen_cuts[k + 1]])
                pos = np.zeros(values.shape[0], dtype=counts)
                pos[np.searchsorted(values, pos_values)] = pos_counts
                neg = totals.astype(counts)
                neg -= pos
                return values, pos, neg

            ranges = run_parts(count, len(split.cuts) - 1, pool)
        if len(ranges) == 1:
            return ranges[0]
        joined = tuple(np.concatenate([r[i] for r in ranges]) for i in range(3))
        return joined[0], joined[1], joined[2]
    scores = batches[0][0] if len(batches) == 1 else np.concatenate([b[0] for b in batches])
    fraction = np.concatenate([b[1].positive_fraction() for b in batches])
    w = np.concatenate([np.ones(b[0].shape[0]) if b[2] is None else b[2] for b in batches])
    order = np.argsort(scores, kind="stable")
    values, starts = _run_lengths(scores[order])
    pos = np.add.reduceat((w * fraction)[order], starts)
    neg = np.add.reduceat((w * (1.0 - fraction))[order], starts)
    return values, pos, neg
