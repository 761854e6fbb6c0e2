"""Every (detection, ground truth) pair of each image, across classes, with its IoU.

COCO's matching compares a detection only with ground truth of its own class;
TIDE's error types and the confusion matrix also need the IoU with the other
classes' objects. Per batch: the kept detections (decreasing score, stable, at
most ``max_dets`` per image over all classes) in (image, rank) order; the
ground truth in (image, input) order; and for each kept detection every ground
truth of its image, pairs sorted by (detection, ground truth). IoU is COCO's:
boxes' (``pair_iou``) or masks' (:mod:`prcurve.detection.rle`), a crowd's union
being the detection's area.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

from prcurve.detection.boxes import pair_iou
from prcurve.detection.inputs import Detections, GroundTruth

__all__ = ["ImagePairs", "concat_ids", "greedy_match", "image_pairs", "segment_argmax",
           "segment_max"]

F64 = NDArray[np.float64]
I64 = NDArray[np.int64]
Bool = NDArray[np.bool_]


@dataclass(frozen=True)
class ImagePairs:
    """One batch's kept detections, ground truth and their same-image pairs (local indices)."""

    n_images: int
    max_dets: int
    dt_category: NDArray[Any]
    dt_score: F64
    dt_image: I64
    dt_rank: I64
    gt_category: NDArray[Any]
    gt_crowd: Bool
    gt_image: I64
    pair_dt: I64
    pair_gt: I64
    pair_iou: F64
    pair_crowd: Bool
    pair_dt_category: NDArray[Any]
    pair_gt_category: NDArray[Any]


def concat_ids(*arrays: NDArray[Any]) -> NDArray[Any]:
    """Concatenate id arrays, skipping empty ones (an empty int array next to strings)."""
    parts = [a for a in arrays if a.shape[0]]
    if not parts:
        return np.zeros(0, dtype=np.int64)
    return parts[0] if len(parts) == 1 else np.concatenate(parts)


def _positions(images: NDArray[Any], ids: NDArray[Any]) -> I64:
    """Each id's position in ``images`` (every id is one of them)."""
    if ids.shape[0] == 0:
        return np.zeros(0, dtype=np.int64)
    sorter = np.argsort(images, kind="stable")
    found: I64 = sorter[np.searchsorted(images[sorter], ids)].astype(np.int64)
    return found


def image_pairs(gt: GroundTruth, dt: Detections, iou_type: str, max_dets: int | None,
                min_score: float | None = None) -> ImagePairs:
    """The pairs of one batch; images in the ground truth's ``images`` order when given
    (the file's order), else sorted; ``min_score`` drops detections scored below it."""
    named = np.unique(concat_ids(gt.image_id, dt.image_id))
    images = gt.images if gt.images is not None else named
    d_image = _positions(images, dt.image_id)
    g_image = _positions(images, gt.image_id)
    n_dt = dt.image_id.shape[0]
    rows = np.arange(n_dt)
    if min_score is not None:
        rows = rows[dt.score[rows] >= min_score]
    order = rows[np.lexsort((rows, -dt.score[rows], d_image[rows]))]
    sorted_image = d_image[order]
    first = np.searchsorted(sorted_image, sorted_image, side="left")
    rank = np.arange(order.shape[0]) - first
    keep = rank < max_dets if max_dets is not None else np.ones(order.shape[0], dtype=bool)
    dt_rows, dt_image, dt_rank = order[keep], sorted_image[keep], rank[keep]
    gt_rows = np.lexsort((np.arange(g_image.shape[0]), g_image))
    gt_image = g_image[gt_rows]
    n_images = int(images.shape[0])
    per_image = np.bincount(gt_image, minlength=n_images)
    start = np.concatenate(([0], np.cumsum(per_image)[:-1])) if n_images else per_image
    n_pairs = per_image[dt_image] if dt_image.shape[0] else np.zeros(0, dtype=np.int64)
    pair_dt = np.repeat(np.arange(dt_rows.shape[0]), n_pairs)
    local = np.arange(pair_dt.shape[0]) - np.repeat(np.cumsum(n_pairs) - n_pairs, n_pairs)
    pair_gt = (start[dt_image][pair_dt] + local).astype(np.int64)
    d, g = dt_rows[pair_dt], gt_rows[pair_gt]
    crowd = gt.iscrowd[g]
    if iou_type == "segm":
        from prcurve.detection.mask_inputs import batch_masks
        from prcurve.detection.rle import gated_mask_iou

        gt_masks, dt_masks = batch_masks(gt.segmentation, gt.image_id, dt.segmentation,
                                         dt.image_id, gt.image_sizes)
        iou = gated_mask_iou(dt_masks, d, gt_masks, g, crowd)
    else:
        iou = pair_iou(dt.boxes[d], gt.boxes[g], crowd)
    return ImagePairs(
        n_images=n_images, max_dets=max_dets if max_dets is not None else n_dt,
        dt_category=dt.category_id[dt_rows], dt_score=dt.score[dt_rows],
        dt_image=dt_image.astype(np.int64), dt_rank=dt_rank.astype(np.int64),
        gt_category=gt.category_id[gt_rows], gt_crowd=gt.iscrowd[gt_rows],
        gt_image=gt_image.astype(np.int64), pair_dt=pair_dt.astype(np.int64),
        pair_gt=pair_gt, pair_iou=iou, pair_crowd=crowd,
        pair_dt_category=dt.category_id[d], pair_gt_category=gt.category_id[g])


def segment_max(pair_dt: I64, values: F64, n_dt: int) -> F64:
    """Per detection, the largest value of its pairs (0 without pairs)."""
    out = np.zeros(n_dt)
    np.maximum.at(out, pair_dt, values)
    return out


def segment_argmax(pair_dt: I64, pair_gt: I64, values: F64, n_dt: int) -> tuple[F64, I64]:
    """Per detection, the largest value of its pairs and the first pair's ground truth
    holding it (pairs sorted by detection, then ground truth: numpy's argmax of a row);
    0 and -1 without pairs."""
    best = segment_max(pair_dt, values, n_dt)
    target = np.full(n_dt, -1, dtype=np.int64)
    at_max = np.flatnonzero(values == best[pair_dt])
    first_dt, first = np.unique(pair_dt[at_max], return_index=True)
    target[first_dt] = pair_gt[at_max[first]]
    return best, target


def greedy_match(pair_dt: I64, pair_gt: I64, pair_iou: F64, candidate: Bool, dt_rank: I64,
                 n_dt: int, n_gt: int) -> tuple[I64, Bool]:
    """Each detection in (rank) turn takes the unmatched candidate ground truth of highest
    IoU, the first in order on equal IoU; returns each detection's ground truth (-1: none)
    and which ground truth is matched.

    Step r matches the r-th detection of every image at once (images never share ground
    truth), so the loop runs over ranks, not detections.
    """
    matched_to = np.full(n_dt, -1, dtype=np.int64)
    used = np.zeros(n_gt, dtype=bool)
    cd, cg, ciou = pair_dt[candidate], pair_gt[candidate], pair_iou[candidate]
    order = np.lexsort((cg, -ciou, cd, dt_rank[cd]))
    cd, cg = cd[order], cg[order]
    crank = dt_rank[cd]
    n_ranks = int(crank.max()) + 1 if crank.shape[0] else 0
    bounds = np.searchsorted(crank, np.arange(n_ranks + 1))
    for r in range(n_ranks):
        d, g = cd[bounds[r]:bounds[r + 1]], cg[bounds[r]:bounds[r + 1]]
        free = ~used[g]
        d, g = d[free], g[free]
        first_d, first = np.unique(d, return_index=True)
        matched_to[first_d] = g[first]
        used[g[first]] = True
    return matched_to, used
