"""COCO's accumulate for every category at once (prcurve.detection.coco_tables, issue 26
item 2): its pieces against slow oracles, and the whole against pycocotools bit for bit on
the shapes the per-category loop was slow on (many categories with few boxes each), in
blocks of one category, of several and of all."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from numpy.testing import assert_array_equal
from tests.test_detection_coco import assert_matches_pycocotools, random_case
from tests.traced import traced

from prcurve.detection import coco_tables
from prcurve.detection.protocol import COCOProtocol

COCO_RECALL = np.asarray(COCOProtocol().recall_thresholds)


def test_recall_steps_equal_the_search_of_every_count_up_to_3000() -> None:
    counts = np.arange(1, 3001)
    ours = coco_tables.recall_steps(counts, COCO_RECALL)
    for n in counts.tolist():  # the one-count search the loop did (np.searchsorted)
        expected = np.searchsorted(np.arange(n + 1) / n, COCO_RECALL, side="left")
        assert_array_equal(ours[n - 1], expected)


@given(st.lists(st.integers(1, 10**5), min_size=1, max_size=10),
       st.lists(st.floats(0.0, 1.0), min_size=1, max_size=30))
def test_recall_steps_equal_the_search_for_any_thresholds(counts: list[int],
                                                          thresholds: list[float]) -> None:
    r = np.sort(np.asarray(thresholds))
    ours = coco_tables.recall_steps(np.asarray(counts), r)
    for i, n in enumerate(counts):
        # the least c with c / n >= r, by the float division pycocotools does
        c = np.searchsorted(np.arange(n + 1) / n, r, side="left")
        assert_array_equal(ours[i], c)


@given(st.lists(st.tuples(st.integers(0, 4), st.floats(0.0, 1.0)), max_size=60))
def test_segmented_reverse_max_is_the_maximum_from_each_entry_on(
        entries: list[tuple[int, float]]) -> None:
    entries.sort(key=lambda e: e[0])  # keys sorted; values in any order within a key
    key = np.array([k for k, _ in entries], dtype=np.int64)
    values = np.array([v for _, v in entries], dtype=np.float64)
    ours = coco_tables.segmented_reverse_max(values, key)
    expected = [max(v for k2, v in entries[i:] if k2 == k) for i, (k, _) in enumerate(entries)]
    assert ours.tolist() == expected  # exact: a maximum picks one of the values


def _few_boxes(seed: int, categories: int = 80) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """Shape (a) of issue 26's item 2, small: many categories, one or two boxes each, some
    categories without ground truth or without detections, crowds, tied scores."""
    rng = np.random.default_rng(seed)
    images = [{"id": i, "width": 640, "height": 480} for i in range(1, 31)]
    annotations, results = [], []
    for image in range(1, 31):
        for _ in range(int(rng.poisson(1.5))):
            w, h = (float(v) for v in rng.uniform(4, 200, 2))
            box = [float(rng.uniform(0, 640 - w)), float(rng.uniform(0, 480 - h)), w, h]
            c = int(rng.integers(1, categories + 1))
            annotations.append({"id": len(annotations) + 1, "image_id": image,
                                "category_id": c, "bbox": box, "area": w * h * 0.7,
                                "iscrowd": int(rng.random() < 0.05)})
            for _ in range(int(rng.integers(0, 3))):
                noisy = [v + float(rng.normal(0, 3)) for v in box[:2]] + box[2:]
                results.append({"image_id": image, "category_id": c, "bbox": noisy,
                                "score": round(float(rng.random()), 2)})
        for _ in range(int(rng.integers(0, 4))):
            w, h = (float(v) for v in rng.uniform(4, 100, 2))
            results.append({"image_id": image, "category_id": int(rng.integers(1, categories)),
                            "bbox": [float(rng.uniform(0, 500)), float(rng.uniform(0, 400)),
                                     w, h], "score": round(float(rng.random()), 2)})
    categories_list = [{"id": c, "name": f"c{c}"} for c in range(1, categories + 1)]
    return {"images": images, "annotations": annotations, "categories": categories_list}, results


def _many_boxes(seed: int) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """Shapes (b) and (c) of issue 26's item 2, small: one category, 150 detections an
    image (the cut to maxDets 100 decides what counts), 20% crowds with an uncompressed-RLE
    segmentation, an ``ignore`` field on some others (pycocotools overwrites it by
    ``iscrowd``), 17-digit boxes and scores."""
    rng = np.random.default_rng(seed)
    images = [{"id": i, "width": 640, "height": 480} for i in range(1, 9)]
    annotations, results = [], []
    for image in range(1, 9):
        boxes = []
        for _ in range(int(rng.poisson(12))):
            w, h = (float(v) for v in rng.uniform(4, 150, 2))
            box = [float(rng.uniform(0, 640 - w)), float(rng.uniform(0, 480 - h)), w, h]
            crowd = int(rng.random() < 0.2)
            annotation: dict[str, Any] = {"id": len(annotations) + 1, "image_id": image,
                                          "category_id": 1, "bbox": box, "area": w * h,
                                          "iscrowd": crowd}
            if crowd:
                annotation["segmentation"] = {"size": [480, 640], "counts": [1000, 50, 306150]}
            elif rng.random() < 0.1:
                annotation["ignore"] = 1
            annotations.append(annotation)
            boxes.append(box)
        for _ in range(150):
            if boxes and rng.random() < 0.5:
                base = boxes[int(rng.integers(len(boxes)))]
                box = [v + float(rng.normal(0, 4)) for v in base[:2]] + base[2:]
            else:
                box = [float(rng.uniform(0, 500)), float(rng.uniform(0, 400)),
                       float(rng.uniform(4, 100)), float(rng.uniform(4, 100))]
            results.append({"image_id": image, "category_id": 1, "bbox": box,
                            "score": float(rng.random())})
    return {"images": images, "annotations": annotations,
            "categories": [{"id": 1, "name": "one"}]}, results


@pytest.mark.parametrize("cells", [1, coco_tables.BLOCK_CELLS])
@pytest.mark.parametrize("seed", range(2))
def test_accumulate_equals_pycocotools_on_one_category_of_many_boxes(
        monkeypatch: pytest.MonkeyPatch, cells: int, seed: int) -> None:
    monkeypatch.setattr(coco_tables, "BLOCK_CELLS", cells)
    assert_matches_pycocotools(*_many_boxes(seed))


@pytest.mark.parametrize("cells", [1, 3 * 4040 + 7, coco_tables.BLOCK_CELLS, 1 << 24])
@pytest.mark.parametrize("seed", range(3))
def test_accumulate_in_any_blocks_equals_pycocotools_on_many_categories(
        monkeypatch: pytest.MonkeyPatch, cells: int, seed: int) -> None:
    # 1: a block a category; 3 categories and a bit; the default (16); all 80 at once.
    monkeypatch.setattr(coco_tables, "BLOCK_CELLS", cells)
    assert_matches_pycocotools(*_few_boxes(seed))


@pytest.mark.parametrize("seed", [3, 11, 27])
def test_accumulate_in_blocks_of_one_category_equals_pycocotools_on_random_cases(
        monkeypatch: pytest.MonkeyPatch, seed: int) -> None:
    monkeypatch.setattr(coco_tables, "BLOCK_CELLS", 1)
    assert_matches_pycocotools(*random_case(seed))


def test_accumulate_holds_small_tables_whatever_the_categories() -> None:
    # 300 categories: the outputs are (T, R, K, A, M) arrays of 29 MB each; what
    # accumulate holds beside them is a few blocks of 2^16 cells (512 KiB), not tables
    # of every category at once (8 bytes x 1.2 * 10^6 cells, 9.7 MB, each).
    from prcurve.detection.coco import SortedRecords, accumulate
    from prcurve.detection.evaluate import as_detections, as_ground_truth
    from prcurve.detection.state import DetectionState

    ground_truth, results = _few_boxes(0, categories=300)
    protocol = COCOProtocol()
    state = DetectionState.from_batch(as_ground_truth(ground_truth), as_detections(results),
                                      protocol)
    records = SortedRecords.from_state(state)
    (precision, recall, scores), _, peak = traced(lambda: accumulate(records, protocol))
    outputs = precision.nbytes + recall.nbytes + scores.nbytes
    assert peak - outputs < 16 * 2**20
