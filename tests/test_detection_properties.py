"""Detection properties: order invariance, merging batches, the evaluation loop, the views.

- Permuting images, categories, annotations across images and detections
  (keeping the relative order of detections that tie within an image and
  category, and of ground truth within an image and category, which decide
  COCO's ties) changes nothing.
- Merging the states of any split of the images, in any order, equals
  evaluating all of them at once; so does the ``update``/``compute`` loop with
  per-image dicts.
- The per-category curves are the count state of the same detections: with
  distinct scores, their interpolated precision at COCO's recall levels is
  COCO's precision array.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from numpy.testing import assert_array_equal
from tests.test_detection_coco import random_case

from prcurve import ThresholdCounts
from prcurve.detection import (
    DetectionEvaluator,
    Detections,
    DetectionState,
    GroundTruth,
    VOCProtocol,
    _sorting,
    evaluate_coco,
    evaluate_voc,
)
from prcurve.errors import InvalidInputError


def _group_preserving_shuffle(items: list[dict[str, Any]], key: Any,
                              rng: np.random.Generator) -> list[dict[str, Any]]:
    """A random order in which items with equal ``key(item)`` keep their relative order."""
    order = rng.permutation(len(items))
    shuffled = [items[i] for i in order]
    groups: dict[Any, list[dict[str, Any]]] = {}
    for item in items:
        groups.setdefault(key(item), []).append(item)
    cursor = dict.fromkeys(groups, 0)
    out = []
    for item in shuffled:
        k = key(item)
        out.append(groups[k][cursor[k]])
        cursor[k] += 1
    return out


def assert_same_evaluation(a: Any, b: Any) -> None:
    assert_array_equal(a.precision, b.precision)
    assert_array_equal(a.recall, b.recall)
    assert_array_equal(a.scores, b.scores)
    assert_array_equal(a.stats, b.stats)


@settings(max_examples=25, deadline=None)
@given(case=st.integers(0, 79), seed=st.integers(0, 2**32 - 1))
def test_permuting_images_and_detections_changes_nothing(case: int, seed: int) -> None:
    ground_truth, results = random_case(case)
    rng = np.random.default_rng(seed)
    permuted_gt = {
        "images": [ground_truth["images"][i] for i in rng.permutation(len(
            ground_truth["images"]))],
        "categories": [ground_truth["categories"][i] for i in rng.permutation(len(
            ground_truth["categories"]))],
        "annotations": _group_preserving_shuffle(
            ground_truth["annotations"], lambda a: (a["image_id"], a["category_id"]), rng),
    }
    permuted_results = _group_preserving_shuffle(
        results, lambda d: (d["image_id"], d["category_id"], d["score"]), rng)
    assert_same_evaluation(evaluate_coco(ground_truth, results),
                           evaluate_coco(permuted_gt, permuted_results))


@settings(max_examples=25, deadline=None)
@given(case=st.integers(0, 79), seed=st.integers(0, 2**32 - 1), parts=st.integers(1, 6))
def test_merging_batch_states_equals_evaluating_all_at_once(case: int, seed: int,
                                                            parts: int) -> None:
    ground_truth, results = random_case(case)
    gt, dt = GroundTruth.from_coco(ground_truth), Detections.from_coco(results)
    assert gt.images is not None
    rng = np.random.default_rng(seed)
    assignment = rng.integers(0, parts, gt.images.shape[0])
    states = [DetectionState.from_batch(gt.for_images(gt.images[assignment == p]),
                                        dt.for_images(gt.images[assignment == p]))
              for p in range(parts)]
    order = rng.permutation(parts)
    merged = states[order[0]]
    for p in order[1:]:
        merged = merged.merge(states[p])
    assert_same_evaluation(evaluate_coco(gt, dt), merged.compute())


def test_voc_states_merge_too() -> None:
    ground_truth, results = random_case(5)
    gt, dt = GroundTruth.from_coco(ground_truth), Detections.from_coco(results)
    assert gt.images is not None
    half = gt.images[: gt.images.shape[0] // 2]
    rest = gt.images[gt.images.shape[0] // 2:]
    protocol = VOCProtocol()
    a = DetectionState.from_batch(gt.for_images(half), dt.for_images(half), protocol)
    b = DetectionState.from_batch(gt.for_images(rest), dt.for_images(rest), protocol)
    merged = b.merge(a).compute()
    whole = evaluate_voc(gt, dt)
    np.testing.assert_array_equal(merged.ap, whole.ap)


def _per_image(ground_truth: dict[str, Any], results: list[dict[str, Any]]) -> tuple[
        list[dict[str, Any]], list[dict[str, Any]]]:
    """torchmetrics-style lists: one dict per image, boxes as xyxy."""
    targets, predictions = [], []
    for image in ground_truth["images"]:
        anns = [a for a in ground_truth["annotations"] if a["image_id"] == image["id"]]
        dets = [d for d in results if d["image_id"] == image["id"]]
        xyxy = [[x, y, x + w, y + h] for x, y, w, h in (a["bbox"] for a in anns)]
        targets.append({"image_id": image["id"], "boxes": np.array(xyxy).reshape(-1, 4),
                        "labels": [a["category_id"] for a in anns],
                        "iscrowd": [a["iscrowd"] for a in anns],
                        "area": [a["area"] for a in anns]})
        dxyxy = [[x, y, x + w, y + h] for x, y, w, h in (d["bbox"] for d in dets)]
        predictions.append({"boxes": np.array(dxyxy).reshape(-1, 4),
                            "scores": [d["score"] for d in dets],
                            "labels": [d["category_id"] for d in dets]})
    return targets, predictions


@pytest.mark.parametrize("case", [0, 3, 7, 12])
def test_the_update_compute_loop_equals_one_evaluation(case: int) -> None:
    ground_truth, results = random_case(case)
    # Integer coordinates: xyxy -> xywh is exact, so the IoUs are the same numbers.
    def integer(box: list[float]) -> list[float]:
        return [float(round(v)) for v in box]
    ground_truth = dict(ground_truth, annotations=[dict(a, bbox=integer(a["bbox"]))
                                                   for a in ground_truth["annotations"]])
    results = [dict(d, bbox=integer(d["bbox"])) for d in results]
    targets, predictions = _per_image(ground_truth, results)
    metric = DetectionEvaluator("coco", box_format="xyxy",
                                categories=[c["id"] for c in ground_truth["categories"]])
    for start in range(0, len(targets), 4):
        metric.update(targets[start:start + 4], predictions[start:start + 4])
    result = metric.compute()
    assert_same_evaluation(evaluate_coco(ground_truth, results), result)


def test_an_image_in_two_batches_is_an_error() -> None:
    metric = DetectionEvaluator()
    target = [{"image_id": 7, "boxes": [[0, 0, 5, 5]], "labels": [1]}]
    prediction = [{"boxes": [[0, 0, 5, 5]], "scores": [0.5], "labels": [1]}]
    metric.update(target, prediction)
    with pytest.raises(InvalidInputError, match="already evaluated"):
        metric.update(target, prediction)


def test_unnamed_images_are_numbered_across_batches() -> None:
    metric = DetectionEvaluator(box_format="xyxy")
    target = [{"boxes": [[0, 0, 5, 5]], "labels": [1]}]
    prediction = [{"boxes": [[0, 0, 5, 5]], "scores": [0.5], "labels": [1]}]
    metric.update(target, prediction)
    metric.update(target, prediction)
    result = metric.compute()
    assert result.images.tolist() == [0, 1]
    assert result.stats[1] == pytest.approx(1.0)


def test_two_evaluators_merge() -> None:
    ground_truth, results = random_case(9)
    gt, dt = GroundTruth.from_coco(ground_truth), Detections.from_coco(results)
    assert gt.images is not None
    a, b = DetectionEvaluator(), DetectionEvaluator()
    a.update(gt.for_images(gt.images[::2]), dt.for_images(gt.images[::2]))
    b.update(gt.for_images(gt.images[1::2]), dt.for_images(gt.images[1::2]))
    a.merge(b)
    assert_same_evaluation(evaluate_coco(gt, dt), a.compute())


@pytest.mark.parametrize("case", range(0, 30, 2))
def test_category_curves_are_the_count_state_of_the_matched_detections(case: int) -> None:
    ground_truth, results = random_case(case)
    rng = np.random.default_rng(case)
    results = [dict(d, score=float(rng.random())) for d in results]  # distinct scores
    evaluation = evaluate_coco(ground_truth, results)
    for k, category in enumerate(evaluation.categories.tolist()):
        if evaluation.n_pos[k, 0] == 0:
            continue
        for t, iou in ((0, 0.5), (5, 0.75)):
            curve = evaluation.curve(category, iou_threshold=iou)
            coco_ap = evaluation.precision[t, :, k, 0, -1].mean()
            # COCO's recall levels are numpy.linspace(0, 1, 101), one ulp above k / 100 at
            # 0.35, 0.41, ...; prcurve's "101point" uses k / 100, and a recall within
            # SUM_TOLERANCE (1e-10) below a level reaches it (docs/definitions.md). At every
            # COCO level no recall lies just below, the curve's interpolated precision is
            # COCO's precision (up to COCO's eps, 2.2e-16).
            levels = np.asarray(evaluation.protocol.recall_thresholds)
            coco = evaluation.precision[t, :, k, 0, -1]
            ours = curve.interpolated_precision(levels)
            recall = np.asarray(curve.recall)
            clear = np.array([not np.any((recall < level) & (recall >= level - 1e-10))
                              for level in levels])
            assert clear.sum() >= 90
            np.testing.assert_allclose(ours[clear], coco[clear], rtol=0, atol=1e-12)
            if clear.all():
                assert ours.mean() == pytest.approx(coco_ap, abs=1e-12)
            exact = curve.interpolated_precision(np.arange(101) / 100).mean()
            assert curve.average_precision("101point") == pytest.approx(exact, abs=1e-15)
            assert curve.n_pos == evaluation.n_pos[k, 0]
            final = float(curve.recall[-1]) if len(curve) else 0.0
            assert final == pytest.approx(evaluation.recall[t, k, 0, -1], abs=1e-15)
            # The same state rebuilt from scores and labels (found positives only).
            counts = curve.counts
            labels = np.repeat([1, 0] * len(counts), np.ravel(np.c_[
                counts.pos_weight(), counts.neg_weight()]).astype(int))
            scores = np.repeat(np.repeat(counts.thresholds, 2), np.ravel(np.c_[
                counts.pos_weight(), counts.neg_weight()]).astype(int))
            rebuilt = ThresholdCounts.from_scores(labels, scores) if labels.shape[0] else None
            if rebuilt is not None:
                assert_array_equal(rebuilt.tp, counts.tp)
                assert_array_equal(rebuilt.fp, counts.fp)


def test_best_f_is_the_curves_best_f() -> None:
    evaluation = evaluate_coco(*random_case(4))
    table = evaluation.best_f(iou_threshold=0.5)
    for k, category in enumerate(evaluation.categories.tolist()):
        if evaluation.n_pos[k, 0] == 0 or not len(evaluation.curve(category)):
            assert np.isnan(table["threshold"][k])
            continue
        best = evaluation.curve(category).best_f()
        assert table["threshold"][k] == best.threshold
        assert table["f1"][k] == best.value


@pytest.mark.parametrize("fallback", [False, True])
def test_packed_sorts_equal_lexsort(fallback: bool, monkeypatch: pytest.MonkeyPatch) -> None:
    if fallback:
        monkeypatch.setattr(_sorting, "_LIMIT", 1)
    rng = np.random.default_rng(0)
    a = rng.integers(0, 5, 1000).astype(np.int64)
    b = rng.integers(0, 7, 1000).astype(np.int64)
    assert_array_equal(_sorting.stable_order([(a, 5), (b, 7)]), np.lexsort((b, a)))
    c = rng.permutation(1000).astype(np.int64)
    order, inverse = _sorting.unique_order([(a, 5), (c, 1000)])
    assert_array_equal(order, np.lexsort((c, a)))
    assert_array_equal(inverse[order], np.arange(1000))
    scores = rng.random(50).round(1)
    rank, size = _sorting.descending_rank(scores)
    assert size == np.unique(scores).shape[0]
    assert_array_equal(rank, size - 1 - np.searchsorted(np.unique(scores), scores))
