"""Checks of labels, sample weights, score matrices and count states.

Binary labels are resolved once into :class:`BinaryLabels` (which samples are
positive, or each sample's positive fraction for soft labels).
"""

from __future__ import annotations

import math
import numbers
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from prcurve.errors import InvalidInputError
from prcurve.validation.arrays import (
    as_1d,
    check_count,
    check_exact_integers,
    check_finite_numbers,
    check_same_length,
    check_scores,
    describe_values,
    distinct_values,
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


_NONE = np.array(None, dtype=object)


def missing_mask(values: NDArray[Any]) -> NDArray[np.bool_] | None:
    """Which entries of a label array are missing, or None when its dtype cannot hold one.

    Missing means None, NaN (float or numpy), pandas' ``NA`` and ``NaT``, numpy's
    ``NaT``, or a numpy string array's NA (``StringDType(na_object=...)``): what
    pandas' ``isna`` calls missing. Categorical, ``string``, nullable-integer and
    polars columns arrive here as object or float arrays holding these.
    """
    kind = values.dtype.kind
    mask: NDArray[np.bool_]
    if kind in "fcmM":
        mask = np.isnan(values) if kind in "fc" else np.isnat(values)
        return mask
    if kind == "T" and hasattr(values.dtype, "na_object"):
        values = values.astype(object)
    elif kind != "O":
        return None  # booleans, integers, fixed-width strings: nothing can be missing
    try:
        # Two C loops: None equals only None; NaN, NaT and Decimal NaN are the values
        # unequal to themselves. pandas' NA compares to NA, whose truth raises: the loop
        # below then finds it (about as fast as pandas.isna here, without pandas).
        with np.errstate(invalid="ignore"):
            mask = np.equal(values, _NONE) | np.not_equal(values, values)
        return np.asarray(mask, dtype=np.bool_)
    except (TypeError, ValueError):  # an element whose comparisons are not booleans
        return np.fromiter((_is_missing(v) for v in values.tolist()), dtype=bool,
                           count=values.shape[0])


def _is_missing(value: Any) -> bool:
    if value is None:
        return True
    try:
        return bool(value != value)
    except TypeError:  # a missing-value sentinel whose comparisons are themselves missing
        return True
    except ValueError:  # an array-like label: compared element-wise, not missing
        return False


def check_no_missing(name: str, values: NDArray[Any]) -> None:
    """No label is missing: a missing label is never counted as a class (issue 10)."""
    mask = missing_mask(values)
    if mask is None or not mask.any():
        return
    count = int(mask.sum())
    raise InvalidInputError(
        name,
        f"found {count} missing label(s) (None, NaN or NA) among {values.shape[0]}, at index "
        f"{first_indices(mask)}{' ...' if count > 5 else ''}",
        "drop those samples or give each one a label (with pandas: "
        "df.dropna(subset=[<label column>])); a missing label is never counted as a negative",
    )


def _is_text(value: Any) -> bool:
    return isinstance(value, (str, bytes, np.str_, np.bytes_))


def _is_number(value: Any) -> bool:
    return isinstance(value, (numbers.Real, np.bool_)) and not _is_text(value)


def _numbers_from_objects(array: NDArray[Any]) -> NDArray[Any]:
    """An object array whose entries are all numbers or booleans, as a numeric array.

    ``np.array([0, 1], dtype=object)`` and ``[True, False]`` objects (what a
    pandas ``object`` column of numbers gives) are binary labels like their numeric
    counterparts. Any other array is returned as it is.
    """
    if array.dtype.kind != "O" or array.shape[0] == 0:
        return array
    items = array.tolist()
    if not all(_is_number(v) for v in items):
        return array
    numeric = np.asarray(items)
    return numeric.astype(np.float64) if numeric.dtype.kind == "O" else numeric


def _not_binary(name: str, array: NDArray[Any]) -> InvalidInputError:
    distinct = distinct_values(array)
    fix = "pass pos_label=<the value of the positive class>, or labels in {0, 1}"
    if 0 < distinct.shape[0] <= 3 and all(
        _is_text(v) and str(v).strip().lower() in ("0", "1", "-1", "true", "false")
        for v in distinct.tolist()
    ):
        fix = ("the labels are text: convert them to numbers first (e.g. np.asarray(y, "
               "dtype=int)), or pass pos_label='1'")
    return InvalidInputError(
        name, f"labels are not binary: values {describe_values(array)} and no pos_label", fix,
    )


def _equals_pos_label(name: str, array: NDArray[Any], pos_label: Any) -> NDArray[np.bool_]:
    if np.ndim(pos_label) != 0:  # [1] would broadcast and pass for 1
        raise InvalidInputError("pos_label", f"expected one label value, found {pos_label!r}",
                                "pass a scalar such as 1 or 'spam'")
    try:
        positive = np.asarray(array == pos_label)
    except (TypeError, ValueError):
        positive = np.zeros(0)
    if positive.shape != array.shape or positive.dtype.kind != "b":
        raise InvalidInputError(
            "pos_label", f"cannot be compared with {name} ({pos_label!r})",
            "pass a scalar of the same kind as the labels",
        )
    return positive


def check_positive_class(pos_label: Any, arrays: dict[str, NDArray[Any]]) -> None:
    """The rule for a ``pos_label`` that no label equals (docs/definitions.md, "Labels").

    If every sample carries one and the same label, this set of samples simply has no
    positives: the metrics are undefined and follow ``zero_division``, exactly as for
    labels ``[0, 0]``. Otherwise it is an error, as in scikit-learn: a label of another
    kind (text for numbers or numbers for text), or a value that is not among two or
    more labels present, is a mistake (a typo, a string read from a file), not a class.
    """
    named = {name: a for name, a in arrays.items() if a.shape[0]}
    if not named:
        return
    name = next(iter(named))
    for array_name, array in named.items():
        values = distinct_values(array).tolist()
        text = [v for v in values if _is_text(v)]
        if _is_text(pos_label) and len(text) < len(values):
            raise InvalidInputError(
                "pos_label", f"{pos_label!r} is text, but {array_name} holds "
                f"{describe_values(array)}", "pass pos_label as a value of the labels' own "
                "kind (e.g. pos_label=1), or omit it for labels in {0, 1}",
            )
        if _is_number(pos_label) and text:
            raise InvalidInputError(
                "pos_label", f"{pos_label!r} is a number, but {array_name} holds text "
                f"{describe_values(array)}", f"pass pos_label={str(pos_label)!r}, or convert "
                "the labels to numbers first",
            )
    combined = np.concatenate([a.astype(object) for a in named.values()])
    if distinct_values(combined).shape[0] >= 2:
        where = " or ".join(named)
        raise InvalidInputError(
            "pos_label",
            f"{pos_label!r} does not occur in {where}, whose values are "
            f"{describe_values(combined)}",
            "pass one of those values as pos_label; a part of the data that really has no "
            f"positives can be passed as booleans ({name} == pos_label), which then follow "
            "zero_division",
        )


def check_labels(
    name: str,
    values: ArrayLike,
    pos_label: Any = None,
    *,
    allow_soft: bool = True,
    check_positive: bool = True,
) -> BinaryLabels:
    """Validate binary labels.

    Missing labels are an error. Accepted without ``pos_label``: booleans; numbers
    in {0, 1} or {-1, 1} (1 is positive), also as an object array; and, if
    ``allow_soft``, floats in [0, 1] as soft labels. With ``pos_label``, a sample is
    positive exactly when it equals ``pos_label``; if none does,
    :func:`check_positive_class` applies (unless ``check_positive`` is False, for a
    caller that checks it over several arrays).
    """
    array = as_1d(name, values)
    check_no_missing(name, array)
    if pos_label is not None:
        positive = _equals_pos_label(name, array, pos_label)
        if check_positive and not positive.any():
            check_positive_class(pos_label, {name: array})
        return BinaryLabels(positive=positive.astype(bool, copy=False), soft=None)

    array = _numbers_from_objects(array)
    kind = array.dtype.kind
    if array.shape[0] == 0:  # no label to judge, of any dtype: as an empty {0, 1} array
        return BinaryLabels(positive=np.zeros(0, dtype=bool), soft=None)
    if kind == "b":
        return BinaryLabels(positive=array, soft=None)
    if kind not in "iuf":
        raise _not_binary(name, array)
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
    raise _not_binary(name, array)


def check_label_pair(
    y_true: ArrayLike, y_pred: ArrayLike, pos_label: Any
) -> tuple[BinaryLabels, BinaryLabels]:
    """True labels (hard or soft) and hard predictions of one binary problem.

    ``pos_label`` may be absent from one of them: a classifier that never predicts
    the positive class is legitimate (TP = FP = 0), and so is a sample without
    positives; the rule of :func:`check_positive_class` applies to both together.
    """
    truth = check_labels("y_true", y_true, pos_label, check_positive=False)
    predicted = check_labels("y_pred", y_pred, pos_label, allow_soft=False,
                             check_positive=False)
    check_same_length(y_true=np.zeros(truth.n), y_pred=np.zeros(predicted.n))
    if pos_label is not None and not (truth.positive_fraction().any()
                                      or predicted.positive_fraction().any()):
        check_positive_class(pos_label, {"y_true": as_1d("y_true", y_true),
                                         "y_pred": as_1d("y_pred", y_pred)})
    return truth, predicted


def check_weights(
    name: str,
    values: ArrayLike | None,
    n_samples: int,
    *,
    whole: bool = True,
    scale_free: bool = False,
) -> NDArray[np.float64] | None:
    """Finite, non-negative float64 weights, one per sample, or None.

    ``whole``: the samples are a whole data set, so some weight must be positive
    (weights that are all 0 leave nothing to measure). A state of part of the data
    (``whole=False``) may have none. The total weight must be a finite float64 (the
    counts hold it); when the caller's result does not depend on the scale of the
    weights (``scale_free``, e.g. AP), weights whose total overflows are divided by a
    power of two instead (exact), and a new array is returned.
    """
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
    with np.errstate(over="ignore", invalid="ignore"):
        total = float(weights.sum())
    # A finite total means every weight is finite; then the minimum finds a negative one.
    # Only an input that fails these two passes pays for the masks that word the error.
    if not (math.isfinite(total) and (n_samples == 0 or weights.min() >= 0)):
        _check_weight_values(name, weights)
    if whole and total == 0 and n_samples:
        raise zero_weight(name, n_samples)
    if not math.isfinite(total):
        if not scale_free:
            raise weight_overflow(name, float(weights.max()))
        # Every result of the caller is unchanged by a common factor: make the largest
        # weight < 1 by a power of two (exact; the total is then at most n_samples).
        with np.errstate(under="ignore"):
            return np.ldexp(weights, -math.frexp(float(weights.max()))[1])
    return weights


def _check_weight_values(name: str, weights: NDArray[np.float64]) -> None:
    """No NaN, infinite or negative weight, each error with its count and first indices."""
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


def zero_weight(name: str, n_samples: int) -> InvalidInputError:
    """All of a whole data set's weights are 0 (also raised for files by the CLI)."""
    return InvalidInputError(
        name, f"all {n_samples} weights are 0, so no sample counts and there is nothing to "
        "measure", "give the samples that count a positive weight (a weight of 0 removes a "
        "sample)",
    )


def weight_overflow(name: str, largest: float) -> InvalidInputError:
    """The weights' total exceeds float64 (also raised when states are added)."""
    return InvalidInputError(
        name, f"the total weight overflows float64 (above 1.8e308; largest weight "
        f"{largest:.3g}), so the counts cannot be held",
        "divide every weight by a common factor, e.g. w / w.max(): precision, recall, F "
        "and every AP are unchanged by it",
    )


def check_scored_labels(
    y_true: ArrayLike,
    y_score: ArrayLike,
    sample_weight: ArrayLike | None,
    pos_label: Any,
    *,
    true_name: str = "y_true",
    score_name: str = "y_score",
    whole: bool = True,
    scale_free: bool = False,
    finite: bool = True,
    integers: bool = False,
) -> tuple[NDArray[np.floating[Any]], BinaryLabels, NDArray[np.float64] | None]:
    """The common checks of (y_true, y_score, sample_weight, pos_label).

    ``whole`` and ``scale_free`` are those of :func:`check_weights`; ``finite=False``
    leaves NaN and infinity in the scores for the caller to check
    (:func:`~prcurve.validation.arrays.check_scores`); ``integers=True`` returns int64
    scores beyond float64's exact range as int64 (for the exact state).
    """
    scores = check_scores(score_name, y_score, finite=finite, integers=integers)
    labels_array = as_1d(true_name, y_true)
    check_same_length(**{true_name: labels_array, score_name: scores})
    labels = check_labels(true_name, labels_array, pos_label)
    weights = check_weights("sample_weight", sample_weight, scores.shape[0], whole=whole,
                            scale_free=scale_free)
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
    if not math.isfinite(total_pos + total_neg):
        raise weight_overflow("n_pos", max(total_pos, total_neg))
    for name, total, array in (("n_pos", total_pos, p), ("n_neg", total_neg, f)):
        last = float(array[-1]) if array.shape[0] else 0.0
        # Relative: a total summed in another order may differ by rounding, at any scale.
        if last > total * (1 + 1e-12):
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
    *,
    scale_free: bool = False,
) -> tuple[
    NDArray[np.float64], NDArray[np.floating[Any]], NDArray[Any], NDArray[np.float64] | None
]:
    """One-vs-rest input: an (n, k) score matrix with class labels or an (n, k) indicator matrix.

    Returns the (n, k) positive share of each sample for each class (0/1, or a
    soft label in [0, 1]), the scores, the class of each column and the weights
    (``scale_free`` as in :func:`check_weights`).
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
    check_exact_integers("y_score", scores.reshape(-1))
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
        check_no_missing("y_true", truth)
        if labels is None:
            try:
                classes = np.unique(truth)
            except TypeError:  # mixed kinds (text and numbers) have no sorted order
                raise InvalidInputError(
                    "y_true", f"class labels of mixed kinds {describe_values(truth)} have no "
                    "sorted order to match the score columns",
                    "pass labels=<the class of each score column>, or labels of one kind",
                ) from None
            if classes.shape[0] != k:
                raise InvalidInputError(
                    "y_score", f"{k} score columns for the {classes.shape[0]} classes found in "
                    f"y_true {describe_values(truth)}",
                    "pass one column per class in sorted class order, or pass labels=<the class "
                    "of each column> (classes absent from y_true are allowed there)",
                )
        else:
            classes = as_1d("labels", labels)
            check_no_missing("labels", classes)
            if classes.shape[0] != k:
                raise InvalidInputError(
                    "labels", f"found {classes.shape[0]} labels for {k} score columns",
                    "pass one label per score column",
                )
            if distinct_values(classes).shape[0] != k:
                raise InvalidInputError("labels", "found repeated labels",
                                        "pass each class once")
        member = np.asarray(truth[:, None] == classes[None, :], dtype=bool)
        unknown = ~member.any(axis=1)
        if unknown.any():
            raise InvalidInputError(
                "y_true", f"found classes not in labels: "
                f"{describe_values(truth[unknown])}", "add them to labels",
            )
        share = member.astype(np.float64)
    else:
        raise InvalidInputError(
            "y_true", f"expected class labels (n,) or an indicator matrix (n, k), found shape "
            f"{truth.shape}", "pass one label per sample or one indicator row per sample",
        )
    weights = check_weights("sample_weight", sample_weight, n, whole=True,
                            scale_free=scale_free)
    return share, scores, classes, weights


def check_hard_labels(name: str, labels: BinaryLabels, purpose: str) -> NDArray[np.bool_]:
    """The positive mask of hard labels; soft labels cannot be resampled as samples."""
    if labels.positive is None:
        raise InvalidInputError(
            name, f"found soft labels; {purpose} resamples whole samples of each class",
            "pass hard labels (0/1, booleans, or pos_label=...)",
        )
    return labels.positive
