"""Per-class tables, curves, best-F thresholds, the image bootstrap and the paired
comparison for instance masks (segm) and keypoints, checked against pycocotools.

The tables and curves are rebuilt from pycocotools' own per-image matching
(``COCOeval.evalImgs``: each detection's match at each IoU/OKS threshold and
whether it is ignored) and its accumulated ``precision``/``recall``; the
bootstrap's weighted resample is checked against evaluating the data set with
each image copied as many times as drawn (``evaluate_coco``, itself equal to
pycocotools bit for bit in tests/test_detection_segm.py and
tests/test_detection_keypoints.py).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pytest
from numpy.testing import assert_allclose, assert_array_equal
from tests.test_detection_coco import pycocotools_eval
from tests.test_detection_keypoints import keypoint_case
from tests.test_detection_segm import segm_case

from prcurve.detection import bootstrap_detection, compare_detectors, evaluate_coco
from prcurve.detection.bootstrap import _Resampler, _statistic

pytestmark = pytest.mark.filterwarnings(
    "ignore:__array__ implementation doesn't accept a copy keyword:DeprecationWarning")

CASES = [("segm", 9), ("segm", 1), ("segm", 11), ("keypoints", 0), ("keypoints", 1),
         ("keypoints", 5)]


def _case(iou_type: str, seed: int) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    return segm_case(seed) if iou_type == "segm" else keypoint_case(seed)


def _matched(reference: Any, category: Any, t: int) -> tuple[np.ndarray, np.ndarray, int]:
    """pycocotools' kept detections (score, matched) and counted ground truth of a
    category, area "all", the largest maxDets, at IoU threshold index t."""
    max_det = reference.params.maxDets[-1]
    all_range = reference.params.areaRng[0]
    scores, hits, n_pos = [], [], 0
    for e in reference.evalImgs:
        if e is None or e["category_id"] != category or e["aRng"] != all_range:
            continue
        keep = ~np.asarray(e["dtIgnore"][t][:max_det], dtype=bool)
        scores.append(np.asarray(e["dtScores"][:max_det])[keep])
        hits.append(np.asarray(e["dtMatches"][t][:max_det])[keep] > 0)
        n_pos += int((~np.asarray(e["gtIgnore"], dtype=bool)).sum())
    if not scores:
        return np.zeros(0), np.zeros(0, dtype=bool), n_pos
    return np.concatenate(scores), np.concatenate(hits), n_pos


def _oracle_curve(scores: np.ndarray, hits: np.ndarray, n_pos: int) -> tuple[np.ndarray, ...]:
    """Precision and recall at each distinct score, highest first (a plain loop)."""
    thresholds = np.unique(scores)[::-1]
    precision, recall = [], []
    for s in thresholds:
        tp = int(hits[scores >= s].sum())
        n = int((scores >= s).sum())
        precision.append(tp / n)
        recall.append(tp / n_pos)
    return thresholds, np.array(precision), np.array(recall)


@pytest.mark.parametrize(("iou_type", "seed"), CASES)
def test_tables_curves_and_best_f_agree_with_pycocotools(iou_type: str, seed: int) -> None:
    ground_truth, results = _case(iou_type, seed)
    reference, _ = pycocotools_eval(ground_truth, results, None, iou_type)
    ours = evaluate_coco(ground_truth, results, iou_type=iou_type)
    table = ours.per_category()
    t50 = int(np.flatnonzero(np.isclose(reference.params.iouThrs, 0.5))[0])
    checked = 0
    for k, category in enumerate(reference.params.catIds):
        precision = reference.eval["precision"][:, :, k, 0, -1]
        recall = reference.eval["recall"][:, k, 0, -1]
        expected_ap = float(np.mean(precision[precision > -1])) if (precision > -1).any() \
            else math.nan
        assert_allclose(table["AP"][k], expected_ap, rtol=0, atol=1e-12)
        scores, hits, n_pos = _matched(reference, category, t50)
        assert table["n_gt"][k] == n_pos
        if n_pos == 0 or scores.shape[0] == 0:
            continue
        curve = ours.curve(category, iou_threshold=0.5)
        thresholds, p, r = _oracle_curve(scores, hits, n_pos)
        assert_array_equal(curve.thresholds, thresholds)
        assert_allclose(curve.precision, p, rtol=0, atol=1e-12)
        assert_allclose(curve.recall, r, rtol=0, atol=1e-12)
        assert curve.recall[-1] == pytest.approx(recall[t50], abs=1e-12)
        f1 = 2 * p * r / np.where(p + r > 0, p + r, 1.0)
        best = int(np.flatnonzero(f1 == f1.max())[0])  # the highest threshold on ties
        row = ours.best_f()
        assert row["f1"][k] == pytest.approx(f1[best], abs=1e-12)
        assert row["threshold"][k] == thresholds[best]
        checked += 1
    assert checked  # every case has a category with ground truth and detections


def _copied(ground_truth: dict[str, Any], results: list[dict[str, Any]], images: list[Any],
            counts: np.ndarray) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """The data set that draws image i counts[i] times (copies under new ids, sizes kept)."""
    by_id = {image["id"]: image for image in ground_truth["images"]}
    new_images, annotations, detections = [], [], []
    for image, count in zip(images, counts.tolist(), strict=True):
        for copy in range(count):
            new_id = f"{image}#{copy}"
            new_images.append(dict(by_id[image], id=new_id))
            annotations += [dict(a, image_id=new_id) for a in ground_truth["annotations"]
                            if a["image_id"] == image]
            detections += [dict(d, image_id=new_id) for d in results if d["image_id"] == image]
    annotations = [dict(a, id=i + 1) for i, a in enumerate(annotations)]
    return ({"images": new_images, "categories": ground_truth["categories"],
             "annotations": annotations}, detections)


def _continuous(iou_type: str, seed: int) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """Distinct scores: no tie order differs between the copies and the weights."""
    ground_truth, results = _case(iou_type, seed)
    rng = np.random.default_rng(seed)
    return ground_truth, [dict(d, score=float(rng.random())) for d in results]


@pytest.mark.parametrize(("iou_type", "seed"), [("segm", 11), ("keypoints", 1)])
def test_a_weighted_resample_equals_evaluating_the_copied_images(iou_type: str,
                                                                 seed: int) -> None:
    ground_truth, results = _continuous(iou_type, seed)
    evaluation = evaluate_coco(ground_truth, results, iou_type=iou_type)
    resampler = _Resampler(evaluation)
    images = evaluation.images.tolist()
    rng = np.random.default_rng(seed)
    weights = np.stack([np.bincount(rng.integers(0, len(images), len(images)),
                                    minlength=len(images)) for _ in range(2)])
    ap_sum, valid = resampler.ap(weights.astype(np.int64))
    for b in range(2):
        copied = evaluate_coco(*_copied(ground_truth, results, images, weights[b]),
                               iou_type=iou_type)
        for stat, thresholds in ((0, None), (1, [0])):
            got = _statistic(ap_sum[b:b + 1], valid[b:b + 1], thresholds)[0]
            assert got == pytest.approx(copied.stats[stat], abs=1e-12)


@pytest.mark.parametrize(("iou_type", "seed"), CASES[::2])
def test_bootstrap_and_comparison_run_on_masks_and_keypoints(iou_type: str, seed: int) -> None:
    ground_truth, results = _case(iou_type, seed)
    evaluation = evaluate_coco(ground_truth, results, iou_type=iou_type)
    intervals = bootstrap_detection(evaluation, statistics=("mAP", "AP50", "AP75"),
                                    n_resamples=50, seed=seed)
    assert intervals["mAP"].estimate == pytest.approx(evaluation.stats[0], abs=1e-12)
    assert intervals["AP50"].estimate == pytest.approx(evaluation.stats[1], abs=1e-12)
    assert intervals["AP75"].estimate == pytest.approx(evaluation.stats[2], abs=1e-12)
    for name in ("mAP", "AP50"):
        assert intervals[name].lower <= intervals[name].estimate <= intervals[name].upper
    # A worse detector: half the results dropped, on the same ground truth.
    worse = evaluate_coco(ground_truth, results[::2], iou_type=iou_type)
    result = compare_detectors(evaluation, worse, n_resamples=50, seed=0)
    assert result.estimate_a == pytest.approx(evaluation.stats[0], abs=1e-12)
    assert result.estimate_b == pytest.approx(worse.stats[0], abs=1e-12)
    same = compare_detectors(evaluation, evaluation, n_resamples=20, seed=0)
    assert same.difference.estimate == 0.0
    assert same.p_value == 1.0


@pytest.mark.parametrize(("iou_type", "seed"), [("segm", 1), ("keypoints", 0)])
def test_plots_draw_pycocotools_precision(iou_type: str, seed: int) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    ground_truth, results = _case(iou_type, seed)
    reference, _ = pycocotools_eval(ground_truth, results, None, iou_type)
    ours = evaluate_coco(ground_truth, results, iou_type=iou_type)
    figure = ours.plot_iou_curves(iou_thresholds=[0.5, 0.75])
    lines = figure.axes[0].get_lines()
    precision = reference.eval["precision"][0, :, :, 0, -1]
    valid = (precision > -1).all(axis=0)
    assert_allclose(lines[0].get_ydata(), precision[:, valid].mean(axis=1), rtol=0, atol=1e-12)
    name = "OKS" if iou_type == "keypoints" else "IoU"  # the legend says which similarity
    assert lines[0].get_label() == f"{name}=0.50: AP {reference.stats[1]:.3f}"
    assert lines[1].get_label() == f"{name}=0.75: AP {reference.stats[2]:.3f}"
    kind = "OKS" if iou_type == "keypoints" else "mask IoU"
    assert f"({kind})" in figure.axes[0].get_title()
    classes = ours.plot_class_curves()
    assert len(classes.axes) == int((ours.n_pos[:, 0] > 0).sum())
    assert f"at {kind} >= 0.5" in " ".join(classes.get_suptitle().split())
    plt.close("all")
