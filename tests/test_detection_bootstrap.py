"""Image-level bootstrap of COCO mAP/AP50 and the paired comparison of two detectors.

The weighted recomputation is checked against its definition: a resample that
draws image i w_i times is evaluated from scratch (each image copied w_i times
under new ids) by ``evaluate_coco`` (itself equal to pycocotools), and must
give the same mAP and AP50. Scores are continuous, so no tie order differs
between the copies and the weights.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pytest
from tests.test_detection_coco import random_case

from prcurve.detection import bootstrap_detection, compare_detectors, evaluate_coco
from prcurve.detection.bootstrap import _Resampler, _statistic
from prcurve.errors import InvalidInputError


def _continuous(seed: int) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    ground_truth, results = random_case(seed)
    rng = np.random.default_rng(seed)
    return ground_truth, [dict(d, score=float(rng.random())) for d in results]


def _copied(ground_truth: dict[str, Any], results: list[dict[str, Any]], images: list[Any],
            counts: np.ndarray) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """The data set that draws image i counts[i] times (copies under new ids)."""
    new_images, annotations, detections = [], [], []
    for image, count in zip(images, counts.tolist(), strict=True):
        for copy in range(count):
            new_id = f"{image}#{copy}"
            new_images.append({"id": new_id})
            annotations += [dict(a, image_id=new_id) for a in ground_truth["annotations"]
                            if a["image_id"] == image]
            detections += [dict(d, image_id=new_id) for d in results if d["image_id"] == image]
    annotations = [dict(a, id=i + 1) for i, a in enumerate(annotations)]
    return ({"images": new_images, "categories": ground_truth["categories"],
             "annotations": annotations}, detections)


@pytest.mark.parametrize("seed", range(8))
def test_a_weighted_resample_equals_evaluating_the_copied_images(seed: int) -> None:
    ground_truth, results = _continuous(seed)
    if isinstance(ground_truth["images"][0]["id"], str):
        ground_truth, results = _continuous(seed + 100)
    evaluation = evaluate_coco(ground_truth, results)
    resampler = _Resampler(evaluation)
    images = evaluation.images.tolist()
    rng = np.random.default_rng(seed)
    weights = np.stack([np.bincount(rng.integers(0, len(images), len(images)),
                                    minlength=len(images)) for _ in range(3)])
    ap_sum, valid = resampler.ap(weights.astype(np.int64))
    for b in range(3):
        copied = evaluate_coco(*_copied(ground_truth, results, images, weights[b]))
        for stat, thresholds in ((0, None), (1, [0])):
            expected = copied.stats[stat]
            got = _statistic(ap_sum[b:b + 1], valid[b:b + 1], thresholds)[0]
            if expected == -1:
                assert math.isnan(got)
            else:
                assert got == pytest.approx(expected, abs=1e-12)


@pytest.mark.parametrize("seed", range(0, 40, 3))
def test_the_estimate_is_the_evaluations_own_statistic(seed: int) -> None:
    evaluation = evaluate_coco(*random_case(seed))
    if evaluation.stats[0] == -1:
        return
    intervals = bootstrap_detection(evaluation, statistics=("mAP", "AP50", "AP75"),
                                    n_resamples=20, seed=seed)
    assert intervals["mAP"].estimate == evaluation.stats[0]  # to the last bit
    assert intervals["AP50"].estimate == evaluation.stats[1]  # to the last bit
    assert intervals["AP75"].estimate == evaluation.stats[2]  # to the last bit


def _detector_pair(noise_a: float, noise_b: float, seed: int = 0) -> tuple[Any, Any]:
    from prcurve.detection import Detections, GroundTruth

    rng = np.random.default_rng(seed)
    n = 600
    boxes = np.c_[rng.uniform(0, 200, (n, 2)), rng.uniform(15, 40, (n, 2))]
    image = np.arange(n) // 4
    category = rng.integers(0, 3, n)
    gt = GroundTruth(image, category, boxes)

    def detector(noise: float) -> Any:
        moved = boxes + np.c_[rng.normal(0, noise, (n, 2)), np.zeros((n, 2))]
        return evaluate_coco(gt, Detections(image, category, moved, rng.random(n)))

    return detector(noise_a), detector(noise_b)


@pytest.mark.parametrize("protocol", ["coco", "voc"])
def test_no_ground_truth_gives_an_undefined_estimate(protocol: str) -> None:
    # The branch the early return above skips: no category has ground truth, so
    # pycocotools prints -1 and VOC's mean is NaN; the estimate, the interval and the
    # difference are NaN, and no resample gives evidence either way (p = 1).
    from prcurve.detection import evaluate_voc

    ground_truth = {"images": [{"id": 1, "width": 100, "height": 100},
                               {"id": 2, "width": 100, "height": 100}],
                    "categories": [{"id": 1, "name": "a"}], "annotations": []}
    results = [{"image_id": 1, "category_id": 1, "bbox": [0, 0, 10, 10], "score": 0.9}]
    evaluation = (evaluate_coco if protocol == "coco" else evaluate_voc)(ground_truth, results)
    if protocol == "coco":
        assert evaluation.stats[0] == -1
    else:
        assert math.isnan(evaluation.mean_ap[0])
    intervals = bootstrap_detection(evaluation, n_resamples=20, seed=0)
    for interval in intervals.values():
        assert math.isnan(interval.estimate)
        assert math.isnan(interval.lower)
        assert math.isnan(interval.upper)
    comparison = compare_detectors(evaluation, evaluation, n_resamples=20, seed=0)
    assert math.isnan(comparison.difference.estimate)
    assert comparison.p_value == 1.0


def test_intervals_are_reproducible_and_ordered() -> None:
    evaluation, _ = _detector_pair(2.0, 2.0)
    first = bootstrap_detection(evaluation, n_resamples=150, seed=3)
    again = bootstrap_detection(evaluation, n_resamples=150, seed=3)
    assert first == again
    narrow = bootstrap_detection(evaluation, n_resamples=150, seed=3, level=0.5)
    for name in ("mAP", "AP50"):
        assert first[name].lower < first[name].upper
        assert first[name].lower <= narrow[name].lower <= narrow[name].upper <= first[name].upper
        assert first[name].n_resamples == 150
        assert first[name].method == "percentile bootstrap (images)"


def test_a_detector_compared_with_itself() -> None:
    evaluation, _ = _detector_pair(2.0, 2.0)
    result = compare_detectors(evaluation, evaluation, n_resamples=100, seed=0)
    assert result.difference.estimate == 0.0
    assert (result.difference.lower, result.difference.upper) == (0.0, 0.0)
    assert result.p_value == 1.0


def test_a_better_detector_wins_the_paired_comparison() -> None:
    good, bad = _detector_pair(1.0, 6.0, seed=4)
    result = compare_detectors(good, bad, statistic="AP50", n_resamples=300, seed=1)
    assert result.estimate_a > result.estimate_b
    assert result.difference.lower > 0
    assert result.p_value < 0.01
    swapped = compare_detectors(bad, good, statistic="AP50", n_resamples=300, seed=1)
    assert swapped.difference.upper < 0
    assert swapped.difference.estimate == pytest.approx(-result.difference.estimate)


def test_comparing_on_different_images_is_an_error() -> None:
    a = evaluate_coco(*random_case(1))
    b = evaluate_coco(*random_case(2))
    with pytest.raises(InvalidInputError, match="evaluation_b"):
        compare_detectors(a, b, n_resamples=10)


def test_bad_options_are_errors() -> None:
    evaluation = evaluate_coco(*random_case(3))
    with pytest.raises(InvalidInputError, match="n_resamples"):
        bootstrap_detection(evaluation, n_resamples=0)
    with pytest.raises(InvalidInputError, match="level"):
        bootstrap_detection(evaluation, level=1.5)
    with pytest.raises(InvalidInputError, match="statistics"):
        bootstrap_detection(evaluation, statistics=("mAR",))
    with pytest.raises(InvalidInputError, match="evaluation"):
        bootstrap_detection("not an evaluation")  # type: ignore[arg-type]


def test_the_basic_interval_reflects_the_percentile_interval() -> None:
    evaluation, _ = _detector_pair(2.0, 2.0)
    percentile = bootstrap_detection(evaluation, n_resamples=120, seed=5)
    basic = bootstrap_detection(evaluation, n_resamples=120, seed=5, interval="basic")
    for name in ("mAP", "AP50"):
        p, b = percentile[name], basic[name]
        assert b.method == "basic bootstrap (images)"
        assert b.lower == pytest.approx(max(2 * p.estimate - p.upper, 0.0))
        assert b.upper == pytest.approx(min(2 * p.estimate - p.lower, 1.0))
    with pytest.raises(InvalidInputError, match="interval"):
        bootstrap_detection(evaluation, interval="bca")


@pytest.mark.parametrize("method", ["interpolated", "11point", "101point", "step"])
@pytest.mark.parametrize("seed", [0, 3])
def test_voc_resamples_equal_evaluating_the_copied_images(method: str, seed: int) -> None:
    from prcurve.detection import evaluate_voc

    case = seed + 20
    ground_truth, results = _continuous(case)
    while isinstance(ground_truth["images"][0]["id"], str) or len(
            ground_truth["annotations"]) < 10:
        case += 1
        ground_truth, results = _continuous(case)
    rng = np.random.default_rng(seed)
    ground_truth = dict(ground_truth, annotations=[
        dict(a, difficult=int(rng.random() < 0.2)) for a in ground_truth["annotations"]])
    # Ties too: VOC groups them, and copies of an image tie with each other.
    results = [dict(d, score=round(d["score"], 2)) for d in results]
    evaluation = evaluate_voc(ground_truth, results, ap_method=method,
                              iou_threshold=[0.5, 0.75])
    resampler = _Resampler(evaluation)
    images = evaluation.images.tolist()
    own_sum, own_valid = resampler.ap(np.ones((1, len(images)), dtype=np.int64))
    for t in range(2):
        np.testing.assert_allclose(_statistic(own_sum, own_valid, [t])[0],
                                   evaluation.mean_ap[t], rtol=0, atol=1e-12, equal_nan=True)
    weights = np.stack([np.bincount(rng.integers(0, len(images), len(images)),
                                    minlength=len(images)) for _ in range(2)])
    ap_sum, valid = resampler.ap(weights.astype(np.int64))
    for b in range(2):
        copied = evaluate_voc(*_copied(ground_truth, results, images, weights[b]),
                              ap_method=method, iou_threshold=[0.5, 0.75])
        for t in range(2):
            got = _statistic(ap_sum[b:b + 1], valid[b:b + 1], [t])[0]
            np.testing.assert_allclose(got, copied.mean_ap[t], rtol=0, atol=1e-12,
                                       equal_nan=True)
    assert not np.isnan(evaluation.mean_ap[0])


def test_voc_intervals_and_comparison() -> None:
    from prcurve.detection import evaluate_voc

    ground_truth, results = _continuous(7)
    evaluation = evaluate_voc(ground_truth, results)
    ci = bootstrap_detection(evaluation, statistics="mAP", n_resamples=50, seed=0)
    assert ci["mAP"].estimate == pytest.approx(float(evaluation.mean_ap[0]))
    assert ci["mAP"].statistic.startswith("VOC mAP (mAP@[IoU>=0.50], interpolated)")
    same = compare_detectors(evaluation, evaluation, n_resamples=30, seed=0)
    assert same.p_value == 1.0
    with pytest.raises(InvalidInputError, match="davis_goadrich"):
        bootstrap_detection(evaluate_voc(ground_truth, results, ap_method="davis_goadrich"))
