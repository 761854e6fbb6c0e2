"""COCO ``segm``: instance masks evaluated as pycocotools' ``COCOeval(..., 'segm')``, bit for bit.

The random cases of tests/test_detection_coco.py with masks: ground truth as
polygons (one or two per object, vertices on and off the pixel grid, some
outside the image) or, for crowds, uncompressed RLE; results as compressed
RLE strings, with or without a ``bbox`` (pycocotools' ``loadRes`` then takes
the box's area, not the mask's). Never skipped.
"""

from __future__ import annotations

import copy
import functools
import json
from pathlib import Path
from typing import Any

import numpy as np
import pycocotools.mask as coco_mask
import pytest
from tests.test_detection_coco import (
    assert_matches_pycocotools,
    random_case,
    random_protocol,
)

from prcurve.detection import COCOProtocol, evaluate_coco
from prcurve.errors import InvalidInputError

Case = tuple[dict[str, Any], list[dict[str, Any]]]
HEIGHT, WIDTH = 480, 640


def _polygon(rng: np.random.Generator, box: list[float]) -> list[float]:
    """A polygon inscribed in a box: 3 to 10 vertices on its ellipse, some on the grid."""
    x, y, w, h = box
    if rng.random() < 0.7:  # the same octagon for every box: IoU close to the boxes'
        k, angles = 8, np.arange(8) * np.pi / 4
    else:
        k = int(rng.integers(3, 11))
        angles = np.sort(rng.uniform(0, 2 * np.pi, k))
    px = x + w / 2 + w / 2 * np.cos(angles)
    py = y + h / 2 + h / 2 * np.sin(angles)
    xy = np.stack((px, py), axis=1).ravel()
    if rng.random() < 0.3:
        xy = np.round(xy)
    elif rng.random() < 0.2:
        xy = np.round(xy) - 0.5
    return xy.tolist()  # type: ignore[no-any-return]


@functools.cache
def segm_case(seed: int) -> Case:
    """A random COCO case with masks for every annotation and result."""
    ground_truth, results = copy.deepcopy(random_case(seed))
    rng = np.random.default_rng(seed + 777)
    for image in ground_truth["images"]:
        image["height"], image["width"] = HEIGHT, WIDTH
    for ann in ground_truth["annotations"]:
        if ann["iscrowd"]:
            rle = coco_mask.frPyObjects([_polygon(rng, ann["bbox"])], HEIGHT, WIDTH)[0]
            counts = coco_mask.decode(rle)
            flat = np.asfortranarray(counts).ravel(order="F")
            change = np.flatnonzero(np.diff(flat)) + 1
            runs = np.diff(np.concatenate(([0], change, [flat.size]))).tolist()
            ann["segmentation"] = {"size": [HEIGHT, WIDTH],
                                   "counts": [0, *runs] if flat[0] else runs}
        else:
            parts = [_polygon(rng, ann["bbox"])]
            if rng.random() < 0.15:  # an object in two pieces
                x, y, w, h = ann["bbox"]
                parts.append(_polygon(rng, [x + w / 2, y, w / 2, h / 2]))
            ann["segmentation"] = parts
    keep_boxes = rng.random() < 0.3
    for result in results:
        rle = coco_mask.frPyObjects([_polygon(rng, result["bbox"])], HEIGHT, WIDTH)[0]
        result["segmentation"] = {"size": rle["size"], "counts": rle["counts"].decode()}
        if not keep_boxes:
            del result["bbox"]
    return ground_truth, results


# pycocotools' decode has an __array__ without numpy 2's copy keyword (a warning).
pytestmark = pytest.mark.filterwarnings(
    "ignore:__array__ implementation doesn't accept a copy keyword:DeprecationWarning")


@pytest.mark.parametrize("seed", range(30))
def test_random_mask_cases_equal_pycocotools(seed: int) -> None:
    ground_truth, results = segm_case(seed)
    assert_matches_pycocotools(ground_truth, results, random_protocol(seed), iou_type="segm")


def test_mask_cases_cover_crowds_boxes_and_multipart_objects() -> None:
    cases = [segm_case(seed) for seed in range(30)]
    annotations = [a for gt, _ in cases for a in gt["annotations"]]
    assert any(a["iscrowd"] for a in annotations)
    assert any(len(a["segmentation"]) == 2 for a in annotations if not a["iscrowd"])
    assert any("bbox" in r for _, results in cases for r in results)
    assert any("bbox" not in r for _, results in cases for r in results)


def test_mask_results_from_a_file(tmp_path: Path) -> None:
    ground_truth, results = segm_case(3)
    gt_path, dt_path = tmp_path / "gt.json", tmp_path / "dt.json"
    gt_path.write_text(json.dumps(ground_truth))
    dt_path.write_text(json.dumps(results))
    from_files = evaluate_coco(gt_path, dt_path, iou_type="segm")
    in_memory = evaluate_coco(ground_truth, results, iou_type="segm")
    assert np.array_equal(from_files.precision, in_memory.precision)
    assert from_files.to_dict()["iou_type"] == "segm"


def test_protocol_carries_the_iou_type() -> None:
    ground_truth, results = segm_case(5)
    by_protocol = evaluate_coco(ground_truth, results, protocol=COCOProtocol(iou_type="segm"))
    by_keyword = evaluate_coco(ground_truth, results, iou_type="segm")
    assert np.array_equal(by_protocol.precision, by_keyword.precision)


def _one(segmentation: Any, result: dict[str, Any], image: dict[str, Any] | None = None
         ) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    gt = {"images": [image or {"id": 1, "height": 4, "width": 4}],
          "categories": [{"id": 1}],
          "annotations": [{"id": 1, "image_id": 1, "category_id": 1, "bbox": [0, 0, 2, 2],
                           "area": 4, "iscrowd": 0, "segmentation": segmentation}]}
    return gt, [dict({"image_id": 1, "category_id": 1, "score": 0.9}, **result)]


@pytest.mark.parametrize(("segmentation", "result", "image", "says"), [
    ({"size": [4, 4], "counts": [3, 2]}, {"segmentation": {"size": [4, 4], "counts": [0, 4, 12]}},
     None, "add up to 5 pixels"),
    ({"size": [5, 4], "counts": [20]}, {"segmentation": {"size": [4, 4], "counts": [0, 4, 12]}},
     None, "is 5x4 (height x width) while image 1 is 4x4"),
    ([[0, 0, 1, 1]], {"segmentation": {"size": [4, 4], "counts": [0, 4, 12]}}, None,
     "at least 3 points"),
    ([[0, 0, 1, 0, 1, 1]], {"bbox": [0, 0, 1, 1]}, None, "has no 'segmentation'"),
    ([[0, 0, 1, 0, 1, 1]], {"segmentation": {"size": [4, 4], "counts": [0, 4, 12]}},
     {"id": 1}, "has no 'height' and 'width'"),
])
def test_bad_masks_are_one_clear_error(segmentation: Any, result: dict[str, Any],
                                       image: dict[str, Any] | None, says: str) -> None:
    gt, dt = _one(segmentation, result, image)
    with pytest.raises(InvalidInputError, match=says.replace("(", r"\(").replace(")", r"\)")):
        evaluate_coco(gt, dt, iou_type="segm")


def test_masks_without_boxes_are_refused_for_a_box_evaluation() -> None:
    gt, dt = _one([[0, 0, 1, 0, 1, 1]], {"segmentation": {"size": [4, 4], "counts": [0, 4, 12]}})
    with pytest.raises(InvalidInputError, match="iou_type='segm'"):
        evaluate_coco(gt, dt)


def test_cli_prints_pycocotools_segm_summary(tmp_path: Path,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    from tests.test_detection_coco import pycocotools_eval, summary_lines

    from prcurve.cli import main

    ground_truth, results = segm_case(7)
    gt_path, dt_path = tmp_path / "gt.json", tmp_path / "dt.json"
    gt_path.write_text(json.dumps(ground_truth))
    dt_path.write_text(json.dumps(results))
    assert main(["coco", str(gt_path), str(dt_path), "--iou-type", "segm", "--bootstrap",
                 "20", "--seed", "1", "--per-class"]) == 0
    printed = capsys.readouterr().out.splitlines()
    _, reference = pycocotools_eval(ground_truth, results, iou_type="segm")
    assert printed[:12] == summary_lines(reference)
    intervals = [line for line in printed if "95% interval" in line]
    assert [line.split()[0] for line in intervals] == ["mAP", "AP50"]
