"""COCO keypoints: OKS and the 10 statistics equal pycocotools' ``COCOeval(..., 'keypoints')``.

Random person data sets: 17 keypoints each labeled (v = 2), occluded (v = 1)
or unlabeled (v = 0, at 0, 0), people with no labeled keypoint (ignored),
crowds, results near each person and elsewhere, more than 20 per image, tied
scores, results with and without boxes (pycocotools' ``loadRes`` then takes
the keypoints' extent), user-given sigmas for another skeleton. Never skipped.
"""

from __future__ import annotations

import functools
import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from tests.test_detection_coco import assert_matches_pycocotools, pycocotools_eval

from prcurve.detection import COCOProtocol, evaluate_coco
from prcurve.detection.keypoints import COCO_SIGMAS, KEYPOINT_STAT_NAMES
from prcurve.errors import InvalidInputError

Case = tuple[dict[str, Any], list[dict[str, Any]]]


@functools.cache
def keypoint_case(seed: int, k: int = 17) -> Case:
    rng = np.random.default_rng(seed)
    n_images = int(rng.integers(1, 20))
    annotations: list[dict[str, Any]] = []
    results: list[dict[str, Any]] = []
    with_boxes = rng.random() < 0.4
    decimals = int(rng.choice([1, 2, 6]))

    def keypoints_in(box: list[float], n: int) -> np.ndarray:
        x, y, w, h = box
        points = np.stack((x + rng.random((n, k)) * w, y + rng.random((n, k)) * h,
                           rng.choice([0, 1, 2], (n, k), p=[0.3, 0.2, 0.5])), axis=2)
        points[points[:, :, 2] == 0, :2] = 0.0
        return points.reshape(n, 3 * k)

    for image in range(1, n_images + 1):
        for _ in range(int(rng.integers(0, 6))):
            w, h = rng.uniform(5, 200, 2)
            box = [float(rng.uniform(0, 400)), float(rng.uniform(0, 400)), float(w), float(h)]
            kp = keypoints_in(box, 1)[0]
            if rng.random() < 0.15:
                kp[2::3] = 0
                kp[0::3] = kp[1::3] = 0
            annotations.append({
                "id": len(annotations) + 1, "image_id": image, "category_id": 1, "bbox": box,
                "area": float(w * h * rng.uniform(0.4, 1.0)), "iscrowd": int(rng.random() < 0.1),
                "keypoints": kp.tolist(), "num_keypoints": int((kp[2::3] > 0).sum())})
            for _ in range(int(rng.poisson(1.5))):
                near = np.array(kp[:]).reshape(k, 3)
                near[:, :2] += rng.normal(0, 0.05 * max(w, h), (k, 2))
                near[:, 2] = 1
                results.append({"image_id": image, "category_id": 1,
                                "keypoints": np.round(near.ravel(), 3).tolist(),
                                "score": float(np.round(rng.random(), decimals))})
        extra = int(rng.integers(0, 8)) + (25 if rng.random() < 0.1 else 0)
        for _ in range(extra):
            box = [float(v) for v in rng.uniform(0, 400, 2)] + [float(v) for v in
                                                                 rng.uniform(5, 200, 2)]
            kp = keypoints_in(box, 1)[0]
            kp[2::3] = 1
            results.append({"image_id": image, "category_id": 1, "keypoints": kp.tolist(),
                            "score": float(np.round(rng.random(), decimals))})
    if with_boxes:
        for r in results:
            kp = np.array(r["keypoints"])
            x, y = kp[0::3], kp[1::3]
            r["bbox"] = [float(x.min()), float(y.min()), float(x.max() - x.min()),
                         float(y.max() - y.min()) * 0.9]
    order = rng.permutation(len(results))
    ground_truth = {"images": [{"id": i} for i in range(1, n_images + 1)],
                    "categories": [{"id": 1, "name": "person"}], "annotations": annotations}
    return ground_truth, [results[i] for i in order]


@pytest.mark.parametrize("seed", range(40))
def test_random_keypoint_cases_equal_pycocotools(seed: int) -> None:
    ground_truth, results = keypoint_case(seed)
    assert results  # pycocotools' loadRes cannot read an empty list
    assert_matches_pycocotools(ground_truth, results, COCOProtocol(iou_type="keypoints"),
                               iou_type="keypoints")


def test_the_cases_have_results() -> None:
    assert all(keypoint_case(seed)[1] for seed in range(40))


def test_other_skeletons_with_their_own_sigmas() -> None:
    import contextlib
    import copy
    import io

    from pycocotools.coco import COCO
    from pycocotools.cocoeval import COCOeval

    sigmas = [0.05, 0.1, 0.08, 0.12, 0.07]
    ground_truth, results = keypoint_case(3, k=5)
    ours = evaluate_coco(ground_truth, results,
                         protocol=COCOProtocol(iou_type="keypoints", oks_sigmas=sigmas))
    with contextlib.redirect_stdout(io.StringIO()):
        gt = COCO()
        gt.dataset = copy.deepcopy(ground_truth)
        gt.createIndex()
        evaluator = COCOeval(gt, gt.loadRes(copy.deepcopy(results)), "keypoints")
        evaluator.params.kpt_oks_sigmas = np.array(sigmas)
        evaluator.evaluate()
        evaluator.accumulate()
        evaluator.summarize()
    assert np.array_equal(ours.precision, evaluator.eval["precision"])
    assert np.array_equal(ours.stats, evaluator.stats)


def test_summary_has_ten_lines_and_names(tmp_path: Path) -> None:
    ground_truth, results = keypoint_case(5)
    result = evaluate_coco(ground_truth, results, iou_type="keypoints")
    _, printed = pycocotools_eval(ground_truth, results, COCOProtocol(iou_type="keypoints"),
                                  "keypoints")
    assert result.summary().splitlines() == [line for line in printed.splitlines()
                                             if line.startswith(" Average")]
    assert list(result.stats_dict()) == list(KEYPOINT_STAT_NAMES)
    assert result.protocol.max_dets == (20,)
    assert result.protocol.oks_sigmas == COCO_SIGMAS
    gt_path, dt_path = tmp_path / "gt.json", tmp_path / "dt.json"
    gt_path.write_text(json.dumps(ground_truth))
    dt_path.write_text(json.dumps(results))
    assert np.array_equal(evaluate_coco(gt_path, dt_path, iou_type="keypoints").stats,
                          result.stats)


def _gt(keypoints: list[float], **extra: Any) -> dict[str, Any]:
    return {"images": [{"id": 1}], "categories": [{"id": 1}],
            "annotations": [dict({"id": 1, "image_id": 1, "category_id": 1,
                                  "bbox": [0, 0, 10, 10], "area": 100, "iscrowd": 0,
                                  "keypoints": keypoints, "num_keypoints": 1}, **extra)]}


@pytest.mark.parametrize(("ground_truth", "results", "says"), [
    (_gt([1, 1, 2] * 17), [{"image_id": 1, "category_id": 1, "score": 0.5,
                            "keypoints": [1, 1, 1] * 16}], "48 numbers per row"),
    (_gt([1, 1, 2] * 16), [{"image_id": 1, "category_id": 1, "score": 0.5,
                            "keypoints": [1, 1, 1] * 17}], "48 numbers per row"),
    (_gt([1, 1, 2] * 17), [{"image_id": 1, "category_id": 1, "score": 0.5,
                            "bbox": [0, 0, 1, 1]}], "no 'keypoints'"),
    (_gt([1, 1, 2] * 17), [{"image_id": 1, "category_id": 1, "score": 0.5,
                            "keypoints": [1, 1]}], "keypoints"),
])
def test_bad_keypoints_are_one_clear_error(ground_truth: dict[str, Any],
                                           results: list[dict[str, Any]], says: str) -> None:
    with pytest.raises(InvalidInputError, match=says):
        evaluate_coco(ground_truth, results, iou_type="keypoints")


def test_iou_type_must_agree_with_the_protocol() -> None:
    ground_truth, results = keypoint_case(2)
    with pytest.raises(InvalidInputError, match="iou_type"):
        evaluate_coco(ground_truth, results, iou_type="bbox",
                      protocol=COCOProtocol(iou_type="keypoints"))
