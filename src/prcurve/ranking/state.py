"""The ranking state: every query's retrieved documents in rank order, as segments.

Many queries are one long table sorted by (query, score descending, document
id descending) and cut into segments, one per query; every measure is a
handful of segment operations on it (prefix counts, binary searches among the
relevant rows, a segmented running maximum), so evaluating 10,000 queries costs
a few passes over arrays, not 10,000 Python loops.
"""

from __future__ import annotations

from functools import cached_property

import numpy as np
from numpy.typing import NDArray

__all__ = [
    "Rankings",
]


F64 = NDArray[np.float64]
I64 = NDArray[np.int64]


class Rankings:
    """Each query's retrieved documents in rank order, as segments of flat arrays.

    Query ``q`` owns rows ``starts[q] : starts[q] + lengths[q]``; row order
    inside a segment is rank order. ``relevant`` and ``judged_nonrelevant``
    are the two relevance facts every measure needs; ``n_relevant`` (R) and
    ``n_judged_nonrelevant`` count the judgments, retrieved or not.
    """

    def __init__(
        self,
        lengths: NDArray[np.intp],
        relevant: NDArray[np.bool_],
        judged_nonrelevant: NDArray[np.bool_],
        n_relevant: I64,
        n_judged_nonrelevant: I64,
        starts: I64 | None = None,
    ) -> None:
        self.lengths = lengths.astype(np.int64, copy=False)
        self.in_order = starts is None  # segments back to back, in query order
        self.starts = (
            np.concatenate(([0], np.cumsum(self.lengths)[:-1])).astype(np.int64)
            if starts is None else starts
        )
        self.relevant = relevant
        self.judged_nonrelevant = judged_nonrelevant
        self.n_relevant = n_relevant
        self.n_judged_nonrelevant = n_judged_nonrelevant

    @property
    def n_queries(self) -> int:
        return int(self.lengths.shape[0])

    @cached_property
    def _relevant_rows(self) -> NDArray[np.intp]:
        """Every relevant row, in row order (segments or not)."""
        return np.flatnonzero(self.relevant)

    @cached_property
    def _first_relevant(self) -> NDArray[np.intp]:
        return np.searchsorted(self._relevant_rows, self.starts)

    def relevant_in_top(self, k: I64 | int) -> I64:
        """Relevant documents among each query's top min(k, retrieved).

        Counted among the relevant rows, one binary search per query: no pass
        over all rows.
        """
        end = self.starts + np.minimum(self.lengths, k)
        return np.searchsorted(self._relevant_rows, end) - self._first_relevant

    @cached_property
    def n_relevant_retrieved(self) -> I64:
        return self.relevant_in_top(self.lengths)

    # The relevant retrieved documents, all queries, in query order then rank
    # order: "hits". Query q's hits are
    # hits[first_hit[q] : first_hit[q] + n_relevant_retrieved[q]].

    @cached_property
    def first_hit(self) -> I64:
        return np.cumsum(self.n_relevant_retrieved) - self.n_relevant_retrieved

    @cached_property
    def _hit_rows(self) -> NDArray[np.intp]:
        if self.in_order:
            return self._relevant_rows
        count = self.n_relevant_retrieved
        where = np.repeat(self._first_relevant - self.first_hit, count)
        hits: NDArray[np.intp] = self._relevant_rows[where + np.arange(where.shape[0])]
        return hits

    @cached_property
    def hit_query(self) -> NDArray[np.intp]:
        return np.repeat(np.arange(self.n_queries), self.n_relevant_retrieved)

    @cached_property
    def hit_rank(self) -> I64:
        """1-based rank of each hit within its query."""
        return self._hit_rows - self.starts[self.hit_query] + 1

    @cached_property
    def hit_precision(self) -> F64:
        """Precision at each hit's rank: c / rank for the c-th relevant document."""
        ordinal = np.arange(self._hit_rows.shape[0]) - self.first_hit[self.hit_query] + 1
        # trec_eval: (double) rel_so_far / (double) (i + 1); the same division here.
        return ordinal.astype(np.float64) / self.hit_rank.astype(np.float64)

    @cached_property
    def hit_interpolated_precision(self) -> F64:
        """Largest precision at this hit's rank or deeper within the query.

        Precision falls between hits (the count stays, the rank grows), so the
        maximum over all deeper ranks is the maximum over deeper hits.
        """
        return _segmented_suffix_max(self.hit_precision, self.hit_query)

    def hit_sum(self, values: F64, count: I64) -> F64:
        """Per query, the sum of ``values`` over its first ``count`` hits."""
        return _prefix_sums(values, self.first_hit, count)


def _prefix_sums(values: F64, begin: I64, count: I64) -> F64:
    """Element q: ``values[begin[q] : begin[q] + count[q]]`` added one at a time, in order.

    trec_eval adds per-document terms sequentially (``sum += ...``); adding in
    the same order gives the same float, so printed values agree to the last
    digit (numpy's pairwise ``sum``/``reduceat`` can differ in the last bit).
    Vectorised across queries: step j adds the j-th term of every query that
    has one, so the work is the number of terms plus one numpy call per step.
    """
    out = np.zeros(begin.shape[0], dtype=np.float64)
    if values.shape[0] == 0 or begin.shape[0] == 0:
        return out
    by_count = np.argsort(-count, kind="stable")
    counts = count[by_count]
    starts = begin[by_count]
    longest = int(counts[0])
    # active[j]: how many queries (longest first) have a j-th term.
    active = np.searchsorted(-counts, -np.arange(longest), side="left")
    total = np.zeros(begin.shape[0], dtype=np.float64)
    for j in range(longest):
        k = int(active[j])
        total[:k] += values[starts[:k] + j]
    out[by_count] = total
    return out


def _segmented_suffix_max(values: F64, segment: NDArray[np.intp]) -> F64:
    """Element i: max of values[i:] within i's segment (segments contiguous).

    A doubling scan (Hillis–Steele): after the pass with step s every element
    holds the maximum of the next 2s elements of its segment; log2(longest)
    passes, each one vectorised. Exact: it only compares.
    """
    out: F64 = values.copy()
    n = out.shape[0]
    step = 1
    while step < n:
        same = segment[step:] == segment[:-step]
        if not same.any():
            break
        np.maximum(out[:-step], np.where(same, out[step:], -np.inf), out=out[:-step])
        step *= 2
    return out
