"""The worked example of docs/detection.md: every number there, by hand, against prcurve
and pycocotools (the fractions are the hand computation written in the page)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from tests.test_detection_coco import pycocotools_eval, summary_lines

from prcurve.detection import evaluate_coco, evaluate_voc

DOC = Path(__file__).resolve().parents[1] / "docs" / "detection.md"

GROUND_TRUTH: dict[str, Any] = {
    "images": [{"id": 1}, {"id": 2}],
    "categories": [{"id": 1, "name": "dog"}],
    "annotations": [
        {"id": 1, "image_id": 1, "category_id": 1, "bbox": [0, 0, 10, 10], "area": 100,
         "iscrowd": 0},
        {"id": 2, "image_id": 1, "category_id": 1, "bbox": [20, 0, 10, 10], "area": 100,
         "iscrowd": 0},
        {"id": 3, "image_id": 2, "category_id": 1, "bbox": [0, 0, 10, 10], "area": 100,
         "iscrowd": 0},
        {"id": 4, "image_id": 2, "category_id": 1, "bbox": [30, 0, 40, 40], "area": 1600,
         "iscrowd": 1},
    ],
}
DETECTIONS = [
    {"image_id": 1, "category_id": 1, "bbox": [0, 0, 10, 10], "score": 0.9},
    {"image_id": 2, "category_id": 1, "bbox": [40, 10, 10, 10], "score": 0.8},
    {"image_id": 1, "category_id": 1, "bbox": [22, 0, 10, 10], "score": 0.7},
    {"image_id": 2, "category_id": 1, "bbox": [5, 0, 10, 10], "score": 0.6},
    {"image_id": 1, "category_id": 1, "bbox": [0, 0, 10, 10], "score": 0.5},
]


def test_coco_numbers_by_hand() -> None:
    result = evaluate_coco(GROUND_TRUTH, DETECTIONS)
    by_hand = [472 / 1010, 67 / 101, 34 / 101, 472 / 1010, -1, -1,
               1 / 3, 14 / 30, 14 / 30, 14 / 30, -1, -1]
    assert result.stats.tolist() == pytest.approx(by_hand, abs=1e-12)
    curve = result.curve("dog", iou_threshold=0.5)
    assert curve.tp.tolist() == [1, 2, 2, 2]
    assert curve.fp.tolist() == [0, 0, 1, 2]
    assert curve.n_pos == 3
    best = curve.best_f()
    assert (best.threshold, best.precision, best.recall) == (0.7, 1.0, pytest.approx(2 / 3))
    assert best.value == pytest.approx(0.8)


def test_the_printed_summary_in_the_page_is_pycocotools() -> None:
    result = evaluate_coco(GROUND_TRUTH, DETECTIONS)
    _, printed = pycocotools_eval(GROUND_TRUTH, DETECTIONS)
    assert result.summary().splitlines() == summary_lines(printed)
    page = DOC.read_text()
    assert result.summary() in page


def test_voc_numbers_by_hand() -> None:
    assert evaluate_voc(GROUND_TRUTH, DETECTIONS).ap[0, 0] == pytest.approx(5 / 9, abs=1e-15)
    eleven = evaluate_voc(GROUND_TRUTH, DETECTIONS, ap_method="11point")
    assert eleven.ap[0, 0] == pytest.approx(6 / 11, abs=1e-15)
    curve = evaluate_voc(GROUND_TRUTH, DETECTIONS).curve("dog")
    assert curve.tp.tolist() == [1, 1, 2, 2, 2]
    assert curve.fp.tolist() == [0, 1, 1, 2, 3]
