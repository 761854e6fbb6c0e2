"""The batch run-length kernels of prcurve.detection.rle, many masks at once, against
pycocotools.mask and slow readable oracles (maskApi.c transliterated), across chunk cuts."""

from __future__ import annotations

from typing import Any

import numpy as np
import pycocotools.mask as coco_mask
import pytest
from hypothesis import given
from hypothesis import strategies as st

from prcurve.detection import rle, rle_strings

# pycocotools' decode (Cython) has an __array__ without numpy 2's copy keyword.
pytestmark = pytest.mark.filterwarnings(
    "ignore:__array__ implementation doesn't accept a copy keyword:DeprecationWarning")


def fr_string(s: bytes) -> list[int] | None:
    """maskApi.c ``rleFrString``, one character at a time (None: malformed, as prcurve
    refuses it: a character outside '0'..'o', an open value, more than 8 groups)."""
    counts: list[int] = []
    p = 0
    while p < len(s):
        x, k, more = 0, 0, True
        while more:
            if p >= len(s) or k >= 8 or not 48 <= s[p] <= 111:
                return None
            c = s[p] - 48
            x |= (c & 0x1F) << (5 * k)
            more = bool(c & 0x20)
            p += 1
            k += 1
            if not more and (c & 0x10):
                x |= -1 << (5 * k)
        if len(counts) > 2:
            x += counts[-2]
        counts.append(x & 0xFFFFFFFF)
    return counts


def foreground_runs(counts: list[int]) -> list[tuple[int, int]]:
    """[start, end) of each non-empty odd run, walking the run lengths."""
    out, position = [], 0
    for j, c in enumerate(counts):
        if j % 2 == 1 and c > 0:
            out.append((position, position + c))
        position += c
    return out


@st.composite
def run_lengths(draw: Any) -> tuple[list[int], int, int]:
    """Run lengths covering an h x w grid, zero-length runs anywhere (not canonical)."""
    h = draw(st.integers(0, 12))
    w = draw(st.integers(0, 12))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    cuts = np.sort(rng.integers(0, h * w + 1, int(rng.integers(0, 12))))
    counts = np.diff(np.concatenate(([0], cuts, [h * w]))).tolist()
    if draw(st.booleans()):
        counts = counts[:-1] + [0] * int(rng.integers(0, 3)) + counts[-1:]
    return counts, h, w


@given(st.lists(run_lengths(), min_size=1, max_size=6), st.sampled_from([1, 3, 1 << 20]))
def test_mask_set_runs_areas_boxes(masks: list[tuple[list[int], int, int]], chunk: int) -> None:
    original = rle._CHUNK_RUNS
    rle._CHUNK_RUNS = chunk
    try:
        got = rle.MaskSet.of([np.array(c, dtype=np.uint32) for c, _, _ in masks],
                             [(h, w) for _, h, w in masks])
    finally:
        rle._CHUNK_RUNS = original
    for i, (counts, h, w) in enumerate(masks):
        theirs = coco_mask.frPyObjects({"size": [h, w], "counts": counts}, h, w)
        lo, hi = got.offset[i], got.offset[i + 1]
        assert list(zip(got.start[lo:hi].tolist(), got.end[lo:hi].tolist(),
                        strict=True)) == foreground_runs(counts)
        assert got.area[i] == coco_mask.area(theirs)
        assert np.array_equal(got.box[i], coco_mask.toBbox(theirs))


@given(st.lists(run_lengths(), min_size=1, max_size=8), st.sampled_from([1, 7, 1 << 20]),
       st.integers(0, 2**32 - 1))
def test_strings_decoded_together(masks: list[tuple[list[int], int, int]], chunk: int,
                                  seed: int) -> None:
    rng = np.random.default_rng(seed)
    strings: list[str | bytes] = []
    for counts, h, w in masks:
        if rng.random() < 0.5:  # a canonical string from pycocotools, or any run lengths
            encoded = coco_mask.encode(np.asfortranarray(
                (rng.random((h, w, 1)) < 0.5).astype(np.uint8)))[0]["counts"]
        else:
            encoded = rle.counts_to_string(counts)
        strings.append(encoded.decode() if rng.random() < 0.5 else encoded)
    if rng.random() < 0.3:  # a malformed one somewhere
        bad = int(rng.integers(0, len(strings)))
        strings[bad] = rng.choice(["0p", "~", "1" + "P" * 9, "h", "a "]).item()
    original = rle_strings._CHUNK_CHARS
    rle_strings._CHUNK_CHARS = chunk
    try:
        flat, offset, bad_index = rle.strings_to_counts(strings)
    finally:
        rle_strings._CHUNK_CHARS = original
    expected = [fr_string(s.encode() if isinstance(s, str) else s) for s in strings]
    first_bad = next((i for i, e in enumerate(expected) if e is None), -1)
    assert bad_index == first_bad
    if first_bad < 0:
        assert [flat[offset[i]:offset[i + 1]].tolist() for i in range(len(strings))] == expected


@given(st.lists(st.tuples(st.integers(1, 30), st.integers(1, 30), st.integers(0, 2**32 - 1)),
                min_size=1, max_size=6), st.sampled_from([1, 2, 512]))
def test_polygons_rasterized_together(shapes: list[tuple[int, int, int]], chunk: int) -> None:
    polygons, hs, ws = [], [], []
    for h, w, seed in shapes:
        rng = np.random.default_rng(seed)
        k = int(rng.integers(3, 10))
        xy = rng.random(2 * k) * np.array([w, h] * k) * 1.4 - 0.2 * np.array([w, h] * k)
        if rng.random() < 0.5:
            xy = np.round(xy * 2) / 2
        polygons.append(xy)
        hs.append(h)
        ws.append(w)
    original = rle._CHUNK_POLYGONS
    rle._CHUNK_POLYGONS = chunk
    try:
        flat, offset = rle.polygons_to_counts(polygons, np.array(hs), np.array(ws))
    finally:
        rle._CHUNK_POLYGONS = original
    for i, (xy, h, w) in enumerate(zip(polygons, hs, ws, strict=True)):
        theirs = coco_mask.frPyObjects([xy.tolist()], h, w)[0]["counts"]
        assert rle.counts_to_string(flat[offset[i]:offset[i + 1]]) == theirs


def test_mask_set_positions_past_31_bits() -> None:
    h, w = 2, 2**30 + 9  # 2^31 + 18 pixels: positions past a signed 32-bit integer
    counts = [[2**31 + 5, 3, 10], [4, 6, 2**31 + 8]]
    got = rle.MaskSet.of([np.array(c, dtype=np.uint32) for c in counts], [(h, w)] * 2)
    assert got.start.tolist() == [2**31 + 5, 4]
    assert got.end.tolist() == [2**31 + 8, 10]
    for i, c in enumerate(counts):
        theirs = coco_mask.frPyObjects({"size": [h, w], "counts": c}, h, w)
        assert got.area[i] == coco_mask.area(theirs)
        assert np.array_equal(got.box[i], coco_mask.toBbox(theirs))
