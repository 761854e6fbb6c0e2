"""COCO's accumulate and summarize stages on the matched state, and their views.

Accumulate (pycocotools ``COCOeval.accumulate``), for each category k, area
range a and maximum detections m: the kept detections of k with rank < m,
from every image, sorted by decreasing score (a stable sort over images in
increasing id order, each image's detections in rank order); ignored ones
contribute to neither count. At detection i (in that order), for each IoU
threshold t::

    TP_i, FP_i = cumulative true and false positives
    recall_i    = TP_i / P                   (P: ground truth that counts)
    precision_i = TP_i / (FP_i + TP_i + eps) (eps = numpy.spacing(1), as pycocotools)
    p_interp_i  = max over j >= i of precision_j

``precision[t, r, k, a, m]`` is ``p_interp`` at the first detection with
``recall >= recall_thresholds[r]`` (0 when recall never reaches it);
``recall[t, k, a, m]`` is the last recall. Both are -1 where P = 0 (a
category without ground truth in that area range). ``scores[t, r, k, a, m]``
is the score of that detection.

Summarize: the mean of the entries > -1 over the selected slice, for the 12
statistics pycocotools prints, with its labels and its 3 decimals.

The per-category curves (:meth:`COCOEvaluation.curve`) are prcurve's
:class:`~prcurve.PRCurve` of the same detections with tied scores grouped
into one operating point (prcurve's convention); COCO's array instead keeps
one point per detection in the tie order above, so its 101-point AP can
differ from ``curve.average_precision("101point")`` when scores tie.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import NDArray

from prcurve.detection import coco_tables
from prcurve.detection._sorting import (
    descending_rank,
    sorted_distinct,
    stable_order,
    unique_order,
)
from prcurve.detection.keypoints import KEYPOINT_STAT_NAMES, KEYPOINT_STATS
from prcurve.detection.protocol import COCOProtocol
from prcurve.detection.views import CategoryViews
from prcurve.validation import boxes as _checks

if TYPE_CHECKING:
    from matplotlib.figure import Figure

    # At run time these load where a view uses them: the summary needs none of them, and
    # the count state, the PR curve and the table (with the CSV writers and the safe
    # writer) were a third of a small `prcurve coco`'s imports (issue 26, item 2).
    from prcurve.core.counts import ThresholdCounts
    from prcurve.core.curve import PRCurve
    from prcurve.core.table import Table
    from prcurve.core.undefined import ZeroDivision
    from prcurve.detection.confusion import ConfusionMatrix
    from prcurve.detection.state import DetectionState
    from prcurve.detection.tide import TIDEErrors

__all__ = ["STAT_NAMES", "COCOEvaluation"]

F64 = NDArray[np.float64]
I64 = NDArray[np.int64]
Bool = NDArray[np.bool_]

EPS = float(np.spacing(1))  # pycocotools: tp / (fp + tp + np.spacing(1))

STAT_NAMES = ("AP", "AP50", "AP75", "APs", "APm", "APl",
              "AR1", "AR10", "AR100", "ARs", "ARm", "ARl")
"""Short names of the 12 summary statistics, in pycocotools' order."""


@dataclass(frozen=True)
class SortedRecords:
    """The records of a state in COCO's accumulate order, with integer codes.

    Detections are sorted by (category, decreasing score, image, rank);
    category k's are ``[start[k], start[k + 1])``. ``outside[a, i]``: detection
    i's box area lies outside area range a. Matches refer to the sorted
    detections and are sorted by (category, area * T + threshold, detection).
    ``n_pos[k, a]``: ground truth that counts. Ground-truth groups:
    ``gt_image[j]``, ``gt_category[j]``, ``gt_count[a, j]``.
    """

    images: NDArray[Any]
    categories: NDArray[Any]
    start: I64
    category: I64
    image: I64
    score: F64
    rank: NDArray[np.int32]
    outside: Bool
    match_detection: I64
    match_area: NDArray[np.int8]
    match_threshold: NDArray[np.int16]
    match_ignored: Bool
    n_pos: I64
    gt_image: I64
    gt_category: I64
    gt_count: I64
    row: I64 | None = None  # input rows (Records.row) in this order

    @classmethod
    def from_state(cls, state: DetectionState) -> SortedRecords:
        records = state.records
        images = sorted_distinct(records.images)
        categories = state.categories
        n_areas = records.gt_count.shape[0]
        image = np.searchsorted(images, records.image_id).astype(np.int64)
        category = np.searchsorted(categories, records.category_id).astype(np.int64)
        # pycocotools: per category, images in id order, each image's detections by rank,
        # then a stable sort by decreasing score.
        score_rank, n_scores = descending_rank(records.score)
        # (category, image, rank) is distinct for every record: no index needed in the key.
        order, position = unique_order([
            (category, categories.shape[0]), (score_rank, n_scores),
            (image, images.shape[0]), (records.rank.astype(np.int64),
                                       int(records.rank.max(initial=0)) + 1)])
        category = category[order]
        start = np.searchsorted(category, np.arange(categories.shape[0] + 1)).astype(np.int64)
        gt_image = np.searchsorted(images, records.gt_image_id).astype(np.int64)
        gt_category = np.searchsorted(categories, records.gt_category_id).astype(np.int64)
        n_pos = np.zeros((categories.shape[0], n_areas), dtype=np.int64)
        for a in range(n_areas):
            n_pos[:, a] = np.bincount(gt_category, weights=records.gt_count[a],
                                      minlength=categories.shape[0]).astype(np.int64)
        # Matches sorted by (category, row, detection): each (category, row) is a run.
        det = position[records.match_detection].astype(np.int64)
        n_rows = n_areas * len(state.protocol.iou_thresholds)
        row = records.match_area.astype(np.int64) * len(state.protocol.iou_thresholds) + (
            records.match_threshold)
        match_order = stable_order([(category[det], categories.shape[0]), (row, n_rows),
                                    (det, max(order.shape[0], 1))])
        return cls(images, categories, start, category, image[order], records.score[order],
                   records.rank[order], state.protocol.outside(records.area[order]),
                   det[match_order], records.match_area[match_order],
                   records.match_threshold[match_order], records.match_ignored[match_order],
                   n_pos, gt_image, gt_category, records.gt_count,
                   None if records.row is None else records.row[order])

    def flags(self, a: int, t: int, lo: int, hi: int) -> tuple[Bool, Bool]:
        """True positive and ignored flags of detections ``lo:hi`` at area a, threshold t."""
        det = self.match_detection
        here = (self.match_area == a) & (self.match_threshold == t) & (det >= lo) & (det < hi)
        tp = np.zeros(hi - lo, dtype=bool)
        matched_ignored = np.zeros(hi - lo, dtype=bool)
        tp[det[here & ~self.match_ignored] - lo] = True
        matched_ignored[det[here & self.match_ignored] - lo] = True
        # Unmatched detections are ignored outside the area range; matched ones follow
        # their ground truth.
        ignored = matched_ignored | (~tp & self.outside[a, lo:hi])
        return tp, ignored


@dataclass(frozen=True)
class TruePositives:
    """Every true positive of the kept detections, with its counts, per (category, row).

    Row = area index * T + threshold index. Sorted by (category, row, rank in
    score order); ``ordinal[e]`` is the TP count up to and including entry e in
    its (category, row), ``fp_before[e]`` the false positives before it (kept,
    not ignored, not TP), ``detection[e]`` the sorted detection index.
    """

    category: I64
    row: I64
    detection: I64
    ordinal: I64
    fp_before: I64


@dataclass(frozen=True)
class Matches:
    """The matches of kept detections at chosen rows, sorted by (category, row, detection).

    ``ignored_correction[e]``: how entry e changes "kept detections outside the
    area range" into "ignored detections": -1 for a TP outside the range (not
    ignored), +1 for a detection matched to ignored ground truth inside it.
    ``first[s]`` is where the run ``segment`` s (one category and row) starts
    and ``segment[e]`` the run of entry e.
    """

    category: I64
    row: I64
    area: I64
    detection: I64
    is_tp: Bool
    ignored_correction: I64
    segment: I64
    first: I64


def matches(records: SortedRecords, n_thresholds: int, keep: Bool,
            rows: NDArray[np.bool_] | None = None) -> Matches:
    """The matches of the detections where ``keep`` is true, at ``rows`` (all when None)."""
    det = records.match_detection
    row = records.match_area.astype(np.int64) * n_thresholds + records.match_threshold
    chosen = keep[det] if rows is None else keep[det] & rows[row]
    det, row, area = det[chosen], row[chosen], records.match_area[chosen].astype(np.int64)
    ignored = records.match_ignored[chosen]
    category = records.category[det]  # already sorted by (category, row, detection)
    outside = records.outside[area, det]
    correction = np.where(ignored & ~outside, 1, 0) - np.where(~ignored & outside, 1, 0)
    key = category * (records.outside.shape[0] * n_thresholds) + row
    starts = np.ones(key.shape[0], dtype=bool)
    starts[1:] = key[1:] != key[:-1]
    segment = np.cumsum(starts) - 1
    return Matches(category, row, area, det, ~ignored, correction, segment,
                   np.flatnonzero(starts))


def within_segments(values: NDArray[Any], segment: I64, first: I64) -> NDArray[Any]:
    """Inclusive running sums of ``values`` along the last axis, restarting at each run."""
    total = np.cumsum(values, axis=-1)
    before = total - values  # exclusive
    out: NDArray[Any] = total - before[..., first][..., segment]
    return out


def true_positives(records: SortedRecords, n_thresholds: int, max_det: int | None,
                   rows: NDArray[np.bool_] | None = None) -> TruePositives:
    """The true positives among detections of rank < ``max_det`` (all when None).

    The false positives before a TP are the kept detections before it in its
    category minus the ignored ones minus the earlier TPs. Ignored detections
    are the unmatched ones outside the area range plus those matched to
    ignored ground truth; both are counted from the outside flags and the
    sparse matches, without a dense pass over (rows x detections).
    ``rows`` (A * T booleans) restricts the rows computed.
    """
    n = records.score.shape[0]
    keep = records.rank < max_det if max_det is not None else np.ones(n, dtype=bool)
    kept_before = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(keep, out=kept_before[1:])
    outside_before = np.zeros((records.outside.shape[0], n + 1), dtype=np.int64)
    np.cumsum(records.outside & keep, axis=1, out=outside_before[:, 1:])
    found = matches(records, n_thresholds, keep, rows)
    det, area = found.detection, found.area
    correction_before = within_segments(found.ignored_correction, found.segment,
                                        found.first) - found.ignored_correction
    ordinal = within_segments(found.is_tp.astype(np.int64), found.segment, found.first)
    start = records.start[found.category]
    ignored_before = (outside_before[area, det] - outside_before[area, start]
                      + correction_before)
    position = kept_before[det] - kept_before[start]
    fp_before = position - ignored_before - (ordinal - 1)
    tp = found.is_tp
    return TruePositives(found.category[tp], found.row[tp], det[tp], ordinal[tp],
                         fp_before[tp])


def accumulate(records: SortedRecords, protocol: COCOProtocol) -> tuple[F64, F64, F64]:
    """pycocotools' precision [T, R, K, A, M], recall [T, K, A, M] and scores [T, R, K, A, M].

    Only true positives are visited: recall threshold r is first reached at the
    c-th TP (c = :func:`~prcurve.detection.coco_tables.recall_steps`), and the
    interpolated precision there is the maximum precision over the TPs from the
    c-th on (precision only rises at a TP). Threshold 0 is reached at the first detection, where the
    interpolated precision is the maximum over all TPs and the score is the
    first detection's. Every category at once, in blocks of categories
    (:mod:`prcurve.detection.coco_tables`), not a loop over categories.
    """
    n_t = len(protocol.iou_thresholds)
    rec_thr = np.asarray(protocol.recall_thresholds)
    n_r = rec_thr.shape[0]
    n_k = records.categories.shape[0]
    n_a = protocol.n_areas
    n_m = len(protocol.max_dets)
    rows = n_a * n_t
    counted = records.n_pos > 0  # (K, A): -1 everywhere else
    steps = np.zeros((n_k, n_a, n_r), dtype=np.int64)
    steps[counted] = coco_tables.recall_steps(records.n_pos[counted], rec_thr)
    has_detections = records.start[1:] > records.start[:-1]
    first_score = np.zeros(n_k)
    first_score[has_detections] = records.score[records.start[:-1][has_detections]]
    # np.full, not -np.ones: one array each, not two (fresh pages cost, issue 26).
    precision = np.full((n_t, n_r, n_k, n_a, n_m), -1.0)
    recall = np.full((n_t, n_k, n_a, n_m), -1.0)
    scores = np.full((n_t, n_r, n_k, n_a, n_m), -1.0)
    per_block = max(1, coco_tables.BLOCK_CELLS // (rows * n_r))
    for m, max_det in enumerate(protocol.max_dets):
        tps = true_positives(records, n_t, max_det)
        tp_f = tps.ordinal.astype(np.float64)
        pr = tp_f / (tps.fp_before.astype(np.float64) + tp_f + EPS)
        key = tps.category * rows + tps.row  # sorted: TPs are in (category, row) order
        envelope = coco_tables.segmented_reverse_max(pr, key)
        tp_score = records.score[tps.detection]
        for k0 in range(0, n_k, per_block):
            k1 = min(n_k, k0 + per_block)
            q, ss, found = coco_tables.interpolate(
                key, envelope, tp_score, np.repeat(steps[k0:k1], n_t, axis=1),
                first_score[k0:k1], k0)
            here = counted[k0:k1]  # (block, A), against (T, R, block, A) below
            # (block, A * T, R), row = a * T + t  ->  (T, R, block, A)
            q = q.reshape(k1 - k0, n_a, n_t, n_r).transpose(2, 3, 0, 1)
            ss = ss.reshape(k1 - k0, n_a, n_t, n_r).transpose(2, 3, 0, 1)
            precision[:, :, k0:k1, :, m] = np.where(here, q, -1.0)
            scores[:, :, k0:k1, :, m] = np.where(here, ss, -1.0)
            n_pos = np.where(here, records.n_pos[k0:k1], 1)
            rate = found.reshape(k1 - k0, n_a, n_t).transpose(2, 0, 1) / n_pos
            recall[:, k0:k1, :, m] = np.where(here, rate, -1.0)
    return precision, recall, scores


def _summarize(precision: F64, recall: F64, protocol: COCOProtocol, ap: bool,
               iou: float | None, area: str, max_dets: int) -> float:
    """One statistic, as pycocotools' ``_summarize`` computes it (same slicing, same mean)."""
    aind = [i for i, label in enumerate(protocol.area_labels) if label == area]
    mind = [i for i, m in enumerate(protocol.max_dets) if m == max_dets]
    thresholds = np.asarray(protocol.iou_thresholds)
    if ap:
        s = precision
        if iou is not None:
            s = s[np.where(iou == thresholds)[0]]
        s = s[:, :, :, aind, mind]
    else:
        s = recall
        if iou is not None:
            s = s[np.where(iou == thresholds)[0]]
        s = s[:, :, aind, mind]
    kept = s[s > -1]
    return -1.0 if kept.shape[0] == 0 else float(np.mean(kept))


# (ap, iou, area, max_dets index or the literal 100 of pycocotools' default argument)
_STATS: tuple[tuple[bool, float | None, str, int | None], ...] = (
    (True, None, "all", None), (True, 0.5, "all", 2), (True, 0.75, "all", 2),
    (True, None, "small", 2), (True, None, "medium", 2), (True, None, "large", 2),
    (False, None, "all", 0), (False, None, "all", 1), (False, None, "all", 2),
    (False, None, "small", 2), (False, None, "medium", 2), (False, None, "large", 2),
)


def _layout(protocol: COCOProtocol) -> list[tuple[bool, float | None, str, int]]:
    """(ap, iou, area, max_dets) of each statistic pycocotools prints for the protocol."""
    if protocol.iou_type == "keypoints":  # _summarizeKps: maxDets=20 throughout
        return [(ap, iou, area, 20) for ap, iou, area in KEYPOINT_STATS]
    if len(protocol.max_dets) < 3:
        raise _checks.summary_needs_settings("three max_dets values")
    # pycocotools' stats[0] uses _summarize's default maxDets=100, not maxDets[2].
    return [(ap, iou, area, 100 if m is None else protocol.max_dets[m])
            for ap, iou, area, m in _STATS]


def summarize(precision: F64, recall: F64, protocol: COCOProtocol) -> tuple[F64, list[str]]:
    """The statistics and pycocotools' printed lines (12; 10 for keypoints)."""
    line = " {:<18} {} @[ IoU={:<9} | area={:>6s} | maxDets={:>3d} ] = {:0.3f}"
    thresholds = protocol.iou_thresholds
    layout = _layout(protocol)
    stats = np.zeros(len(layout))
    lines = []
    for i, (ap, iou, area, max_dets) in enumerate(layout):
        value = _summarize(precision, recall, protocol, ap, iou, area, max_dets)
        stats[i] = value
        iou_text = f"{thresholds[0]:0.2f}:{thresholds[-1]:0.2f}" if iou is None else (
            f"{iou:0.2f}")
        title = "Average Precision" if ap else "Average Recall"
        lines.append(line.format(title, "(AP)" if ap else "(AR)", iou_text, area, max_dets,
                                 value))
    return stats, lines


def _tie_grouped_counts(scores: F64, tp: Bool, n_pos: int) -> ThresholdCounts:
    """The counts of detections in decreasing score order, ties grouped (prcurve's state)."""
    from prcurve.core.counts import ThresholdCounts

    if scores.shape[0] == 0:
        empty = np.zeros(0)
        return ThresholdCounts._trusted(empty, empty.copy(), empty.copy(), float(n_pos), 0.0)
    ascending = scores[::-1]
    change = np.flatnonzero(np.diff(ascending) != 0) + 1
    starts = np.concatenate(([0], change))
    positive = tp[::-1].astype(np.float64)
    pos = np.add.reduceat(positive, starts)
    neg = np.add.reduceat(1.0 - positive, starts)
    counts = ThresholdCounts._from_ascending(ascending[starts].astype(np.float64), pos, neg,
                                             drop_empty=False)
    return ThresholdCounts._trusted(counts.thresholds, counts.tp, counts.fp, float(n_pos),
                                    counts.n_neg)


class COCOEvaluation(CategoryViews):
    """COCO's evaluation of a detector: pycocotools' arrays and statistics, and their views.

    Attributes
    ----------
    protocol : COCOProtocol
    categories : ndarray, shape (K,)
        Category ids in increasing order (pycocotools' ``catIds``).
    images : ndarray
        Image ids evaluated, increasing.
    precision : ndarray, shape (T, R, K, A, M)
        pycocotools' ``eval['precision']`` (module docstring); -1 where a
        category has no ground truth in an area range.
    recall : ndarray, shape (T, K, A, M)
        pycocotools' ``eval['recall']``.
    scores : ndarray, shape (T, R, K, A, M)
        pycocotools' ``eval['scores']``.
    stats : ndarray, shape (12,)
        pycocotools' ``stats`` (names in :data:`STAT_NAMES`).
    n_pos : ndarray, shape (K, A)
        Ground truth that counts per category and area range.

    Examples
    --------
    >>> from prcurve.detection import evaluate_coco, GroundTruth, Detections
    >>> gt = GroundTruth([1, 1], [1, 1], [[0, 0, 10, 10], [20, 0, 10, 10]])
    >>> dt = Detections([1, 1], [1, 1], [[0, 0, 10, 10], [40, 0, 10, 10]], [0.9, 0.8])
    >>> result = evaluate_coco(gt, dt)
    >>> float(result.stats[1])  # AP50: the first detection finds one of two objects
    0.5049504950495048
    >>> print(result.summary().splitlines()[1])
     Average Precision  (AP) @[ IoU=0.50      | area=   all | maxDets=100 ] = 0.505
    """

    def __init__(self, state: DetectionState, records: SortedRecords, precision: F64,
                 recall: F64, scores: F64) -> None:
        protocol = state.protocol
        if not isinstance(protocol, COCOProtocol):
            raise _checks.wrong_type("state", state, "a state under the COCO protocol")
        self.protocol: COCOProtocol = protocol
        self._adopt(state, records)
        self.precision = precision
        self.recall = recall
        self.scores = scores
        self.n_pos = records.n_pos

    @classmethod
    def from_state(cls, state: DetectionState) -> COCOEvaluation:
        protocol = state.protocol
        if not isinstance(protocol, COCOProtocol):
            raise _checks.wrong_type("state", state, "a state under the COCO protocol")
        records = SortedRecords.from_state(state)
        precision, recall, scores = accumulate(records, protocol)
        return cls(state, records, precision, recall, scores)

    @property
    def n_images(self) -> int:
        return int(self.images.shape[0])

    def __repr__(self) -> str:
        return (f"COCOEvaluation({self.n_images} images, {self.categories.shape[0]} categories, "
                f"AP={self.stats[0]:.4f})")

    @cached_property
    def _summary(self) -> tuple[F64, list[str]]:
        return summarize(self.precision, self.recall, self.protocol)

    @property
    def stats(self) -> F64:
        """The 12 statistics pycocotools' ``summarize`` computes (-1 where undefined)."""
        return self._summary[0]

    def stats_dict(self) -> dict[str, float]:
        """The statistics by short name (:data:`STAT_NAMES`; keypoints: 10 names)."""
        names = KEYPOINT_STAT_NAMES if self.protocol.iou_type == "keypoints" else STAT_NAMES
        return {name: float(v) for name, v in zip(names, self.stats, strict=True)}

    def summary(self) -> str:
        """The 12 lines pycocotools' ``summarize`` prints, byte for byte."""
        return "\n".join(self._summary[1])

    # -- settings ------------------------------------------------------------------------

    def _a(self, area: str) -> int:
        labels = self.protocol.area_labels
        if area not in labels:
            raise _checks.unknown_setting("area", area, list(labels))
        return labels.index(area)

    def _m(self, max_dets: int | None) -> int:
        if max_dets is None:
            return len(self.protocol.max_dets) - 1
        if max_dets not in self.protocol.max_dets:
            raise _checks.unknown_setting("max_dets", max_dets, list(self.protocol.max_dets))
        return self.protocol.max_dets.index(max_dets)

    # -- per category -----------------------------------------------------------------------

    def average_precision(self, category: Any = None, *, iou_threshold: float | None = None,
                          area: str = "all", max_dets: int | None = None) -> float:
        """COCO AP (mean of ``precision`` entries > -1) for one category or all.

        ``iou_threshold=None`` averages over every IoU threshold (AP@[.5:.95]);
        NaN when nothing is defined (no ground truth).

        Examples
        --------
        >>> from prcurve.detection import evaluate_coco, GroundTruth, Detections
        >>> gt = GroundTruth([1], [1], [[0, 0, 10, 10]])
        >>> dt = Detections([1], [1], [[0, 0, 10, 9]], [0.9])  # IoU 0.9
        >>> result = evaluate_coco(gt, dt)
        >>> result.average_precision(1, iou_threshold=0.9), result.average_precision(1)
        (1.0, 0.9)
        """
        s = self.precision
        if iou_threshold is not None:
            s = s[self._t(iou_threshold):self._t(iou_threshold) + 1]
        s = s[:, :, :, self._a(area), self._m(max_dets)]
        if category is not None:
            s = s[:, :, self._k(category)]
        kept = s[s > -1]
        return float(np.mean(kept)) if kept.shape[0] else math.nan

    def counts(self, category: Any, *, iou_threshold: float = 0.5, area: str = "all",
               max_dets: int | None = None) -> ThresholdCounts:
        """The count state of one category: its detections as scores with TP/FP labels
        (ignored ones left out), ties grouped, ``n_pos`` the ground truth that counts."""
        k, t, a, m = self._k(category), self._t(iou_threshold), self._a(area), self._m(max_dets)
        r = self._records
        lo, hi = int(r.start[k]), int(r.start[k + 1])
        tp, ignored = r.flags(a, t, lo, hi)
        keep = (r.rank[lo:hi] < self.protocol.max_dets[m]) & ~ignored
        return _tie_grouped_counts(r.score[lo:hi][keep], tp[keep], int(r.n_pos[k, a]))

    def curve(self, category: Any, *, iou_threshold: float = 0.5, area: str = "all",
              max_dets: int | None = None, zero_division: ZeroDivision = "nan") -> PRCurve:
        """The precision–recall curve of one category at one IoU threshold.

        A :class:`~prcurve.PRCurve`: every AP method, ``best_f`` (the score
        threshold to deploy), precision at a recall, plots. Recall is over all
        the category's ground truth that counts, found or not.

        Examples
        --------
        >>> from prcurve.detection import evaluate_coco, GroundTruth, Detections
        >>> gt = GroundTruth([1, 1], [1, 1], [[0, 0, 10, 10], [20, 0, 10, 10]])
        >>> dt = Detections([1, 1], [1, 1], [[0, 0, 10, 10], [40, 0, 10, 10]], [0.9, 0.8])
        >>> curve = evaluate_coco(gt, dt).curve(1)
        >>> curve.precision.tolist(), curve.recall.tolist()
        ([1.0, 0.5], [0.5, 0.5])
        """
        counts = self.counts(category, iou_threshold=iou_threshold, area=area,
                             max_dets=max_dets)
        from prcurve.core.curve import PRCurve

        return PRCurve(counts, zero_division=zero_division)

    def per_category(self) -> Table:
        """One row per category: AP, AP50, AP75, AP by area, AR at the largest max_dets,
        ground truth that counts (area all) and kept detections; NaN without ground truth."""
        n_k = self.categories.shape[0]
        columns: dict[str, list[Any]] = {"category_id": self.categories.tolist(),
                                         "name": [self._name(k) for k in range(n_k)]}
        m = len(self.protocol.max_dets) - 1
        thresholds = self.protocol.iou_thresholds

        def mean(values: F64) -> float:
            kept = values[values > -1]
            return float(np.mean(kept)) if kept.shape[0] else math.nan

        columns["AP"] = [mean(self.precision[:, :, k, 0, m]) for k in range(n_k)]
        for label, value in (("AP50", 0.5), ("AP75", 0.75)):
            if any(abs(t - value) < 1e-9 for t in thresholds):
                t = self._t(value)
                columns[label] = [mean(self.precision[t, :, k, 0, m]) for k in range(n_k)]
        for a, label in enumerate(self.protocol.area_labels[1:], start=1):
            columns[f"AP_{label}"] = [mean(self.precision[:, :, k, a, m]) for k in range(n_k)]
        columns[f"AR{self.protocol.max_dets[m]}"] = [mean(self.recall[:, k, 0, m])
                                                     for k in range(n_k)]
        columns["n_gt"] = self.n_pos[:, 0].tolist()
        r = self._records
        columns["n_detections"] = np.diff(r.start).tolist()
        from prcurve.core.table import Table

        return Table({name: np.asarray(values, dtype=object if name == "name" else None)
                      for name, values in columns.items()})

    def best_f(self, *, iou_threshold: float = 0.5, area: str = "all",
               max_dets: int | None = None, beta: float = 1.0) -> Table:
        """Per category, the score threshold of maximal F-beta and its precision and recall.

        The confidence threshold to deploy each class at (highest threshold on
        ties); NaN for a category without ground truth or detections.

        Examples
        --------
        >>> from prcurve.detection import evaluate_coco, GroundTruth, Detections
        >>> gt = GroundTruth([1, 1], [1, 1], [[0, 0, 10, 10], [20, 0, 10, 10]])
        >>> dt = Detections([1, 1, 1], [1, 1, 1], [[0, 0, 10, 10], [40, 0, 10, 10],
        ...                 [20, 0, 10, 10]], [0.9, 0.8, 0.7])
        >>> table = evaluate_coco(gt, dt).best_f()
        >>> table["threshold"].tolist(), table["f1"].round(4).tolist()
        ([0.7], [0.8])
        """
        return self._best_f_table(
            lambda k: self.curve(self.categories[k].item(), iou_threshold=iou_threshold,
                                 area=area, max_dets=max_dets, zero_division=0), beta)

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready summary: protocol, statistics (-1 kept as pycocotools has it),
        per-category AP and best-F thresholds."""
        table = self._category_rows(self.per_category(), self.best_f())
        return {
            "protocol": "coco",
            "iou_type": self.protocol.iou_type,
            "parameters": {
                "iou_thresholds": list(self.protocol.iou_thresholds),
                "recall_thresholds": len(self.protocol.recall_thresholds),
                "max_dets": list(self.protocol.max_dets),
                "area_ranges": {label: [lo, hi] for label, lo, hi in self.protocol.area_ranges},
            },
            "n_images": self.n_images,
            "n_categories": int(self.categories.shape[0]),
            "stats": self.stats_dict(),
            "summary": self._summary[1],
            "per_category": table,
        }

    def errors(self, *, pos_threshold: float = 0.5, bg_threshold: float = 0.1,
               max_dets: int = 100) -> TIDEErrors:
        """TIDE's error types and the AP gained by fixing each (:mod:`prcurve.detection.tide`)."""
        from prcurve.detection.tide import tide_errors

        return tide_errors(self.state.sources, iou_type=self.protocol.iou_type,
                           pos_threshold=pos_threshold, bg_threshold=bg_threshold,
                           max_dets=max_dets)

    def confusion_matrix(self, *, iou_threshold: float = 0.5,
                         score_threshold: float = 0.5) -> ConfusionMatrix:
        """Per-class confusion with a background row and column
        (:mod:`prcurve.detection.confusion`)."""
        from prcurve.detection.confusion import confusion_matrix

        return confusion_matrix(self.state.sources, iou_type=self.protocol.iou_type,
                                iou_threshold=iou_threshold, score_threshold=score_threshold,
                                category_names=self.category_names)

    # -- plots ---------------------------------------------------------------------------

    def plot_iou_curves(self, **kwargs: Any) -> Figure:
        """:func:`prcurve.present.detection_plot.plot_iou_curves` (matplotlib loads then)."""
        from prcurve.present.detection_plot import plot_iou_curves

        return plot_iou_curves(self, **kwargs)

    def plot_class_curves(self, categories: Sequence[Any] | None = None,
                          **kwargs: Any) -> Figure:
        """:func:`prcurve.present.detection_plot.plot_class_curves` (matplotlib loads then)."""
        from prcurve.present.detection_plot import plot_class_curves

        return plot_class_curves(self, categories, **kwargs)
