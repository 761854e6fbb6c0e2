"""The ranking state: every query's retrieved documents in rank order, as segments.

Many queries are one long table sorted by (query, score descending, document
id descending) and cut into segments, one per query; every measure is a
handful of segment operations on it (prefix counts, binary searches among the
selected rows, a segmented running maximum), so evaluating 10,000 queries costs
a few passes over arrays, not 10,000 Python loops.

Each retrieved row carries one small integer, its judgment *code* (trec_eval's
``results_rel_list`` in ``form_res_rels.c``): :data:`NOT_IN_POOL` (the
document is not in the judgments, trec_eval's -1), :data:`UNJUDGED` (judged
with a negative grade: in the pool but unjudged, trec_eval's -2), or
``JUDGED + i`` for a document judged with the i-th smallest non-negative
grade of the judgments (``grades[i]``). Every measure reads its facts from
the codes: relevant (grade at least the relevance level), judged
non-relevant, in the pool, or the grade itself.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cached_property

import numpy as np
from numpy.typing import NDArray

__all__ = [
    "JUDGED",
    "NOT_IN_POOL",
    "UNJUDGED",
    "JudgedLevels",
    "Rankings",
    "Selection",
    "c_float_scores",
    "segmented_cumsum",
    "sequential_sums",
]


F64 = NDArray[np.float64]
I64 = NDArray[np.int64]

NOT_IN_POOL, UNJUDGED, JUDGED = 0, 1, 2


def c_float_scores(score: NDArray[np.floating]) -> NDArray[np.float32]:
    """Scores as C's ``(float)`` cast keeps them: trec_eval 9 and pytrec_eval store a
    run's scores as ``float``. A score beyond float32's range becomes ±inf there as
    here, without numpy's overflow warning (the one place every ranking path narrows).

    Examples
    --------
    >>> import numpy as np
    >>> c_float_scores(np.array([0.1, 1e300, -1e300])).tolist()
    [0.10000000149011612, inf, -inf]
    """
    with np.errstate(over="ignore"):
        return score.astype(np.float32)


# Records here are plain classes, not frozen dataclasses: making a dataclass compiles its
# methods from source when the module loads, about 0.4 ms each (issue 26).
class JudgedLevels:
    """The judgments with a grade >= 0 per query, counted by grade code
    (trec_eval's ``rel_levels``), retrieved or not: query ``query[i]`` has
    ``count[i]`` documents judged with code ``code[i]``; sorted by query, then code."""

    __slots__ = ("code", "count", "query")

    def __init__(self, query: I64, code: I64, count: I64) -> None:
        self.query, self.code, self.count = query, code, count


class Selection:
    """Some of the retrieved rows of every query, in query order then rank order.

    Query q's selected rows are ``rows[first[q] : first[q] + count[q]]``
    (indices into the row arrays of the :class:`Rankings`); ``starts`` is the segment
    start of each query (to turn rows into ranks), ``matching`` every matching row in
    row order (inside segments or not), ``first_match`` where each segment's rows
    begin among ``matching``.
    """

    def __init__(self, rows: NDArray[np.intp], first: I64, count: I64, starts: I64,
                 matching: NDArray[np.intp], first_match: I64) -> None:
        self.rows, self.first, self.count = rows, first, count
        self.starts, self.matching, self.first_match = starts, matching, first_match

    @cached_property
    def query(self) -> NDArray[np.intp]:
        """The query of each selected row."""
        return np.repeat(np.arange(self.count.shape[0]), self.count)

    @cached_property
    def position(self) -> I64:
        """0-based rank of each selected row within its query."""
        return self.rows - self.starts[self.query]

    @cached_property
    def ordinal(self) -> I64:
        """1-based ordinal of each selected row among its query's selected rows."""
        return np.arange(self.rows.shape[0]) - self.first[self.query] + 1


class Rankings:
    """Each query's retrieved documents in rank order, as segments of flat arrays.

    Query ``q`` owns rows ``starts[q] : starts[q] + lengths[q]``; row order
    inside a segment is rank order. ``code`` holds each row's judgment code
    (module docstring); ``grades`` the non-negative grades the codes stand
    for; rows with ``code >= relevant_code`` are relevant. ``n_relevant`` (R)
    and ``n_judged_nonrelevant`` count the judgments per query, retrieved or
    not; ``judged_levels`` (computed on demand) counts them per grade.
    ``has_results[q]`` is False for a judged query absent from the run.
    """

    def __init__(
        self,
        lengths: NDArray[np.integer],
        code: NDArray[np.integer],
        grades: I64,
        relevant_code: int,
        n_relevant: I64,
        n_judged_nonrelevant: I64,
        starts: I64 | None = None,
        has_results: NDArray[np.bool_] | None = None,
        judged_levels: Callable[[], JudgedLevels] | None = None,
        judged_only: bool = False,
    ) -> None:
        self.lengths = lengths.astype(np.int64, copy=False)
        # Segments back to back in query order, covering every row.
        self.in_order = starts is None and int(self.lengths.sum()) == code.shape[0]
        self.starts = (
            np.concatenate(([0], np.cumsum(self.lengths)[:-1])).astype(np.int64)
            if starts is None else starts
        )
        self.code = code
        self.grades = grades
        self.relevant_code = relevant_code
        self.n_relevant = n_relevant
        self.n_judged_nonrelevant = n_judged_nonrelevant
        self.has_results = (
            np.ones(self.lengths.shape[0], dtype=bool) if has_results is None else has_results
        )
        self._judged_levels = judged_levels
        self.judged_only = judged_only  # unjudged documents were dropped (trec_eval -J)
        self._selections: dict[str, Selection] = {}

    @classmethod
    def binary(cls, relevant: NDArray[np.bool_], n_relevant: int) -> Rankings:
        """One ranking of judged documents, relevant or not (grades 1 and 0)."""
        n = relevant.shape[0]
        code = np.where(relevant, JUDGED + 1, JUDGED).astype(np.int8)
        found = int(np.count_nonzero(relevant))

        def levels() -> JudgedLevels:
            counts = np.array([n - found, n_relevant])
            keep = counts > 0
            return JudgedLevels(np.zeros(int(keep.sum()), dtype=np.int64),
                                np.array([JUDGED, JUDGED + 1])[keep], counts[keep])

        return cls(
            lengths=np.array([n]), code=code, grades=np.array([0, 1]),
            relevant_code=JUDGED + 1, n_relevant=np.array([n_relevant]),
            n_judged_nonrelevant=np.array([n - found]), judged_levels=levels,
        )

    @property
    def n_queries(self) -> int:
        return int(self.lengths.shape[0])

    @cached_property
    def relevant(self) -> NDArray[np.bool_]:
        return self.code >= self.relevant_code

    @cached_property
    def judged_nonrelevant(self) -> NDArray[np.bool_]:
        judged = self.code >= JUDGED
        judged &= self.code < self.relevant_code
        return judged

    @cached_property
    def judged_levels(self) -> JudgedLevels:
        if self._judged_levels is None:  # unreachable: every constructor passes one
            raise TypeError("these rankings carry no judgment counts")
        return self._judged_levels()

    @cached_property
    def row_grade(self) -> I64:
        """trec_eval's relevance value of each row: the grade, -1 not in the
        pool, -2 unjudged (negative grade in the judgments)."""
        table = np.concatenate(([-1, -2], self.grades)).astype(np.int64)
        grade: I64 = table[self.code]
        return grade

    # -- selections: the rows of each segment that satisfy a condition ----------------

    def selection(self, name: str, mask: Callable[[], NDArray[np.bool_]]) -> Selection:
        """The rows of each segment where ``mask()`` holds, cached under ``name``.

        Found by binary searches of each segment's bounds among the matching
        rows: one pass over the rows for the mask, none per query.
        """
        if name not in self._selections:
            matching = np.flatnonzero(mask())
            first_match = np.searchsorted(matching, self.starts)
            count = np.searchsorted(matching, self.starts + self.lengths) - first_match
            first = np.cumsum(count) - count
            if self.in_order:
                rows = matching
            else:
                where = np.repeat(first_match - first, count)
                rows = matching[where + np.arange(where.shape[0])]
            self._selections[name] = Selection(
                rows, first, count, self.starts, matching, first_match
            )
        return self._selections[name]

    @property
    def hits(self) -> Selection:
        """The relevant retrieved documents."""
        return self.selection("relevant", lambda: self.relevant)

    def count_in_top(self, selected: Selection, k: I64 | int) -> I64:
        """Selected rows among each query's top min(k, retrieved): one binary search
        per query among the matching rows, no pass over all rows."""
        end = self.starts + np.minimum(self.lengths, k)
        return np.searchsorted(selected.matching, end) - selected.first_match

    def relevant_in_top(self, k: I64 | int) -> I64:
        """Relevant documents among each query's top min(k, retrieved)."""
        return self.count_in_top(self.hits, k)

    @cached_property
    def n_relevant_retrieved(self) -> I64:
        return self.hits.count

    # The relevant retrieved documents ("hits"), all queries, in query order then
    # rank order: query q's hits are hits.rows[first_hit[q] : first_hit[q] + count].

    @property
    def first_hit(self) -> I64:
        return self.hits.first

    @property
    def hit_query(self) -> NDArray[np.intp]:
        return self.hits.query

    @cached_property
    def hit_rank(self) -> I64:
        """1-based rank of each hit within its query."""
        return self.hits.position + 1

    @cached_property
    def hit_precision(self) -> F64:
        """Precision at each hit's rank: c / rank for the c-th relevant document."""
        # trec_eval: (double) rel_so_far / (double) (i + 1); the same division here.
        return self.hits.ordinal.astype(np.float64) / self.hit_rank.astype(np.float64)

    @cached_property
    def hit_interpolated_precision(self) -> F64:
        """Largest precision at this hit's rank or deeper within the query.

        Precision falls between hits (the count stays, the rank grows), so the
        maximum over all deeper ranks is the maximum over deeper hits.
        """
        return _segmented_suffix_max(self.hit_precision, self.hit_query)

    def hit_sum(self, values: F64, count: I64) -> F64:
        """Per query, the sum of ``values`` over its first ``count`` hits."""
        return sequential_sums(values, self.first_hit, count)


def sequential_sums(values: F64, begin: I64, count: I64) -> F64:
    """Element q: ``values[begin[q] : begin[q] + count[q]]`` added one at a time, in order.

    trec_eval adds per-document terms sequentially (``sum += ...``); adding in
    the same order gives the same float, so printed values agree to the last
    digit (numpy's pairwise ``sum``/``reduceat`` can differ in the last bit).
    Vectorised across queries (:func:`_steps`): step j adds the j-th term of every
    query that has one, so the work is the number of terms plus one numpy call per
    step, until few queries are left, each then finished by one ``cumsum``.
    """
    if values.shape[0] == 0 or begin.shape[0] == 0:
        return np.zeros(begin.shape[0], dtype=np.float64)
    return _steps(values, begin, count, None)


def segmented_cumsum(values: F64, begin: I64, count: I64) -> F64:
    """Running sums within each segment ``values[begin[q] : begin[q] + count[q]]``,
    each added one term at a time from 0.0 (as trec_eval's loops accumulate).

    Segments must not overlap; elements outside every segment are left at 0.
    When every value is an integer of magnitude below 2^52 / n, each partial
    sum is exact, so one global ``cumsum`` minus each segment's base gives the
    same floats; otherwise step j extends every segment that has a j-th term
    (:func:`_steps`).
    """
    out = np.zeros(values.shape[0], dtype=np.float64)
    n = int(count.sum())
    if n == 0:
        return out
    largest = float(np.abs(values).max(initial=0.0))
    if largest * values.shape[0] < 2.0**52 and bool(np.all(values == np.round(values))):
        total = np.cumsum(values)
        base = np.where(begin > 0, total[np.maximum(begin - 1, 0)], 0.0)
        segment = np.repeat(np.arange(begin.shape[0]), count)
        index = begin[segment] + np.arange(n) - (np.cumsum(count) - count)[segment]
        out[index] = total[index] - base[segment]
        return out
    _steps(values, begin, count, out)
    return out


FEW_SEGMENTS = 16
"""Segments left when :func:`_steps` finishes each one with its own ``cumsum``: below
this many, a numpy call per segment costs less than a numpy call per remaining term
(one query of 10^6 documents took 10^5 calls a measure before session 33)."""


def _steps(values: F64, begin: I64, count: I64, out: F64 | None) -> F64:
    """Each segment's terms added one at a time from 0.0, in order: the totals (in the
    segments' order), and with ``out`` each running sum written at its term's place.

    Step j adds the j-th term of every segment that has one (longest first), while
    more than :data:`FEW_SEGMENTS` segments, and more segments than steps, are left;
    each remaining segment is then
    finished by one ``np.cumsum`` of its running total followed by its remaining
    terms: ``add.accumulate`` adds strictly left to right (no pairwise summation, which
    only reductions use), so the floats are those of the loop."""
    padded = _padded_steps(values, begin, count, out)
    if padded is not None:
        return padded
    by_count = np.argsort(-count, kind="stable")
    counts = count[by_count]
    starts = begin[by_count]
    longest = int(counts[0])
    # active[j]: how many segments (longest first) have a j-th term.
    active = np.searchsorted(-counts, -np.arange(longest), side="left")
    running = np.zeros(begin.shape[0], dtype=np.float64)
    j = 0
    # A step costs some three NumPy calls for every segment still active, finishing a
    # segment on its own about as many: step while the active segments outnumber both
    # FEW_SEGMENTS and the steps left (100 queries of 10^4 terms: 100 finishes, not
    # 10^4 steps; session 37, G's ideal sums by ranges of queries took 3x as long).
    while j < longest and int(active[j]) > max(FEW_SEGMENTS, longest - j):
        k = int(active[j])
        index = starts[:k] + j
        running[:k] += values[index]
        if out is not None:
            out[index] = running[:k]
        j += 1
    if j < longest:
        for q in range(int(active[j])):
            first, end = int(starts[q]) + j, int(starts[q] + counts[q])
            sums = np.cumsum(np.concatenate(([running[q]], values[first:end])))
            running[q] = sums[-1]
            if out is not None:
                out[first:end] = sums[1:]
    total = np.empty_like(running)
    total[by_count] = running
    return total



PADDED_CELLS = 1 << 14
"""The largest matrix :func:`_padded_steps` fills. Measured (session 37; CPU us of
``segmented_cumsum``, best of 200, Poisson segment lengths; padded against steps): 100
segments of mean 5 terms 48/134, 300 x 5 69/98, 1000 x 5 (13,000 cells) 150/170, 100 x 30
81/202, 30 x 100 78/378; but 3000 x 5 (45,000 cells) 859/256 and 10^4 x 5 3361/650: past
some 2^14 cells the matrix loses, and ``evaluate``'s measures at 10^6 rows (10^4
queries) took 2.5 ms against 1.9 without it."""


def _padded_steps(values: F64, begin: I64, count: I64, out: F64 | None) -> F64 | None:
    """:func:`_steps` for few segments of about equal length (at most
    :data:`PADDED_CELLS` cells, and at most the terms times 4 plus 4096): the segments
    as the columns of a matrix, a row of 0.0 first and 0.0 after each segment's terms,
    and one ``np.cumsum`` down the columns (``add.accumulate`` adds each column's
    elements strictly in order, from the 0.0 as the loop does; a 0.0 added past the
    last term leaves the sum as it is, never -0.0 from a sum that started at +0.0).
    Some ten NumPy calls whatever the lengths, where the loop of :func:`_steps` makes
    one per step (issue 26, item 5: a tenth of ``evaluate``'s measures at 10^4 rows).
    None when the matrix would be larger."""
    n_segments = begin.shape[0]
    width = int(count.max(initial=0)) + 1
    terms = int(count.sum())
    if n_segments * width > min(4 * terms + 4096, PADDED_CELLS):
        return None
    segment = np.repeat(np.arange(n_segments), count)
    step = np.arange(1, terms + 1) - np.repeat(np.cumsum(count) - count, count)
    index = begin[segment] + step - 1  # each term's place in ``values``
    cell = step * n_segments + segment  # each term's place in the matrix, flat
    flat = np.zeros(width * n_segments, dtype=np.float64)
    flat[cell] = values[index]
    matrix = flat.reshape(width, n_segments)  # a segment a column: the steps are rows
    np.cumsum(matrix, axis=0, out=matrix)
    if out is not None:
        out[index] = flat[cell]
    totals: F64 = matrix[-1].copy()
    return totals


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
