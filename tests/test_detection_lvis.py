"""LVIS: ``evaluate_lvis`` and ``prcurve lvis`` against lvis-api's ``LVISEval``, never skipped.

Random federated cases: images with positive categories (ground truth),
verified-absent ones (``neg_category_ids``, some unknown to the file) and
not-exhaustive ones, ``ignore`` flags, categories of every frequency (some
groups empty), tied scores, detections of categories the image says nothing
about, and images with more detections than ``max_dets``. Both tools read the
same files; precision, recall, the 13 results and the printed lines must
agree to 1e-12 (they agree exactly).
"""

from __future__ import annotations

import contextlib
import functools
import io
import json
from pathlib import Path
from typing import Any

import numpy as np
import pycocotools.mask as coco_mask
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from prcurve.cli import main
from prcurve.detection import Detections, DetectionState, LVISProtocol, evaluate_lvis
from prcurve.detection.lvis import top_per_image
from prcurve.errors import InvalidInputError

Case = tuple[dict[str, Any], list[dict[str, Any]]]
HEIGHT, WIDTH = 240, 320

# pycocotools' decode has an __array__ without numpy 2's copy keyword (a warning).
pytestmark = pytest.mark.filterwarnings(
    "ignore:__array__ implementation doesn't accept a copy keyword:DeprecationWarning")


def lvis_api() -> Any:
    """lvis-api's module, with the ``np.float`` it uses (removed in numpy 1.24)."""
    if np.__dict__.get("float") is not float:
        setattr(np, "float", float)  # noqa: B010 - numpy >= 1.24 has no np.float
    import lvis

    return lvis


def _box(rng: np.random.Generator) -> list[float]:
    w = float(rng.choice([rng.uniform(2, 30), rng.uniform(30, 100), rng.uniform(100, 200)]))
    h = float(rng.uniform(0.5, 1.5) * w)
    x, y = float(rng.uniform(0, WIDTH - 10)), float(rng.uniform(0, HEIGHT - 10))
    return [round(x, 2), round(y, 2), round(min(w, WIDTH - x), 2), round(min(h, HEIGHT - y), 2)]


def _jitter(rng: np.random.Generator, box: list[float]) -> list[float]:
    x, y, w, h = box
    s = rng.uniform(0, 0.25)
    return [round(x + rng.normal(0, s * w), 2), round(y + rng.normal(0, s * h), 2),
            round(max(w * rng.uniform(0.8, 1.2), 0.5), 2),
            round(max(h * rng.uniform(0.8, 1.2), 0.5), 2)]


def _polygon(box: list[float]) -> list[float]:
    x, y, w, h = box
    angles = np.arange(8) * np.pi / 4
    px = np.clip(x + w / 2 + w / 2 * np.cos(angles), 0, WIDTH)
    py = np.clip(y + h / 2 + h / 2 * np.sin(angles), 0, HEIGHT)
    return np.round(np.stack((px, py), axis=1).ravel(), 2).tolist()  # type: ignore[no-any-return]


@functools.cache
def lvis_case(seed: int, segm: bool = False, dets_per_image: int = 12) -> Case:
    """A random federated case (module docstring); ``segm``: polygons and RLE results."""
    rng = np.random.default_rng(seed)
    n_images = int(rng.integers(1, 9))
    n_categories = int(rng.integers(1, 9))
    categories = [int(c) for c in rng.choice(np.arange(1, 60), n_categories, replace=False)]
    letters = "rcf" if rng.random() < 0.6 else str(rng.choice(["r", "cf", "rf", "c"]))
    cats = [{"id": c, "name": f"c{c}", "frequency": str(rng.choice(list(letters)))}
            for c in categories]
    image_ids = [int(i) for i in rng.choice(np.arange(1, 500), n_images, replace=False)]
    images, annotations, results = [], [], []
    ignore_flags = rng.random() < 0.4
    ann_id = 1
    for image_id in image_ids:
        gt_boxes = []
        for _ in range(int(rng.integers(0, 7))):
            category = int(rng.choice(categories))
            box = _box(rng)
            area = round(box[2] * box[3] * float(rng.uniform(0.6, 1.0)), 2)
            if rng.random() < 0.1:
                area = float(rng.choice([32.0**2, 96.0**2, 0.0]))  # 0: lvis-api drops it
            ann = {"id": ann_id, "image_id": image_id, "category_id": category, "bbox": box,
                   "area": area}
            if ignore_flags and rng.random() < 0.2:
                ann["ignore"] = 1
            if rng.random() < 0.1:  # lvis-api never reads iscrowd
                ann["iscrowd"] = 1
            if segm:
                ann["segmentation"] = [_polygon(box)]
            annotations.append(ann)
            gt_boxes.append((category, box))
            ann_id += 1
        positive = {c for c, _ in gt_boxes}
        absent = [c for c in categories if c not in positive]
        negative = [c for c in absent if rng.random() < 0.5]
        if rng.random() < 0.2:
            negative.append(999)  # a category the file does not list
        not_exhaustive = [c for c in categories if rng.random() < 0.25]
        images.append({"id": image_id, "height": HEIGHT, "width": WIDTH,
                       "neg_category_ids": negative,
                       "not_exhaustive_category_ids": not_exhaustive})
        n_dets = int(rng.integers(0, 2 * dets_per_image))
        for _ in range(n_dets):
            if gt_boxes and rng.random() < 0.7:
                category, box = gt_boxes[int(rng.integers(len(gt_boxes)))]
                box = _jitter(rng, box)
                if rng.random() < 0.15:
                    category = int(rng.choice(categories))
            else:
                category, box = int(rng.choice(categories)), _box(rng)
            if rng.random() < 0.03:  # a box of area 0: lvis-api drops the result
                box = [box[0], box[1], 0.0, box[3]]
            score = round(float(rng.random()), int(rng.choice([1, 2, 6])))
            result: dict[str, Any] = {"image_id": image_id, "category_id": category,
                                      "bbox": box, "score": score}
            results.append(result)
    if not results:  # lvis-api's LVISResults reads results[0]
        results.append({"image_id": image_ids[0], "category_id": categories[0],
                        "bbox": [1.0, 1.0, 5.0, 5.0], "score": 0.5})
    if segm:
        keep_boxes = rng.random() < 0.4
        for result in results:
            x, y, w, h = result["bbox"]
            box = [max(x, 0), max(y, 0), w, h]
            rle = coco_mask.frPyObjects([_polygon(box)], HEIGHT, WIDTH)[0]
            result["segmentation"] = {"size": rle["size"], "counts": rle["counts"].decode()}
            if not keep_boxes:
                del result["bbox"]
    order = rng.permutation(len(results))
    return ({"images": images, "categories": cats, "annotations": annotations},
            [results[i] for i in order])


def write_case(tmp_path: Path, case: Case) -> tuple[Path, Path]:
    gt_path, dt_path = tmp_path / "gt.json", tmp_path / "dt.json"
    gt_path.write_text(json.dumps(case[0]))
    dt_path.write_text(json.dumps(case[1]))
    return gt_path, dt_path


def lvis_eval(gt_path: Path, dt_path: Path, iou_type: str, max_dets: int = 300) -> tuple[
        Any, list[str]]:
    """lvis-api's evaluation of two files, and the lines its print_results prints."""
    lvis = lvis_api()
    ground_truth = lvis.LVIS(str(gt_path))
    results = lvis.LVISResults(ground_truth, str(dt_path), max_dets=max_dets)
    evaluation = lvis.LVISEval(ground_truth, results, iou_type=iou_type)
    evaluation.params.max_dets = max_dets
    evaluation.run()
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        evaluation.print_results()
    return evaluation, printed.getvalue().splitlines()


def assert_matches_lvis_api(tmp_path: Path, case: Case, iou_type: str,
                            max_dets: int = 300) -> None:
    gt_path, dt_path = write_case(tmp_path, case)
    reference, printed = lvis_eval(gt_path, dt_path, iou_type, max_dets)
    ours = evaluate_lvis(gt_path, dt_path, iou_type=iou_type, max_dets=max_dets)
    assert ours.precision.shape == reference.eval["precision"].shape
    np.testing.assert_allclose(ours.precision, reference.eval["precision"], rtol=0,
                               atol=1e-12)
    np.testing.assert_allclose(ours.recall, reference.eval["recall"], rtol=0, atol=1e-12)
    expected = reference.get_results()
    assert list(ours.results()) == list(expected)
    np.testing.assert_allclose(list(ours.results().values()),
                               [float(v) for v in expected.values()], rtol=0, atol=1e-12)
    assert ours.summary().splitlines() == printed
    assert ours.categories.tolist() == reference.params.cat_ids


@pytest.mark.parametrize("seed", range(40))
def test_random_box_cases_equal_lvis_api(tmp_path: Path, seed: int) -> None:
    assert_matches_lvis_api(tmp_path, lvis_case(seed), "bbox", max_dets=int(5 + seed % 7))


@pytest.mark.parametrize("seed", range(20))
def test_random_mask_cases_equal_lvis_api(tmp_path: Path, seed: int) -> None:
    assert_matches_lvis_api(tmp_path, lvis_case(100 + seed, segm=True), "segm",
                            max_dets=int(4 + seed % 9))


@pytest.mark.parametrize("seed", range(3))
def test_default_300_per_image_equals_lvis_api(tmp_path: Path, seed: int) -> None:
    ground_truth, results = lvis_case(200 + seed, dets_per_image=400)
    assert max(np.unique([r["image_id"] for r in results], return_counts=True)[1]) > 300
    assert_matches_lvis_api(tmp_path, (ground_truth, results), "bbox")


def test_cases_cover_the_federated_rules() -> None:
    cases = [lvis_case(seed) for seed in range(40)]
    images = [i for gt, _ in cases for i in gt["images"]]
    annotations = [a for gt, _ in cases for a in gt["annotations"]]
    assert any(i["neg_category_ids"] for i in images)
    assert any(i["not_exhaustive_category_ids"] for i in images)
    assert any(999 in i["neg_category_ids"] for i in images)
    assert any(a.get("ignore") for a in annotations)
    assert any(a.get("iscrowd") for a in annotations)
    assert any(a["area"] == 0 for a in annotations)
    assert any(r["bbox"][2] == 0 for _, results in cases for r in results)
    frequencies = [{c["frequency"] for c in gt["categories"]} for gt, _ in cases]
    assert any(f == {"r", "c", "f"} for f in frequencies)
    assert any(len(f) < 3 for f in frequencies)
    masks = [lvis_case(100 + seed, segm=True)[1] for seed in range(20)]
    assert any("bbox" in r[0] for r in masks)
    assert any("bbox" not in r[0] for r in masks)


# docs/detection.md's worked example.
EXAMPLE_GT: dict[str, Any] = {
    "images": [{"id": 1, "neg_category_ids": [2], "not_exhaustive_category_ids": [3]}],
    "categories": [{"id": 1, "name": "cup", "frequency": "f"},
                   {"id": 2, "name": "kite", "frequency": "c"},
                   {"id": 3, "name": "mug", "frequency": "r"},
                   {"id": 4, "name": "yak", "frequency": "r"}],
    "annotations": [
        {"id": 1, "image_id": 1, "category_id": 1, "bbox": [0, 0, 10, 10], "area": 100},
        {"id": 2, "image_id": 1, "category_id": 3, "bbox": [0, 0, 10, 10], "area": 100}]}
EXAMPLE_DT = [
    {"image_id": 1, "category_id": 1, "bbox": [0, 0, 10, 10], "score": 0.5},
    {"image_id": 1, "category_id": 1, "bbox": [50, 50, 10, 10], "score": 0.9},  # FP
    {"image_id": 1, "category_id": 2, "bbox": [0, 0, 10, 10], "score": 0.9},  # FP, neg
    {"image_id": 1, "category_id": 3, "bbox": [50, 50, 10, 10], "score": 0.9},  # ignored
    {"image_id": 1, "category_id": 3, "bbox": [0, 0, 10, 10], "score": 0.8},
    {"image_id": 1, "category_id": 4, "bbox": [0, 0, 10, 10], "score": 0.9}]  # dropped


def test_the_worked_example_of_the_page(tmp_path: Path) -> None:
    result = evaluate_lvis(EXAMPLE_GT, EXAMPLE_DT)
    _, printed = lvis_eval(*write_case(tmp_path, (EXAMPLE_GT, EXAMPLE_DT)), "bbox")
    assert result.summary().splitlines() == printed
    page = (Path(__file__).resolve().parents[1] / "docs" / "detection.md").read_text()
    assert result.summary() in page
    assert result.results()["AP"] == pytest.approx((0.5 + 1) / 2, abs=1e-12)


def test_dropped_and_ignored_detections_by_hand() -> None:
    result = evaluate_lvis(EXAMPLE_GT, EXAMPLE_DT)
    # Category 1: FP then TP, precision 1/2 at recall 1; category 3: the miss is ignored
    # (precision tp / (tp + fp + eps), as lvis-api: 1 / (1 + eps) for one TP).
    assert result.precision[0, :, 0, 0].tolist() == pytest.approx([0.5] * 101, abs=1e-12)
    assert result.precision[0, :, 2, 0].tolist() == pytest.approx([1.0] * 101, abs=1e-12)
    assert result.precision[0, :, 1, 0].tolist() == [-1.0] * 101  # no ground truth
    assert result.coco.per_category()["n_detections"].tolist() == [2, 1, 2, 0]
    assert result.results()["APr"] == pytest.approx(1.0, abs=1e-12)
    assert result.results()["APc"] == -1.0


@given(st.lists(st.tuples(st.integers(0, 3), st.integers(0, 4)), max_size=40),
       st.integers(1, 6))
@settings(max_examples=60, deadline=None)
def test_top_per_image_is_a_stable_sort_per_image(rows: list[tuple[int, int]],
                                                  limit: int) -> None:
    image = np.array([r[0] for r in rows], dtype=np.int64)
    score = np.array([r[1] / 4 for r in rows], dtype=np.float64)
    keep = top_per_image(image, score, limit)
    expected = np.ones(len(rows), dtype=bool)
    for i in np.unique(image):  # lvis-api: sorted(..., reverse=True)[:limit], stable
        members = [k for k in range(len(rows)) if image[k] == i]
        ranked = sorted(members, key=lambda k: score[k], reverse=True)
        for k in ranked[limit:]:
            expected[k] = False
    assert keep.tolist() == expected.tolist()


def test_lvis_protocol_and_state() -> None:
    protocol = LVISProtocol(iou_type="segm", max_dets=100)
    assert protocol != LVISProtocol()
    assert protocol == LVISProtocol("segm", 100)
    state = DetectionState.from_batch(*_tiny(), LVISProtocol())
    with pytest.raises(InvalidInputError, match="evaluate_lvis"):
        state.compute()
    with pytest.raises(InvalidInputError, match="max_dets"):
        LVISProtocol(max_dets=0)
    with pytest.raises(InvalidInputError, match="iou_type"):
        LVISProtocol(iou_type="keypoints")


def _tiny() -> tuple[Any, Detections]:
    from prcurve.detection import GroundTruth

    return (GroundTruth([1], [1], [[0, 0, 5, 5]]), Detections([1], [1], [[0, 0, 5, 5]], [0.5]))


def test_result_views(tmp_path: Path) -> None:
    ground_truth, results = lvis_case(7)
    result = evaluate_lvis(ground_truth, results)
    table = result.per_category()
    assert table["frequency"].tolist() == [
        c["frequency"] for c in sorted(ground_truth["categories"], key=lambda c: c["id"])]
    report = result.to_dict()
    json.dumps(report, allow_nan=False)
    assert report["protocol"] == "lvis"
    assert len(report["summary"]) == 13
    k = int(np.argmax(result.coco.n_pos[:, 0]))
    curve = result.curve(result.categories[k].item())
    assert curve.n_pos == result.coco.n_pos[k, 0]
    assert "LVISEvaluation" in repr(result)


# -- bad input ----------------------------------------------------------------------------


def _without(key: str, where: str) -> dict[str, Any]:
    ground_truth = json.loads(json.dumps(lvis_case(3)[0]))
    del ground_truth[where][0][key]
    return ground_truth


@pytest.mark.parametrize(("key", "where"), [("neg_category_ids", "images"),
                                            ("not_exhaustive_category_ids", "images"),
                                            ("frequency", "categories")])
def test_missing_lvis_fields_are_one_clear_error(tmp_path: Path, key: str, where: str,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    ground_truth = _without(key, where)
    with pytest.raises(InvalidInputError, match=f"{where}\\[0\\] has no '{key}'"):
        evaluate_lvis(ground_truth, lvis_case(3)[1])
    gt_path, dt_path = write_case(tmp_path, (ground_truth, lvis_case(3)[1]))
    assert main(["lvis", str(gt_path), str(dt_path)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    assert key in err
    assert "Traceback" not in err


def test_bad_federated_values() -> None:
    ground_truth = json.loads(json.dumps(lvis_case(3)[0]))
    ground_truth["images"][0]["neg_category_ids"] = "none"
    with pytest.raises(InvalidInputError, match="list of category ids"):
        evaluate_lvis(ground_truth, lvis_case(3)[1])
    ground_truth = json.loads(json.dumps(lvis_case(3)[0]))
    ground_truth["categories"][0]["frequency"] = "x"
    with pytest.raises(InvalidInputError, match="'r' \\(rare\\)"):
        evaluate_lvis(ground_truth, lvis_case(3)[1])


def test_empty_results_are_evaluated() -> None:
    ground_truth = lvis_case(3)[0]
    results = evaluate_lvis(ground_truth, []).results()  # lvis-api: IndexError
    assert set(results.values()) <= {0.0, -1.0}
    assert results["AP"] == 0.0


def test_results_without_the_iou_types_field_are_refused() -> None:
    ground_truth, results = lvis_case(101, segm=True)
    boxes_only = [{k: v for k, v in r.items() if k != "segmentation"} | {"bbox": [0, 0, 5, 5]}
                  for r in results]
    with pytest.raises(InvalidInputError, match="no 'segmentation'"):
        evaluate_lvis(ground_truth, boxes_only, iou_type="segm")
    masks_only = [{k: v for k, v in r.items() if k != "bbox"} for r in results]
    with pytest.raises(InvalidInputError, match="'segmentation' but no 'bbox'"):
        evaluate_lvis(ground_truth, masks_only, iou_type="bbox")


def test_inputs_are_not_modified() -> None:
    ground_truth, results = lvis_case(11)
    before = json.dumps([ground_truth, results])
    evaluate_lvis(ground_truth, results)
    assert json.dumps([ground_truth, results]) == before


# -- the command line ---------------------------------------------------------------------


@pytest.mark.parametrize("iou_type", ["bbox", "segm"])
def test_cli_prints_lvis_api_lines(tmp_path: Path, iou_type: str,
                                   capsys: pytest.CaptureFixture[str]) -> None:
    case = lvis_case(5, segm=iou_type == "segm")
    gt_path, dt_path = write_case(tmp_path, case)
    _, printed = lvis_eval(gt_path, dt_path, iou_type)
    capsys.readouterr()
    assert main(["lvis", str(gt_path), str(dt_path), "--iou-type", iou_type]) == 0
    assert capsys.readouterr().out.splitlines() == printed
    assert main(["lvis", str(gt_path), str(dt_path), "--iou-type", iou_type, "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["summary"] == printed
    assert report["iou_type"] == iou_type


def test_cli_bad_iou_type(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    gt_path, dt_path = write_case(tmp_path, lvis_case(5))
    assert main(["lvis", str(gt_path), str(dt_path), "--iou-type", "keypoints"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("prcurve: error: --iou-type")
    assert err.count("\n") == 1


def test_cli_max_dets_and_per_class(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    gt_path, dt_path = write_case(tmp_path, lvis_case(9))
    _, printed = lvis_eval(gt_path, dt_path, "bbox", max_dets=7)
    capsys.readouterr()
    assert main(["lvis", str(gt_path), str(dt_path), "--max-dets", "7", "--per-class"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[:13] == printed
    assert lines[14].split()[:4] == ["category", "AP", "AP50", "AP75"]
    assert main(["lvis", str(gt_path), str(dt_path), "--max-dets", "0"]) == 2
    assert capsys.readouterr().err.startswith("prcurve: error: --max-dets")
