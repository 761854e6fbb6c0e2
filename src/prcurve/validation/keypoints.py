"""Every check of keypoint input: keypoint arrays and the sigmas of OKS.

The one place that raises :class:`~prcurve.errors.InvalidInputError` for
:mod:`prcurve.detection.keypoints` and ``iou_type="keypoints"``: each message
names the argument, says what was found and how to fix it. Nothing here
modifies its input.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import NDArray

from prcurve.errors import InvalidInputError

__all__ = ["check_keypoints", "check_not_keypoints", "check_sigmas", "need_keypoints",
           "need_num_keypoints"]

F64 = NDArray[np.float64]


def check_sigmas(values: Any) -> tuple[float, ...]:
    """Keypoint constants of OKS: a non-empty list of positive finite numbers."""
    try:
        array = np.asarray(values, dtype=np.float64)
    except (TypeError, ValueError):
        array = np.zeros(0)
    if array.ndim != 1 or array.shape[0] == 0 or not np.isfinite(array).all() or (
            array <= 0).any():
        raise InvalidInputError("oks_sigmas", f"found {values!r}",
                                "give one positive number per keypoint")
    return tuple(float(v) for v in array)


def check_not_keypoints(argument: str, iou_type: Any) -> None:
    """TIDE's error types and the confusion matrix: refused for ``iou_type="keypoints"``.

    Both compare each detection with the objects of every class by IoU, with a
    background threshold (TIDE's 0.1) that Bolya et al. define for box and mask IoU
    only; OKS has no such rule, and a keypoint file has one class. Refused rather
    than given a meaning of prcurve's own (docs/detection.md).
    """
    if iou_type == "keypoints":
        raise InvalidInputError(
            argument, "not defined for keypoints (OKS): TIDE's error types and the confusion "
            "matrix compare detections with every class's objects by box or mask IoU",
            "drop it, or evaluate the same files' boxes (--iou-type bbox, "
            "iou_type='bbox') or masks (segm)")


def need_keypoints(argument: str, values: F64 | None, n: int, n_keypoints: int) -> F64:
    """Keypoints present (when there are rows) and of the protocol's length."""
    if values is None:
        if n == 0:
            return np.zeros((0, 3 * n_keypoints))
        raise InvalidInputError(argument, "no 'keypoints'",
                                "give every record its 'keypoints' for iou_type='keypoints'")
    return check_keypoints(f"{argument} keypoints", values, n, n_keypoints)


def need_num_keypoints(values: F64 | None) -> F64:
    """The ground truth's labeled-keypoint counts (present whenever keypoints are)."""
    return np.zeros(0) if values is None else values


def check_keypoints(name: str, values: Any, n: int, n_keypoints: int | None) -> F64:
    """Keypoints as (n, 3K) finite numbers ``[x1, y1, v1, x2, ...]``, K matching the protocol."""
    try:
        array = np.asarray(values, dtype=np.float64)
    except (TypeError, ValueError):
        array = np.zeros((0, 1))
    if n == 0 and array.size == 0:
        return np.zeros((0, 3 * (n_keypoints or 0)))
    if array.ndim != 2 or array.shape[0] != n or array.shape[1] % 3 or not np.isfinite(
            array).all():
        raise InvalidInputError(name, f"an array of shape {array.shape}",
                                "give [x1, y1, v1, x2, y2, v2, ...] (3 finite numbers per "
                                "keypoint) for every row")
    if n_keypoints is not None and array.shape[1] != 3 * n_keypoints:
        raise InvalidInputError(
            name, f"{array.shape[1]} numbers per row ({array.shape[1] / 3:g} keypoints) for "
            f"{n_keypoints} keypoint sigmas", f"give {3 * n_keypoints} numbers per row, or "
            "oks_sigmas with one constant per keypoint")
    return array
