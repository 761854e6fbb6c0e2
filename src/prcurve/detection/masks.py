"""Instance masks as COCO's run-length encodings, in numpy: pycocotools.mask's operations.

A mask of height h and width w is read column by column (Fortran order) and
stored as run lengths that alternate background and foreground, starting
with background (a mask that starts with foreground starts with a run of 0):
the RLE ``{"size": [h, w], "counts": ...}`` of the COCO data format. Every
function here equals its pycocotools.mask counterpart (Lin et al.,
"Microsoft COCO: Common Objects in Context"; the reference implementation's
``maskApi.c``) bit for bit:

=====================  ===========================  ==================================
prcurve                pycocotools.mask             what
=====================  ===========================  ==================================
``encode``             ``encode``                   binary masks -> compressed RLEs
``decode``             ``decode``                   RLEs -> binary masks
``area``               ``area``                     foreground pixels
``to_bbox``            ``toBbox``                   the enclosing box ``[x, y, w, h]``
``merge``              ``merge``                    union (or intersection) of RLEs
``iou``                ``iou``                      IoU of every pair (crowd flags)
``from_polygons``      ``frPoly``                   polygons rasterized as COCO does
``from_boxes``         ``frBbox``                   boxes rasterized as polygons
``from_objects``       ``frPyObjects``              polygons, boxes or uncompressed RLE
``counts_to_string``   (``_toString``)              the compressed-string codec
``counts_from_string`` (``_frString``)
=====================  ===========================  ==================================

The compressed string stores each run length (from the third on, its
difference from the run two before) in 5-bit groups, least significant
first, one character ``48 + group`` (``+ 32`` when more groups follow), the
last group's bit 4 being the sign. IoU of many pairs works on run
boundaries, never on decoded pixels (:func:`pair_iou`). Where pycocotools
returns -1 for two masks of different sizes, prcurve raises.

Examples
--------
>>> import numpy as np
>>> from prcurve.detection import masks
>>> m = np.zeros((4, 3), dtype=np.uint8); m[1:3, 1] = 1
>>> rle = masks.encode(m)
>>> rle
{'size': [4, 3], 'counts': b'525'}
>>> int(masks.area(rle)), masks.to_bbox(rle).tolist()
(2, [1.0, 1.0, 1.0, 2.0])
>>> bool((masks.decode(rle) == m).all())
True
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from prcurve.detection import rle
from prcurve.detection.rle import counts_from_string, counts_to_string
from prcurve.validation import masks as _checks

__all__ = [
    "area",
    "counts_from_string",
    "counts_to_string",
    "decode",
    "encode",
    "from_boxes",
    "from_objects",
    "from_polygons",
    "iou",
    "merge",
    "to_bbox",
]

U32 = NDArray[np.uint32]
I64 = NDArray[np.int64]
F64 = NDArray[np.float64]
RLE = dict[str, Any]



# ---------------------------------------------------------------- RLE objects
def read_rle(value: Any, argument: str) -> tuple[U32, int, int]:
    """Run lengths and size of an RLE object (compressed or a list of run lengths)."""
    if not _checks.is_rle(value):
        raise _checks.not_an_rle(argument, value)
    h, w = _checks.check_size(argument, value["size"])
    counts = value["counts"]
    if isinstance(counts, (str, bytes)):
        return _checks.check_decoded_total(argument, rle.counts_from_string(counts, argument),
                                           h, w), h, w
    return _checks.check_counts(argument, counts, h, w), h, w


def _many(rles: Any, argument: str) -> tuple[list[tuple[U32, int, int]], bool]:
    """The RLEs of a list (or one RLE, ``single`` True)."""
    if _checks.is_rle(rles):
        return [read_rle(rles, argument)], True
    if not isinstance(rles, (list, tuple)):
        raise _checks.not_an_rle(argument, rles)
    return [read_rle(r, f"{argument}[{i}]") for i, r in enumerate(rles)], False


def _rle(counts: ArrayLike, h: int, w: int) -> RLE:
    return {"size": [h, w], "counts": rle.counts_to_string(counts)}


def encode(masks: ArrayLike) -> RLE | list[RLE]:
    """Compressed RLEs of binary masks, shape (h, w) -> one RLE, (h, w, n) -> a list.

    Examples
    --------
    >>> import numpy as np
    >>> encode(np.ones((2, 2), dtype=bool))
    {'size': [2, 2], 'counts': b'04'}
    """
    array = _checks.check_binary_masks("masks", masks)
    single = array.ndim == 2
    stack = array[:, :, None] if single else array
    h, w, n = stack.shape
    out = [_rle(rle.encode_flat(stack[:, :, i].ravel(order="F")), h, w) for i in range(n)]
    return out[0] if single else out


def decode(rles: RLE | Sequence[RLE]) -> NDArray[np.uint8]:
    """Binary masks of RLEs: one RLE -> (h, w); a list -> (h, w, n) (Fortran order).

    Examples
    --------
    >>> decode({"size": [2, 2], "counts": [1, 2, 1]}).tolist()
    [[0, 1], [1, 0]]
    """
    items, single = _many(rles, "rles")
    if not items:
        return np.zeros((0, 0, 0), dtype=np.uint8)
    size = items[0][1:]
    for i, (_, h, w) in enumerate(items):
        if (h, w) != size:
            raise _checks.different_sizes("rles", size, (h, w), i)
    h, w = size
    out = np.zeros((h, w, len(items)), dtype=np.uint8, order="F")
    for i, (counts, _, _) in enumerate(items):
        values = np.arange(counts.shape[0]) % 2
        out[:, :, i] = np.repeat(values.astype(np.uint8), counts).reshape((h, w), order="F")
    return out[:, :, 0] if single else out


def area(rles: RLE | Sequence[RLE]) -> Any:
    """Foreground pixels (uint32; one number for one RLE, an array for a list).

    Examples
    --------
    >>> int(area({"size": [2, 2], "counts": [1, 2, 1]}))
    2
    """
    items, single = _many(rles, "rles")
    values = np.array([int(c[1::2].sum(dtype=np.int64)) for c, _, _ in items], dtype=np.uint32)
    return values[0] if single else values


def to_bbox(rles: RLE | Sequence[RLE]) -> F64:
    """Enclosing boxes ``[x, y, w, h]`` (maskApi.c ``rleToBbox``), shape (4,) or (n, 4).

    Examples
    --------
    >>> to_bbox({"size": [3, 3], "counts": [4, 2, 3]}).tolist()
    [1.0, 1.0, 1.0, 2.0]
    """
    items, single = _many(rles, "rles")
    out = np.array([rle.bbox(c, h, w) for c, h, w in items], dtype=np.float64).reshape(-1, 4)
    return out[0] if single else out


def merge(rles: Sequence[RLE], intersect: bool = False) -> RLE:
    """Union (or intersection) of RLEs of one size (maskApi.c ``rleMerge``).

    Examples
    --------
    >>> a = {"size": [2, 2], "counts": [0, 1, 3]}
    >>> b = {"size": [2, 2], "counts": [3, 1]}
    >>> merge([a, b])
    {'size': [2, 2], 'counts': b'0120'}
    """
    items, _ = _many(list(rles) if not _checks.is_rle(rles) else [rles], "rles")
    if not items:
        return {"size": [0, 0], "counts": b""}
    if len(items) == 1:
        counts, h, w = items[0]
        return _rle(counts, h, w)
    size = items[0][1:]
    for i, (_, h, w) in enumerate(items):
        if (h, w) != size:
            raise _checks.different_sizes("rles", size, (h, w), i)
    h, w = size
    # Coverage by a sweep over every run boundary: +1 at a start, -1 at an end.
    runs = [rle.intervals(c) for c, _, _ in items]
    starts = np.concatenate([s for s, _ in runs])
    ends = np.concatenate([e for _, e in runs])
    position = np.concatenate((starts, ends))
    step = np.concatenate((np.ones_like(starts), -np.ones_like(ends)))
    order = np.argsort(position, kind="stable")
    position, step = position[order], step[order]
    unique, first = np.unique(position, return_index=True)
    delta = np.add.reduceat(step, first) if position.size else step
    coverage = np.cumsum(delta)
    need = len(items) if intersect else 1
    inside = coverage >= need
    # Each maximal stretch of positions where coverage >= need is one run.
    entering = inside & ~np.concatenate(([False], inside[:-1]))
    leaving = ~inside & np.concatenate(([False], inside[:-1]))
    return _rle(rle.from_intervals(unique[entering], unique[leaving], h * w), h, w)


# ---------------------------------------------------------------- IoU
def iou(detections: Any, ground_truth: Any, iscrowd: ArrayLike | None = None) -> F64:
    """IoU of every detection mask with every ground-truth mask (pycocotools ``iou``).

    Both are lists of RLEs (or both (n, 4) boxes, then :func:`~prcurve.detection.box_iou`).
    Against a crowd region the union is the detection's own area.

    Examples
    --------
    >>> a = {"size": [2, 2], "counts": [0, 2, 2]}
    >>> b = {"size": [2, 2], "counts": [1, 2, 1]}
    >>> iou([a], [b, b], [0, 1]).tolist()
    [[0.3333333333333333, 0.5]]
    """
    from prcurve.detection.boxes import box_iou

    dt_rle = isinstance(detections, (list, tuple)) and all(map(_checks.is_rle, detections))
    gt_rle = isinstance(ground_truth, (list, tuple)) and all(map(_checks.is_rle, ground_truth))
    if not (dt_rle and gt_rle) or not len(detections) or not len(ground_truth):
        if dt_rle and gt_rle:
            return np.zeros((len(detections), len(ground_truth)))
        return box_iou(detections, ground_truth, iscrowd)
    d, _ = _many(detections, "detections")
    g, _ = _many(ground_truth, "ground_truth")
    size = d[0][1:]
    for name, items in (("detections", d), ("ground_truth", g)):
        for i, (_, h, w) in enumerate(items):
            if (h, w) != size:
                raise _checks.different_sizes(name, size, (h, w), i)
    crowd = (np.zeros(len(g), dtype=bool) if iscrowd is None
             else np.asarray(iscrowd).astype(bool).reshape(-1))
    set_d = rle.MaskSet.of([c for c, _, _ in d])
    set_g = rle.MaskSet.of([c for c, _, _ in g])
    rows = np.repeat(np.arange(len(d)), len(g))
    cols = np.tile(np.arange(len(g)), len(d))
    return rle.pair_mask_iou(set_d, rows, set_g, cols, crowd[cols]).reshape(len(d), len(g))


def from_polygons(polygons: Sequence[ArrayLike], h: int, w: int) -> list[RLE]:
    """One RLE per polygon ``[x1, y1, x2, y2, ...]`` on an image of h x w (``frPoly``).

    Examples
    --------
    >>> from_polygons([[0, 0, 0, 2, 2, 2, 2, 0]], 3, 3)
    [{'size': [3, 3], 'counts': b'02103'}]
    """
    h, w = _checks.check_size("size", [h, w])
    return [_rle(rle.polygon_counts(_checks.check_polygon("polygons", i, p), h, w), h, w)
            for i, p in enumerate(polygons)]


def from_boxes(boxes: ArrayLike, h: int, w: int) -> list[RLE]:
    """One RLE per box ``[x, y, w, h]``, rasterized as its polygon (``frBbox``).

    Examples
    --------
    >>> int(decode(from_boxes([[0, 0, 2, 1]], 2, 3)).sum())
    2
    """
    from prcurve.validation.boxes import check_boxes

    b = check_boxes("boxes", boxes, "xywh")
    xs, ys = b[:, 0], b[:, 1]
    xe, ye = xs + b[:, 2], ys + b[:, 3]
    corners = np.stack((xs, ys, xs, ye, xe, ye, xe, ys), axis=1)
    h, w = _checks.check_size("size", [h, w])
    return [_rle(rle.polygon_counts(c, h, w), h, w) for c in corners]


def from_objects(objects: Any, h: int, w: int) -> RLE | list[RLE]:
    """pycocotools' ``frPyObjects``: a list of polygons, boxes or uncompressed RLEs.

    A list of polygons gives a list of RLEs (merge them for one object, as
    COCO's ``annToRLE`` does); one uncompressed RLE gives one compressed RLE.

    Examples
    --------
    >>> from_objects({"size": [2, 2], "counts": [1, 2, 1]}, 2, 2)
    {'size': [2, 2], 'counts': b'121'}
    """
    if isinstance(objects, Mapping):
        counts, rh, rw = read_rle(objects, "objects")
        return _rle(counts, rh, rw)
    if isinstance(objects, np.ndarray) and objects.ndim == 2:
        return from_boxes(objects, h, w)
    if not isinstance(objects, (list, tuple)) or not objects:
        raise _checks.not_an_rle("objects", objects)
    if all(map(_checks.is_rle, objects)):
        out = []
        for i, obj in enumerate(objects):
            counts, rh, rw = read_rle(obj, f"objects[{i}]")
            out.append(_rle(counts, rh, rw))
        return out
    if all(isinstance(o, (list, tuple, np.ndarray)) for o in objects):
        if len(objects[0]) == 4:
            return from_boxes(objects, h, w)
        return from_polygons(objects, h, w)
    if len(objects) == 4:
        return from_boxes([objects], h, w)[0]
    return from_polygons([objects], h, w)[0]
