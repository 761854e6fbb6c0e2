"""Image-level bootstrap intervals for COCO's mAP and AP50 (and VOC's mAP), and a paired
comparison.

The unit of resampling is the image (a cluster bootstrap): a resample draws
``n_images`` images with replacement and weights each image by how often it
was drawn; its ground truth counts that many times and so do its detections
(in the score order of the data, a drawn-twice detection is two detections
in a row). The statistic is recomputed exactly as COCO computes it (the
101-point interpolated precision over the weighted counts, averaged over
categories with ground truth in the resample and over IoU thresholds), so a
resample that draws every image once gives the evaluation's own number (to
about 1e-12: the interpolated precision of a resample is taken with a
floating-point offset per IoU threshold). The percentile interval is the
``(1 - level)/2`` and ``(1 + level)/2`` quantiles q_lo, q_hi of the resampled
statistic; the basic interval reflects them about the estimate,
``(2 θ̂ - q_hi, 2 θ̂ - q_lo)`` (clipped to [0, 1] for an AP), which corrects
for the bias the bootstrap shows: COCO's interpolated precision is a running
maximum, and maxima of noisier resampled curves are larger, so resampled APs
run above the estimate (docs/detection.md gives measured sizes).

The paired comparison draws the same images for two detectors evaluated on
the same ground truth, so that the difference keeps the pairing; its p-value
for "no difference" is ``min(1, 2 min(1 + #{Δ* <= 0}, 1 + #{Δ* >= 0}) / (B + 1))``
as in :func:`prcurve.compare_average_precision`.

For a VOC evaluation the statistic is the mAP at one IoU threshold, each
class's AP recomputed by the evaluation's method (``interpolated``,
``11point``, ``101point``, ``step``) on the weighted counts of each tie group
(prcurve's convention: a drawn-twice detection ties with its copy).

Work per resample is one pass over the kept detections (weighted counts before
each true positive) plus a few passes over the true positives.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np
from numpy.typing import NDArray

from prcurve.detection.coco import EPS, COCOEvaluation, matches, within_segments
from prcurve.detection.protocol import INTERVALS, VOCProtocol
from prcurve.detection.voc import VOCEvaluation
from prcurve.space.intervals import Interval, PairedComparison, _percentiles, paired_p_value
from prcurve.validation import boxes as _checks

__all__ = ["STATISTICS", "bootstrap_detection", "compare_detectors"]

F64 = NDArray[np.float64]
I64 = NDArray[np.int64]

STATISTICS = ("mAP", "AP50", "AP75")
"""The statistics that can be resampled: AP@[all IoU thresholds], AP@0.50, AP@0.75
(area range "all", the largest max_dets: pycocotools' stats[0], [1], [2] by default)."""

_CELLS = 1 << 22  # weighted cells in flight per chunk of resamples


Evaluation = COCOEvaluation | VOCEvaluation

# The AP methods a VOC resample can be recomputed with (tie groups, weighted counts).
_VOC_METHODS = ("interpolated", "11point", "101point", "step")


def _check_evaluation(name: str, value: Any) -> Evaluation:
    if not isinstance(value, (COCOEvaluation, VOCEvaluation)):
        raise _checks.wrong_type(name, value, "a COCOEvaluation or a VOCEvaluation")
    if isinstance(value, VOCEvaluation) and value.protocol.ap_method not in _VOC_METHODS:
        raise _checks.unsupported_resampling(value.protocol.ap_method, _VOC_METHODS)
    if isinstance(value, VOCEvaluation) and value.ties != "grouped":
        raise _checks.file_order_bootstrap()
    return value


class _Resampler:
    """An evaluation prepared for weighted recomputation of AP per (category, threshold)."""

    def __init__(self, evaluation: Evaluation) -> None:
        evaluation = _check_evaluation("evaluation", evaluation)
        protocol = evaluation.protocol
        labels = protocol.area_labels
        if "all" not in labels:
            raise _checks.unknown_setting("area", "all", list(labels))
        self.voc = isinstance(protocol, VOCProtocol)
        r = evaluation._records
        self.records = r
        self.area = labels.index("all")
        self.n_t = len(protocol.iou_thresholds)
        if isinstance(protocol, VOCProtocol):
            self.method = protocol.ap_method
            levels = {"11point": 10, "101point": 100}.get(self.method, 0)
            self.recall_thresholds = np.arange(levels + 1) / max(levels, 1)
            self.keep = np.ones(r.rank.shape[0], dtype=bool)
            change = np.ones(r.score.shape[0], dtype=bool)
            change[1:] = (r.score[1:] != r.score[:-1]) | (r.category[1:] != r.category[:-1])
            self.tie_start = np.flatnonzero(change)  # tie groups (scores sorted per category)
        else:
            self.method = "coco"
            self.recall_thresholds = np.asarray(protocol.recall_thresholds)
            self.keep = r.rank < protocol.max_dets[-1]
        rows = np.zeros(protocol.n_areas * self.n_t, dtype=bool)
        rows[self.area * self.n_t:(self.area + 1) * self.n_t] = True
        self.matches = matches(r, self.n_t, self.keep, rows)
        n_k = r.categories.shape[0]
        self.entry_bounds = np.searchsorted(self.matches.category, np.arange(n_k + 1))
        order = np.argsort(r.gt_category, kind="stable")
        self.gt_category = r.gt_category[order]
        self.gt_image = r.gt_image[order]
        self.gt_count = r.gt_count[self.area][order]
        self.gt_bounds = np.searchsorted(self.gt_category, np.arange(n_k + 1))
        self.n_images = int(r.images.shape[0])

    def ap(self, weights: I64) -> tuple[F64, I64]:
        """Per resample (row of ``weights``, one count per image): the sum over categories
        with ground truth of AP at each IoU threshold, (B, T), and how many such categories."""
        n_b = weights.shape[0]
        ap_sum = np.zeros((n_b, self.n_t))
        valid = np.zeros(n_b, dtype=np.int64)
        r = self.records
        for k in range(r.categories.shape[0]):
            g_lo, g_hi = int(self.gt_bounds[k]), int(self.gt_bounds[k + 1])
            if g_hi == g_lo or not self.gt_count[g_lo:g_hi].any():
                continue  # no ground truth that counts: -1 in every resample
            lo, hi = int(r.start[k]), int(r.start[k + 1])
            e_lo, e_hi = int(self.entry_bounds[k]), int(self.entry_bounds[k + 1])
            chunk = max(1, _CELLS // max(hi - lo + 4 * (e_hi - e_lo), 1))
            for b_lo in range(0, n_b, chunk):
                w = weights[b_lo:b_lo + chunk]
                n_pos = w[:, self.gt_image[g_lo:g_hi]] @ self.gt_count[g_lo:g_hi]
                category = self._voc_category if self.voc else self._category
                values = category(w, k, lo, hi, e_lo, e_hi, n_pos)
                ap_sum[b_lo:b_lo + chunk] += values
                valid[b_lo:b_lo + chunk] += n_pos > 0
        return ap_sum, valid

    def _category(self, w: I64, k: int, lo: int, hi: int, e_lo: int, e_hi: int,
                  n_pos: I64) -> F64:
        """AP at each threshold of category k under each row of weights (0 where n_pos = 0)."""
        r, m = self.records, self.matches
        n_b = w.shape[0]
        out = np.zeros((n_b, self.n_t))
        has_pos = n_pos > 0
        if e_hi == e_lo or not has_pos.any():
            return out  # no true positive at any threshold: AP 0 (or undefined)
        keep = self.keep[lo:hi]
        dw = w[:, r.image[lo:hi]] * keep  # (B, n_k) weight of each kept detection
        kept_before = np.cumsum(dw, axis=1) - dw
        local = m.detection[e_lo:e_hi] - lo
        outside = r.outside[self.area, lo:hi] & keep
        segment = m.segment[e_lo:e_hi] - m.segment[e_lo]
        first = m.first[(m.first >= e_lo) & (m.first < e_hi)] - e_lo
        ew = dw[:, local]  # (B, E) weight of each match's detection
        corrections = m.ignored_correction[e_lo:e_hi]
        if corrections.any():
            correction = ew * corrections
            ignored_before = within_segments(correction, segment, first) - correction
        else:
            ignored_before = np.zeros_like(ew)
        if outside.any():
            ow = dw * outside
            ignored_before += (np.cumsum(ow, axis=1) - ow)[:, local]
        is_tp = m.is_tp[e_lo:e_hi]
        tp_w = ew * is_tp
        tp = within_segments(tp_w, segment, first)
        fp = kept_before[:, local] - ignored_before - (tp - tp_w)
        chosen = np.flatnonzero(is_tp)
        tp, fp, tp_w = tp[:, chosen], fp[:, chosen], tp_w[:, chosen]
        row = m.row[e_lo:e_hi][chosen] - self.area * self.n_t  # the threshold index
        tp_f = tp.astype(np.float64)
        precision = tp_f / (fp.astype(np.float64) + tp_f + EPS)
        # Interpolated precision: a running maximum from the right within each threshold's
        # run; runs are kept apart by an offset larger than any precision (2 per run).
        run_first = np.ones(row.shape[0], dtype=bool)
        run_first[1:] = row[1:] != row[:-1]
        run = np.cumsum(run_first) - 1
        run_at = np.flatnonzero(run_first)
        offset = 2.0 * (run_at.shape[0] - 1 - run)
        envelope = np.maximum.accumulate((precision + offset)[:, ::-1], axis=1)[:, ::-1]
        envelope -= offset
        # Each recall threshold is read at the first TP reaching it (COCO's test).
        scale = np.maximum(n_pos, 1).astype(np.float64)[:, None]
        thresholds = self.recall_thresholds
        weight = _level_weights(tp, run_at, scale, thresholds)
        total = np.add.reduceat(envelope * weight, run_at, axis=1)
        out[:, row[run_at]] = total / thresholds.shape[0]
        out[~has_pos] = 0.0
        return out


    def _voc_category(self, w: I64, k: int, lo: int, hi: int, e_lo: int, e_hi: int,
                      n_pos: I64) -> F64:
        """VOC's AP of category k at each threshold under each row of weights: prcurve's
        method on the weighted counts of each tie group (0 where n_pos = 0)."""
        r, m = self.records, self.matches
        n_b = w.shape[0]
        out = np.zeros((n_b, self.n_t))
        has_pos = n_pos > 0
        if not has_pos.any() or hi == lo:
            return out  # no detections: AP 0 (or undefined without objects)
        dw = w[:, r.image[lo:hi]]
        starts = self.tie_start[(self.tie_start >= lo) & (self.tie_start < hi)] - lo
        scale = np.maximum(n_pos, 1).astype(np.float64)[:, None]
        rows = m.row[e_lo:e_hi]
        for t in range(self.n_t):
            here = rows == t
            det = m.detection[e_lo:e_hi][here] - lo
            tp_flag = np.zeros(hi - lo, dtype=bool)
            tp_flag[det[m.is_tp[e_lo:e_hi][here]]] = True
            counted = np.ones(hi - lo, dtype=bool)
            counted[det[~m.is_tp[e_lo:e_hi][here]]] = False  # difficult: neither TP nor FP
            gained = np.add.reduceat(dw * tp_flag, starts, axis=1)
            lost = np.add.reduceat(dw * (counted & ~tp_flag), starts, axis=1)
            tp = np.cumsum(gained, axis=1)
            total = tp + np.cumsum(lost, axis=1)
            precision = tp / np.maximum(total, 1)  # 0 before the first drawn detection
            if self.method == "step":
                out[:, t] = (gained * precision).sum(axis=1) / scale[:, 0]
                continue
            envelope = np.maximum.accumulate(precision[:, ::-1], axis=1)[:, ::-1]
            if self.method == "interpolated":
                out[:, t] = (gained * envelope).sum(axis=1) / scale[:, 0]
                continue
            # As for COCO, with the tie groups as the entries of one run.
            levels = self.recall_thresholds
            weight = _level_weights(tp, np.zeros(1, dtype=np.intp), scale, levels)
            out[:, t] = (envelope * weight).sum(axis=1) / levels.shape[0]
        out[~has_pos] = 0.0
        return out


def _level_weights(count: NDArray[np.integer[Any]], run_at: NDArray[np.intp], scale: F64,
                   levels: F64) -> F64:
    """How many recall levels each entry is the first to reach, per resample.

    ``count[b, e]`` is the TP count at entry e (non-decreasing within each run,
    runs starting at ``run_at``), ``scale[b]`` the positives. Level r is reached
    when ``count / P >= r``; an entry raising the count from c0 to c1 first
    reaches ``reached(c1) - reached(c0)`` levels, ``reached(c) = #{r : r <= c / P}``.
    The levels reached at count 0 are credited to the first entry of the run, where
    the interpolated precision is the run's maximum (COCO reads them at the first
    detection, VOC's methods at the first step).
    """
    grid = np.arange(int(count.max(initial=0)) + 1, dtype=np.float64)
    reached = np.searchsorted(levels, grid[None, :] / scale, side="right")
    after = np.take_along_axis(reached, count, axis=1)
    before = np.empty_like(after)  # the previous entry's count in its run (0 for the first)
    before[:, 1:] = after[:, :-1]
    before[:, run_at] = reached[:, :1]
    weight: F64 = (after - before).astype(np.float64)
    weight[:, run_at] += reached[:, :1]
    return weight


def resample_bytes(n_images: int) -> int:
    """The bytes one resample of ``n_images`` images takes in :func:`_weights` (three
    int64 arrays of one row per resample), the largest arrays that grow with resamples."""
    return 3 * 8 * n_images


def _weights(rng: np.random.Generator, n_resamples: int, n_images: int) -> I64:
    """How often each image is drawn, one row per resample (n_images draws each)."""
    draws = rng.integers(0, n_images, size=(n_resamples, n_images))
    shifted = draws + (np.arange(n_resamples) * n_images)[:, None]
    counts: I64 = np.bincount(shifted.ravel(), minlength=n_resamples * n_images).reshape(
        n_resamples, n_images)
    return counts


def _threshold_index(evaluation: Evaluation, statistic: str) -> list[int] | None:
    name = _checks.check_choice("statistics", statistic, STATISTICS)
    if name == "mAP":
        return [0] if isinstance(evaluation, VOCEvaluation) else None
    return [evaluation._t(0.5 if name == "AP50" else 0.75)]


def _statistic(ap_sum: F64, valid: I64, thresholds: list[int] | None) -> F64:
    chosen = ap_sum if thresholds is None else ap_sum[:, thresholds]
    with np.errstate(invalid="ignore", divide="ignore"):
        values: F64 = chosen.sum(axis=1) / (valid * chosen.shape[1])
    return values


def _own_value(evaluation: Evaluation, thresholds: list[int] | None) -> float:
    """The evaluation's own value of a statistic, as its summary computes it.

    pycocotools' ``np.mean(s[s > -1])`` over the precisions (area "all", the largest
    max_dets), VOC's mean over classes with ground truth; NaN where no class has any.
    The resamples sum the same precisions per class, in another order (the last bit
    can differ), so the estimate is taken from here, not from an all-ones resample.
    """
    if isinstance(evaluation, VOCEvaluation):
        return float(evaluation.mean_ap[0 if thresholds is None else thresholds[0]])
    chosen = evaluation.precision if thresholds is None else evaluation.precision[thresholds]
    precisions = chosen[:, :, :, 0, -1]
    defined = precisions[precisions > -1]
    return float(defined.mean()) if defined.size else math.nan


def _interval(values: F64, estimate: float, level: float, kind: str) -> tuple[float, float]:
    low, high = _percentiles(values, level)
    if kind == "basic":  # reflected; an AP (not a difference) stays in [0, 1]
        return 2.0 * estimate - high, 2.0 * estimate - low
    return low, high


def _label(evaluation: Evaluation, statistic: str) -> str:
    thresholds = evaluation.protocol.iou_thresholds
    if isinstance(evaluation, VOCEvaluation):
        at = thresholds[0] if statistic == "mAP" else float(statistic[2:4]) / 100
        return f"VOC {statistic} (mAP@[IoU>={at:.2f}], {evaluation.protocol.ap_method})"
    iou = (f"{thresholds[0]:.2f}:{thresholds[-1]:.2f}" if statistic == "mAP"
           else statistic[2:4].join(("0.", "")))
    return (f"COCO {statistic} (AP@[IoU={iou}], area all, "
            f"maxDets {evaluation.protocol.max_dets[-1]}, 101-point)")


def _resamples(evaluation: Evaluation, n_resamples: int, seed: Any) -> tuple[
        _Resampler, I64]:
    resampler = _Resampler(evaluation)
    if resampler.n_images == 0:
        raise _checks.nothing_to_resample()
    # Before any draw: the (B, images) draws, their shift and the counts, int64 each.
    _checks.check_n_resamples(n_resamples, bytes_each=resample_bytes(resampler.n_images),
                              held=f"3 int64 weights for each of {resampler.n_images} image(s)")
    rng = np.random.default_rng(_checks.check_seed(seed))
    return resampler, _weights(rng, n_resamples, resampler.n_images)


def bootstrap_detection(
    evaluation: Evaluation,
    *,
    statistics: Sequence[str] = ("mAP", "AP50"),
    n_resamples: int = 1000,
    level: float = 0.95,
    seed: Any = None,
    interval: str = "percentile",
) -> dict[str, Interval]:
    """Image-level bootstrap intervals for COCO's mAP and AP50, or VOC's mAP (module docstring).

    Parameters
    ----------
    evaluation : COCOEvaluation or VOCEvaluation
        For VOC, "mAP" is the mAP at the first IoU threshold and AP50/AP75 the
        mAP at 0.5/0.75 when evaluated; the AP method is the evaluation's
        (``interpolated``, ``11point``, ``101point`` or ``step``).
    statistics : sequence of {"mAP", "AP50", "AP75"}
    n_resamples : int, default 1000
    level : float, default 0.95
    seed : None, int, SeedSequence or Generator
    interval : {"percentile", "basic"}, default "percentile"
        The quantiles of the resamples, or those reflected about the estimate
        (module docstring).

    Returns
    -------
    dict of str to Interval
        One :class:`~prcurve.Interval` per statistic; its estimate is
        the evaluation's own value.

    Examples
    --------
    >>> import numpy as np
    >>> from prcurve.detection import GroundTruth, Detections, evaluate_coco, bootstrap_detection
    >>> rng = np.random.default_rng(0)
    >>> boxes = np.c_[rng.uniform(0, 100, (200, 2)), np.full((200, 2), 20.0)]
    >>> gt = GroundTruth(np.arange(200) // 4, np.zeros(200, int), boxes)
    >>> shifted = boxes + np.c_[rng.normal(0, 3, (200, 2)), np.zeros((200, 2))]
    >>> dt = Detections(np.arange(200) // 4, np.zeros(200, int), shifted, rng.random(200))
    >>> ci = bootstrap_detection(evaluate_coco(gt, dt), n_resamples=200, seed=0)
    >>> ci["AP50"].method, bool(ci["AP50"].lower < ci["AP50"].upper)
    ('percentile bootstrap (images)', True)
    """
    evaluation = _check_evaluation("evaluation", evaluation)
    b = _checks.check_n_resamples(n_resamples)
    lvl = _checks.check_level(level)
    kind = _checks.check_choice("interval", interval, INTERVALS)
    names = [statistics] if isinstance(statistics, str) else list(statistics)
    thresholds = {name: _threshold_index(evaluation, name) for name in names}
    resampler, weights = _resamples(evaluation, b, seed)
    ap_sum, valid = resampler.ap(weights)
    out = {}
    for name in names:
        values = _statistic(ap_sum, valid, thresholds[name])
        estimate = _own_value(evaluation, thresholds[name])
        low, high = _interval(values, estimate, lvl, kind)
        low, high = min(max(low, 0.0), 1.0), min(max(high, 0.0), 1.0)
        out[name] = Interval(_label(evaluation, name), estimate, low, high,
                             f"{kind} bootstrap (images)", lvl, b)
    return out


def compare_detectors(
    evaluation_a: Evaluation,
    evaluation_b: Evaluation,
    *,
    statistic: str = "mAP",
    n_resamples: int = 1000,
    level: float = 0.95,
    seed: Any = None,
    interval: str = "percentile",
) -> PairedComparison:
    """Paired image-level bootstrap of the difference of two detectors' mAP (or AP50).

    Both evaluations must cover the same images with the same ground truth;
    each resample draws the same images for both.

    Returns
    -------
    PairedComparison
        ``difference`` is an interval for statistic(a) − statistic(b);
        ``p_value`` tests "no difference" (two-sided).

    Examples
    --------
    >>> import numpy as np
    >>> from prcurve.detection import GroundTruth, Detections, evaluate_coco, compare_detectors
    >>> rng = np.random.default_rng(1)
    >>> boxes = np.c_[rng.uniform(0, 100, (300, 2)), np.full((300, 2), 20.0)]
    >>> image = np.arange(300) // 3
    >>> gt = GroundTruth(image, np.zeros(300, int), boxes)
    >>> def detector(noise):
    ...     moved = boxes + np.c_[rng.normal(0, noise, (300, 2)), np.zeros((300, 2))]
    ...     return evaluate_coco(gt, Detections(image, np.zeros(300, int), moved,
    ...                                         rng.random(300)))
    >>> result = compare_detectors(detector(1.0), detector(5.0), n_resamples=300, seed=0)
    >>> bool(result.difference.lower > 0), result.p_value < 0.05
    (True, True)
    """
    b = _checks.check_n_resamples(n_resamples)
    lvl = _checks.check_level(level)
    kind = _checks.check_choice("interval", interval, INTERVALS)
    evaluation_a = _check_evaluation("evaluation_a", evaluation_a)
    evaluation_b = _check_evaluation("evaluation_b", evaluation_b)
    thresholds = _threshold_index(evaluation_a, statistic)
    _check_same_ground_truth(evaluation_a, evaluation_b)
    resampler_a, weights = _resamples(evaluation_a, b, seed)
    resampler_b = _Resampler(evaluation_b)
    values = [_statistic(*resampler.ap(weights), thresholds)
              for resampler in (resampler_a, resampler_b)]
    own = [_own_value(evaluation, thresholds) for evaluation in (evaluation_a, evaluation_b)]
    delta = values[0] - values[1]
    estimate = own[0] - own[1] if not (math.isnan(own[0]) or math.isnan(own[1])) else math.nan
    low, high = _interval(delta, estimate, lvl, kind)
    # Resamples whose statistic is undefined (no ground truth drawn) carry no evidence
    # either way; the p-value is the percentile inversion over the others, one formula
    # with compare_average_precision's (space.intervals.paired_p_value).
    finite = delta[~np.isnan(delta)]
    p_value = float(paired_p_value(finite[:, None])[0])
    label = f"{_label(evaluation_a, statistic)} difference (a − b)"
    difference = Interval(label, estimate, low, high, f"paired {kind} bootstrap (images)", lvl,
                          b)
    return PairedComparison(label, own[0], own[1], difference, p_value)


def _check_same_ground_truth(a: Evaluation, b: Evaluation) -> None:
    images_a, images_b = a.images, b.images
    if images_a.shape != images_b.shape or not np.array_equal(images_a, images_b):
        only_a = int(np.setdiff1d(images_a, images_b).shape[0])
        only_b = int(np.setdiff1d(images_b, images_a).shape[0])
        raise _checks.different_images("evaluation_b", only_a, only_b)
    if a.protocol != b.protocol or not np.array_equal(a.categories, b.categories) or (
            not np.array_equal(a.n_pos, b.n_pos)):
        raise _checks.different_ground_truth("evaluation_b")
    ra, rb = a._records, b._records
    key_a = np.lexsort((ra.gt_image, ra.gt_category))
    key_b = np.lexsort((rb.gt_image, rb.gt_category))
    if not (np.array_equal(ra.gt_image[key_a], rb.gt_image[key_b])
            and np.array_equal(ra.gt_category[key_a], rb.gt_category[key_b])
            and np.array_equal(ra.gt_count[:, key_a], rb.gt_count[:, key_b])):
        raise _checks.different_ground_truth("evaluation_b")
