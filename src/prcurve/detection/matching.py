"""Greedy matching of detections to ground truth, every image and category at once.

Input: boxes with batch-local integer codes for image and category. Output:
the kept detections (within the per-image limit) with their rank, the
matches as a sparse list of (detection, area range a, IoU threshold t,
matched to ignored ground truth?), and per (image, category) the number of
ground truth boxes that count (not ignored) in each area range. Most
detections match nothing, so the list is short; a detection without a match
at (a, t) is ignored when its box area lies outside range a, else a false
positive.

COCO (pycocotools ``COCOeval.evaluateImg``), per image and category:
detections in decreasing score (a stable sort: ties keep input order), at
most ``max(max_dets)`` of them; ground truth ignored for area range a
(crowd, or ``area`` outside ``[low, high]``) sorted after the rest, keeping
input order. Each detection in turn takes, among the ground truth not yet
matched at t (a crowd region stays available), the non-ignored one of
highest IoU >= t, the last in order on equal IoU; only if there is none,
an ignored one the same way. A detection matched to ignored ground truth is
ignored, and so is an unmatched detection whose box area lies outside the
range.

The loop runs over detection ranks, not images: step r matches the r-th
detection of every (image, category) group at once, because groups never
share ground truth. Only (detection, ground truth) pairs with IoU >= the
lowest threshold can match, so the other pairs are dropped before the loop.

PASCAL VOC (the devkit's ``VOCevaldet.m``): each detection, in decreasing
score, looks at the ground truth of highest overlap (the first on ties),
whether or not it is taken. Overlap >= t: a difficult one makes the detection
ignored; otherwise the first detection to reach it is a TP and later ones are
duplicates (FP). Below t: FP. So no loop is needed at all: the TP for a
ground truth box is the earliest detection whose best overlap is that box.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from prcurve.detection._sorting import dense_rank, descending_rank, stable_order
from prcurve.detection.boxes import pair_iou, pair_iou_voc
from prcurve.detection.protocol import COCOProtocol, VOCProtocol

__all__ = ["BoxArrays", "Matched", "match"]

F64 = NDArray[np.float64]
I64 = NDArray[np.int64]
Bool = NDArray[np.bool_]

# pycocotools: iou = min([t, 1 - 1e-10]), so that a threshold of 1 still matches IoU 1.
_IOU_CAP = 1 - 1e-10


@dataclass(frozen=True)
class BoxArrays:
    """One batch as arrays: ground truth (prefix ``gt_``) and detections (``dt_``).

    ``*_group`` is image code * n_categories + category code (int64).
    ``gt_ignore`` is the protocol's always-ignored flag: crowd for COCO,
    difficult or crowd for VOC. ``similarity(dt_rows, gt_rows, crowd)``, when
    given, replaces the boxes' IoU of each pair (masks' IoU, keypoints' OKS).
    """

    gt_group: I64
    gt_boxes: F64
    gt_area: F64
    gt_ignore: Bool
    gt_crowd: Bool
    dt_group: I64
    dt_boxes: F64
    dt_score: F64
    similarity: Callable[[I64, I64, Bool], F64] | None = None


@dataclass(frozen=True)
class Matched:
    """The outcome of matching one batch.

    ``detection[i]`` is the input row of kept detection i (kept: within the
    per-group limit), ``rank[i]`` its place in its group (0 = highest score).
    Match e: kept detection ``match_detection[e]`` matched at area range
    ``match_area[e]`` and IoU threshold ``match_threshold[e]``, to ground truth
    that is ignored there when ``match_ignored[e]`` (the detection is then
    ignored; otherwise it is a true positive). ``group[j]`` and
    ``gt_count[a, j]``: the ground truth groups and how many of their boxes
    count.
    """

    detection: I64
    rank: NDArray[np.int32]
    match_detection: I64
    match_area: NDArray[np.int8]
    match_threshold: NDArray[np.int16]
    match_ignored: Bool
    group: I64
    gt_count: I64


def _matches(parts: list[tuple[I64, I64, I64, Bool]]) -> tuple[I64, NDArray[np.int8],
                                                              NDArray[np.int16], Bool]:
    """Concatenate (detection, area, threshold, ignored) pieces."""
    if not parts:
        return (np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int8),
                np.zeros(0, dtype=np.int16), np.zeros(0, dtype=bool))
    det, area, threshold, ignored = (np.concatenate(p) for p in zip(*parts, strict=True))
    return (det.astype(np.int64), area.astype(np.int8), threshold.astype(np.int16),
            ignored.astype(bool))


def _sorted_groups(key: I64) -> tuple[I64, I64]:
    """Start of each run and the run index of each element of a sorted key."""
    n = key.shape[0]
    change = np.empty(n, dtype=bool)
    if n:
        change[0] = True
        np.not_equal(key[1:], key[:-1], out=change[1:])
    starts = np.flatnonzero(change)
    run = np.cumsum(change) - 1
    return starts, run


def _rank_detections(group: I64, score: F64, keep: int | None) -> tuple[I64, NDArray[np.int32]]:
    """Detections sorted by (group, decreasing score, input order), their rank, cut at ``keep``."""
    score_rank, n_scores = descending_rank(score)
    n_groups = int(group.max(initial=-1)) + 1
    if n_groups * max(n_scores, 1) * max(group.shape[0], 1) >= 1 << 62:
        group, n_groups = dense_rank(group)
    order = stable_order([(group, n_groups), (score_rank, n_scores)])
    starts, run = _sorted_groups(group[order])
    rank = np.arange(order.shape[0]) - starts[run]
    if keep is not None:
        kept = rank < keep
        order, rank = order[kept], rank[kept]
    return order.astype(np.int64, copy=False), rank.astype(np.int32)


def _pairs(dt_group: I64, gt_sorted_group: I64) -> tuple[I64, I64]:
    """Every (detection, ground truth) pair sharing a group; gt indices into the sorted gt."""
    lo = np.searchsorted(gt_sorted_group, dt_group, side="left")
    hi = np.searchsorted(gt_sorted_group, dt_group, side="right")
    count = hi - lo
    det = np.repeat(np.arange(dt_group.shape[0]), count)
    first = np.cumsum(count) - count
    gt = lo[det] + (np.arange(det.shape[0]) - first[det])
    return det, gt


def _gt_counts(gt_sorted_group: I64, counted: Bool) -> tuple[I64, I64]:
    """The distinct groups of sorted ground truth and, per row of ``counted``, how many count."""
    starts, _ = _sorted_groups(gt_sorted_group)
    if starts.shape[0] == 0:
        return np.zeros(0, dtype=np.int64), np.zeros((counted.shape[0], 0), dtype=np.int64)
    counts = np.add.reduceat(counted.astype(np.int64), starts, axis=1)
    return gt_sorted_group[starts], counts


def match(arrays: BoxArrays, protocol: COCOProtocol | VOCProtocol) -> Matched:
    """Match one batch under ``protocol`` (module docstring)."""
    if isinstance(protocol, VOCProtocol):
        return _match_voc(arrays, protocol)
    return _match_coco(arrays, protocol)


def _match_coco(arrays: BoxArrays, protocol: COCOProtocol) -> Matched:
    n_areas = protocol.n_areas
    thresholds = np.minimum(np.asarray(protocol.iou_thresholds), _IOU_CAP)
    n_thresholds = thresholds.shape[0]

    gt_order = np.argsort(arrays.gt_group, kind="stable")
    gt_group = arrays.gt_group[gt_order]
    gt_crowd = arrays.gt_crowd[gt_order]
    gt_area = arrays.gt_area[gt_order]
    low = np.array([lo for _, lo, _ in protocol.area_ranges])[:, None]
    high = np.array([hi for _, _, hi in protocol.area_ranges])[:, None]
    # Ignored ground truth per area range: crowd, or area outside [low, high].
    gt_ignored = arrays.gt_ignore[gt_order][None, :] | (gt_area < low) | (gt_area > high)

    detection, rank = _rank_detections(arrays.dt_group, arrays.dt_score,
                                       protocol.keep_per_image)
    parts: list[tuple[I64, I64, I64, Bool]] = []

    det, gt = _pairs(arrays.dt_group[detection], gt_group)
    if arrays.similarity is None:
        iou = pair_iou(arrays.dt_boxes[detection[det]], arrays.gt_boxes[gt_order[gt]],
                       gt_crowd[gt])
    else:
        iou = arrays.similarity(detection[det], gt_order[gt], gt_crowd[gt])
    near = iou >= thresholds.min()
    det, gt, iou = det[near], gt[near], iou[near]
    # Preference within a detection: higher IoU first, then the later ground truth.
    order = np.lexsort((-gt, -iou, det, rank[det]))
    det, gt, iou = det[order], gt[order], iou[order]
    pair_rank = rank[det]
    taken = np.zeros((n_areas, n_thresholds, gt_group.shape[0]), dtype=bool)
    bounds = np.flatnonzero(np.diff(pair_rank, prepend=-1, append=-1) != 0)
    for lo, hi in itertools.pairwise(bounds):
        d, g, v = det[lo:hi], gt[lo:hi], iou[lo:hi]
        starts, _ = _sorted_groups(d)
        size = hi - lo
        # Candidate (a, t, pair): IoU >= t and the ground truth still free (or a crowd).
        free = ~taken[:, :, g] | gt_crowd[g]
        eligible = free & (v >= thresholds[:, None])[None, :, :]
        # Non-ignored candidates rank before ignored ones: position p, or p + size.
        position = np.arange(size) + np.where(gt_ignored[:, g], size, 0)[:, None, :]
        best = np.minimum.reduceat(np.where(eligible, position, 2 * size), starts, axis=2)
        a, t, k = np.nonzero(best < 2 * size)
        chosen = g[best[a, t, k] % size]
        taken[a, t, chosen] = True
        parts.append((d[starts[k]], a, t, gt_ignored[a, chosen]))

    group, gt_count = _gt_counts(gt_group, ~gt_ignored)
    return Matched(detection, rank, *_matches(parts), group, gt_count)


def _match_voc(arrays: BoxArrays, protocol: VOCProtocol) -> Matched:
    thresholds = np.asarray(protocol.iou_thresholds)
    gt_order = np.argsort(arrays.gt_group, kind="stable")
    gt_group = arrays.gt_group[gt_order]
    difficult = arrays.gt_ignore[gt_order]
    detection, rank = _rank_detections(arrays.dt_group, arrays.dt_score, None)

    det, gt = _pairs(arrays.dt_group[detection], gt_group)
    overlap = pair_iou_voc(arrays.dt_boxes[detection[det]], arrays.gt_boxes[gt_order[gt]],
                           protocol.inclusive_pixels)
    near = overlap > 0
    det, gt, overlap = det[near], gt[near], overlap[near]
    # The best ground truth of each detection: highest overlap, the first on ties.
    order = np.lexsort((gt, -overlap, det))
    det, gt, overlap = det[order], gt[order], overlap[order]
    first = np.flatnonzero(np.diff(det, prepend=-1) != 0)
    best_det, best_gt, best_overlap = det[first], gt[first], overlap[first]

    parts: list[tuple[I64, I64, I64, Bool]] = []
    for t, threshold in enumerate(thresholds):
        hit = best_overlap >= threshold
        on_difficult = best_det[hit & difficult[best_gt]]
        claims = hit & ~difficult[best_gt]
        # best_det ascends (detections in group order), so the first claim wins.
        _, winner = np.unique(best_gt[claims], return_index=True)
        winners = best_det[claims][winner]
        for rows, flag in ((on_difficult, True), (winners, False)):
            parts.append((rows, np.zeros(rows.shape[0], dtype=np.int64),
                          np.full(rows.shape[0], t, dtype=np.int64),
                          np.full(rows.shape[0], flag)))
    group, gt_count = _gt_counts(gt_group, ~difficult[None, :])
    return Matched(detection, rank, *_matches(parts), group, gt_count)
