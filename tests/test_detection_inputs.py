"""Detection inputs: IoU against pycocotools' mask.iou, every input form, every input error."""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest
from numpy.testing import assert_array_equal
from tests.strategies import fresh_python
from tests.test_detection_coco import random_case

from prcurve.detection import (
    COCOProtocol,
    DetectionEvaluator,
    Detections,
    DetectionState,
    GroundTruth,
    VOCProtocol,
    box_iou,
    evaluate_coco,
)
from prcurve.errors import InvalidInputError


@pytest.mark.parametrize("seed", range(5))
def test_box_iou_equals_pycocotools(seed: int) -> None:
    from pycocotools import mask

    rng = np.random.default_rng(seed)
    scale = 20.0 if seed % 2 else 1.0
    d = np.c_[rng.uniform(0, 50, (30, 2)), rng.uniform(0, 30, (30, 2))] * scale
    g = np.c_[rng.uniform(0, 50, (20, 2)), rng.uniform(0, 30, (20, 2))] * scale
    if seed == 0:
        d, g = np.round(d), np.round(g)  # integer boxes: exact IoU ties and touching edges
        d[:5] = g[:5]
        d[5:8, 2] = 0.0  # zero-width boxes
    crowd = rng.random(20) < 0.3
    expected = mask.iou(d.tolist(), g.tolist(), crowd.astype(np.uint8).tolist())
    assert_array_equal(box_iou(d, g, crowd), expected)


def test_box_iou_formats() -> None:
    xyxy = box_iou([[0, 0, 2, 2]], [[1, 0, 3, 2]], box_format="xyxy")
    assert xyxy.tolist() == [[1 / 3]]
    assert box_iou(np.zeros((0, 4)), [[0, 0, 1, 1]]).shape == (0, 1)


def _reference_gt() -> GroundTruth:
    return GroundTruth([1, 1, 2], [3, 4, 3], [[0, 0, 10, 10], [5, 5, 2, 2], [1, 1, 4, 4]],
                       area=[90, 4, 16], iscrowd=[0, 1, 0], annotation_id=[7, 8, 9],
                       images=[1, 2, 3], categories=[3, 4])


def test_ground_truth_from_every_form() -> None:
    reference = _reference_gt()
    columns = {"image_id": [1, 1, 2], "category_id": [3, 4, 3], "x": [0, 5, 1],
               "y": [0, 5, 1], "width": [10, 2, 4], "height": [10, 2, 4],
               "area": [90, 4, 16], "iscrowd": [0, 1, 0], "id": [7, 8, 9]}
    forms = [
        GroundTruth.from_table(pd.DataFrame(columns), images=[1, 2, 3], categories=[3, 4]),
        GroundTruth.from_table(pa.table(columns), images=[1, 2, 3], categories=[3, 4]),
        GroundTruth.from_table(columns, images=[1, 2, 3], categories=[3, 4]),
        GroundTruth.from_table(pd.DataFrame({
            "img": [1, 1, 2], "cat": [3, 4, 3],
            "bbox": [[0, 0, 10, 10], [5, 5, 7, 7], [1, 1, 5, 5]], "area": [90, 4, 16],
            "iscrowd": [0, 1, 0], "id": [7, 8, 9]}), box_format="xyxy",
            columns={"image_id": "img", "category_id": "cat"}, images=[1, 2, 3],
            categories=[3, 4]),
        GroundTruth.from_coco({
            "images": [{"id": 1}, {"id": 2}, {"id": 3}],
            "categories": [{"id": 3}, {"id": 4}],
            "annotations": [
                {"id": 7, "image_id": 1, "category_id": 3, "bbox": [0, 0, 10, 10], "area": 90,
                 "iscrowd": 0},
                {"id": 8, "image_id": 1, "category_id": 4, "bbox": [5, 5, 2, 2], "area": 4,
                 "iscrowd": 1},
                {"id": 9, "image_id": 2, "category_id": 3, "bbox": [1, 1, 4, 4], "area": 16,
                 "iscrowd": 0}]}),
    ]
    for form in forms:
        for field in ("image_id", "category_id", "boxes", "area", "iscrowd", "annotation_id",
                      "images", "categories"):
            assert_array_equal(getattr(form, field), getattr(reference, field), err_msg=field)


def test_detections_from_every_form() -> None:
    reference = Detections([1, 2], [3, 3], [[0, 0, 4, 4], [1, 2, 3, 4]], [0.5, 0.25])
    frame = pd.DataFrame({"image_id": [1, 2], "category_id": [3, 3], "x1": [0, 1],
                          "y1": [0, 2], "x2": [4, 4], "y2": [4, 6], "score": [0.5, 0.25]})
    forms = [
        Detections.from_table(frame, box_format="xyxy"),
        Detections.from_table(pa.Table.from_pandas(frame), box_format="xyxy"),
        Detections.from_coco([{"image_id": 1, "category_id": 3, "bbox": [0, 0, 4, 4],
                               "score": 0.5},
                              {"image_id": 2, "category_id": 3, "bbox": [1, 2, 3, 4],
                               "score": 0.25}]),
        Detections.from_images([{"boxes": [[0, 0, 4, 4]], "scores": [0.5], "labels": [3]},
                                {"boxes": [[1, 2, 4, 6]], "scores": [0.25], "labels": [3]}],
                               box_format="xyxy", image_ids=[1, 2]),
    ]
    for form in forms:
        for field in ("image_id", "category_id", "boxes", "score"):
            assert_array_equal(getattr(form, field), getattr(reference, field), err_msg=field)


def test_inputs_are_read_only_and_never_modified() -> None:
    ground_truth, results = random_case(6)
    import copy

    before = (copy.deepcopy(ground_truth), copy.deepcopy(results))
    evaluation = evaluate_coco(ground_truth, results)
    assert (ground_truth, results) == before
    gt = GroundTruth.from_coco(ground_truth)
    with pytest.raises(ValueError, match="read-only"):
        gt.boxes[0, 0] = 1.0
    assert evaluation.state.n_images == len(ground_truth["images"])


def test_area_defaults_to_the_box_area() -> None:
    gt = GroundTruth([1], [1], [[0, 0, 3, 4]])
    assert gt.area.tolist() == [12.0]
    coco = GroundTruth.from_coco({"images": [{"id": 1}], "categories": [{"id": 1}],
                                  "annotations": [{"id": 1, "image_id": 1, "category_id": 1,
                                                   "bbox": [0, 0, 3, 4]}]})
    assert coco.area.tolist() == [12.0]
    assert coco.iscrowd.tolist() == [False]


def test_string_and_integer_ids_do_not_mix() -> None:
    gt = GroundTruth(["a"], [1], [[0, 0, 1, 1]])
    dt = Detections([1], [1], [[0, 0, 1, 1]], [0.5])
    with pytest.raises(InvalidInputError, match="detections image_id: are integers while"):
        evaluate_coco(gt, dt)


def _error(call: Any, match: str) -> None:
    with pytest.raises(InvalidInputError, match=match):
        call()


@pytest.mark.parametrize(("call", "match"), [
    (lambda: GroundTruth([1, 2], [1], [[0, 0, 1, 1]] * 2), "category_id: has 1 values for 2"),
    (lambda: GroundTruth([1], [1], [[0, 0, 1]]), r"boxes: expected shape \(n, 4\)"),
    (lambda: GroundTruth([1], [1], [[0, 0, -1, 1]]), "negative width or height"),
    (lambda: GroundTruth([1], [1], [[5, 0, 0, 1]], box_format="xyxy"), "x2 < x1"),
    (lambda: GroundTruth([1], [1], [[0, np.nan, 1, 1]]), "NaN or infinite"),
    (lambda: GroundTruth([1], [1], [[0, 0, 1, 1]], box_format="cxcywh"), "box_format"),
    (lambda: GroundTruth([1.5], [1], [[0, 0, 1, 1]]), "integer or string ids"),
    (lambda: GroundTruth([1.0], [1], [[0, 0, 1, 1]]), "Convert them to integers"),
    (lambda: GroundTruth([True], [1], [[0, 0, 1, 1]]), "found booleans"),
    (lambda: GroundTruth([1, "a"], [1, 1], [[0, 0, 1, 1]] * 2), "one kind"),
    (lambda: GroundTruth([1], [1], [[0, 0, 1, 1]], area=[-1]), "area: has 1 areas"),
    (lambda: GroundTruth([1], [1], [[0, 0, 1, 1]], iscrowd=[2]), "iscrowd: expected 0/1"),
    (lambda: GroundTruth([1, 1], [1, 1], [[0, 0, 1, 1]] * 2, annotation_id=[4, 4]),
     "duplicate annotation ids: 4"),
    (lambda: GroundTruth([1], [1], [[0, 0, 1, 1]], images=[2]), "images absent from images"),
    (lambda: GroundTruth([1], [1], [[0, 0, 1, 1]], images=[1, 1]), "duplicate image ids"),
    (lambda: GroundTruth([1], [5], [[0, 0, 1, 1]], categories=[1]), "categories absent"),
    (lambda: Detections([1], [1], [[0, 0, 1, 1]], [np.inf]), "not finite"),
    (lambda: Detections([1], [1], [[0, 0, 1, 1]], ["high"]), "score: expected numbers"),
    (lambda: Detections([1], [1], [[0, 0, 1, 1]], [0.5, 0.2]), "score: has 2 values for 1"),
    (lambda: GroundTruth.from_table(pd.DataFrame({"image_id": [1]}), ),
     r"missing columns \['category_id'\]"),
    (lambda: GroundTruth.from_table(pd.DataFrame({"image_id": [1], "category_id": [1]})),
     r"missing columns \['bbox'\]"),
    (lambda: GroundTruth.from_table([1, 2]), "a pandas DataFrame, a pyarrow Table"),
    (lambda: GroundTruth.from_images([{"labels": [1]}]), r"ground_truth\[0\]: has no 'boxes'"),
    (lambda: Detections.from_images([{"boxes": [[0, 0, 1, 1]], "labels": [1]}]),
     r"detections\[0\]: has no 'scores'"),
    (lambda: GroundTruth.from_images([{"boxes": [[0, 0, 1, 1]], "labels": [1], "area": [1]},
                                      {"boxes": [], "labels": []}]),
     "has no 'area' while other images have one"),
    (lambda: COCOProtocol(iou_thresholds=[0.5, 1.5]), "iou_thresholds"),
    (lambda: COCOProtocol(iou_thresholds=[0.75, 0.5]), "increasing"),
    (lambda: COCOProtocol(max_dets=[0, 10]), "max_dets"),
    (lambda: COCOProtocol(area_ranges={"all": (10, 1)}), "area_ranges"),
    (lambda: VOCProtocol(ap_method="12point"), "ap_method"),
    (lambda: evaluate_coco(_reference_gt(), Detections([1], [3], [[0, 0, 1, 1]], [0.5]),
                           iou_type="segm"), "has no 'segmentation'"),
    (lambda: evaluate_coco(_reference_gt(), Detections([1], [3], [[0, 0, 1, 1]], [0.5]),
                           protocol=COCOProtocol(), max_dets=(1, 2, 3)), "protocol"),
    (lambda: evaluate_coco(_reference_gt(), 42), "detections: expected a Detections"),
    (lambda: evaluate_coco(_reference_gt(), Detections([9], [3], [[0, 0, 1, 1]], [0.5])),
     "images absent from the ground truth: 9"),
    (lambda: DetectionEvaluator("yolo"), "protocol"),
    (lambda: DetectionEvaluator(iou_thresholds=[2.0]), "iou_thresholds"),
])
def test_input_errors(call: Any, match: str) -> None:
    _error(call, match)


def test_evaluation_lookups_name_the_choices() -> None:
    evaluation = evaluate_coco(*random_case(2))
    _error(lambda: evaluation.curve(12345), "category: 12345 is not a category")
    _error(lambda: evaluation.curve(evaluation.categories[0].item(), iou_threshold=0.52),
           "iou_threshold: 0.52 is not one of this evaluation's settings")
    _error(lambda: evaluation.curve(evaluation.categories[0].item(), area="huge"), "area")
    _error(lambda: evaluation.curve(evaluation.categories[0].item(), max_dets=7), "max_dets")
    name = evaluation.category_names[evaluation.categories[0].item()]
    assert evaluation.curve(name).n_pos == evaluation.curve(
        evaluation.categories[0].item()).n_pos


def test_states_of_different_protocols_do_not_merge() -> None:
    ground_truth, results = random_case(1)
    gt, dt = GroundTruth.from_coco(ground_truth), Detections.from_coco(results)
    coco = DetectionState.from_batch(gt, dt)
    voc = DetectionState.from_batch(gt, dt, VOCProtocol())
    _error(lambda: coco.merge(voc), "other: was evaluated with")
    _error(lambda: coco.merge(coco), "images already evaluated")


def test_summary_needs_three_max_dets() -> None:
    gt = GroundTruth([1], [1], [[0, 0, 1, 1]])
    dt = Detections([1], [1], [[0, 0, 1, 1]], [0.5])
    evaluation = evaluate_coco(gt, dt, max_dets=(1, 100))
    assert evaluation.precision.shape[-1] == 2
    _error(evaluation.summary, "summary: the 12 COCO statistics need")


def test_importing_detection_loads_numpy_only() -> None:
    import subprocess
    import sys

    code = (
        "import sys, prcurve.detection, prcurve.cli.detection, prcurve.present.detection_plot\n"
        "heavy = {'matplotlib', 'pyarrow', 'pandas', 'dask', 'scipy', 'sklearn', 'rich',\n"
        "         'pycocotools', 'faster_coco_eval', 'torch'}\n"
        "print(sorted({m.split('.')[0] for m in sys.modules} & heavy))\n"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                            check=True)
    assert result.stdout.strip() == "[]"


def test_ids_beyond_int64_are_an_error() -> None:
    _error(lambda: GroundTruth([2**70], [1], [[0, 0, 1, 1]]), "outside the int64 range")
    _error(lambda: GroundTruth(np.array([2**63], dtype=np.uint64), [1], [[0, 0, 1, 1]]),
           "above 2\\*\\*63")


def test_pyarrow_tables_read_as_pandas_reads_them_without_importing_pandas() -> None:
    """pyarrow's to_numpy imports pandas: detection reads pyarrow columns by buffer, and
    text, lists of box coordinates and missing values as pandas' to_numpy gives them."""
    columns = {"image_id": ["a", "a", "b"], "category_id": [3, 4, 3],
               "bbox": [[0.0, 0.0, 10.0, 10.0], [5.0, 5.0, 2.0, 2.0], [1.0, 1.0, 4.0, 4.0]],
               "area": [90.0, 4.0, 16.0], "iscrowd": [False, True, False], "id": [7, 8, 9]}
    from_arrow = GroundTruth.from_table(pa.table(columns).slice(0), images=["a", "b"])
    from_pandas = GroundTruth.from_table(pd.DataFrame(columns), images=["a", "b"])
    for field in ("image_id", "category_id", "boxes", "area", "iscrowd", "annotation_id",
                  "images", "categories"):
        assert_array_equal(getattr(from_arrow, field), getattr(from_pandas, field),
                           err_msg=field)
    columns["area"] = [90.0, None, 16.0]  # missing: NaN, refused alike
    for table in (pa.table(columns), pd.DataFrame(columns)):
        with pytest.raises(InvalidInputError, match=r"area: has 1 areas .* \(rows 1\)"):
            GroundTruth.from_table(table)
    with pytest.raises(InvalidInputError, match="score"):
        Detections.from_table(pa.table({"image_id": [1], "category_id": [3],
                                        "bbox": [[0.0, 0.0, 1.0, 1.0]], "score": [None]},
                                       schema=pa.schema({"image_id": pa.int64(),
                                                         "category_id": pa.int64(),
                                                         "bbox": pa.list_(pa.float64()),
                                                         "score": pa.float64()})))
    words, pandas = fresh_python(
        "from prcurve.detection import Detections\n"
        "d = Detections.from_table(table(image_id=[1, 2], category_id=[3, 3], x=[0.0, 1.0],\n"
        "    y=[0.0, 2.0], width=[4.0, 3.0], height=[4.0, 4.0], score=[0.5, 0.25]))\n"
        "print(d.score.tolist())")
    assert words == ["[0.5,", "0.25]"]
    assert not pandas
