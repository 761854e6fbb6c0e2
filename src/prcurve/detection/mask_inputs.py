"""The masks of one batch for the ``segm`` evaluation (pycocotools ``COCOeval`` with ``'segm'``).

Ground truth is read as COCO's ``annToRLE`` does: polygons (a list of
``[x1, y1, x2, y2, ...]``) are rasterized on the image's grid and merged
into one mask; a run-length encoding (compressed string, or a list of run
lengths as crowd regions carry) is taken as it is. Detections are RLEs (as
pycocotools' ``loadRes`` requires) or polygons. Every mask must have its
image's size: pycocotools compares masks of other sizes wrongly (IoU -1), so
prcurve refuses them. Masks are converted once per batch, when evaluated.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
from numpy.typing import NDArray

from prcurve.detection import masks as _masks
from prcurve.detection.rle import (
    MaskSet,
    RunLengths,
    counts_from_string,
    polygons_to_counts,
    strings_to_counts,
)
from prcurve.validation import masks as _checks

__all__ = ["batch_masks", "result_masks"]

U32 = NDArray[np.uint32]


def result_masks(values: list[Any], argument: str) -> RunLengths:
    """The masks of results that carry masks alone, decoded once (pycocotools'
    ``loadRes`` takes each one's box and area from its RLE, which must be one)."""
    n = len(values)
    shapes = np.zeros((n, 2), dtype=np.int64)
    counts: list[NDArray[Any] | None] = [None] * n
    strings: list[bytes] = []
    rows: list[int] = []
    for i, value in enumerate(values):
        if value is None:
            raise _checks.missing_segmentation(argument, "results", i, "segm")
        if not _checks.is_rle(value):
            raise _checks.result_not_rle(argument, i, value)
        where = f"{argument} results[{i}]['segmentation']"
        h, w = shapes[i] = _checks.check_size(where, value["size"])
        _collect(value["counts"], i, h, w, where, strings, rows, counts)
    holder = np.empty(n, dtype=object)
    holder[:] = values
    _strings(strings, np.array(rows, dtype=np.int64), shapes, counts, argument, "results",
             holder)
    # Stored as 32-bit run lengths, COCO's own width (half the memory of int64).
    pieces = [np.asarray(c, dtype=np.uint32) for c in counts if c is not None]
    lengths = np.fromiter((p.shape[0] for p in pieces), dtype=np.int64, count=n)
    flat = np.concatenate(pieces) if pieces else np.zeros(0, dtype=np.uint32)
    return RunLengths(flat, np.concatenate(([0], np.cumsum(lengths))).astype(np.int64),
                      shapes[:, 0].copy(), shapes[:, 1].copy())


def _set(segmentation: NDArray[Any] | RunLengths | None, image_id: NDArray[Any],
         sizes: Mapping[Any, tuple[int, int]], argument: str, field: str) -> MaskSet:
    """Every row's mask, converted in three batches: polygons, compressed strings, lists."""
    n = image_id.shape[0]
    if segmentation is None and n:
        raise _checks.missing_segmentation(argument, field, 0, "segm")
    if isinstance(segmentation, RunLengths):
        return _decoded(segmentation, image_id, sizes, argument)
    shapes = np.zeros((n, 2), dtype=np.int64)
    polygons: list[NDArray[np.float64]] = []
    polygon_row: list[int] = []
    strings: list[bytes] = []
    string_row: list[int] = []
    counts: list[NDArray[Any] | None] = [None] * n
    for i in range(n):
        value = segmentation[i] if segmentation is not None else None
        if value is None:
            raise _checks.missing_segmentation(argument, field, i, "segm")
        image = image_id[i].item() if isinstance(image_id[i], np.generic) else image_id[i]
        if image not in sizes:
            raise _checks.missing_image_size(argument, image)
        h, w = shapes[i] = sizes[image]
        where = f"{argument} {field}[{i}]['segmentation']"
        if isinstance(value, list):
            if not value:
                raise _checks.bad_polygon(where, 0, value)
            polygons.extend(_checks.check_polygon(where, j, p) for j, p in enumerate(value))
            polygon_row.extend([i] * len(value))
            continue
        if not _checks.is_rle(value):
            raise _checks.not_an_rle(where, value)
        rh, rw = _checks.check_size(where, value["size"])
        if (rh, rw) != (h, w):
            raise _checks.size_not_image(argument, i, (rh, rw), (h, w), image)
        _collect(value["counts"], i, int(h), int(w), where, strings, string_row, counts)
    _strings(strings, np.array(string_row, dtype=np.int64), shapes, counts, argument, field,
             segmentation)
    _polygons(polygons, np.array(polygon_row, dtype=np.int64), shapes, counts)
    return MaskSet.of([c for c in counts if c is not None],
                      [(int(h), int(w)) for h, w in shapes])


def _decoded(runs: RunLengths, image_id: NDArray[Any], sizes: Mapping[Any, tuple[int, int]],
             argument: str) -> MaskSet:
    """Masks decoded when read: each must have its image's size."""
    for i in range(len(runs)):
        image = image_id[i].item() if isinstance(image_id[i], np.generic) else image_id[i]
        if image not in sizes:
            raise _checks.missing_image_size(argument, image)
        if sizes[image] != (int(runs.h[i]), int(runs.w[i])):
            raise _checks.size_not_image(argument, i, (int(runs.h[i]), int(runs.w[i])),
                                         sizes[image], image)
    return runs.mask_set()


def _collect(raw: Any, row: int, h: int, w: int, where: str, strings: list[bytes],
             string_rows: list[int], counts: list[NDArray[Any] | None]) -> None:
    """An RLE's counts: a compressed string waits for the batch decode, a list is checked."""
    if isinstance(raw, (str, bytes)):
        strings.append(raw.encode("ascii", "replace") if isinstance(raw, str) else raw)
        string_rows.append(row)
    else:
        counts[row] = _checks.check_counts(where, raw, h, w)


def _strings(strings: list[bytes], rows: NDArray[np.int64], shapes: NDArray[np.int64],
             counts: list[NDArray[Any] | None], argument: str, field: str,
             segmentation: NDArray[Any] | None) -> None:
    """Decode the compressed strings at once; each must cover its image exactly."""
    if not strings:
        return
    flat, offset, bad = strings_to_counts(strings)
    if bad >= 0 and segmentation is not None:
        raise _checks.bad_counts_string(
            f"{argument} {field}[{rows[bad]}]['segmentation']",
            segmentation[rows[bad]]["counts"])
    owner = np.repeat(np.arange(len(strings)), np.diff(offset))
    total = np.bincount(owner, weights=flat, minlength=len(strings))
    expected = shapes[rows, 0] * shapes[rows, 1]
    wrong = np.flatnonzero(total != expected)
    if wrong.shape[0]:
        k = int(wrong[0])
        _checks.check_decoded_total(f"{argument} {field}[{rows[k]}]['segmentation']",
                                    flat[offset[k]:offset[k + 1]].astype(np.uint32),
                                    int(shapes[rows[k], 0]), int(shapes[rows[k], 1]))
    for k, row in enumerate(rows.tolist()):
        counts[row] = flat[offset[k]:offset[k + 1]]


def _polygons(polygons: list[NDArray[np.float64]], rows: NDArray[np.int64],
              shapes: NDArray[np.int64], counts: list[NDArray[Any] | None]) -> None:
    """Rasterize every polygon at once; an object of several polygons is their union."""
    if not polygons:
        return
    flat, offset = polygons_to_counts(polygons, shapes[rows, 0], shapes[rows, 1])
    pieces = [flat[offset[k]:offset[k + 1]] for k in range(len(polygons))]
    for row, first, last in _groups(rows):
        if last - first == 1:
            counts[row] = pieces[first]
            continue
        h, w = (int(v) for v in shapes[row])
        merged = _masks.merge([{"size": [h, w], "counts": p.tolist()}
                               for p in pieces[first:last]])
        counts[row] = counts_from_string(merged["counts"])


def _groups(rows: NDArray[np.int64]) -> list[tuple[int, int, int]]:
    """(row, first, last) of each run of equal rows."""
    starts = np.flatnonzero(np.diff(rows, prepend=-1) != 0)
    ends = np.append(starts[1:], rows.shape[0])
    return [(int(rows[a]), int(a), int(b)) for a, b in zip(starts, ends, strict=True)]


def batch_masks(gt_segmentation: NDArray[Any] | None, gt_image_id: NDArray[Any],
                dt_segmentation: NDArray[Any] | RunLengths | None, dt_image_id: NDArray[Any],
                sizes: Mapping[Any, tuple[int, int]]) -> tuple[MaskSet, MaskSet]:
    """The ground truth's and the detections' masks, row for row."""
    return (_set(gt_segmentation, gt_image_id, sizes, "ground_truth", "annotations"),
            _set(dt_segmentation, dt_image_id, sizes, "detections", "results"))
