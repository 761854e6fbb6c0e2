"""Why AP is lost: TIDE's error types and the AP gained by fixing each.

Bolya, Foley, Hays and Hoffman, "TIDE: A General Toolbox for Identifying
Object Detection Errors" (ECCV 2020); the numbers are those of its reference
implementation, the ``tidecv`` package (``TIDE().evaluate(...)``, its
``get_main_errors`` and ``get_special_errors``), in AP points (0-100).

Per image (tidecv's ``TIDEExample``): detections in decreasing score (a stable
sort: ties keep input order), at most ``max_dets`` (100) per image over all
classes. Each detection in turn takes the unmatched non-crowd ground truth of
its class with the highest IoU >= ``pos_threshold`` (the first in input order
on equal IoU). An unmatched detection whose IoU with a crowd region of its
class (intersection over the detection's area) is > ``pos_threshold`` is
ignored: not in the AP, but still given an error type. Each unmatched
detection gets the first type that applies, in this order (IoU over all
non-crowd ground truth of the image, matched or not):

* Bkg when the image has no non-crowd ground truth;
* Loc when its highest IoU with its class, ``v``, has
  ``bg_threshold <= v <= pos_threshold`` (target: that ground truth);
* Cls when its highest IoU with another class is >= ``pos_threshold``
  (target: that ground truth);
* Dupe when its highest IoU with matched ground truth of its class is
  >= ``pos_threshold``;
* Bkg when its highest IoU with any ground truth is <= ``bg_threshold``;
* Both otherwise.

A Cls or Loc error whose target is unmatched makes the target "usable"; of the
errors aiming at one target, only the first (highest score) can be fixed into
a true positive, the others are removed when fixed. Unmatched ground truth
that is not usable is a Miss.

AP (tidecv's ``APDataObject.get_ap``): per class, detections in decreasing
score, running precision made non-increasing from the right, precision at the
first recall >= r for r = 0, 0.01, ..., 1 (0 past the last), averaged and
times 100; a class without ground truth has AP 0; the mean is over classes
with ground truth or a detection in the AP. Fixing an error type rebuilds the
AP data from the error list first and the true positives after, which orders
tied scores differently from the unfixed data: the fixed runs keep that
order. The gain of a main type is ``max(fixed mAP - mAP, 0)``; the special
FalsePos (every false positive scored 0, every true positive 1) and FalseNeg
(the count of ground truth reduced by the unmatched) are not clipped.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import NDArray

from prcurve.detection.inputs import Detections, GroundTruth
from prcurve.detection.tide_pairs import (
    ImagePairs,
    concat_ids,
    greedy_match,
    image_pairs,
    segment_argmax,
    segment_max,
)
from prcurve.detection.views import json_value
from prcurve.validation import boxes as _checks
from prcurve.validation import keypoints as _keypoint_checks

if TYPE_CHECKING:
    from matplotlib.figure import Figure

__all__ = ["MAIN_ERRORS", "SPECIAL_ERRORS", "TIDEErrors", "tide_errors"]

F64 = NDArray[np.float64]
I64 = NDArray[np.int64]
Bool = NDArray[np.bool_]

MAIN_ERRORS = ("Cls", "Loc", "Both", "Dupe", "Bkg", "Miss")
SPECIAL_ERRORS = ("FalsePos", "FalseNeg")
# Error codes of a detection (-1: a true positive).
_CLS, _LOC, _BOTH, _DUPE, _BKG = range(5)
_RECALLS = np.arange(101) / 100  # tidecv: [x / 100 for x in range(101)]


@dataclass(frozen=True)
class TIDEErrors:
    """TIDE's breakdown of a detector's errors (AP points, 0-100).

    Attributes
    ----------
    ap : float
        tidecv's mAP at ``pos_threshold`` (its own matching and 101-point AP;
        not COCO's AP50).
    main : dict
        ``Cls``, ``Loc``, ``Both``, ``Dupe``, ``Bkg``, ``Miss``: the AP gained
        by fixing every error of that type alone.
    special : dict
        ``FalsePos``, ``FalseNeg``: the AP with perfect precision (recall kept)
        and with perfect recall (precision kept), minus ``ap``.
    counts : dict
        How many errors of each main type.
    """

    ap: float
    main: dict[str, float]
    special: dict[str, float]
    counts: dict[str, int]
    pos_threshold: float
    bg_threshold: float
    iou_type: str

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready: ``main``, ``special``, ``counts``, ``ap`` and the settings (NaN as
        None: a mean over no class)."""
        return {"ap": json_value(self.ap),
                "main": {k: json_value(v) for k, v in self.main.items()},
                "special": {k: json_value(v) for k, v in self.special.items()},
                "counts": dict(self.counts), "pos_threshold": self.pos_threshold,
                "bg_threshold": self.bg_threshold, "iou_type": self.iou_type}

    def plot(self) -> Figure:
        """:func:`prcurve.present.tide_plot.plot_errors` (matplotlib loads then)."""
        from prcurve.present.tide_plot import plot_errors

        return plot_errors(self)

    def summary(self) -> str:
        """The dAP tables as text (tidecv's ``summarize`` layout)."""
        lines = [f"{self.iou_type} AP @ {round(self.pos_threshold * 100):d}: {self.ap:.2f}", "",
                 "Main errors (dAP)",
                 "  ".join(f"{name:>6}" for name in MAIN_ERRORS),
                 "  ".join(f"{self.main[name]:6.2f}" for name in MAIN_ERRORS),
                 "  ".join(f"{self.counts[name]:6d}" for name in MAIN_ERRORS) + "  (count)",
                 "", "Special errors (dAP)",
                 "  ".join(f"{name:>8}" for name in SPECIAL_ERRORS),
                 "  ".join(f"{self.special[name]:8.2f}" for name in SPECIAL_ERRORS)]
        return "\n".join(lines)


@dataclass(frozen=True)
class _Outcome:
    """Every kept detection and non-crowd ground truth of all batches, classified."""

    dt_class: I64        # category code
    dt_score: F64
    dt_order: I64        # (image position, rank) as one increasing key
    dt_tp: Bool
    dt_ignored: Bool
    dt_error: I64        # -1 for a true positive, else _CLS ... _BKG
    dt_fix_class: I64    # the class a fixed Cls/Loc error becomes a true positive of
    dt_fixable: Bool     # the first error aiming at its (unmatched) target
    gt_class: I64
    gt_used: Bool
    gt_usable: Bool
    n_classes: int


def tide_errors(sources: Sequence[tuple[GroundTruth, Detections]], *, iou_type: str = "bbox",
                pos_threshold: Any = 0.5, bg_threshold: Any = 0.1,
                max_dets: Any = 100) -> TIDEErrors:
    """TIDE's error breakdown of (ground truth, detections) batches of whole images.

    Parameters
    ----------
    sources : sequence of (GroundTruth, Detections)
        Batches with distinct images (``DetectionState.sources``).
    iou_type : {"bbox", "segm"}
    pos_threshold, bg_threshold : float
        TIDE's foreground (0.5) and background (0.1) IoU.
    max_dets : int
        Detections kept per image, over all classes (tidecv: 100).

    Examples
    --------
    >>> from prcurve.detection import Detections, GroundTruth
    >>> gt = GroundTruth([1, 1], [1, 2], [[0, 0, 10, 10], [50, 50, 10, 10]])
    >>> dt = Detections([1, 1], [1, 1], [[0, 0, 10, 10], [50, 50, 10, 10]], [0.9, 0.8])
    >>> errors = tide_errors([(gt, dt)])
    >>> round(errors.ap, 2), errors.counts["Cls"], round(errors.main["Cls"], 2)
    (50.0, 1, 50.0)
    """
    pos = _checks.check_fraction("pos_threshold", pos_threshold)
    bg = _checks.check_fraction("bg_threshold", bg_threshold)
    keep = max(_checks.check_max_dets(max_dets))
    _keypoint_checks.check_not_keypoints("iou_type", iou_type)
    kind = _checks.check_choice("iou_type", iou_type, ("bbox", "segm"))
    outcome = _classify(sources, kind, pos, bg, keep)
    return _quantify(outcome, kind, pos, bg)


def _classify(sources: Sequence[tuple[GroundTruth, Detections]], iou_type: str, pos: float,
              bg: float, max_dets: int) -> _Outcome:
    parts = [image_pairs(gt, dt, iou_type, max_dets) for gt, dt in sources]
    categories = np.unique(concat_ids(*(p.gt_category for p in parts),
                                      *(p.dt_category for p in parts)))
    dt_parts, gt_parts = [], []
    offset = 0
    for part in parts:
        dt_part, gt_part = _classify_batch(part, pos, bg)
        dt_part["order"] = dt_part["order"] + offset
        offset += int(part.n_images) * (max_dets + 1)
        dt_parts.append(dt_part)
        gt_parts.append(gt_part)

    def code(values: NDArray[Any]) -> I64:
        return np.searchsorted(categories, values).astype(np.int64) if values.shape[0] else (
            np.zeros(0, dtype=np.int64))

    def join(chunks: list[dict[str, Any]], key: str) -> NDArray[Any]:
        arrays = [c[key] for c in chunks]
        return concat_ids(*arrays) if arrays else np.zeros(0)

    return _Outcome(
        dt_class=code(join(dt_parts, "category")), dt_score=join(dt_parts, "score"),
        dt_order=join(dt_parts, "order").astype(np.int64), dt_tp=join(dt_parts, "tp") > 0,
        dt_ignored=join(dt_parts, "ignored") > 0,
        dt_error=join(dt_parts, "error").astype(np.int64),
        dt_fix_class=code(join(dt_parts, "fix_category")),
        dt_fixable=join(dt_parts, "fixable") > 0,
        gt_class=code(join(gt_parts, "category")), gt_used=join(gt_parts, "used") > 0,
        gt_usable=join(gt_parts, "usable") > 0, n_classes=int(categories.shape[0]))


def _classify_batch(p: ImagePairs, pos: float, bg: float) -> tuple[dict[str, Any],
                                                                   dict[str, Any]]:
    """Match and classify one batch (tidecv's ``TIDEExample`` and ``_eval_image``)."""
    n_dt, n_gt = p.dt_category.shape[0], p.gt_category.shape[0]
    # Object pairs (non-crowd ground truth), sorted by (detection, ground-truth position).
    same = p.pair_dt_category == p.pair_gt_category
    objects = ~p.pair_crowd
    od, og, oiou, osame = p.pair_dt[objects], p.pair_gt[objects], p.pair_iou[objects], same[
        objects]
    # Greedy matching within each class (tidecv: argmax of the same-class IoU row).
    matched_to, used = greedy_match(od, og, oiou, osame & (oiou >= pos), p.dt_rank, n_dt, n_gt)
    tp = matched_to >= 0
    # Crowd regions: an unmatched detection inside one of its class is ignored.
    crowd = p.pair_crowd & same & (p.pair_iou > pos)
    ignored = np.zeros(n_dt, dtype=bool)
    ignored[p.pair_dt[crowd]] = True
    ignored &= ~tp
    # The error type of each unmatched detection, tests in tidecv's order.
    v_cls, g_cls = segment_argmax(od, og, oiou * osame, n_dt)
    v_other, g_other = segment_argmax(od, og, oiou * ~osame, n_dt)
    v_dupe = segment_max(od, oiou * (osame & used[og]), n_dt)
    v_any = segment_max(od, oiou, n_dt)
    has_gt = np.zeros(n_dt, dtype=bool)
    has_gt[od] = True
    error = np.full(n_dt, -1, dtype=np.int64)
    target = np.full(n_dt, -1, dtype=np.int64)
    rules = [(~has_gt, _BKG, None), ((bg <= v_cls) & (v_cls <= pos), _LOC, g_cls),
             (v_other >= pos, _CLS, g_other), (v_dupe >= pos, _DUPE, None),
             (v_any <= bg, _BKG, None), (np.ones(n_dt, dtype=bool), _BOTH, None)]
    open_ = ~tp
    for test, kind, aim in rules:
        hit = open_ & test
        error[hit] = kind
        if aim is not None:
            target[hit] = aim[hit]
        open_ &= ~hit
    # BestGTMatch: among Cls/Loc errors aiming at unmatched ground truth, the first
    # (detections are in (image, rank) order) is the one a fix makes a true positive.
    aims = np.flatnonzero(target >= 0)
    aiming = aims[~used[target[aims]]]
    usable = np.zeros(n_gt, dtype=bool)
    usable[target[aiming]] = True
    best = np.full(n_gt, n_dt, dtype=np.int64)
    np.minimum.at(best, target[aiming], aiming)
    fixable = np.zeros(n_dt, dtype=bool)
    fixable[aiming] = best[target[aiming]] == aiming
    fix_category = p.dt_category.copy()
    is_cls = (error == _CLS) & (target >= 0)
    fix_category[is_cls] = p.gt_category[target[is_cls]]
    dt_part = {"category": p.dt_category, "score": p.dt_score,
               "order": p.dt_image * (p.max_dets + 1) + p.dt_rank, "tp": tp,
               "ignored": ignored, "error": error, "fix_category": fix_category,
               "fixable": fixable}
    gt_objects = ~p.gt_crowd
    gt_part = {"category": p.gt_category[gt_objects], "used": used[gt_objects],
               "usable": usable[gt_objects]}
    return dt_part, gt_part


def _quantify(o: _Outcome, iou_type: str, pos: float, bg: float) -> TIDEErrors:
    """The AP and the AP of each fix (tidecv's ``fix_errors``, ``fix_main_errors``)."""
    k = o.n_classes
    npos = np.bincount(o.gt_class, minlength=k)
    in_ap = o.dt_tp | ~o.dt_ignored
    # The classes of tidecv's AP data: ground truth positives, or a detection pushed.
    classes = (npos > 0) | (np.bincount(o.dt_class[in_ap], minlength=k) > 0)
    errors = ~o.dt_tp
    base = _mean_ap(o.dt_class[in_ap], o.dt_score[in_ap], o.dt_tp[in_ap],
                    o.dt_order[in_ap], npos, classes)
    # Fixed runs: error data first (in error order), then the true positives.
    later = o.dt_order + o.dt_tp * (int(o.dt_order.max()) + 1 if o.dt_order.shape[0] else 0)
    gains: dict[str, float] = {}
    for name, code in zip(MAIN_ERRORS, (_CLS, _LOC, _BOTH, _DUPE, _BKG, -2), strict=True):
        chosen = errors & (o.dt_error == code)
        kept = in_ap & ~chosen
        fixed = chosen & o.dt_fixable & ((o.dt_error == _CLS) | (o.dt_error == _LOC))
        rows = kept | fixed
        cls = np.where(fixed, o.dt_fix_class, o.dt_class)[rows]
        n = npos
        if name == "Miss":
            n = npos - np.bincount(o.gt_class[~o.gt_used & ~o.gt_usable], minlength=k)
        value = _mean_ap(cls, o.dt_score[rows], (o.dt_tp | fixed)[rows], later[rows], n,
                         classes)
        # NaN stays NaN (a fix that leaves no class with data); tidecv divides by zero.
        gains[name] = value - base if math.isnan(value - base) else max(value - base, 0.0)
    ones = np.where(o.dt_tp, 1.0, 0.0)
    false_pos = _mean_ap(o.dt_class[in_ap], ones[in_ap], o.dt_tp[in_ap], later[in_ap],
                         npos, classes) - base
    unmatched = np.bincount(o.gt_class[~o.gt_used], minlength=k)
    false_neg = _mean_ap(o.dt_class[in_ap], o.dt_score[in_ap], o.dt_tp[in_ap], later[in_ap],
                         npos - unmatched, classes) - base
    counts = {name: int(np.count_nonzero(errors & (o.dt_error == code)))
              for name, code in zip(MAIN_ERRORS[:5], (_CLS, _LOC, _BOTH, _DUPE, _BKG),
                                    strict=True)}
    counts["Miss"] = int(np.count_nonzero(~o.gt_used & ~o.gt_usable))
    return TIDEErrors(ap=base, main=gains,
                      special={"FalsePos": false_pos, "FalseNeg": false_neg},
                      counts=counts, pos_threshold=pos, bg_threshold=bg, iou_type=iou_type)


def class_ap(tp: Bool, n_pos: int) -> float:
    """tidecv's AP of one class from its detections' true/false flags in score order.

    Examples
    --------
    >>> class_ap(np.array([True, False, True]), 2)  # (51 * 1 + 50 * 2/3) / 101 * 100
    83.49834983498359
    """
    if n_pos <= 0:
        return 0.0
    n = tp.shape[0]
    if n == 0:
        return 0.0
    cum_tp = np.cumsum(tp)
    precision = cum_tp / np.arange(1, n + 1)
    precision = np.maximum.accumulate(precision[::-1])[::-1]
    recall = cum_tp / n_pos
    index = np.searchsorted(recall, _RECALLS, side="left")
    y = np.where(index < n, precision[np.minimum(index, n - 1)], 0.0)
    # Summed left to right as tidecv's sum(), then / 101 * 100.
    return float(np.cumsum(y)[-1] / y.shape[0] * 100)


def _mean_ap(cls: I64, score: F64, tp: Bool, order: I64, npos: I64, classes: Bool) -> float:
    """Mean of tidecv's per-class AP over the classes that have data."""
    sort = np.lexsort((order, -score, cls))
    cls, tp = cls[sort], tp[sort]
    bounds = np.searchsorted(cls, np.arange(npos.shape[0] + 1))
    aps = []
    for c in np.flatnonzero(classes):
        segment = tp[bounds[c]:bounds[c + 1]]
        if segment.shape[0] == 0 and npos[c] <= 0:
            continue  # tidecv's is_empty(): left out of the mean
        aps.append(class_ap(segment, int(npos[c])))
    if not aps:
        return float("nan")
    return float(np.cumsum(aps)[-1] / len(aps))
