"""TIDE's error breakdown (result.errors()) against tidecv, the paper's own package, on
random and hand-built COCO files, boxes and masks; its invariants (Hypothesis)."""

from __future__ import annotations

import copy
import json
import math
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from tests.test_detection_coco import random_case
from tests.test_detection_segm import HEIGHT, WIDTH, segm_case

from prcurve.detection import Detections, DetectionState, GroundTruth, evaluate_coco
from prcurve.detection.evaluate import as_detections, as_ground_truth
from prcurve.detection.tide import MAIN_ERRORS, SPECIAL_ERRORS, class_ap, tide_errors
from prcurve.errors import InvalidInputError

Case = tuple[dict[str, Any], list[dict[str, Any]]]
TOLERANCE = 1e-9  # AP points; the class means are summed in another order (about 1e-14 off)

# pycocotools' decode has an __array__ without numpy 2's copy keyword (a warning).
pytestmark = pytest.mark.filterwarnings(
    "ignore:__array__ implementation doesn't accept a copy keyword:DeprecationWarning")


def tidecv_errors(ground_truth: dict[str, Any], results: list[dict[str, Any]],
                  tmp_path: Path, mask: bool = False) -> tuple[float, dict[str, float] | None,
                                                                 dict[str, float] | None]:
    """tidecv's mAP, main and special errors of the same files.

    tidecv's COCO reader needs each image's file name, width and height and each annotation's
    segmentation even for boxes (it converts them all to RLE): a box polygon is added
    where a box-only case has none. Nothing else is changed.
    """
    import matplotlib
    from tidecv import TIDE, datasets

    gt = copy.deepcopy(ground_truth)
    for image in gt["images"]:
        image.setdefault("height", HEIGHT)
        image.setdefault("width", WIDTH)
        image.setdefault("file_name", f"{image['id']}.jpg")
    for ann in gt["annotations"]:
        if "segmentation" not in ann:
            x, y, w, h = ann["bbox"]
            ann["segmentation"] = [[x, y, x + w, y, x + w, y + h, x, y + h]]
    gt_path, dt_path = tmp_path / "tide_gt.json", tmp_path / "tide_dt.json"
    gt_path.write_text(json.dumps(gt))
    dt_path.write_text(json.dumps(results))
    mode = TIDE.MASK if mask else TIDE.BOX
    # TIDE() runs seaborn's set(style="whitegrid") and sets figure.dpi: matplotlib's global
    # rcParams, which drew every later figure of the same test process with light grey
    # spines (tests/test_report_figures.py failed after it). They are restored here.
    with matplotlib.rc_context():
        tide = TIDE(mode=mode)
    try:
        run = tide.evaluate(datasets.COCO(str(gt_path)), datasets.COCOResult(str(dt_path)),
                            mode=mode)
    except ZeroDivisionError:  # its mean over no class at all
        return math.nan, None, None
    try:
        errors = tide.get_all_errors()
    except ZeroDivisionError:  # a fix that leaves no class (only background detections)
        return float(run.ap), None, None
    (name,) = errors["main"]
    return float(run.ap), errors["main"][name], errors["special"][name]


def assert_matches_tidecv(ground_truth: dict[str, Any], results: list[dict[str, Any]],
                          tmp_path: Path, iou_type: str = "bbox") -> None:
    ours = evaluate_coco(ground_truth, results, iou_type=iou_type).errors()
    ap, main, special = tidecv_errors(ground_truth, results, tmp_path, iou_type == "segm")
    if math.isnan(ap):
        assert math.isnan(ours.ap)
        return
    assert ours.ap == pytest.approx(ap, abs=TOLERANCE)
    if main is None or special is None:  # tidecv divides by zero; ours is NaN there
        values = [*ours.main.values(), *ours.special.values()]
        assert any(math.isnan(v) for v in values)
        return
    assert set(main) == set(MAIN_ERRORS)
    assert set(special) == set(SPECIAL_ERRORS)
    for name in MAIN_ERRORS:
        assert ours.main[name] == pytest.approx(main[name], abs=TOLERANCE), name
    for name in SPECIAL_ERRORS:
        assert ours.special[name] == pytest.approx(special[name], abs=TOLERANCE), name


@pytest.mark.parametrize("seed", range(40))
def test_random_box_cases_equal_tidecv(seed: int, tmp_path: Path) -> None:
    ground_truth, results = random_case(seed)
    assert_matches_tidecv(ground_truth, results, tmp_path)


@pytest.mark.parametrize("seed", range(12))
def test_random_mask_cases_equal_tidecv(seed: int, tmp_path: Path) -> None:
    ground_truth, results = segm_case(seed)
    assert_matches_tidecv(ground_truth, results, tmp_path, iou_type="segm")


def test_the_random_cases_reach_every_error_type() -> None:
    totals = dict.fromkeys(MAIN_ERRORS, 0)
    gains = dict.fromkeys(MAIN_ERRORS, 0.0)
    for seed in range(40):
        errors = evaluate_coco(*random_case(seed)).errors()
        for name in MAIN_ERRORS:
            totals[name] += errors.counts[name]
            if not math.isnan(errors.main[name]):  # a case with only background
                gains[name] += errors.main[name]
    assert all(totals[name] > 0 for name in MAIN_ERRORS), totals
    assert all(gains[name] > 0 for name in MAIN_ERRORS), gains


def _image(i: Any) -> dict[str, Any]:
    return {"id": i, "width": WIDTH, "height": HEIGHT}


def _ann(i: int, image: Any, category: int, bbox: list[float], crowd: int = 0) -> dict[str, Any]:
    return {"id": i, "image_id": image, "category_id": category, "bbox": bbox,
            "area": bbox[2] * bbox[3], "iscrowd": crowd}


def _det(image: Any, category: int, bbox: list[float], score: float) -> dict[str, Any]:
    return {"image_id": image, "category_id": category, "bbox": bbox, "score": score}


def realistic_case() -> Case:
    """Every situation TIDE names, by hand: a crowd, an empty image, a category with no
    ground truth and one with no detection, tied scores, 130 detections on one image."""
    images = [_image(i) for i in (7, 3, 5, 9, 1)]
    anns = [
        _ann(1, 7, 1, [10, 10, 50, 50]), _ann(2, 7, 2, [100, 10, 40, 40]),
        _ann(3, 7, 1, [200, 200, 30, 30]), _ann(4, 7, 1, [0, 300, 200, 100], crowd=1),
        _ann(5, 3, 3, [50, 50, 60, 60]), _ann(6, 3, 3, [52, 52, 60, 60]),  # near-twins
        _ann(7, 5, 2, [300, 300, 80, 40]), _ann(8, 1, 1, [5, 5, 20, 20]),
    ]  # image 9 has no ground truth; category 4 none at all
    dets = [
        _det(7, 1, [10, 10, 50, 50], 0.9),      # TP
        _det(7, 1, [11, 11, 50, 50], 0.9),      # Dupe (tied score)
        _det(7, 1, [100, 10, 40, 40], 0.8),     # Cls (ground truth 2 is class 2)
        _det(7, 2, [100, 12, 40, 40], 0.3),     # TP
        _det(7, 1, [210, 210, 30, 30], 0.7),    # Loc (IoU about 0.3)
        _det(7, 1, [215, 215, 30, 30], 0.6),    # Loc on the same object: suppressed
        _det(7, 1, [10, 310, 50, 50], 0.95),    # inside the crowd: ignored
        _det(7, 3, [380, 10, 20, 20], 0.5),     # Bkg
        _det(3, 3, [51, 51, 60, 60], 0.5),      # TP, tied with the next
        _det(3, 3, [51, 51, 60, 60], 0.5),      # TP (the twin)
        _det(3, 2, [60, 60, 40, 40], 0.5),      # Both (wrong class, poor box)
        _det(9, 4, [0, 0, 10, 10], 0.99),       # Bkg on an image without ground truth
        _det(1, 1, [5, 5, 20, 20], 0.2),        # TP, low score
    ]
    rng = np.random.default_rng(0)
    for _ in range(130):  # more than tidecv's 100 detections on image 5
        x, y = rng.uniform(0, 500, 2)
        dets.append(_det(5, int(rng.integers(1, 5)), [float(x), float(y), 15.0, 15.0],
                         float(np.round(rng.random(), 2))))
    dets.append(_det(5, 2, [300, 300, 80, 40], 0.001))  # beyond the 100: object 7 missed
    categories = [{"id": c, "name": f"c{c}"} for c in (1, 2, 3, 4, 5)]  # 5: nothing at all
    return {"images": images, "categories": categories, "annotations": anns}, dets


def test_realistic_case_equals_tidecv(tmp_path: Path) -> None:
    ground_truth, results = realistic_case()
    assert_matches_tidecv(ground_truth, results, tmp_path)
    errors = evaluate_coco(ground_truth, results).errors()
    assert all(errors.counts[name] > 0 for name in MAIN_ERRORS), errors.counts


def test_realistic_case_as_masks_equals_tidecv(tmp_path: Path) -> None:
    import pycocotools.mask as coco_mask

    ground_truth, results = realistic_case()
    for ann in ground_truth["annotations"]:
        x, y, w, h = ann["bbox"]
        ann["segmentation"] = [[x, y, x + w, y, x + w * 0.7, y + h, x, y + h]]
    for result in results:
        rle = coco_mask.frPyObjects(np.array([result["bbox"]], dtype=np.float64), HEIGHT,
                                    WIDTH)[0]
        result["segmentation"] = {"size": rle["size"], "counts": rle["counts"].decode()}
    assert_matches_tidecv(ground_truth, results, tmp_path, iou_type="segm")


def test_only_background_and_nothing_at_all(tmp_path: Path) -> None:
    ground_truth = {"images": [_image(1)], "categories": [{"id": 1, "name": "one"}],
                    "annotations": []}
    results = [_det(1, 1, [0, 0, 5, 5], 0.5)]
    assert_matches_tidecv(ground_truth, results, tmp_path)
    errors = evaluate_coco(ground_truth, results).errors()
    assert errors.ap == 0.0
    assert errors.counts["Bkg"] == 1
    # Fixed, no class has data left: no mean (tidecv divides by zero); null in JSON.
    assert math.isnan(errors.main["Bkg"])
    assert errors.to_dict()["main"]["Bkg"] is None
    empty = evaluate_coco(dict(ground_truth, annotations=[_ann(1, 1, 1, [0, 0, 5, 5], 1)]),
                          []).errors()
    assert math.isnan(empty.ap)


def test_class_ap_equals_a_readable_loop() -> None:
    rng = np.random.default_rng(5)
    for _ in range(50):
        n = int(rng.integers(0, 30))
        tp = rng.random(n) < 0.5
        n_pos = int(tp.sum() + rng.integers(0, 4))
        precision = [tp[: i + 1].sum() / (i + 1) for i in range(n)]
        for i in range(n - 2, -1, -1):
            precision[i] = max(precision[i], precision[i + 1])
        total = 0.0
        for step in range(101):
            reached = [i for i in range(n) if tp[: i + 1].sum() / max(n_pos, 1) >= step / 100]
            total += precision[reached[0]] if reached and n_pos else 0.0
        assert class_ap(tp, n_pos) == pytest.approx(total / 101 * 100, abs=1e-9)


@settings(deadline=None)
@given(st.integers(0, 10_000), st.integers(1, 4))
def test_batches_of_whole_images_give_the_same_errors(seed: int, parts: int) -> None:
    # Images are independent: evaluating the images in batches (in the same order) and
    # merging the states changes nothing.
    ground_truth, results = random_case(seed, max_images=8, max_categories=3)
    whole = evaluate_coco(ground_truth, results)
    gt, dt = as_ground_truth(ground_truth), as_detections(results)
    assert gt.images is not None
    chunks = np.array_split(gt.images, parts)
    state = None
    for chunk in chunks:
        piece = DetectionState.from_batch(gt.for_images(chunk), dt.for_images(chunk))
        state = piece if state is None else state.merge(piece)
    assert state is not None
    merged = state.compute().errors()
    reference = whole.errors()
    for name in MAIN_ERRORS:
        assert merged.main[name] == pytest.approx(reference.main[name], abs=TOLERANCE,
                                                  nan_ok=True)
        assert merged.counts[name] == reference.counts[name]
    if not math.isnan(reference.ap):
        assert merged.ap == pytest.approx(reference.ap, abs=TOLERANCE)


@settings(deadline=None)
@given(st.integers(0, 10_000))
def test_gains_are_non_negative_and_perfect_detections_lose_nothing(seed: int) -> None:
    ground_truth, results = random_case(seed, max_images=6, max_categories=3)
    errors = evaluate_coco(ground_truth, results).errors()
    assert all(v >= 0 for v in errors.main.values() if not math.isnan(v))
    objects = [a for a in ground_truth["annotations"] if not a["iscrowd"]]
    if not objects:
        return
    perfect = [_det(a["image_id"], a["category_id"], a["bbox"], 1.0) for a in objects]
    best = evaluate_coco(ground_truth, perfect).errors()
    assert best.ap == pytest.approx(100.0)
    assert all(v == 0 for v in best.main.values())
    assert all(v == pytest.approx(0.0, abs=1e-9) for v in best.special.values())


def test_settings_are_checked() -> None:
    result = evaluate_coco(*realistic_case())
    with pytest.raises(InvalidInputError, match="pos_threshold"):
        result.errors(pos_threshold=1.5)
    with pytest.raises(InvalidInputError, match="max_dets"):
        result.errors(max_dets=0)
    gt = GroundTruth([1], [1], [[0, 0, 1, 1]])
    dt = Detections([1], [1], [[0, 0, 1, 1]], [0.5])
    with pytest.raises(InvalidInputError, match="iou_type"):
        tide_errors([(gt, dt)], iou_type="keypoints")


def test_to_dict_and_summary() -> None:
    errors = evaluate_coco(*realistic_case()).errors()
    data = errors.to_dict()
    assert list(data["main"]) == list(MAIN_ERRORS)
    assert list(data["special"]) == list(SPECIAL_ERRORS)
    json.dumps(data, allow_nan=False)
    text = errors.summary()
    assert "bbox AP @ 50" in text
    assert all(name in text for name in (*MAIN_ERRORS, *SPECIAL_ERRORS))


def test_plot_has_both_panels() -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    errors = evaluate_coco(*realistic_case()).errors()
    figure = errors.plot()
    main_ax, special_ax = figure.axes
    assert [t.get_text().split(" ")[0] for t in main_ax.get_yticklabels()] == list(MAIN_ERRORS)
    assert [t.get_text() for t in special_ax.get_xticklabels()] == list(SPECIAL_ERRORS)
    widths = [bar.get_width() for bar in main_ax.patches]
    assert widths == pytest.approx([errors.main[name] for name in MAIN_ERRORS])
    plt.close(figure)
