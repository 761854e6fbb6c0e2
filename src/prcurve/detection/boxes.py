"""Intersection over union of boxes, as COCO and PASCAL VOC define it.

COCO (pycocotools' ``maskApi.c``, ``bbIou``), boxes ``[x, y, w, h]``::

    iw = min(x_d + w_d, x_g + w_g) - max(x_d, x_g)      (no overlap when iw <= 0)
    ih = min(y_d + h_d, y_g + h_g) - max(y_d, y_g)      (no overlap when ih <= 0)
    IoU = iw ih / (w_d h_d + w_g h_g - iw ih)           for an ordinary box
    IoU = iw ih / (w_d h_d)                             for a crowd region

The crowd form divides by the detection's own area: the share of the
detection that lies inside the crowd. The operations run in the order above,
in float64, so the values equal pycocotools' bit for bit.

PASCAL VOC (the devkit's ``VOCevaldet.m``) counts pixels inclusively, boxes
``[x1, y1, x2, y2]`` with ``x2 = x + w``::

    iw = min(x2_d, x2_g) - max(x1_d, x1_g) + 1,  ih likewise   (overlap when both > 0)
    IoU = iw ih / ((x2_d - x1_d + 1)(y2_d - y1_d + 1) + (x2_g - x1_g + 1)(y2_g - y1_g + 1) - iw ih)

``inclusive=False`` drops the ``+ 1`` (continuous coordinates).
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike, NDArray

from prcurve.validation import boxes as _checks

__all__ = ["box_iou"]

F64 = NDArray[np.float64]


def pair_iou(d: F64, g: F64, crowd: NDArray[np.bool_]) -> F64:
    """COCO IoU of detection ``d[i]`` with ground truth ``g[i]`` (crowd: ``crowd[i]``)."""
    w = np.minimum(d[:, 2] + d[:, 0], g[:, 2] + g[:, 0]) - np.maximum(d[:, 0], g[:, 0])
    h = np.minimum(d[:, 3] + d[:, 1], g[:, 3] + g[:, 1]) - np.maximum(d[:, 1], g[:, 1])
    overlap = (w > 0) & (h > 0)
    inter = w * h
    d_area = d[:, 2] * d[:, 3]
    union = np.where(crowd, d_area, d_area + g[:, 2] * g[:, 3] - inter)
    out = np.zeros(d.shape[0])
    np.divide(inter, union, out=out, where=overlap)
    return out


def pair_iou_voc(d: F64, g: F64, inclusive: bool) -> F64:
    """VOC overlap of ``d[i]`` with ``g[i]`` (both ``[x, y, w, h]``); 0 without overlap."""
    one = 1.0 if inclusive else 0.0
    dx2, dy2 = d[:, 0] + d[:, 2], d[:, 1] + d[:, 3]
    gx2, gy2 = g[:, 0] + g[:, 2], g[:, 1] + g[:, 3]
    iw = np.minimum(dx2, gx2) - np.maximum(d[:, 0], g[:, 0]) + one
    ih = np.minimum(dy2, gy2) - np.maximum(d[:, 1], g[:, 1]) + one
    overlap = (iw > 0) & (ih > 0)
    inter = iw * ih
    union = ((dx2 - d[:, 0] + one) * (dy2 - d[:, 1] + one)
             + (gx2 - g[:, 0] + one) * (gy2 - g[:, 1] + one) - inter)
    out = np.zeros(d.shape[0])
    np.divide(inter, union, out=out, where=overlap & (union > 0))
    return out


def box_iou(
    detections: ArrayLike,
    ground_truth: ArrayLike,
    iscrowd: ArrayLike | None = None,
    *,
    box_format: str = "xywh",
) -> F64:
    """COCO's IoU of every detection box with every ground-truth box.

    Parameters
    ----------
    detections : array_like, shape (m, 4)
    ground_truth : array_like, shape (n, 4)
    iscrowd : array_like of {0, 1}, shape (n,), optional
        Crowd regions: IoU is the intersection over the detection's area.
    box_format : {"xywh", "xyxy"}, default "xywh"

    Returns
    -------
    ndarray, shape (m, n)
        Element ``[i, j]`` is the IoU of detection ``i`` with ground truth ``j``;
        equal to pycocotools' ``mask.iou(detections, ground_truth, iscrowd)``.

    Examples
    --------
    >>> from prcurve.detection import box_iou
    >>> box_iou([[0, 0, 2, 2]], [[1, 0, 2, 2], [1, 0, 2, 2]], [0, 1]).tolist()
    [[0.3333333333333333, 0.5]]
    """
    d = _checks.check_boxes("detections", detections, box_format)
    g = _checks.check_boxes("ground_truth", ground_truth, box_format)
    crowd = _checks.check_flags("iscrowd", iscrowd, g.shape[0])
    m, n = d.shape[0], g.shape[0]
    rows = np.repeat(np.arange(m), n)
    cols = np.tile(np.arange(n), m)
    return pair_iou(d[rows], g[cols], crowd[cols]).reshape(m, n)
