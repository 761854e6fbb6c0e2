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

from typing import Final

import numpy as np
from numpy.typing import NDArray

__all__ = [
    "COCO_SIGMAS",
    "KEYPOINT_STATS",
    "KEYPOINT_STAT_NAMES",
    "PairOKS",
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


PAIRS_AT_ONCE: Final = 1 << 15
"""Pairs :class:`PairOKS` computes at a time: about 4.5 MB for each of its (pairs, 17)
temporaries, so that memory does not grow with the number of pairs."""


class PairOKS:
    """OKS of (detection row, ground-truth row) pairs, the per-object work done once.

    The same numbers as :func:`pair_oks` (bit for bit: every element computed by the
    same operations, each row summed as a contiguous block of its kept terms), without
    gathering each pair's ``3K`` keypoint numbers: each ground-truth object's kept
    keypoints (its labeled ones, or all when it has none) are moved to the front of
    its row once, here, and each pair gathers only its detection's ``x`` and ``y`` in
    that order. Pairs are computed :data:`PAIRS_AT_ONCE` at a time.

    Examples
    --------
    >>> import numpy as np
    >>> gt = np.array([[10.0, 10.0, 2.0, 0.0, 0.0, 0.0]])  # one labeled keypoint of 2
    >>> dt = np.array([[11.0, 10.0, 1.0, 50.0, 50.0, 1.0]])
    >>> oks = PairOKS(dt, gt, np.array([[5.0, 5.0, 10.0, 10.0]]), np.array([100.0]),
    ...               np.array([0.1, 0.1]))
    >>> bool(oks(np.array([0]), np.array([0]))[0] == np.exp(-1 / 0.04 / (100 + np.spacing(1)) / 2))
    True
    """

    def __init__(self, dt_keypoints: F64, gt_keypoints: F64, gt_boxes: F64, gt_area: F64,
                 sigmas: F64) -> None:
        labeled = gt_keypoints[:, 2::3] > 0
        self.some: NDArray[np.bool_] = np.any(labeled, axis=1)
        kept = np.where(self.some[:, None], labeled, True)
        self.n_kept = kept.sum(axis=1)
        # Each object's kept keypoints first, in their order (a stable sort of "not kept").
        self.order = np.argsort(~kept, axis=1, kind="stable")
        self.xg = np.take_along_axis(gt_keypoints[:, 0::3], self.order, axis=1)
        self.yg = np.take_along_axis(gt_keypoints[:, 1::3], self.order, axis=1)
        self.variances = ((sigmas * 2) ** 2)[self.order]
        self.denominator = gt_area + np.spacing(1)
        # The box enlarged by its size on every side (objects without a labeled keypoint).
        self.x0 = gt_boxes[:, 0] - gt_boxes[:, 2]
        self.x1 = gt_boxes[:, 0] + gt_boxes[:, 2] * 2
        self.y0 = gt_boxes[:, 1] - gt_boxes[:, 3]
        self.y1 = gt_boxes[:, 1] + gt_boxes[:, 3] * 2
        self.xd = np.ascontiguousarray(dt_keypoints[:, 0::3])
        self.yd = np.ascontiguousarray(dt_keypoints[:, 1::3])

    def __call__(self, dt_rows: I64, gt_rows: I64) -> F64:
        """OKS of detection ``dt_rows[p]`` with ground truth ``gt_rows[p]`` per pair p."""
        out = np.zeros(dt_rows.shape[0])
        for start in range(0, dt_rows.shape[0], PAIRS_AT_ONCE):
            part = slice(start, start + PAIRS_AT_ONCE)
            out[part] = self._pairs(dt_rows[part], gt_rows[part])
        return out

    def _pairs(self, d: I64, g: I64) -> F64:
        order = self.order[g]
        xd = self.xd[d[:, None], order]
        yd = self.yd[d[:, None], order]
        some = self.some[g][:, None]
        zero = np.zeros_like(xd)
        # pycocotools: dx = xd - xg over labeled keypoints; else the distance to the box.
        dx = np.where(some, xd - self.xg[g], np.maximum(zero, self.x0[g][:, None] - xd)
                      + np.maximum(zero, xd - self.x1[g][:, None]))
        dy = np.where(some, yd - self.yg[g], np.maximum(zero, self.y0[g][:, None] - yd)
                      + np.maximum(zero, yd - self.y1[g][:, None]))
        e = (dx ** 2 + dy ** 2) / self.variances[g] / self.denominator[g][:, None] / 2
        terms = np.exp(-e)
        n_kept = self.n_kept[g]
        out = np.empty(d.shape[0])
        for count in sorted_counts(n_kept):
            rows = np.flatnonzero(n_kept == count)
            # A contiguous block sums each row as np.sum sums a 1-D array of `count` values
            # (pycocotools: np.sum(np.exp(-e[vg > 0])) / e.shape[0]).
            out[rows] = np.ascontiguousarray(terms[rows, :count]).sum(axis=1) / count
        return out


def sorted_counts(counts: I64) -> list[int]:
    """The distinct values of small non-negative counts, ascending (a bincount: no sort)."""
    return np.flatnonzero(np.bincount(counts)).tolist()  # type: ignore[no-any-return]


def result_boxes(keypoints: F64) -> tuple[F64, F64]:
    """Boxes and areas of keypoint results without boxes (pycocotools' ``loadRes``):
    the extent of every keypoint, labeled or not, and its width * height."""
    x, y = keypoints[:, 0::3], keypoints[:, 1::3]
    x0, x1 = x.min(axis=1, initial=np.inf), x.max(axis=1, initial=-np.inf)
    y0, y1 = y.min(axis=1, initial=np.inf), y.max(axis=1, initial=-np.inf)
    boxes = np.stack((x0, y0, x1 - x0, y1 - y0), axis=1)
    return boxes, (x1 - x0) * (y1 - y0)
