"""Measures of one ranking from arrays: P@k, R@k, AP@k, R-precision, RR, and its count state."""

from __future__ import annotations

from typing import Any, Literal

import numpy as np
from numpy.typing import ArrayLike

from prcurve.core.counts import ThresholdCounts
from prcurve.core.undefined import ZeroDivision, undefined_scope
from prcurve.ranking import kernels
from prcurve.ranking.keys import byte_order
from prcurve.ranking.state import Rankings
from prcurve.validation.arrays import check_choice
from prcurve.validation.ranking import (
    check_cutoff,
    check_n_relevant,
    check_optional_cutoff,
    check_ranking,
)

__all__ = [
    "average_precision_at_k",
    "precision_at_k",
    "r_precision",
    "ranking_counts",
    "recall_at_k",
    "reciprocal_rank",
]


def _one_ranking(
    y_true: ArrayLike,
    y_score: ArrayLike,
    pos_label: Any,
    n_relevant: int | None,
    doc_ids: ArrayLike | None,
) -> Rankings:
    positive, scores, ids = check_ranking(y_true, y_score, pos_label, doc_ids)
    if ids is None:
        order = np.argsort(-scores, kind="stable")  # ties keep their input order
    else:
        # ties: document id descending (trec_eval; integers by their decimal text)
        _, codes = np.unique(byte_order(np.asarray(ids)), return_inverse=True)
        order = np.lexsort((-codes, -scores))
    relevant = positive[order]
    total = check_n_relevant(n_relevant, int(np.count_nonzero(relevant)))
    return Rankings.binary(relevant, total)


_RANKING_PARAMETERS = """y_true : array_like, shape (n,)
        Binary relevance of each retrieved document (booleans, {0, 1}, or any
        two values with ``pos_label``).
    y_score : array_like, shape (n,)
        Finite scores; the ranking is by score descending.
    pos_label : scalar, optional
        The value of ``y_true`` that marks a relevant document.
    n_relevant : int, optional
        The number of relevant documents for the query, retrieved or not
        (R). Default: the relevant documents in ``y_true``.
    doc_ids : array_like, shape (n,), optional
        Document ids; ties in score are then broken by id descending, as
        trec_eval does. Without them tied documents keep their input order."""


def precision_at_k(
    y_true: ArrayLike,
    y_score: ArrayLike,
    k: int,
    *,
    pos_label: Any = None,
    doc_ids: ArrayLike | None = None,
) -> float:
    """Precision at k: relevant documents among the top k, divided by k.

    Fewer than k retrieved: the missing ranks count as non-relevant (seed
    000; trec_eval's P.k), so P@k < 1 whenever fewer than k are relevant.

    Parameters
    ----------
    y_true, y_score, pos_label, doc_ids
        See :func:`average_precision_at_k`.
    k : int
        The cutoff, >= 1.

    Returns
    -------
    float

    Examples
    --------
    The Precision And Recall tutorial's movies: three relevant among the top five.

    >>> from prcurve.ranking import precision_at_k
    >>> truth = [0, 0, 1, 1, 1, 1, 0, 1, 1, 1, 0, 0]
    >>> score = [.94, .91, .90, .66, .63, .57, .37, .27, .21, .20, .18, .06]
    >>> precision_at_k(truth, score, 5)
    0.6
    >>> precision_at_k([1, 1], [0.9, 0.8], 4)  # two retrieved, two missing ranks
    0.5
    """
    cutoff = check_cutoff("k", k)
    r = _one_ranking(y_true, y_score, pos_label, None, doc_ids)
    return float(kernels.precision(r, cutoff)[0])


def recall_at_k(
    y_true: ArrayLike,
    y_score: ArrayLike,
    k: int,
    *,
    pos_label: Any = None,
    n_relevant: int | None = None,
    doc_ids: ArrayLike | None = None,
    zero_division: ZeroDivision = "nan",
) -> float:
    """Recall at k: relevant documents among the top k, divided by R.

    Parameters
    ----------
    y_true, y_score, pos_label, n_relevant, doc_ids
        See :func:`average_precision_at_k`.
    k : int
        The cutoff, >= 1.
    zero_division : {"nan", 0, 1, "raise"}, default "nan"
        The value when there is no relevant document (R = 0).

    Returns
    -------
    float

    Examples
    --------
    >>> from prcurve.ranking import recall_at_k
    >>> recall_at_k([1, 0, 1, 0], [0.9, 0.8, 0.7, 0.6], 2, n_relevant=4)
    0.25
    """
    cutoff = check_cutoff("k", k)
    with undefined_scope(zero_division):
        r = _one_ranking(y_true, y_score, pos_label, n_relevant, doc_ids)
        return float(kernels.recall(r, cutoff)[0])


def average_precision_at_k(
    y_true: ArrayLike,
    y_score: ArrayLike,
    k: int | None = None,
    *,
    denominator: Literal["min_k_relevant", "relevant"] = "min_k_relevant",
    pos_label: Any = None,
    n_relevant: int | None = None,
    doc_ids: ArrayLike | None = None,
    zero_division: ZeroDivision = "nan",
) -> float:
    """Average precision over the top k: sum of P(i) rel(i) for i <= k, normalised.

    ``denominator="min_k_relevant"`` (default) divides by min(k, R): seed
    000's AP@k. ``denominator="relevant"`` divides by R, as trec_eval's
    ``map_cut.k`` (and ``map`` when ``k`` is None) does.

    Parameters
    ----------
    y_true : array_like, shape (n,)
        Binary relevance of each retrieved document (booleans, {0, 1}, or any
        two values with ``pos_label``).
    y_score : array_like, shape (n,)
        Finite scores; the ranking is by score descending.
    k : int, optional
        The cutoff, >= 1; None looks at the whole ranking (then
        ``min_k_relevant`` is R).
    denominator : {"min_k_relevant", "relevant"}, default "min_k_relevant"
        What the sum is divided by.
    pos_label : scalar, optional
        The value of ``y_true`` that marks a relevant document.
    n_relevant : int, optional
        The number of relevant documents for the query, retrieved or not
        (R). Default: the relevant documents in ``y_true``.
    doc_ids : array_like, shape (n,), optional
        Document ids; ties in score are then broken by id descending, as
        trec_eval does. Without them tied documents keep their input order.
    zero_division : {"nan", 0, 1, "raise"}, default "nan"
        The value when there is no relevant document (R = 0).

    Returns
    -------
    float

    Examples
    --------
    The Precision And Recall tutorial: (1 + 1) / min(3, 4) = 0.67.

    >>> from prcurve.ranking import average_precision_at_k
    >>> truth = [1, 1, 0, 1, 1, 0, 0, 0, 0, 0]
    >>> score = [.840, -.085, -.264, -.463, -.551, -.579, -.708, -1.108, -1.170, -1.593]
    >>> round(average_precision_at_k(truth, score, 3), 2)
    0.67
    >>> average_precision_at_k(truth, score, 3, denominator="relevant")
    0.5
    """
    cutoff = check_optional_cutoff("k", k)
    check_choice("denominator", denominator, ("min_k_relevant", "relevant"))
    with undefined_scope(zero_division):
        r = _one_ranking(y_true, y_score, pos_label, n_relevant, doc_ids)
        if denominator == "min_k_relevant" and cutoff is None:
            denominator = "relevant"  # min(inf, R) = R
        return float(kernels.average_precision(r, cutoff, denominator)[0])


def r_precision(
    y_true: ArrayLike,
    y_score: ArrayLike,
    *,
    pos_label: Any = None,
    n_relevant: int | None = None,
    doc_ids: ArrayLike | None = None,
    zero_division: ZeroDivision = "nan",
) -> float:
    """R-precision: relevant documents among the top R, divided by R (trec_eval's Rprec).

    Only the top min(retrieved, R) documents are looked at; the rest of the
    top R count as non-relevant.

    Parameters
    ----------
    y_true, y_score, pos_label, n_relevant, doc_ids
        See :func:`average_precision_at_k`.
    zero_division : {"nan", 0, 1, "raise"}, default "nan"
        The value when there is no relevant document (R = 0).

    Returns
    -------
    float

    Examples
    --------
    >>> from prcurve.ranking import r_precision
    >>> r_precision([1, 0, 1, 0], [0.9, 0.8, 0.7, 0.6], n_relevant=3)
    0.6666666666666666
    """
    with undefined_scope(zero_division):
        r = _one_ranking(y_true, y_score, pos_label, n_relevant, doc_ids)
        return float(kernels.r_precision(r)[0])


def reciprocal_rank(
    y_true: ArrayLike,
    y_score: ArrayLike,
    *,
    pos_label: Any = None,
    doc_ids: ArrayLike | None = None,
) -> float:
    """1 / rank of the first relevant document; 0 when none was retrieved.

    Parameters
    ----------
    y_true, y_score, pos_label, doc_ids
        See :func:`average_precision_at_k`.

    Returns
    -------
    float

    Examples
    --------
    >>> from prcurve.ranking import reciprocal_rank
    >>> reciprocal_rank([0, 0, 1, 1], [0.9, 0.8, 0.7, 0.6])
    0.3333333333333333
    """
    r = _one_ranking(y_true, y_score, pos_label, None, doc_ids)
    return float(kernels.reciprocal_rank(r)[0])


def ranking_counts(
    y_true: ArrayLike,
    y_score: ArrayLike,
    *,
    pos_label: Any = None,
    n_relevant: int | None = None,
    doc_ids: ArrayLike | None = None,
) -> ThresholdCounts:

    """One ranking as the core count state, with rank as the threshold.

    Threshold ``-i`` selects the top ``i`` documents, so ``tp[i - 1]`` is
    the relevant documents in the top ``i``; ``n_pos`` is R (relevant
    documents not retrieved stay below every threshold) and ``n_neg`` the
    non-relevant retrieved. Every view of the core applies:
    ``prcurve.PRCurve.from_counts`` gives the ranking's PR curve, and the
    ``step`` average precision of these counts is trec_eval's AP.

    Examples
    --------
    >>> from prcurve.ranking import ranking_counts
    >>> c = ranking_counts([1, 0, 1], [0.9, 0.8, 0.7], n_relevant=4)
    >>> c.thresholds.tolist(), c.tp.tolist(), c.n_pos
    ([-1.0, -2.0, -3.0], [1.0, 1.0, 2.0], 4.0)
    """
    r = _one_ranking(y_true, y_score, pos_label, n_relevant, doc_ids)
    n = r.relevant.shape[0]
    tp = np.cumsum(r.relevant, dtype=np.float64)
    fp = np.arange(1, n + 1, dtype=np.float64) - tp
    thresholds = -np.arange(1, n + 1, dtype=np.float64)
    n_neg = float(n - tp[-1]) if n else 0.0
    return ThresholdCounts(thresholds, tp, fp, float(r.n_relevant[0]), n_neg)
