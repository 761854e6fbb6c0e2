"""Hard labels resolved without copies, and class labels as integer codes.

The label metrics (precision, recall, F-beta, every confusion rate) only count, so
their floor is a few passes of counting over the labels. This module checks labels
with passes that allocate nothing the size of the data (a minimum, a maximum, a
count) and then lets the counting read them chunk by chunk:

- :func:`resolve_hard_labels`: booleans as they are; integers and floats whose
  minimum and maximum show them to be {0, 1} or {-1, 1}; any array compared with
  ``pos_label``. Every other input (object arrays, soft labels, labels that are not
  binary, missing labels) goes to :func:`prcurve.validation.labels.check_labels`,
  which decides it and words its error. Both give the same positives.
- :func:`encode_classes`: multi-class labels as integer codes into their classes;
  booleans and small non-negative integers are their own codes (no ``np.unique``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np
from numpy.typing import ArrayLike, NDArray

from prcurve.errors import InvalidInputError
from prcurve.validation.arrays import as_1d, check_same_length, describe_values
from prcurve.validation.labels import (
    check_labels,
    check_no_missing,
    check_positive_class,
)

__all__ = [
    "CHUNK",
    "ClassCodes",
    "HardLabels",
    "check_average_options",
    "check_label_arrays",
    "encode_classes",
    "no_positive_anywhere",
    "report_codes",
    "resolve_hard_labels",
]

CHUNK = 1 << 17
"""Samples per chunk of the counting passes: small enough that a chunk's temporaries
stay in cache and far below one byte per sample, large enough that the Python loop
costs nothing (80 iterations per 10^7 samples)."""

Rule = Literal["mask", "nonzero", "one", "equal"]


@dataclass(frozen=True)
class HardLabels:
    """Hard binary labels kept as the caller gave them, read chunk by chunk.

    A sample is positive when ``rule`` holds for its value: ``"mask"`` (the values
    are the positive mask), ``"nonzero"`` (values in {0, 1}), ``"one"`` (values in
    {-1, 1}), ``"equal"`` (values equal to ``pos_label``).
    """

    values: NDArray[Any]
    rule: Rule
    pos_label: Any = None

    @property
    def n(self) -> int:
        return int(self.values.shape[0])

    def chunk(self, start: int, stop: int, out: NDArray[np.bool_]) -> NDArray[np.bool_]:
        """The positive mask of samples ``start:stop`` (written into ``out`` unless the
        values are the mask themselves)."""
        part = self.values[start:stop]
        if self.rule == "mask":
            return part
        target = out[: part.shape[0]]
        if self.rule == "nonzero":
            np.not_equal(part, 0, out=target)
        elif self.rule == "one":
            np.equal(part, 1, out=target)
        else:
            np.equal(part, self.pos_label, out=target)
        return target

    def mask(self) -> NDArray[np.bool_]:
        """The whole positive mask (a view for booleans, else one byte per sample)."""
        return self.chunk(0, self.n, np.empty(self.n if self.rule != "mask" else 0, dtype=bool))


def _as_mask(values: NDArray[Any]) -> NDArray[Any] | None:
    """Booleans, or one-byte integers known to hold only 0 and 1, as a boolean view."""
    if values.dtype.kind == "b":
        return values
    if values.dtype.itemsize == 1 and values.dtype.kind in "iu":
        return values.view(np.bool_)
    return None


def _resolve_numbers(values: NDArray[Any]) -> HardLabels | None:
    """{0, 1} or {-1, 1} numbers from their range and a count, or None to decide elsewhere."""
    if values.shape[0] == 0:
        return None
    low, high = values.min(), values.max()  # NaN for a float array with a NaN
    if not (math.isfinite(low) and math.isfinite(high)):
        return None
    if low >= 0 and high <= 1:
        if values.dtype.kind in "iu":
            view = _as_mask(values)
            return HardLabels(view, "mask") if view is not None else HardLabels(values, "nonzero")
        # Floats in [0, 1] whose non-zero values are all 1 are hard 0/1; others are soft
        # labels (or, for predictions, an error): check_labels decides.
        if _count_equal(values, 1.0) == np.count_nonzero(values):
            return HardLabels(values, "nonzero")
        return None
    if low == -1 and high == 1 and (
            _count_equal(values, 1) + _count_equal(values, -1) == values.shape[0]):
        return HardLabels(values, "one")
    return None


def _count_equal(values: NDArray[Any], value: float) -> int:
    buffer = np.empty(min(CHUNK, values.shape[0]), dtype=bool)
    total = 0
    for start in range(0, values.shape[0], CHUNK):
        part = values[start:start + CHUNK]
        target = buffer[: part.shape[0]]
        np.equal(part, value, out=target)
        total += int(np.count_nonzero(target))
    return total


def resolve_hard_labels(
    name: str, values: ArrayLike, pos_label: Any = None,
) -> HardLabels | None:
    """Hard binary labels without copying them, or None for the general check.

    Equal in every case it accepts to :func:`~prcurve.validation.labels.check_labels`
    (a sample is positive here exactly when it is there); for every other input it
    returns None and the caller runs ``check_labels``, which accepts the input (soft
    labels) or raises its error. ``check_positive_class`` is the caller's job (it
    needs every array).
    """
    array = as_1d(name, values)
    kind = array.dtype.kind
    if pos_label is not None:
        if kind not in "biuf" or isinstance(pos_label, bool) or not isinstance(
                pos_label, (int, float, np.integer, np.floating, np.bool_)):
            return None  # the general check words every error and compares objects
        if kind == "f" and array.shape[0] and math.isnan(array.min()):
            return None  # a missing label: check_labels refuses it
        return HardLabels(array, "equal", pos_label)
    if kind == "b":
        return HardLabels(array, "mask")
    if kind in "iuf":
        return _resolve_numbers(array)
    return None


def general_hard_labels(
    name: str, values: ArrayLike, pos_label: Any, *, allow_soft: bool,
) -> HardLabels | NDArray[np.float64]:
    """The general check: hard labels as a mask, or soft labels (floats in [0, 1])."""
    checked = check_labels(name, values, pos_label, allow_soft=allow_soft,
                           check_positive=False)
    if checked.positive is not None:
        return HardLabels(checked.positive, "mask")
    if checked.soft is None:  # unreachable: check_labels sets one of them
        raise TypeError("labels are neither hard nor soft")
    return checked.soft


def check_label_arrays(
    y_true: ArrayLike, y_pred: ArrayLike, pos_label: Any,
) -> tuple[HardLabels | NDArray[np.float64], HardLabels]:
    """True labels (hard, or soft floats) and hard predictions, resolved cheaply where
    possible (:func:`resolve_hard_labels`), of equal length."""
    truth: HardLabels | NDArray[np.float64] | None = resolve_hard_labels(
        "y_true", y_true, pos_label)
    if truth is None:
        truth = general_hard_labels("y_true", y_true, pos_label, allow_soft=True)
    predicted = resolve_hard_labels("y_pred", y_pred, pos_label)
    if predicted is None:
        general = general_hard_labels("y_pred", y_pred, pos_label, allow_soft=False)
        if not isinstance(general, HardLabels):  # unreachable: allow_soft=False
            raise TypeError("predictions must be hard labels")
        predicted = general
    n_true = truth.n if isinstance(truth, HardLabels) else truth.shape[0]
    check_same_length(y_true=np.zeros((n_true, 0)), y_pred=np.zeros((predicted.n, 0)))
    return truth, predicted


def no_positive_anywhere(y_true: ArrayLike, y_pred: ArrayLike, pos_label: Any) -> None:
    """``pos_label`` in neither array: the rule of
    :func:`~prcurve.validation.labels.check_positive_class` for both together."""
    check_positive_class(pos_label, {"y_true": as_1d("y_true", y_true),
                                     "y_pred": as_1d("y_pred", y_pred)})


@dataclass(frozen=True)
class ClassCodes:
    """Class labels as integer codes: ``classes[codes[i]]`` is sample ``i``'s label.

    ``codes`` may be the caller's own integer array (small non-negative integers are
    their own codes); ``classes`` then is ``arange(n_codes)``.
    """

    true_codes: NDArray[Any]
    pred_codes: NDArray[Any]
    classes: NDArray[Any]

    @property
    def n_codes(self) -> int:
        return int(self.classes.shape[0])


_OWN_CODES_LIMIT = 1 << 10  # integer labels below this are their own codes


def _own_codes(array: NDArray[Any]) -> int | None:
    """How many codes an array of booleans or small non-negative integers needs, or None."""
    if array.dtype.kind == "b":
        return 2
    if array.dtype.kind not in "iu":
        return None
    if array.shape[0] == 0:
        return 0
    low, high = int(array.min()), int(array.max())
    return high + 1 if low >= 0 and high < _OWN_CODES_LIMIT else None


def encode_classes(y_true: ArrayLike, y_pred: ArrayLike) -> ClassCodes:
    """Class labels of ``y_true`` and ``y_pred`` as codes into their sorted classes.

    Booleans and integers in [0, 1024) are their own codes (``classes`` may then hold
    codes that no sample has: :func:`report_codes` drops them); other labels are
    encoded by ``np.unique``. Missing labels are an error; so are labels of mixed kinds,
    which have no sorted order.
    """
    truth = as_1d("y_true", y_true)
    predicted = as_1d("y_pred", y_pred)
    check_same_length(y_true=truth, y_pred=predicted)
    own_true, own_pred = _own_codes(truth), _own_codes(predicted)
    if own_true is not None and own_pred is not None and truth.dtype.kind == predicted.dtype.kind:
        size = max(own_true, own_pred)
        true_codes = truth.view(np.uint8) if truth.dtype.kind == "b" else truth
        pred_codes = predicted.view(np.uint8) if predicted.dtype.kind == "b" else predicted
        classes: NDArray[Any] = (np.array([False, True]) if truth.dtype.kind == "b"
                                 else np.arange(size))
        codes = ClassCodes(true_codes, pred_codes, classes)
    else:
        for name, array in (("y_true", truth), ("y_pred", predicted)):
            check_no_missing(name, array)
        both = np.concatenate([truth, predicted]) if truth.dtype == predicted.dtype else (
            np.concatenate([truth.astype(object), predicted.astype(object)]))
        try:
            classes, inverse = np.unique(both, return_inverse=True)
        except TypeError:  # mixed kinds (text and numbers) have no sorted order
            raise InvalidInputError(
                "y_true", f"class labels of mixed kinds {describe_values(both)} have no "
                "sorted order", "pass labels of one kind (e.g. all text or all numbers)",
            ) from None
        n = truth.shape[0]
        codes = ClassCodes(inverse[:n], inverse[n:], classes)
    return codes


def report_codes(
    codes: ClassCodes, labels: ArrayLike | None, present: NDArray[np.bool_],
) -> NDArray[np.intp]:
    """The code of each class to report, in order; -1 for a class of ``labels`` absent
    from the data. Without ``labels``: every code ``present`` in either array."""
    if labels is None:
        return np.flatnonzero(present)
    wanted = as_1d("labels", labels)
    if wanted.shape[0] == 0:
        raise InvalidInputError("labels", "is empty", "pass at least one class, or omit it")
    check_no_missing("labels", wanted)
    keys = wanted.tolist()
    if len(set(keys)) != len(keys):
        raise InvalidInputError("labels", "found repeated labels", "pass each class once")
    # Python's == and hash: 1, 1.0 and True are one class, as numpy's == says.
    found = {c: i for i, c in enumerate(codes.classes.tolist()) if present[i]}
    return np.array([found.get(c, -1) for c in keys], dtype=np.intp)


def check_average_options(average: Any, pos_label: Any, labels: Any) -> None:
    """``pos_label`` belongs to ``average="binary"``, ``labels`` to the class averages."""
    if average == "binary" and labels is not None:
        raise InvalidInputError(
            "labels", "applies to the class averages, not to average='binary'",
            "pass average='micro', 'macro', 'weighted' or None with labels, or pos_label=<the "
            "positive class> for one binary problem",
        )
    if average != "binary" and pos_label is not None:
        raise InvalidInputError(
            "pos_label", f"applies to average='binary', not to average={average!r}",
            "omit pos_label (every class is averaged), or pass average='binary'",
        )
