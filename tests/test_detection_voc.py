"""PASCAL VOC protocol: against a slow, readable oracle written from the devkit's description.

The oracle follows ``VOCevaldet.m`` of the PASCAL VOC devkit line by line:
per class, detections in decreasing confidence; each looks at the ground
truth of its image with the highest overlap (pixel-inclusive, the first on
ties); overlap >= the threshold on a difficult object: neither TP nor FP; on
an object not yet detected: TP; on one already detected: FP (duplicate);
below the threshold: FP. Precision and recall per detection; AP by the 2007
11-point rule (max precision at recall >= t for t = 0, 0.1, ..., 1, written
here as k / 10) or the 2010 all-point rule (``VOCap``: the area under the
precision envelope at the recall changes). Scores are distinct in the random
cases, where the devkit's one-point-per-detection curve is prcurve's curve.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from tests.test_detection_coco import random_case

from prcurve.detection import Detections, GroundTruth, evaluate_coco, evaluate_voc


def voc_oracle(ground_truth: dict[str, Any], results: list[dict[str, Any]],
               threshold: float = 0.5, use_07: bool = False,
               inclusive: bool = True) -> dict[Any, float]:
    """Per-class AP as the VOC devkit computes it (module docstring)."""
    one = 1.0 if inclusive else 0.0
    classes = sorted({a["category_id"] for a in ground_truth["annotations"]}
                     | {d["category_id"] for d in results})
    ap: dict[Any, float] = {}
    for cls in classes:
        gt: dict[Any, list[dict[str, Any]]] = {}
        for a in ground_truth["annotations"]:
            if a["category_id"] == cls:
                gt.setdefault(a["image_id"], []).append(a)
        npos = sum(not (a.get("difficult", 0) or a.get("iscrowd", 0))
                   for boxes in gt.values() for a in boxes)
        detected = {image: [False] * len(boxes) for image, boxes in gt.items()}
        dets = [d for d in results if d["category_id"] == cls]
        dets = sorted(dets, key=lambda d: -d["score"])  # Python's sort is stable
        tp = np.zeros(len(dets))
        fp = np.zeros(len(dets))
        for i, d in enumerate(dets):
            x, y, w, h = d["bbox"]
            bb = (x, y, x + w, y + h)
            ovmax, jmax = -math.inf, -1
            for j, g in enumerate(gt.get(d["image_id"], [])):
                gx, gy, gw, gh = g["bbox"]
                bbgt = (gx, gy, gx + gw, gy + gh)
                iw = min(bb[2], bbgt[2]) - max(bb[0], bbgt[0]) + one
                ih = min(bb[3], bbgt[3]) - max(bb[1], bbgt[1]) + one
                if iw > 0 and ih > 0:
                    ua = ((bb[2] - bb[0] + one) * (bb[3] - bb[1] + one)
                          + (bbgt[2] - bbgt[0] + one) * (bbgt[3] - bbgt[1] + one) - iw * ih)
                    ov = iw * ih / ua
                    if ov > ovmax:
                        ovmax, jmax = ov, j
            if ovmax >= threshold:
                g = gt[d["image_id"]][jmax]
                if not (g.get("difficult", 0) or g.get("iscrowd", 0)):
                    if not detected[d["image_id"]][jmax]:
                        tp[i] = 1
                        detected[d["image_id"]][jmax] = True
                    else:
                        fp[i] = 1  # a duplicate
            else:
                fp[i] = 1
        if npos == 0:
            ap[cls] = math.nan
            continue
        ctp, cfp = np.cumsum(tp), np.cumsum(fp)
        rec = ctp / npos
        with np.errstate(invalid="ignore"):
            prec = ctp / (ctp + cfp)  # 0/0 after leading ignored detections: NaN, skipped
        if use_07:
            total = 0.0
            for k in range(11):
                reached = prec[rec >= k / 10]
                reached = reached[~np.isnan(reached)]
                total += reached.max() if reached.shape[0] else 0.0
            ap[cls] = total / 11
        else:
            mrec = np.concatenate(([0.0], rec, [1.0]))
            mpre = np.concatenate(([0.0], np.nan_to_num(prec, nan=0.0), [0.0]))
            for i in range(mpre.shape[0] - 2, -1, -1):
                mpre[i] = max(mpre[i], mpre[i + 1])
            changes = np.flatnonzero(mrec[1:] != mrec[:-1]) + 1
            ap[cls] = float(np.sum((mrec[changes] - mrec[changes - 1]) * mpre[changes]))
    return ap


def voc_case(seed: int) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """A random case with difficult objects, twin objects (equal overlaps) and distinct
    scores."""
    ground_truth, results = random_case(seed)
    rng = np.random.default_rng(seed + 7)
    annotations = []
    for a in ground_truth["annotations"]:
        annotations.append(dict(a, difficult=int(rng.random() < 0.15)))
        if rng.random() < 0.15:  # a twin: a detection overlaps both equally
            annotations.append(dict(a, id=10_000 + len(annotations),
                                    difficult=int(rng.random() < 0.15)))
    scores = rng.permutation(len(results)) / max(len(results), 1) + 0.001
    results = [dict(d, score=float(s)) for d, s in zip(results, scores, strict=True)]
    return dict(ground_truth, annotations=annotations), results


def assert_matches_oracle(ground_truth: dict[str, Any], results: list[dict[str, Any]],
                          **options: Any) -> None:
    method = "11point" if options.get("use_07") else "interpolated"
    expected = voc_oracle(ground_truth, results, options.get("threshold", 0.5),
                          options.get("use_07", False), options.get("inclusive", True))
    ours = evaluate_voc(ground_truth, results, iou_threshold=options.get("threshold", 0.5),
                        ap_method=method, inclusive_pixels=options.get("inclusive", True))
    for k, category in enumerate(ours.categories.tolist()):
        want = expected.get(category, math.nan)
        got = float(ours.ap[0, k])
        if math.isnan(want):
            assert math.isnan(got), category
        else:
            assert got == pytest.approx(want, abs=1e-12), category
    defined = [v for v in expected.values() if not math.isnan(v)]
    if defined:
        assert float(ours.mean_ap[0]) == pytest.approx(float(np.mean(defined)), abs=1e-12)


@pytest.mark.parametrize("seed", range(40))
def test_random_cases_equal_the_devkit_oracle(seed: int) -> None:
    ground_truth, results = voc_case(seed)
    assert_matches_oracle(ground_truth, results, use_07=seed % 2 == 1,
                          inclusive=seed % 3 != 0, threshold=(0.5, 0.3, 0.7)[seed % 3])


def test_the_random_cases_have_difficult_objects_and_duplicates() -> None:
    difficult = duplicates = 0
    for seed in range(40):
        gt, dt = voc_case(seed)
        difficult += any(a["difficult"] for a in gt["annotations"])
        boxes = [(*d["bbox"], d["image_id"]) for d in dt]
        duplicates += len(set(boxes)) < len(boxes)
    assert difficult >= 20
    assert duplicates >= 5


def _gt(boxes: list[list[float]], difficult: list[int] | None = None) -> GroundTruth:
    n = len(boxes)
    return GroundTruth([1] * n, [1] * n, boxes, difficult=difficult)


def test_a_detection_on_a_taken_object_is_a_false_positive_without_fallback() -> None:
    # Two objects; both detections overlap object 0 best. VOC: the second is a duplicate
    # (FP) even though it also overlaps object 1 enough; COCO falls back to object 1.
    gt = _gt([[0, 0, 10, 10], [4, 0, 10, 10]])
    dt = Detections([1, 1], [1, 1], [[1, 0, 10, 10], [2, 0, 10, 10]], [0.9, 0.8])
    voc = evaluate_voc(gt, dt, inclusive_pixels=False)
    assert voc.curve(1).tp.tolist() == [1.0, 1.0]
    assert voc.curve(1).fp.tolist() == [0.0, 1.0]
    coco = evaluate_coco(gt, dt)
    assert coco.curve(1, iou_threshold=0.5).tp.tolist() == [1.0, 2.0]


def test_equal_overlap_goes_to_the_first_object() -> None:
    # Twin objects: both detections look at object 0 (the first maximum); the second is a
    # duplicate. (COCO would give it the other twin.)
    gt = _gt([[0, 0, 10, 10], [0, 0, 10, 10]])
    dt = Detections([1, 1], [1, 1], [[0, 0, 10, 10], [0, 0, 10, 10]], [0.9, 0.8])
    assert evaluate_voc(gt, dt).curve(1).tp.tolist() == [1.0, 1.0]
    assert evaluate_voc(gt, dt).curve(1).fp.tolist() == [0.0, 1.0]
    assert evaluate_coco(gt, dt).curve(1).tp.tolist() == [1.0, 2.0]


def test_difficult_objects_are_neither_found_nor_missed() -> None:
    gt = _gt([[0, 0, 9, 9], [50, 50, 9, 9]], difficult=[0, 1])
    dt = Detections([1, 1, 1], [1, 1, 1], [[50, 50, 9, 9], [0, 0, 9, 9], [90, 90, 5, 5]],
                    [0.9, 0.8, 0.7])
    voc = evaluate_voc(gt, dt)
    curve = voc.curve(1)
    assert (curve.n_pos, curve.tp.tolist(), curve.fp.tolist()) == (1.0, [1.0, 1.0],
                                                                    [0.0, 1.0])
    assert voc.ap.tolist() == [[1.0]]


def test_eleven_point_and_all_point_by_hand() -> None:
    # Detections TP, FP, TP over 3 objects: recall 1/3, 1/3, 2/3; precision 1, 1/2, 2/3.
    gt = _gt([[0, 0, 9, 9], [20, 0, 9, 9], [40, 0, 9, 9]])
    dt = Detections([1, 1, 1], [1, 1, 1], [[0, 0, 9, 9], [80, 0, 9, 9], [20, 0, 9, 9]],
                    [0.9, 0.8, 0.7])
    # All-point: 1/3 * 1 + 1/3 * 2/3 = 5/9. 11-point: levels 0..0.3 give 1 (4 levels),
    # 0.4..0.6 give 2/3 (3 levels; 0.7 and up are not reached): (4 + 2) / 11.
    assert evaluate_voc(gt, dt).ap[0, 0] == pytest.approx(5 / 9, abs=1e-15)
    assert evaluate_voc(gt, dt, ap_method="11point").ap[0, 0] == pytest.approx(6 / 11,
                                                                               abs=1e-15)


def test_inclusive_pixels_change_the_overlap() -> None:
    # [0, 0, 1, 1] vs [1, 1, 1, 1] (xywh): continuous overlap 0; inclusive: 1 pixel of 7.
    gt = _gt([[0, 0, 1, 1]])
    dt = Detections([1], [1], [[1, 1, 1, 1]], [0.5])
    assert evaluate_voc(gt, dt, iou_threshold=0.1).ap[0, 0] == 1.0
    assert evaluate_voc(gt, dt, iou_threshold=0.1, inclusive_pixels=False).ap[0, 0] == 0.0


def test_several_thresholds_side_by_side() -> None:
    gt = _gt([[0, 0, 10, 10]])
    dt = Detections([1], [1], [[0, 0, 10, 7]], [0.5])  # continuous IoU 0.7
    result = evaluate_voc(gt, dt, iou_threshold=[0.5, 0.7, 0.75], inclusive_pixels=False)
    assert result.ap[:, 0].tolist() == [1.0, 1.0, 0.0]
    assert result.mean_ap.tolist() == [1.0, 1.0, 0.0]


def test_a_class_without_ground_truth_is_left_out_of_the_mean() -> None:
    gt = GroundTruth([1], [1], [[0, 0, 9, 9]], categories=[1, 2])
    dt = Detections([1, 1], [1, 2], [[0, 0, 9, 9], [0, 0, 9, 9]], [0.9, 0.9])
    result = evaluate_voc(gt, dt)
    assert math.isnan(result.ap[0, 1])
    assert result.mean_ap.tolist() == [1.0]


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 10_000), decimals=st.integers(0, 1))
def test_tie_order_does_not_change_voc_ap(seed: int, decimals: int) -> None:
    """prcurve groups tied scores into one operating point: reordering tied detections
    (here: reversing the whole list) cannot change any AP."""
    ground_truth, results = voc_case(seed % 500)
    rng = np.random.default_rng(seed)
    tied = [dict(d, score=round(float(rng.random()), decimals)) for d in results]
    forward = evaluate_voc(ground_truth, tied)
    backward = evaluate_voc(ground_truth, tied[::-1])
    np.testing.assert_allclose(forward.ap, backward.ap, rtol=0, atol=1e-12)
