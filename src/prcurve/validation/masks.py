"""Every check of instance masks (run-length encodings, polygons, binary masks).

The one place that raises :class:`~prcurve.errors.InvalidInputError` for
:mod:`prcurve.detection.masks` and the ``segm`` evaluation: each message
names the argument, says what was found and how to fix it. Nothing here
modifies its input.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping
from typing import Any

import numpy as np
from numpy.typing import NDArray

from prcurve.errors import InvalidInputError

__all__ = [
    "bad_polygon",
    "check_binary_masks",
    "check_counts",
    "check_mask_size_columns",
    "check_size",
    "column_of_strings",
    "different_sizes",
    "not_an_rle",
    "polygon_records",
    "rle_records",
    "size_not_image",
]

U32 = NDArray[np.uint32]

# Run lengths are unsigned 32-bit integers in pycocotools' format (maskApi.h: uint).
_UINT32_MAX = (1 << 32) - 1


def check_size(argument: str, size: Any) -> tuple[int, int]:
    """``[height, width]``: two whole numbers >= 0 whose product fits in 32 bits."""
    ok = (isinstance(size, (list, tuple, np.ndarray)) and len(size) == 2
          and all(isinstance(v, (int, np.integer)) and not isinstance(v, bool) and v >= 0
                  for v in size))
    if not ok:
        raise InvalidInputError(argument, f"'size' is {size!r}",
                                "give the mask's size as [height, width], two whole numbers >= 0")
    h, w = int(size[0]), int(size[1])
    if h * w > _UINT32_MAX:
        raise InvalidInputError(argument, f"'size' is [{h}, {w}], {h * w} pixels",
                                "give a mask of at most 2^32 - 1 pixels (COCO's run lengths are "
                                "32-bit)")
    return h, w


def not_an_rle(argument: str, found: Any) -> InvalidInputError:
    shown = repr(found)
    if len(shown) > 60:
        shown = shown[:57] + "..."
    return InvalidInputError(
        argument, f"found {shown}",
        "give a run-length encoding {'size': [height, width], 'counts': ...} with 'counts' a "
        "COCO compressed string or a list of run lengths")


def check_counts(argument: str, counts: Any, h: int, w: int) -> U32:
    """Uncompressed run lengths: whole numbers >= 0 adding up to ``h * w``."""
    try:
        array = np.asarray(counts)
    except (TypeError, ValueError):
        raise not_an_rle(argument, counts) from None
    if array.ndim != 1 or (array.size and array.dtype.kind not in "iu"):
        raise InvalidInputError(argument, f"'counts' is {_short(counts)}",
                                "give 'counts' as a list of whole run lengths >= 0")
    if array.size and (int(array.min()) < 0 or int(array.max()) > _UINT32_MAX):
        raise InvalidInputError(argument, f"'counts' has a run length of {int(array.min())}"
                                if int(array.min()) < 0 else
                                f"'counts' has a run length of {int(array.max())}",
                                "give run lengths between 0 and 2^32 - 1")
    total = int(array.sum(dtype=np.int64)) if array.size else 0
    return _check_total(argument, array.astype(np.uint32), total, h, w)


def _check_total(argument: str, counts: U32, total: int, h: int, w: int) -> U32:
    if total != h * w:
        raise InvalidInputError(
            argument, f"the run lengths add up to {total} pixels, while 'size' [{h}, {w}] has "
            f"{h * w}", "give run lengths that cover the whole mask, column by column")
    return counts


def check_decoded_total(argument: str, counts: U32, h: int, w: int) -> U32:
    """Decoded run lengths of a compressed string must cover the mask exactly."""
    return _check_total(argument, counts, int(counts.sum(dtype=np.int64)), h, w)


def bad_counts_string(argument: str, found: Any) -> InvalidInputError:
    return InvalidInputError(argument, f"'counts' is {_short(found)}",
                             "give COCO's compressed run-length string (characters '0' to 'o')")


def bad_polygon(argument: str, index: int, found: Any) -> InvalidInputError:
    return InvalidInputError(
        argument, f"polygon {index} is {_short(found)}",
        "give each polygon as [x1, y1, x2, y2, x3, y3, ...]: at least 3 points (6 finite numbers), "
        "an even count")


def check_polygon(argument: str, index: int, polygon: Any) -> NDArray[np.float64]:
    """A flat list of at least 6 finite coordinates, an even count."""
    try:
        array = np.asarray(polygon, dtype=np.float64)
    except (TypeError, ValueError):
        raise bad_polygon(argument, index, polygon) from None
    if (array.ndim != 1 or array.shape[0] < 6 or array.shape[0] % 2
            or not np.isfinite(array).all() or np.abs(array).max() > 1e8):
        raise bad_polygon(argument, index, polygon)
    return array


def check_binary_masks(argument: str, masks: Any) -> NDArray[np.uint8]:
    """A (h, w) or (h, w, n) array of 0 and 1 (booleans or integers)."""
    array = np.asarray(masks)
    if array.ndim not in (2, 3) or array.dtype.kind not in "biu":
        raise InvalidInputError(argument, f"an array of shape {array.shape} and dtype "
                                f"{array.dtype}", "give binary masks as an array of shape "
                                "(height, width) or (height, width, n) of 0 and 1")
    if array.dtype.kind != "b" and array.size and (array.min() < 0 or array.max() > 1):
        raise InvalidInputError(argument, "values other than 0 and 1",
                                "give binary masks of 0 and 1 (or booleans)")
    return array.astype(np.uint8, copy=False)


def different_sizes(argument: str, first: tuple[int, int], other: tuple[int, int],
                    index: int) -> InvalidInputError:
    return InvalidInputError(
        argument, f"mask {index} is {other[0]}x{other[1]} while mask 0 is {first[0]}x{first[1]}",
        "compare masks of one image size (pycocotools returns -1 there)")


def size_not_image(argument: str, index: int, size: tuple[int, int],
                   image: tuple[int, int], image_id: Any) -> InvalidInputError:
    return InvalidInputError(
        argument, f"the mask of record {index} is {size[0]}x{size[1]} (height x width) while "
        f"image {image_id!r} is {image[0]}x{image[1]}",
        "give masks of the image's size (pycocotools would compare such masks wrongly)")


def missing_image_size(argument: str, image_id: Any) -> InvalidInputError:
    return InvalidInputError(
        argument, f"image {image_id!r} has no 'height' and 'width'",
        "give every image its 'height' and 'width' (polygons are drawn on the image's grid)")


def missing_segmentation(argument: str, field: str, index: int, iou_type: str) -> (
        InvalidInputError):
    return InvalidInputError(
        argument, f"{field}[{index}] has no 'segmentation'",
        "give every record a 'segmentation' (polygons or run-length encoding) for "
        f"iou_type={iou_type!r}, or evaluate boxes with iou_type='bbox'")


def segmentation_without_boxes(argument: str, index: int) -> InvalidInputError:
    return InvalidInputError(
        argument, f"results[{index}] has a 'segmentation' but no 'bbox'",
        "evaluate masks with iou_type='segm' (--iou-type segm), or give every result a 'bbox'")


def result_not_rle(argument: str, index: int, found: Any) -> InvalidInputError:
    return InvalidInputError(
        argument, f"results[{index}]['segmentation'] is {_short(found)}",
        "give each result's mask as a run-length encoding {'size': [h, w], 'counts': ...} "
        "(as pycocotools' loadRes requires), or give it a 'bbox'")


def _short(value: Any) -> str:
    shown = repr(value)
    return shown if len(shown) <= 60 else shown[:57] + "..."


def is_rle(value: Any) -> bool:
    """A mapping with 'size' and 'counts' (pycocotools' test for an RLE object)."""
    return isinstance(value, Mapping) and "size" in value and "counts" in value


def check_mask_size_columns(value: Any) -> tuple[str, str]:
    """``mask_size`` of :func:`prcurve.dask.evaluate_detections`: the names of the
    height and width columns of compressed-string masks."""
    if (isinstance(value, (list, tuple)) and len(value) == 2
            and all(isinstance(v, str) for v in value)):
        return str(value[0]), str(value[1])
    raise InvalidInputError("mask_size", f"{value!r}",
                            "give the names of the height and width columns, e.g. "
                            "mask_size=('height', 'width'), or leave it out when the "
                            "segmentation column holds COCO RLE dicts")


def column_of_strings(column: str, holds: str, fix: str) -> InvalidInputError:
    """A Dask column of strings where objects were expected (Dask's
    ``dataframe.convert-string`` turns a pandas column of dicts or lists into their
    text in ``from_pandas``)."""
    return InvalidInputError(f"detections column {column!r}", f"a column of strings, not {holds}",
                             f"{fix}; a pandas column of dicts or lists becomes their text in "
                             "dd.from_pandas unless dask.config.set({'dataframe.convert-string': "
                             "False}) is in force (Parquet keeps them)")


def rle_records(values: list[Any]) -> tuple[NDArray[np.int64], list[Any]] | None:
    """Every value's ``[height, width]`` (n, 2) and ``counts``, when each is a dict with a
    ``size`` of two whole numbers >= 0 (at most 2^32 - 1 pixels) and ``counts``: the
    common case, checked in bulk. None otherwise: then check each value alone (with
    :func:`check_size`), whose error names the first bad one.
    """
    if not set(map(type, values)) <= {dict}:
        return None
    try:
        sizes = [value["size"] for value in values]
        counts = [value["counts"] for value in values]
        if not set(map(type, sizes)) <= {list} or set(map(len, sizes)) - {2}:
            return None
        if not set(map(type, itertools.chain.from_iterable(sizes))) <= {int}:
            return None  # bool is not int here (type, not isinstance)
        shapes = np.array(sizes, dtype=np.int64).reshape(-1, 2)
    except (KeyError, OverflowError):
        return None
    if (shapes < 0).any() or (shapes[:, 0] * shapes[:, 1].astype(np.float64)
                              > _UINT32_MAX).any():  # exact below 2^53
        return None
    return shapes, counts


def polygon_records(values: list[Any]) -> tuple[NDArray[np.float64], NDArray[np.int64],
                                                 NDArray[np.int64]] | None:
    """Objects given as lists of polygons, checked in bulk: every coordinate one after
    another, the coordinates of each polygon and the polygons of each object; None when
    any object is not a non-empty list of polygons that :func:`check_polygon` accepts
    (JSON numbers only): then check each alone, whose error names the first bad one.
    """
    if not set(map(type, values)) <= {list} or not all(values):
        return None
    polygons = list(itertools.chain.from_iterable(values))
    if not set(map(type, polygons)) <= {list}:
        return None
    coords = list(itertools.chain.from_iterable(polygons))
    if not set(map(type, coords)) <= {int, float}:
        return None
    try:
        flat = np.array(coords, dtype=np.float64)
    except OverflowError:  # an integer past 1.8e308
        return None
    sizes = np.fromiter(map(len, polygons), dtype=np.int64, count=len(polygons))
    if (sizes < 6).any() or (sizes % 2).any() or not np.isfinite(flat).all() or (
            flat.shape[0] and np.abs(flat).max() > 1e8):
        return None
    return flat, sizes, np.fromiter(map(len, values), dtype=np.int64, count=len(values))
