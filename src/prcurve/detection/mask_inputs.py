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
    flat_polygons_to_counts,
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
    bulk = _checks.rle_records(values)
    if bulk is not None and set(map(type, bulk[1])) <= {str}:
        # The common case (every result a compressed string): decoded together, with no
        # per-result array (the strings go to the decoder as they are).
        shapes, strings = bulk
        flat, offset = _decode(strings, np.arange(n), shapes, argument, "results", values)
        return RunLengths(flat, offset, shapes[:, 0].copy(), shapes[:, 1].copy())
    shapes = np.zeros((n, 2), dtype=np.int64)
    counts: list[NDArray[Any] | None] = [None] * n
    strings = []
    rows: list[int] = []
    for i, value in enumerate(values):
        if value is None:
            raise _checks.missing_segmentation(argument, "results", i, "segm")
        if not _checks.is_rle(value):
            raise _checks.result_not_rle(argument, i, value)
        where = f"{argument} results[{i}]['segmentation']"
        h, w = shapes[i] = _checks.check_size(where, value["size"])
        _collect(value["counts"], i, h, w, where, strings, rows, counts)
    _strings(strings, np.array(rows, dtype=np.int64), shapes, counts, argument, "results",
             values)
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
    shapes = _image_shapes(image_id, sizes)
    if shapes is not None and segmentation is not None:
        fast = _polygon_set(segmentation, image_id, shapes, argument, field)
        if fast is not None:
            return fast
    # Some image without a size or some malformed polygon: row by row, the first error.
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
        _rle_row(value, i, (int(h), int(w)), image, argument, where, strings, string_row,
                 counts)
    _strings(strings, np.array(string_row, dtype=np.int64), shapes, counts, argument, field,
             segmentation)
    _polygons(polygons, np.array(polygon_row, dtype=np.int64), shapes, counts)
    return MaskSet.of([c for c in counts if c is not None],
                      [(int(h), int(w)) for h, w in shapes])


def _image_shapes(image_id: NDArray[Any], sizes: Mapping[Any, tuple[int, int]]) -> (
        NDArray[np.int64] | None):
    """Each row's image ``(height, width)``, or None when some image has no size."""
    try:
        return np.array([sizes[image] for image in image_id.tolist()],
                        dtype=np.int64).reshape(-1, 2)
    except (KeyError, TypeError):
        return None


def _polygon_set(segmentation: Any, image_id: NDArray[Any], shapes: NDArray[np.int64],
                 argument: str, field: str) -> MaskSet | None:
    """The masks when every object given as polygons passes the bulk check (None
    otherwise): the polygons rasterized together from one array of coordinates, the
    other objects (RLEs) decoded together when all are compressed strings of their
    image's size, else row by row."""
    values = segmentation.tolist() if isinstance(segmentation, np.ndarray) else list(
        segmentation)
    n = len(values)
    is_polygons = np.fromiter((type(v) is list for v in values), dtype=bool, count=n)
    polygon_rows = np.flatnonzero(is_polygons)
    bulk = _checks.polygon_records([values[i] for i in polygon_rows.tolist()])
    if bulk is None:
        return None
    flat, n_coords, per_row = bulk
    row_of = np.repeat(polygon_rows, per_row)  # each polygon's row
    runs, offset = flat_polygons_to_counts(flat, n_coords, shapes[row_of, 0], shapes[row_of, 1])
    if polygon_rows.shape[0] == n and (per_row == 1).all():  # one polygon per object
        return MaskSet.from_counts(runs, offset, shapes[:, 0], shapes[:, 1])
    counts: list[NDArray[Any] | None] = [None] * n
    other = np.flatnonzero(~is_polygons)
    rles = _checks.rle_records([values[i] for i in other.tolist()])
    if other.shape[0] and rles is not None and set(map(type, rles[1])) <= {str} and (
            np.array_equal(rles[0], shapes[other])):
        # Every other object a compressed string of its image's size: decoded together.
        string_flat, string_offset = _decode(rles[1], other, shapes, argument, field, values)
        if other.shape[0] == n:
            return MaskSet.from_counts(string_flat, string_offset, shapes[:, 0], shapes[:, 1])
        for k, row in enumerate(other.tolist()):
            counts[row] = string_flat[string_offset[k]:string_offset[k + 1]]
    else:
        strings: list[Any] = []
        string_row: list[int] = []
        for i in other.tolist():
            if values[i] is None:
                raise _checks.missing_segmentation(argument, field, i, "segm")
            h, w = int(shapes[i, 0]), int(shapes[i, 1])
            _rle_row(values[i], i, (h, w), image_id[i], argument,
                     f"{argument} {field}[{i}]['segmentation']", strings, string_row, counts)
        _strings(strings, np.array(string_row, dtype=np.int64), shapes, counts, argument,
                 field, values)
    _merge_polygons(runs, offset, row_of, shapes, counts)
    return MaskSet.of([c for c in counts if c is not None],
                      [(int(h), int(w)) for h, w in shapes])


def _rle_row(value: Any, i: int, shape: tuple[int, int], image: Any, argument: str,
             where: str, strings: list[Any], string_row: list[int],
             counts: list[NDArray[Any] | None]) -> None:
    """One object given as an RLE of its image's size (``image``: its id, for errors)."""
    image = image.item() if isinstance(image, np.generic) else image
    if not _checks.is_rle(value):
        raise _checks.not_an_rle(where, value)
    rh, rw = _checks.check_size(where, value["size"])
    if (rh, rw) != shape:
        raise _checks.size_not_image(argument, i, (rh, rw), shape, image)
    _collect(value["counts"], i, shape[0], shape[1], where, strings, string_row, counts)


def _decoded(runs: RunLengths, image_id: NDArray[Any], sizes: Mapping[Any, tuple[int, int]],
             argument: str) -> MaskSet:
    """Masks decoded when read: each must have its image's size."""
    shapes = _image_shapes(image_id, sizes)
    if shapes is not None:
        wrong = np.flatnonzero((shapes[:, 0] != runs.h) | (shapes[:, 1] != runs.w))
        if not wrong.shape[0]:
            return runs.mask_set()
    for i in range(len(runs)):  # the first row whose image has no size or another size
        image = image_id[i].item() if isinstance(image_id[i], np.generic) else image_id[i]
        if image not in sizes:
            raise _checks.missing_image_size(argument, image)
        if sizes[image] != (int(runs.h[i]), int(runs.w[i])):
            raise _checks.size_not_image(argument, i, (int(runs.h[i]), int(runs.w[i])),
                                         sizes[image], image)
    return runs.mask_set()


def _collect(raw: Any, row: int, h: int, w: int, where: str, strings: list[Any],
             string_rows: list[int], counts: list[NDArray[Any] | None]) -> None:
    """An RLE's counts: a compressed string waits for the batch decode, a list is checked."""
    if isinstance(raw, (str, bytes)):
        strings.append(raw)  # the decoder reads str as ASCII ('?' for any other character)
        string_rows.append(row)
    else:
        counts[row] = _checks.check_counts(where, raw, h, w)


def _decode(strings: list[Any], rows: NDArray[np.int64], shapes: NDArray[np.int64],
            argument: str, field: str, segmentation: Any) -> tuple[U32, NDArray[np.int64]]:
    """Decode compressed strings at once; each must cover its image exactly. The run
    lengths one after another (32-bit) and each string's offsets."""
    flat, offset, bad = strings_to_counts(strings)
    if bad >= 0:
        raise _checks.bad_counts_string(
            f"{argument} {field}[{rows[bad]}]['segmentation']",
            segmentation[rows[bad]]["counts"])
    # Each string's total, summed in place (no per-run array); a string of no runs has 0.
    total = np.zeros(len(strings), dtype=np.int64)
    has = np.flatnonzero(offset[1:] > offset[:-1])
    if has.shape[0]:
        total[has] = np.add.reduceat(flat, offset[:-1][has], dtype=np.int64)
    expected = shapes[rows, 0] * shapes[rows, 1]
    wrong = np.flatnonzero(total != expected)
    if wrong.shape[0]:
        k = int(wrong[0])
        _checks.check_decoded_total(f"{argument} {field}[{rows[k]}]['segmentation']",
                                    flat[offset[k]:offset[k + 1]],
                                    int(shapes[rows[k], 0]), int(shapes[rows[k], 1]))
    return flat, offset


def _strings(strings: list[Any], rows: NDArray[np.int64], shapes: NDArray[np.int64],
             counts: list[NDArray[Any] | None], argument: str, field: str,
             segmentation: Any) -> None:
    """Decode the compressed strings at once, into each row's run lengths."""
    if not strings:
        return
    flat, offset = _decode(strings, rows, shapes, argument, field, segmentation)
    for k, row in enumerate(rows.tolist()):
        counts[row] = flat[offset[k]:offset[k + 1]]


def _polygons(polygons: list[NDArray[np.float64]], rows: NDArray[np.int64],
              shapes: NDArray[np.int64], counts: list[NDArray[Any] | None]) -> None:
    """Rasterize every polygon at once; an object of several polygons is their union."""
    if not polygons:
        return
    flat, offset = polygons_to_counts(polygons, shapes[rows, 0], shapes[rows, 1])
    _merge_polygons(flat, offset, rows, shapes, counts)


def _merge_polygons(flat: NDArray[np.int64], offset: NDArray[np.int64],
                    rows: NDArray[np.int64], shapes: NDArray[np.int64],
                    counts: list[NDArray[Any] | None]) -> None:
    """Each row's run lengths from its polygons' (``rows``: each polygon's row, sorted)."""
    if not rows.shape[0]:
        return
    for row, first, last in _groups(rows):
        if last - first == 1:
            counts[row] = flat[offset[first]:offset[first + 1]]
            continue
        h, w = (int(v) for v in shapes[row])
        merged = _masks.merge([{"size": [h, w], "counts": flat[offset[k]:offset[k + 1]].tolist()}
                               for k in range(first, last)])
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
