"""Many measures of one kind at once: every cutoff of P, recall, AP, nDCG, ... in one pass.

trec_eval's output asks for most measures at several cutoffs (``-m all_trec``:
P, recall, map_cut, ndcg_cut and relative_P at 9 cutoffs each, 11 recall
levels, 10 multiples of R; 97 per-query columns). :func:`compute_many` gives
each measure of a list the values :func:`prcurve.ranking.kernels.compute`
gives it, bit for bit, but computes a kind's cutoffs together: one binary
search of the relevant rows for all cutoffs of P, recall, relative_P and
success (a (cutoffs x queries) matrix of ends), one running sum of the
precisions at the relevant documents for AP and every AP@k (the sum over the
first c hits is the running sum at hit c, added in the same order from 0.0),
and the shared gains of nDCG for every ndcg_cut (issue 26: the fixed cost per
measure, repeated per cutoff, was most of a small run's evaluation).
Every element is the same arithmetic, on the same operands, as the measure
computed alone; tests/test_trec_cutoffs.py checks that.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

import numpy as np
from numpy.typing import NDArray

from prcurve.core.undefined import ratio
from prcurve.ranking import graded, kernels
from prcurve.ranking.kernels import _gains_of, _interpolated_precision, compute
from prcurve.ranking.measures import Measure
from prcurve.ranking.state import Rankings, segmented_cumsum

__all__ = ["compute_many"]

F64 = NDArray[np.float64]
I64 = NDArray[np.int64]


def compute_many(measures: Iterable[Measure], r: Rankings, convention: str, *,
                 trec_raw: bool = False) -> dict[Measure, Any]:
    """Per-query values of each measure, as :func:`~prcurve.ranking.kernels.compute`
    gives them, the cutoffs of one kind computed together.

    Examples
    --------
    >>> import numpy as np
    >>> from prcurve.ranking.state import Rankings
    >>> r = Rankings.binary(np.array([True, False, True]), n_relevant=2)
    >>> values = compute_many([Measure.parse("P@1"), Measure.parse("P@2")], r, "trec_eval_10")
    >>> [values[Measure.parse(m)].tolist() for m in ("P@1", "P@2")]
    [[1.0], [0.5]]
    """
    out: dict[Measure, Any] = {}
    groups: dict[str, list[Measure]] = {}
    for m in dict.fromkeys(measures):
        if m.name in _BATCHED and not m.params and _batchable(m):
            groups.setdefault(m.name, []).append(m)
        else:
            out[m] = compute(m, r, convention, trec_raw=trec_raw)
    for name, group in groups.items():
        if len(group) == 1:
            out[group[0]] = compute(group[0], r, convention, trec_raw=trec_raw)
            continue
        rows = _BATCHED[name](r, group, convention, trec_raw)  # (measures, queries)
        for m, values in zip(group, rows, strict=True):
            out[m] = values
    return out


def _batchable(m: Measure) -> bool:
    """Measures whose cutoff the batched kernels take as compute does: AP with or
    without one; the others with a positive one (what Measure.parse allows)."""
    if m.cutoff is None:
        return m.name == "AP"
    return bool(m.cutoff > 0) or m.name in ("iprec", "Rprec_mult")


def _ks(group: list[Measure]) -> I64:
    """The integer cutoffs as a column (cutoffs x 1), as compute's ``int(k)``."""
    return np.array([int(m.cutoff or 0) for m in group], dtype=np.int64)[:, None]


# The kernels' own formulas, given the cutoffs as a column: (cutoffs x queries).


def _precision(r: Rankings, group: list[Measure], convention: str, raw: bool) -> F64:
    return kernels.precision(r, _ks(group))


def _recall(r: Rankings, group: list[Measure], convention: str, raw: bool) -> F64:
    return kernels.recall(r, _ks(group))


def _relative_precision(r: Rankings, group: list[Measure], convention: str, raw: bool) -> F64:
    return kernels._relative_precision(r, _ks(group))


def _success(r: Rankings, group: list[Measure], convention: str, raw: bool) -> F64:
    return kernels._success(r, _ks(group))


def _average_precision(r: Rankings, group: list[Measure], convention: str, raw: bool) -> F64:
    """AP and AP@k: the sum of the precisions at the first c hits of a query is the
    running sum at its c-th hit (both add one term at a time from 0.0, in order)."""
    count = np.stack([r.n_relevant_retrieved if m.cutoff is None
                      else r.relevant_in_top(int(m.cutoff)) for m in group])
    first = r.first_hit
    running = segmented_cumsum(r.hit_precision, first, r.n_relevant_retrieved)
    total = np.zeros(count.shape)
    some = count > 0
    total[some] = running[(first[None, :] + count - 1)[some]]
    return ratio(total, r.n_relevant.astype(np.float64)[None, :], "AP (no relevant documents)")


def _iprec(r: Rankings, group: list[Measure], convention: str, raw: bool) -> F64:
    levels = np.array([float(m.cutoff or 0) for m in group])
    values: F64 = _interpolated_precision(r, levels, convention, raw).T
    return values


def _rprec_mult(r: Rankings, group: list[Measure], convention: str, raw: bool) -> F64:
    return kernels._rprec_mult(r, np.array([float(m.cutoff or 0) for m in group])[:, None])


def _ndcg_cut(r: Rankings, group: list[Measure], convention: str, raw: bool) -> F64:
    g = _gains_of(r, ())  # the grades as gains, shared with ndcg
    n = r.n_queries
    query = np.tile(np.arange(n), len(group))
    k = np.repeat(_ks(group)[:, 0], n)
    total = graded._dcg_before(g, query, k).reshape(len(group), n)
    ideal = graded._ideal_at(g, query, k).reshape(len(group), n)
    return ratio(total, ideal, "ndcg_cut (no positive ideal gain)")


def _unjudged(r: Rankings, group: list[Measure], convention: str, raw: bool) -> F64:
    return kernels._unjudged(r, _ks(group))


_BATCHED: dict[str, Callable[[Rankings, list[Measure], str, bool], F64]] = {
    "P": _precision,
    "R": _recall,
    "relative_P": _relative_precision,
    "success": _success,
    "AP": _average_precision,
    "iprec": _iprec,
    "Rprec_mult": _rprec_mult,
    "ndcg_cut": _ndcg_cut,
    "unj": _unjudged,
}
