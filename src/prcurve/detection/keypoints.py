"""Keypoints: COCO's object keypoint similarity (OKS), as pycocotools' ``computeOks``.

For a detection d and a ground-truth person g with keypoints ``(x, y, v)``
(``v > 0``: labeled), area ``a`` and box ``[x, y, w, h]``, and per-keypoint
constants ``sigma_i`` (COCO's 17 by default; Ronchi and Perona, "Benchmarking
and Error Diagnosis in Multi-Instance Pose Estimation", and the COCO
keypoint evaluation page)::

    e_i = (dx_i^2 + dy_i^2) / (2 sigma_i)^2 / (a + eps) / 2
    OKS = mean of exp(-e_i) over the labeled keypoints of g

with ``dx_i = x_d,i - x_g,i``. When g has no labeled keypoint, ``dx_i`` is
the distance from the detection's keypoint to the box enlarged by its own
size on every side, ``[x - w, x + 2w] x [y - h, y + 2h]`` (0 inside), and the
mean is over all keypoints. Ground truth with ``num_keypoints == 0`` is
ignored, as crowds are. The sums run over the same elements in the same
order as pycocotools' ``np.sum``, so OKS equals it bit for bit.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

__all__ = [
    "COCO_SIGMAS",
    "KEYPOINT_STATS",
    "KEYPOINT_STAT_NAMES",
    "pair_oks",
    "result_boxes",
]

F64 = NDArray[np.float64]
I64 = NDArray[np.int64]

COCO_SIGMAS: tuple[float, ...] = tuple(float(s) for s in np.array(
    [.26, .25, .25, .35, .35, .79, .79, .72, .72, .62, .62, 1.07, 1.07, .87, .87, .89, .89])
    / 10.0)
"""The 17 COCO person keypoints' sigmas (pycocotools ``Params.kpt_oks_sigmas``)."""

# pycocotools' _summarizeKps: (ap, iou, area), all at maxDets=20.
KEYPOINT_STATS: tuple[tuple[bool, float | None, str], ...] = (
    (True, None, "all"), (True, 0.5, "all"), (True, 0.75, "all"), (True, None, "medium"),
    (True, None, "large"), (False, None, "all"), (False, 0.5, "all"), (False, 0.75, "all"),
    (False, None, "medium"), (False, None, "large"),
)
KEYPOINT_STAT_NAMES = ("AP", "AP50", "AP75", "APm", "APl", "AR", "AR50", "AR75", "ARm", "ARl")
"""Short names of the 10 keypoint statistics, in pycocotools' order."""


def pair_oks(dt_keypoints: F64, gt_keypoints: F64, gt_boxes: F64, gt_area: F64,
             sigmas: F64) -> F64:
    """OKS of detection ``dt_keypoints[p]`` with ground truth ``gt_keypoints[p]`` per pair p."""
    n = dt_keypoints.shape[0]
    out = np.zeros(n)
    if n == 0:
        return out
    variances = (sigmas * 2) ** 2
    xg, yg, vg = gt_keypoints[:, 0::3], gt_keypoints[:, 1::3], gt_keypoints[:, 2::3]
    xd, yd = dt_keypoints[:, 0::3], dt_keypoints[:, 1::3]
    labeled = vg > 0
    n_labeled = labeled.sum(axis=1)
    x0 = (gt_boxes[:, 0] - gt_boxes[:, 2])[:, None]
    x1 = (gt_boxes[:, 0] + gt_boxes[:, 2] * 2)[:, None]
    y0 = (gt_boxes[:, 1] - gt_boxes[:, 3])[:, None]
    y1 = (gt_boxes[:, 1] + gt_boxes[:, 3] * 2)[:, None]
    zero = np.zeros_like(xd)
    some = (n_labeled > 0)[:, None]
    dx = np.where(some, xd - xg, np.maximum(zero, x0 - xd) + np.maximum(zero, xd - x1))
    dy = np.where(some, yd - yg, np.maximum(zero, y0 - yd) + np.maximum(zero, yd - y1))
    e = (dx ** 2 + dy ** 2) / variances / (gt_area[:, None] + np.spacing(1)) / 2
    # The kept terms moved to the front of each row, in order, so that each row's sum
    # runs over exactly pycocotools' elements (numpy's sum order depends on the count).
    kept = np.where(some, labeled, True)
    n_kept = kept.sum(axis=1)
    order = np.argsort(~kept, axis=1, kind="stable")
    terms = np.exp(-np.take_along_axis(e, order, axis=1))
    for count in np.unique(n_kept).tolist():
        rows = np.flatnonzero(n_kept == count)
        # A contiguous block sums each row as np.sum sums a 1-D array of `count` values.
        out[rows] = np.ascontiguousarray(terms[rows, :count]).sum(axis=1) / count
    return out


def result_boxes(keypoints: F64) -> tuple[F64, F64]:
    """Boxes and areas of keypoint results without boxes (pycocotools' ``loadRes``):
    the extent of every keypoint, labeled or not, and its width * height."""
    x, y = keypoints[:, 0::3], keypoints[:, 1::3]
    x0, x1 = x.min(axis=1, initial=np.inf), x.max(axis=1, initial=-np.inf)
    y0, y1 = y.min(axis=1, initial=np.inf), y.max(axis=1, initial=-np.inf)
    boxes = np.stack((x0, y0, x1 - x0, y1 - y0), axis=1)
    return boxes, (x1 - x0) * (y1 - y0)
