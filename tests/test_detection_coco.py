"""COCO protocol: differential tests against pycocotools' COCOeval (bbox), never skipped.

Every case is a COCO instances dict and a results list, evaluated by
pycocotools (evaluate, accumulate, summarize) and by prcurve; precision
[T, R, K, A, M], recall [T, K, A, M], scores and the 12 statistics must agree
to 1e-12 and the printed summary line for line. The random cases cover
crowds, empty images, categories without ground truth or without detections,
tied scores, more than 100 detections per image, areas on the range
boundaries, integer and string ids, and non-default parameters.
faster-coco-eval, a second implementation, is checked on the same cases.

The generator and the pycocotools runner are imported by the other detection
test modules.
"""

from __future__ import annotations

import contextlib
import copy
import functools
import io
from typing import Any

import numpy as np
import pytest
from numpy.testing import assert_allclose, assert_array_equal

from prcurve.detection import COCOProtocol, evaluate_coco

Case = tuple[dict[str, Any], list[dict[str, Any]]]


# -- the random cases ---------------------------------------------------------------------------


@functools.cache
def random_case(seed: int, *, max_images: int = 25, max_categories: int = 6) -> Case:
    """A COCO ground truth dict and results list with every feature the protocol handles."""
    rng = np.random.default_rng(seed)
    n_images = int(rng.integers(1, max_images + 1))
    n_categories = int(rng.integers(1, max_categories + 1))
    string_ids = rng.random() < 0.15
    image_numbers = rng.choice(10_000, n_images, replace=False) + 1
    images: list[Any] = [f"img{v:05d}" for v in image_numbers] if string_ids else [
        int(v) for v in image_numbers]
    categories = [int(c) for c in rng.choice(90, n_categories, replace=False) + 1]
    # Some categories never get ground truth, some never get detections.
    with_gt = [c for c in categories if rng.random() < 0.85] or categories[:1]
    with_dt = [c for c in categories if rng.random() < 0.9] or categories[:1]
    integer_boxes = rng.random() < 0.4
    score_style = rng.choice(["continuous", "one_decimal", "two_decimals", "constant"],
                             p=[0.4, 0.25, 0.25, 0.1])
    crowd_rate = rng.choice([0.0, 0.1, 0.3])

    def boxes(n: int) -> list[list[float]]:
        scale = rng.choice([40.0, 150.0, 400.0], size=(n, 1))
        size = 2.0 * np.exp(rng.random((n, 2)) * np.log(scale / 2.0))  # log-uniform, 2..scale
        values = np.concatenate([rng.uniform(0, 400, (n, 2)), size], axis=1)
        if integer_boxes:
            values = np.round(values)
        return values.tolist()  # type: ignore[no-any-return]

    def scores(n: int) -> list[float]:
        values = rng.random(n)
        if score_style == "one_decimal":
            values = np.round(values, 1)
        elif score_style == "two_decimals":
            values = np.round(values, 2)
        elif score_style == "constant":
            values[:] = 0.5
        return values.tolist()  # type: ignore[no-any-return]

    annotations: list[dict[str, Any]] = []
    results: list[dict[str, Any]] = []
    for image in images:
        n_gt = 0 if rng.random() < 0.15 else int(rng.integers(0, 10))  # some without any
        gt_boxes = boxes(n_gt)
        gt_categories = rng.choice(with_gt, n_gt).tolist()
        for bbox, category in zip(gt_boxes, gt_categories, strict=True):
            w, h = bbox[2], bbox[3]
            roll = rng.random()
            if roll < 0.1:
                area = float(rng.choice([32.0**2, 96.0**2]))  # on a range boundary
            elif roll < 0.5:
                area = w * h
            else:
                area = float(w * h * rng.uniform(0.3, 1.0))  # a mask's area
            annotations.append({
                "id": len(annotations) + 1, "image_id": image, "category_id": category,
                "bbox": bbox, "area": area, "iscrowd": int(rng.random() < crowd_rate),
            })
            if rng.random() < 0.1:  # a twin: equal IoU with both, the later one wins
                annotations.append(dict(annotations[-1], id=len(annotations) + 1,
                                        iscrowd=int(rng.random() < crowd_rate)))
            n_near = int(rng.poisson(1.5))  # detections near this object
            jitter = rng.normal(0.0, 0.08 * max(w, h), (n_near, 4))
            jitter[rng.random(n_near) < 0.2] = 0.0  # exact copies: IoU 1, ties between copies
            near = np.array(bbox) + jitter
            near[:, 2:] = np.maximum(near[:, 2:], 0.0)
            if integer_boxes:
                near = np.round(near)
            cats = np.where(rng.random(n_near) < 0.9, category, rng.choice(with_dt, n_near))
            for values, cat, value in zip(near.tolist(), cats.tolist(), scores(n_near),
                                          strict=True):
                if cat in with_dt:
                    results.append({"image_id": image, "category_id": cat, "bbox": values,
                                    "score": value})
        if rng.random() < 0.1:
            # Two side-by-side objects and a detection covering both (IoU 0.5 with each,
            # exactly): it takes the later one; a lower-scored detection on either follows.
            x, y = (float(v) for v in rng.integers(0, 300, 2))
            cat = int(rng.choice(with_gt))
            for dx in (0.0, 10.0):
                annotations.append({"id": len(annotations) + 1, "image_id": image,
                                    "category_id": cat, "bbox": [x + dx, y, 10.0, 10.0],
                                    "area": 100.0, "iscrowd": 0})
            if cat in with_dt:
                high = float(rng.uniform(0.5, 1.0))
                results.append({"image_id": image, "category_id": cat,
                                "bbox": [x, y, 20.0, 10.0], "score": high})
                results.append({"image_id": image, "category_id": cat,
                                "bbox": [x + float(rng.choice([0.0, 10.0])), y, 10.0, 10.0],
                                "score": high / 2})
        extra = int(rng.integers(0, 40))
        cats = rng.choice(with_dt, extra).tolist()
        if rng.random() < 0.08:  # more than 100 detections of one image and category
            extra += 150
            cats += [int(rng.choice(with_dt))] * 150
        for values, cat, value in zip(boxes(extra), cats, scores(extra), strict=True):
            results.append({"image_id": image, "category_id": cat, "bbox": values,
                            "score": value})
    order = rng.permutation(len(results))
    results = [results[i] for i in order]
    ground_truth = {
        "images": [{"id": image} for image in rng.permutation(np.array(images, dtype=object))],
        "categories": [{"id": c, "name": f"class{c}"} for c in categories],
        "annotations": annotations,
    }
    return ground_truth, results


def random_protocol(seed: int) -> COCOProtocol | None:
    """Every fourth case: non-default thresholds, max dets or area ranges."""
    rng = np.random.default_rng(seed + 10_000)
    if seed % 4:
        return None
    kind = seed // 4 % 3
    if kind == 0:
        return COCOProtocol(iou_thresholds=[0.3, 0.5, 0.75, 1.0], max_dets=(5, 20, 100))
    if kind == 1:
        return COCOProtocol(max_dets=(1, 3, int(rng.integers(50, 200))),
                            recall_thresholds=np.linspace(0, 1, 11))
    return COCOProtocol(area_ranges={"all": (0, 1e10), "small": (0, 500.0),
                                     "medium": (500.0, 5000.0), "large": (5000.0, 1e10)})


# -- pycocotools --------------------------------------------------------------------------------


def pycocotools_eval(ground_truth: dict[str, Any], results: list[dict[str, Any]],
                     protocol: COCOProtocol | None = None,
                     iou_type: str = "bbox") -> tuple[Any, str]:
    """pycocotools' COCOeval after evaluate, accumulate and summarize, and what it printed."""
    from pycocotools.coco import COCO
    from pycocotools.cocoeval import COCOeval

    with contextlib.redirect_stdout(io.StringIO()) as printed:
        gt = COCO()
        gt.dataset = copy.deepcopy(ground_truth)
        gt.createIndex()
        if results:
            dt = gt.loadRes(copy.deepcopy(results))
        else:  # loadRes cannot read an empty list; the same empty result set
            dt = COCO()
            dt.dataset = {"images": list(gt.dataset["images"]),
                          "categories": copy.deepcopy(gt.dataset["categories"]),
                          "annotations": []}
            dt.createIndex()
        evaluator = COCOeval(gt, dt, iou_type)
        if protocol is not None:
            evaluator.params.iouThrs = np.asarray(protocol.iou_thresholds)
            evaluator.params.recThrs = np.asarray(protocol.recall_thresholds)
            evaluator.params.maxDets = list(protocol.max_dets)
            evaluator.params.areaRng = [[lo, hi] for _, lo, hi in protocol.area_ranges]
            evaluator.params.areaRngLbl = list(protocol.area_labels)
        evaluator.evaluate()
        evaluator.accumulate()
        evaluator.summarize()
    return evaluator, printed.getvalue()


def summary_lines(printed: str) -> list[str]:
    return [line for line in printed.splitlines() if line.startswith(" Average")]


def assert_matches_pycocotools(ground_truth: dict[str, Any], results: list[dict[str, Any]],
                               protocol: COCOProtocol | None = None,
                               iou_type: str = "bbox") -> Any:
    reference, printed = pycocotools_eval(ground_truth, results, protocol, iou_type)
    ours = evaluate_coco(ground_truth, results, protocol=protocol, iou_type=iou_type)
    assert ours.precision.shape == reference.eval["precision"].shape
    # The issue asks for 1e-12; the arithmetic is pycocotools' own, so the arrays are
    # equal bit for bit (its eps in precision, 2.2e-16, is only visible this way).
    assert_array_equal(ours.precision, reference.eval["precision"])
    assert_array_equal(ours.recall, reference.eval["recall"])
    assert_array_equal(ours.scores, reference.eval["scores"])
    assert_allclose(ours.stats, reference.stats, rtol=0, atol=1e-12)
    assert ours.summary().splitlines() == summary_lines(printed)
    assert ours.categories.tolist() == list(reference.params.catIds)
    return ours


# -- the tests ----------------------------------------------------------------------------------


@pytest.mark.parametrize("seed", range(80))
def test_random_cases_equal_pycocotools(seed: int) -> None:
    ground_truth, results = random_case(seed)
    assert_matches_pycocotools(ground_truth, results, random_protocol(seed))


@pytest.mark.parametrize("seed", range(3))
def test_larger_cases_equal_pycocotools(seed: int) -> None:
    ground_truth, results = random_case(1000 + seed, max_images=120, max_categories=12)
    assert_matches_pycocotools(ground_truth, results)


def test_the_random_cases_cover_every_feature() -> None:
    """The generator does make the situations the tests claim to cover."""
    seen = {"crowd": 0, "empty_image": 0, "no_gt_category": 0, "no_dt_category": 0,
            "ties": 0, "over_100": 0, "boundary_area": 0, "string_ids": 0, "twins": 0}
    for seed in range(80):
        gt, dt = random_case(seed)
        anns = gt["annotations"]
        seen["crowd"] += any(a["iscrowd"] for a in anns)
        with_gt = {a["image_id"] for a in anns}
        seen["empty_image"] += any(i["id"] not in with_gt for i in gt["images"])
        gt_cats = {a["category_id"] for a in anns}
        dt_cats = {d["category_id"] for d in dt}
        seen["no_gt_category"] += any(c["id"] not in gt_cats for c in gt["categories"])
        seen["no_dt_category"] += any(c["id"] not in dt_cats for c in gt["categories"])
        scores = [d["score"] for d in dt]
        seen["ties"] += len(set(scores)) < len(scores)
        per_image: dict[Any, int] = {}
        for d in dt:
            key = (d["image_id"], d["category_id"])
            per_image[key] = per_image.get(key, 0) + 1
        seen["over_100"] += any(v > 100 for v in per_image.values())
        seen["boundary_area"] += any(a["area"] in (1024.0, 9216.0) for a in anns)
        seen["string_ids"] += isinstance(gt["images"][0]["id"], str)
        boxes = [(a["image_id"], a["category_id"], tuple(a["bbox"])) for a in anns]
        seen["twins"] += len(set(boxes)) < len(boxes)
    assert all(count >= 3 for count in seen.values()), seen


def test_faster_coco_eval_agrees_on_the_same_cases() -> None:
    from faster_coco_eval import COCO, COCOeval_faster

    compared = 0
    for seed in range(1, 40, 3):
        ground_truth, results = random_case(seed)
        if not results or isinstance(ground_truth["images"][0]["id"], str):
            continue  # loadRes needs a detection; faster-coco-eval needs integer ids
        compared += 1
        with contextlib.redirect_stdout(io.StringIO()):
            gt = COCO(copy.deepcopy(ground_truth))
            dt = gt.loadRes(copy.deepcopy(results))
            other = COCOeval_faster(gt, dt, "bbox")
            other.evaluate()
            other.accumulate()
            other.summarize()
        ours = evaluate_coco(ground_truth, results)
        assert_allclose(ours.precision, other.eval["precision"], rtol=0, atol=1e-12)
        assert_allclose(ours.recall, other.eval["recall"], rtol=0, atol=1e-12)
        assert_allclose(ours.stats, np.asarray(other.stats[:12]), rtol=0, atol=1e-12)
    assert compared >= 10


# -- hand-made edge cases -------------------------------------------------------------------


def _gt(annotations: list[dict[str, Any]], images: list[Any] | None = None,
        categories: list[int] | None = None) -> dict[str, Any]:
    image_ids = images if images is not None else sorted({a["image_id"] for a in annotations})
    category_ids = categories if categories is not None else sorted(
        {a["category_id"] for a in annotations})
    for i, a in enumerate(annotations):
        a.setdefault("id", i + 1)
        a.setdefault("iscrowd", 0)
        a.setdefault("area", a["bbox"][2] * a["bbox"][3])
    return {"images": [{"id": i} for i in image_ids],
            "categories": [{"id": c} for c in category_ids], "annotations": annotations}


def _dt(image: Any, category: int, bbox: list[float], score: float) -> dict[str, Any]:
    return {"image_id": image, "category_id": category, "bbox": bbox, "score": score}


def test_no_detections_at_all() -> None:
    gt = _gt([{"image_id": 1, "category_id": 1, "bbox": [0, 0, 10, 10]}])
    ours = assert_matches_pycocotools(gt, [])
    assert ours.stats[0] == 0.0


def test_categories_absent_from_ground_truth_are_minus_one() -> None:
    gt = _gt([{"image_id": 1, "category_id": 1, "bbox": [0, 0, 10, 10]}], categories=[1, 2, 3])
    dt = [_dt(1, 1, [0, 0, 10, 10], 0.9), _dt(1, 2, [0, 0, 10, 10], 0.8)]
    ours = assert_matches_pycocotools(gt, dt)
    assert (ours.precision[:, :, 1:] == -1).all()
    assert (ours.recall[:, 1:] == -1).all()


def test_only_crowd_ground_truth_is_minus_one() -> None:
    gt = _gt([{"image_id": 1, "category_id": 1, "bbox": [0, 0, 100, 100], "iscrowd": 1}])
    dt = [_dt(1, 1, [i, i, 10, 10], 0.9 - i / 100) for i in range(5)]
    ours = assert_matches_pycocotools(gt, dt)
    assert (ours.precision == -1).all()


def test_a_crowd_absorbs_many_detections() -> None:
    # One object and a crowd around it: detections inside the crowd are ignored, not FP.
    gt = _gt([{"image_id": 1, "category_id": 1, "bbox": [0, 0, 10, 10]},
              {"image_id": 1, "category_id": 1, "bbox": [50, 50, 100, 100], "iscrowd": 1}])
    dt = [_dt(1, 1, [60 + i, 60, 10, 10], 0.9 - i / 100) for i in range(5)]
    dt.append(_dt(1, 1, [0, 0, 10, 10], 0.5))
    ours = assert_matches_pycocotools(gt, dt)
    assert ours.stats[1] == pytest.approx(1.0, abs=1e-12)


def test_equal_iou_goes_to_the_later_ground_truth() -> None:
    # The first detection covers both objects (IoU 0.5 with each) and takes the later one;
    # the second, on the first object only, is then a TP too (2 TPs at IoU 0.5).
    gt = _gt([{"image_id": 1, "category_id": 1, "bbox": [0, 0, 10, 10]},
              {"image_id": 1, "category_id": 1, "bbox": [10, 0, 10, 10]}])
    dt = [_dt(1, 1, [0, 0, 20, 10], 0.9), _dt(1, 1, [0, 0, 10, 10], 0.8)]
    ours = assert_matches_pycocotools(gt, dt)
    assert ours.recall[0, 0, 0, 2] == 1.0


def test_more_than_max_dets_per_image_and_category() -> None:
    gt = _gt([{"image_id": i, "category_id": 1, "bbox": [0, 0, 10, 10]} for i in (1, 2)])
    dt = [_dt(1, 1, [100 + j, 0, 10, 10], 0.99 - j / 1000) for j in range(150)]
    dt += [_dt(1, 1, [0, 0, 10, 10], 0.01), _dt(2, 1, [0, 0, 10, 10], 0.5)]
    ours = assert_matches_pycocotools(gt, dt)
    assert ours.state.n_detections == 101  # 100 kept in image 1, 1 in image 2


def test_zero_size_boxes() -> None:
    gt = _gt([{"image_id": 1, "category_id": 1, "bbox": [0, 0, 0, 10]},
              {"image_id": 1, "category_id": 1, "bbox": [5, 5, 10, 10]}])
    dt = [_dt(1, 1, [0, 0, 0, 10], 0.9), _dt(1, 1, [5, 5, 10, 0], 0.8),
          _dt(1, 1, [5, 5, 10, 10], 0.7)]
    assert_matches_pycocotools(gt, dt)


def test_string_image_ids() -> None:
    gt = _gt([{"image_id": "b.jpg", "category_id": 1, "bbox": [0, 0, 10, 10]},
              {"image_id": "a.jpg", "category_id": 1, "bbox": [0, 0, 10, 10]}])
    dt = [_dt("a.jpg", 1, [0, 0, 10, 10], 0.5), _dt("b.jpg", 1, [50, 0, 10, 10], 0.5)]
    assert_matches_pycocotools(gt, dt)


def test_tied_scores_across_images_follow_image_id_order() -> None:
    # The tie order decides the precision array; pycocotools orders ties by image id.
    gt = _gt([{"image_id": i, "category_id": 1, "bbox": [0, 0, 10, 10]} for i in (3, 1, 2)])
    dt = [_dt(3, 1, [0, 0, 10, 10], 0.5), _dt(1, 1, [50, 0, 10, 10], 0.5),
          _dt(2, 1, [0, 0, 10, 10], 0.5), _dt(2, 1, [60, 0, 10, 10], 0.5)]
    assert_matches_pycocotools(gt, dt)


def test_iou_threshold_of_one_is_capped() -> None:
    gt = _gt([{"image_id": 1, "category_id": 1, "bbox": [0, 0, 10, 10]}])
    dt = [_dt(1, 1, [0, 0, 10, 10], 0.9)]
    ours = assert_matches_pycocotools(gt, dt, COCOProtocol(iou_thresholds=[0.5, 1.0]))
    assert (ours.recall[1, 0, 0] == 1.0).all()


def test_unmatched_detections_outside_an_area_range_are_ignored() -> None:
    gt = _gt([{"image_id": 1, "category_id": 1, "bbox": [0, 0, 10, 10]}])  # small
    dt = [_dt(1, 1, [100, 100, 200, 200], 0.9), _dt(1, 1, [0, 0, 10, 10], 0.8)]
    ours = assert_matches_pycocotools(gt, dt)
    small = ours.protocol.area_labels.index("small")
    assert ours.precision[0, 0, 0, small, 2] == pytest.approx(1.0)  # the large FP ignored


def test_annotation_id_zero_is_matched_unlike_pycocotools() -> None:
    # pycocotools stores the matched ground truth's id as the match flag, so a match to
    # id 0 reads as "unmatched": a documented difference (docs/detection.md).
    gt = _gt([{"id": 0, "image_id": 1, "category_id": 1, "bbox": [0, 0, 10, 10]}])
    dt = [_dt(1, 1, [0, 0, 10, 10], 0.9)]
    reference, _ = pycocotools_eval(gt, dt)
    assert reference.stats[0] == 0.0
    assert evaluate_coco(gt, dt).stats[0] == pytest.approx(1.0, abs=1e-15)
