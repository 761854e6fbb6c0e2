"""prcurve.detection.masks against pycocotools.mask, bit for bit (never skipped)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pycocotools.mask as coco_mask
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from prcurve.detection import masks
from prcurve.errors import InvalidInputError

# pycocotools' decode (Cython) has an __array__ without numpy 2's copy keyword.
pytestmark = pytest.mark.filterwarnings(
    "ignore:__array__ implementation doesn't accept a copy keyword:DeprecationWarning")


@st.composite
def mask_stacks(draw: Any) -> np.ndarray:
    """Random binary masks (h, w, n), Fortran order, with empty and full ones."""
    h = draw(st.integers(1, 24))
    w = draw(st.integers(1, 24))
    n = draw(st.integers(1, 4))
    seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    kind = draw(st.sampled_from(["random", "blobs", "empty", "full"]))
    if kind == "empty":
        stack = np.zeros((h, w, n), dtype=np.uint8)
    elif kind == "full":
        stack = np.ones((h, w, n), dtype=np.uint8)
    elif kind == "random":
        stack = (rng.random((h, w, n)) < rng.random()).astype(np.uint8)
    else:
        stack = np.zeros((h, w, n), dtype=np.uint8)
        for i in range(n):
            for _ in range(rng.integers(1, 4)):
                y, x = rng.integers(0, h), rng.integers(0, w)
                stack[y:y + rng.integers(1, h + 1), x:x + rng.integers(1, w + 1), i] = 1
    return np.asfortranarray(stack)


@given(mask_stacks())
def test_encode_decode_area_bbox_equal_pycocotools(stack: np.ndarray) -> None:
    theirs = coco_mask.encode(stack)
    ours = masks.encode(stack)
    assert ours == theirs
    assert np.array_equal(masks.decode(ours), coco_mask.decode(theirs))
    assert np.array_equal(masks.area(ours), coco_mask.area(theirs))
    assert np.array_equal(masks.to_bbox(ours), coco_mask.toBbox(theirs))
    # One mask (2-D) gives one RLE, as pycocotools' wrapper does.
    assert masks.encode(stack[:, :, 0]) == coco_mask.encode(np.asfortranarray(stack[:, :, :1]))[0]


@given(mask_stacks(), st.booleans())
def test_merge_equals_pycocotools(stack: np.ndarray, intersect: bool) -> None:
    rles = coco_mask.encode(stack)
    assert masks.merge(rles, intersect) == coco_mask.merge(rles, intersect)


@given(mask_stacks(), st.integers(0, 2**32 - 1))
def test_iou_with_crowds_equals_pycocotools(stack: np.ndarray, seed: int) -> None:
    rles = coco_mask.encode(stack)
    rng = np.random.default_rng(seed)
    crowd = rng.integers(0, 2, len(rles))
    detections = rles[::-1]
    expected = np.asarray(coco_mask.iou(detections, rles, crowd))
    assert np.array_equal(masks.iou(detections, rles, crowd), expected)


@st.composite
def polygons(draw: Any) -> tuple[list[list[float]], int, int]:
    """Polygons on an h x w image: vertices on pixel edges, halves, outside the image."""
    h = draw(st.integers(1, 40))
    w = draw(st.integers(1, 40))
    seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(draw(st.integers(1, 3))):
        k = int(rng.integers(3, 12))
        scale = np.array([w, h] * k, dtype=np.float64)
        xy = rng.random(2 * k) * scale * 1.6 - 0.3 * scale
        grid = draw(st.sampled_from(["free", "integer", "half", "edge", "repeat"]))
        if grid == "integer":
            xy = np.round(xy)
        elif grid == "half":
            xy = np.round(xy * 2) / 2
        elif grid == "edge":
            xy = np.round(xy) - 0.5
        elif grid == "repeat":
            xy[2:4] = xy[0:2]
        out.append(xy.tolist())
    return out, h, w


@given(polygons())
def test_polygons_rasterized_as_pycocotools(case: tuple[list[list[float]], int, int]) -> None:
    polys, h, w = case
    theirs = coco_mask.frPyObjects(polys, h, w)
    ours = masks.from_polygons(polys, h, w)
    assert ours == theirs
    assert masks.from_objects(polys, h, w) == theirs
    assert masks.merge(ours) == coco_mask.merge(theirs)


@given(st.integers(1, 30), st.integers(1, 30), st.integers(0, 2**32 - 1))
def test_boxes_rasterized_as_pycocotools(h: int, w: int, seed: int) -> None:
    rng = np.random.default_rng(seed)
    boxes = rng.random((3, 4)) * [w, h, w, h] * 1.2 - [1, 1, 0, 0]
    boxes[:, 2:] = np.abs(boxes[:, 2:])
    assert masks.from_boxes(boxes, h, w) == coco_mask.frPyObjects(boxes, h, w)


@given(mask_stacks())
def test_uncompressed_counts_round_trip(stack: np.ndarray) -> None:
    for rle in coco_mask.encode(stack):
        counts = masks.counts_from_string(rle["counts"])
        assert masks.counts_to_string(counts) == rle["counts"]
        plain = {"size": rle["size"], "counts": counts.tolist()}
        assert masks.from_objects(plain, *rle["size"]) == coco_mask.frPyObjects(plain,
                                                                                  *rle["size"])


@settings(max_examples=10)
@given(st.integers(0, 2**32 - 1))
def test_large_masks_codec(seed: int) -> None:
    rng = np.random.default_rng(seed)
    h, w = (int(v) for v in rng.integers(400, 1200, 2))
    stack = np.zeros((h, w, 1), dtype=np.uint8, order="F")
    for _ in range(6):
        y, x = rng.integers(0, h), rng.integers(0, w)
        stack[y:y + rng.integers(1, 500), x:x + rng.integers(1, 500), 0] = 1
    assert masks.encode(stack) == coco_mask.encode(stack)


def test_iou_of_boxes_delegates_to_box_iou() -> None:
    d = np.array([[0.0, 0, 2, 2]])
    g = np.array([[1.0, 0, 2, 2], [1.0, 0, 2, 2]])
    assert np.array_equal(masks.iou(d, g, [0, 1]), coco_mask.iou(d, g, [0, 1]))


@pytest.mark.parametrize(("call", "argument", "says"), [
    (lambda: masks.decode({"size": [2, 2], "counts": [1, 2]}), "rles", "add up to 3 pixels"),
    (lambda: masks.area({"size": [2], "counts": [4]}), "rles", "'size' is [2]"),
    (lambda: masks.decode({"size": [2, 2], "counts": "!!"}), "rles", "compressed"),
    (lambda: masks.from_polygons([[0, 0, 1, 1]], 3, 3), "polygons", "at least 3 points"),
    (lambda: masks.from_polygons([[0, 0, 1, 1, 2]], 3, 3), "polygons", "even count"),
    (lambda: masks.iou([{"size": [2, 2], "counts": [4]}], [{"size": [3, 2], "counts": [6]}]),
     "ground_truth", "mask 0 is 3x2"),
    (lambda: masks.encode(np.full((2, 2), 2)), "masks", "0 and 1"),
])
def test_bad_masks_are_refused_clearly(call: Any, argument: str, says: str) -> None:
    with pytest.raises(InvalidInputError) as error:
        call()
    assert error.value.argument == argument
    assert says in str(error.value)
