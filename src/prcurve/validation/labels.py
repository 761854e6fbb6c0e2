"""Checks of labels, sample weights, score matrices and count states.

Binary labels are resolved once into :class:`BinaryLabels` (which samples are
positive, or each sample's positive fraction for soft labels).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from prcurve.errors import InvalidInputError
from prcurve.validation.arrays import (
    as_1d,
    check_count,
    check_finite_numbers,
    check_same_length,
    check_scores,
    describe_values,
    first_indices,
)


@dataclass(frozen=True)
class BinaryLabels:
    """Validated labels: hard (a boolean mask of positives) or soft (floats in [0, 1]).

    Exactly one of ``positive`` and ``soft`` is set.
    """

    positive: NDArray[np.bool_] | None
    soft: NDArray[np.float64] | None

    @property
    def n(self) -> int:
        array = self.positive if self.positive is not None else self.soft
        return 0 if array is None else int(array.shape[0])

    def positive_fraction(self) -> NDArray[np.float64]:
        """Each sample's share of positive weight: 1/0 for hard labels, y for soft."""
        if self.soft is not None:
            return self.soft
        if self.positive is None:  # unreachable by construction
            raise TypeError("BinaryLabels holds neither hard nor soft labels")
        return self.positive.astype(np.float64)


def check_labels(
    name: str, values: ArrayLike, pos_label: Any = None, *, allow_soft: bool = True
) -> BinaryLabels:
    """Validate binary labels.

    Accepted without ``pos_label``: booleans; numbers in {0, 1} or {-1, 1}
    (1 is positive); and, if ``allow_soft``, floats in [0, 1] as soft labels.
    With ``pos_label``, a sample is positive exactly when it equals ``pos_label``.
    """
    array = as_1d(name, values)
    if pos_label is not None:
        if array.dtype.kind == "f" and np.isnan(array).any():
            raise InvalidInputError(
                name,
                f"found NaN labels (first at index {first_indices(np.isnan(array))})",
                "remove those samples or give them a label",
            )
        positive = np.asarray(array == pos_label)
        if positive.shape != array.shape:
            raise InvalidInputError(
                "pos_label", f"cannot be compared with {name} ({pos_label!r})", "pass a scalar"
            )
        if array.shape[0] and not positive.any():
            raise InvalidInputError(
                "pos_label",
                f"{pos_label!r} does not occur in {name}, whose values are "
                f"{describe_values(array)}",
                "pass one of those values as pos_label",
            )
        return BinaryLabels(positive=positive.astype(bool, copy=False), soft=None)

    kind = array.dtype.kind
    if kind == "b":
        return BinaryLabels(positive=array, soft=None)
    if kind not in "iuf":
        raise InvalidInputError(
            name,
            f"labels are not binary: values {describe_values(array)} and no pos_label",
            "pass pos_label=<the value of the positive class>, or labels in {0, 1}",
        )
    if kind == "f" and np.isnan(array).any():
        raise InvalidInputError(
            name,
            f"found NaN labels (first at index {first_indices(np.isnan(array))})",
            "remove those samples or give them a label in {0, 1}",
        )
    is_zero = array == 0
    is_one = array == 1
    if (is_zero | is_one).all():
        return BinaryLabels(positive=is_one, soft=None)
    if ((array == -1) | is_one).all():
        return BinaryLabels(positive=is_one, soft=None)
    if kind == "f" and allow_soft:
        outside = (array < 0) | (array > 1)
        if outside.any():
            raise InvalidInputError(
                name,
                f"soft labels must lie in [0, 1], found {int(outside.sum())} outside "
                f"(first at index {first_indices(outside)}; values {describe_values(array)})",
                "pass probabilities of the positive class in [0, 1], hard labels in {0, 1}, "
                "or pos_label=<the value of the positive class>",
            )
        return BinaryLabels(positive=None, soft=array.astype(np.float64, copy=False))
    raise InvalidInputError(
        name,
        f"labels are not binary: values {describe_values(array)} and no pos_label",
        "pass pos_label=<the value of the positive class>, or labels in {0, 1}",
    )


def check_weights(
    name: str, values: ArrayLike | None, n_samples: int
) -> NDArray[np.float64] | None:
    """Finite, non-negative float64 weights, one per sample, or None."""
    if values is None:
        return None
    array = as_1d(name, values)
    if array.dtype.kind not in "biuf":
        raise InvalidInputError(
            name, f"expected numbers, found dtype {array.dtype}", "pass numeric weights"
        )
    weights = array.astype(np.float64, copy=False)
    if weights.shape[0] != n_samples:
        raise InvalidInputError(
            name,
            f"length mismatch: {weights.shape[0]} weights for {n_samples} samples",
            "pass one weight per sample",
        )
    bad = ~np.isfinite(weights)
    if bad.any():
        raise InvalidInputError(
            name,
            f"found {int(bad.sum())} NaN or infinite weight(s) (first at index "
            f"{first_indices(bad)})",
            "pass finite, non-negative weights",
        )
    negative = weights < 0
    if negative.any():
        raise InvalidInputError(
            name,
            f"found {int(negative.sum())} negative weight(s) (first at index "
            f"{first_indices(negative)})",
            "pass non-negative weights; a weight of 0 removes a sample",
        )
    return weights


def check_scored_labels(
    y_true: ArrayLike,
    y_score: ArrayLike,
    sample_weight: ArrayLike | None,
    pos_label: Any,
    *,
    true_name: str = "y_true",
    score_name: str = "y_score",
) -> tuple[NDArray[np.floating[Any]], BinaryLabels, NDArray[np.float64] | None]:
    """The common checks of (y_true, y_score, sample_weight, pos_label)."""
    scores = check_scores(score_name, y_score)
    labels_array = as_1d(true_name, y_true)
    check_same_length(**{true_name: labels_array, score_name: scores})
    labels = check_labels(true_name, labels_array, pos_label)
    weights = check_weights("sample_weight", sample_weight, scores.shape[0])
    return scores, labels, weights


def check_threshold_counts(
    thresholds: ArrayLike, tp: ArrayLike, fp: ArrayLike, n_pos: Any, n_neg: Any
) -> tuple[
    NDArray[np.float64], NDArray[np.float64], NDArray[np.float64], float, float
]:
    """The invariants of a count state built outside ``from_scores``.

    Returns fresh float64 copies that the state may own.
    """
    arrays = {}
    for name, values in (("thresholds", thresholds), ("tp", tp), ("fp", fp)):
        array = as_1d(name, values)
        if array.dtype.kind not in "biuf":
            raise InvalidInputError(name, f"expected numbers, found dtype {array.dtype}",
                                    "pass a numeric array")
        arrays[name] = np.array(array, dtype=np.float64)
    check_same_length(**arrays)
    t, p, f = arrays["thresholds"], arrays["tp"], arrays["fp"]
    if not np.isfinite(t).all():
        raise InvalidInputError("thresholds", "found NaN or infinite thresholds",
                                "pass finite thresholds")
    if (np.diff(t) >= 0).any():
        raise InvalidInputError("thresholds", "thresholds are not strictly decreasing",
                                "sort distinct thresholds from high to low")
    for name, array in (("tp", p), ("fp", f)):
        if not np.isfinite(array).all() or (array < 0).any():
            raise InvalidInputError(name, "found negative, NaN or infinite counts",
                                    "pass finite cumulative weights >= 0")
        if (np.diff(array) < 0).any():
            raise InvalidInputError(
                name, "counts decrease as the threshold falls",
                "pass cumulative counts (weight with score >= threshold), e.g. np.cumsum",
            )
    total_pos = check_count("n_pos", n_pos)
    total_neg = check_count("n_neg", n_neg)
    for name, total, array in (("n_pos", total_pos, p), ("n_neg", total_neg, f)):
        last = float(array[-1]) if array.shape[0] else 0.0
        if last > total * (1 + 1e-12) + 1e-12:
            raise InvalidInputError(
                name, f"total {total!r} is below the cumulative count {last!r}",
                "pass the total weight of the class, at least the last cumulative count",
            )
    return t, p, f, total_pos, total_neg


def check_score_matrix(
    y_true: ArrayLike,
    y_score: ArrayLike,
    sample_weight: ArrayLike | None,
    labels: ArrayLike | None,
) -> tuple[
    NDArray[np.float64], NDArray[np.floating[Any]], NDArray[Any], NDArray[np.float64] | None
]:
    """One-vs-rest input: an (n, k) score matrix with class labels or an (n, k) indicator matrix.

    Returns the (n, k) positive share of each sample for each class (0/1, or a
    soft label in [0, 1]), the scores, the class of each column and the weights.
    """
    scores = np.asarray(y_score)
    if scores.ndim != 2:
        raise InvalidInputError(
            "y_score", f"expected an (n_samples, n_classes) matrix, found shape {scores.shape}",
            "pass one score column per class",
        )
    n, k = scores.shape
    if n == 0 or k == 0:
        raise InvalidInputError("y_score", f"is empty (shape {scores.shape})",
                                "pass at least one sample and one class")
    flat = check_finite_numbers("y_score", scores.reshape(-1))
    scores = flat.reshape(n, k)
    truth = np.asarray(y_true)
    if truth.ndim == 2:
        if truth.shape != (n, k):
            raise InvalidInputError(
                "y_true", f"indicator matrix of shape {truth.shape} for y_score of shape "
                f"{scores.shape}", "pass one indicator column per score column",
            )
        share = np.empty((n, k), dtype=np.float64)
        for j in range(k):
            column = check_labels("y_true", truth[:, j])
            share[:, j] = column.positive_fraction()
        classes: NDArray[Any] = (
            np.arange(k) if labels is None else as_1d("labels", labels)
        )
        if classes.shape[0] != k:
            raise InvalidInputError(
                "labels", f"found {classes.shape[0]} labels for {k} score columns",
                "pass one label per column",
            )
    elif truth.ndim == 1:
        if truth.shape[0] != n:
            raise InvalidInputError(
                "y_score", f"expected 1-D scores or an (n_samples, n_classes) matrix with one row "
                f"per label, found shape {scores.shape} for {truth.shape[0]} labels in y_true",
                "pass one score per sample for binary labels, or one row of class scores per "
                "sample",
            )
        if truth.dtype.kind == "f" and np.isnan(truth).any():
            raise InvalidInputError(
                "y_true", f"found NaN labels (first at index {first_indices(np.isnan(truth))})",
                "remove those samples or give them a class",
            )
        if labels is None:
            classes = np.unique(truth)
            if classes.shape[0] != k:
                raise InvalidInputError(
                    "y_score", f"{k} score columns for the {classes.shape[0]} classes found in "
                    f"y_true {describe_values(truth)}",
                    "pass one column per class in sorted class order, or pass labels=<the class "
                    "of each column> (classes absent from y_true are allowed there)",
                )
        else:
            classes = as_1d("labels", labels)
            if classes.shape[0] != k:
                raise InvalidInputError(
                    "labels", f"found {classes.shape[0]} labels for {k} score columns",
                    "pass one label per score column",
                )
            if np.unique(classes).shape[0] != k:
                raise InvalidInputError("labels", "found repeated labels",
                                        "pass each class once")
            unknown = ~np.isin(truth, classes)
            if unknown.any():
                raise InvalidInputError(
                    "y_true", f"found classes not in labels: "
                    f"{describe_values(truth[unknown])}", "add them to labels",
                )
        share = (truth[:, None] == classes[None, :]).astype(np.float64)
    else:
        raise InvalidInputError(
            "y_true", f"expected class labels (n,) or an indicator matrix (n, k), found shape "
            f"{truth.shape}", "pass one label per sample or one indicator row per sample",
        )
    weights = check_weights("sample_weight", sample_weight, n)
    return share, scores, classes, weights


def check_hard_labels(name: str, labels: BinaryLabels, purpose: str) -> NDArray[np.bool_]:
    """The positive mask of hard labels; soft labels cannot be resampled as samples."""
    if labels.positive is None:
        raise InvalidInputError(
            name, f"found soft labels; {purpose} resamples whole samples of each class",
            "pass hard labels (0/1, booleans, or pos_label=...)",
        )
    return labels.positive
