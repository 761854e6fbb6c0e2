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

from prcurve.detection.boxes import pair_iou
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

_GROUPS = 8  # 5-bit groups: enough for any difference of two 32-bit run lengths


# ---------------------------------------------------------------- the string codec
def counts_to_string(counts: ArrayLike) -> bytes:
    """COCO's compressed string of run lengths (maskApi.c ``rleToString``).

    Examples
    --------
    >>> counts_to_string([5, 2, 5])
    b'525'
    """
    cnts = np.asarray(counts, dtype=np.int64).ravel()
    x = cnts.copy()
    x[3:] -= cnts[1:-2]  # from the fourth run on (index > 2): the difference from two before
    shifts = 5 * np.arange(_GROUPS, dtype=np.int64)
    rest = x[:, None] >> shifts  # arithmetic shifts, as C's >> on a signed long
    group = rest & 0x1F
    after = rest >> 5
    # More groups follow while what is left is not the sign extension of the last group.
    more = np.where(group & 0x10, after != -1, after != 0)
    n_chars = np.argmin(more, axis=1) + 1
    chars = group + 48 + np.where(more, 0x20, 0)
    used = np.arange(_GROUPS)[None, :] < n_chars[:, None]
    encoded: bytes = chars[used].astype(np.uint8).tobytes()
    return encoded


def counts_from_string(string: str | bytes, argument: str = "counts") -> U32:
    """Run lengths of COCO's compressed string (maskApi.c ``rleFrString``).

    Examples
    --------
    >>> counts_from_string(b'525').tolist()
    [5, 2, 5]
    """
    raw = string.encode("ascii", "replace") if isinstance(string, str) else bytes(string)
    c = np.frombuffer(raw, dtype=np.uint8).astype(np.int64) - 48
    if c.size and (c.min() < 0 or c.max() > 63):
        raise _checks.bad_counts_string(argument, string)
    more = (c & 0x20) != 0
    if c.size and more[-1]:
        raise _checks.bad_counts_string(argument, string)
    last = np.flatnonzero(~more)
    if last.size == 0:
        return np.zeros(0, dtype=np.uint32)
    first = np.concatenate(([0], last[:-1] + 1))
    value_of = np.repeat(np.arange(last.size), last - first + 1)
    k = np.arange(c.size) - first[value_of]
    if k.max() >= _GROUPS:
        raise _checks.bad_counts_string(argument, string)
    x = np.zeros(last.size, dtype=np.int64)
    np.add.at(x, value_of, (c & 0x1F) << (5 * k))
    negative = (c[last] & 0x10) != 0
    x[negative] |= -1 << (5 * (k[last][negative] + 1))
    # Undo the differences: runs i > 2 add the run two before (two running sums).
    cnts = x.copy()
    for start in (2, 1):
        cnts[start::2] = np.cumsum(x[start::2])
    out: U32 = (cnts & 0xFFFFFFFF).astype(np.uint32)
    return out


# ---------------------------------------------------------------- RLE objects
def _counts(rle: Any, argument: str) -> tuple[U32, int, int]:
    """Run lengths and size of an RLE object (compressed or a list of run lengths)."""
    if not _checks.is_rle(rle):
        raise _checks.not_an_rle(argument, rle)
    h, w = _checks.check_size(argument, rle["size"])
    counts = rle["counts"]
    if isinstance(counts, (str, bytes)):
        return _checks.check_decoded_total(argument, counts_from_string(counts, argument),
                                           h, w), h, w
    return _checks.check_counts(argument, counts, h, w), h, w


def _many(rles: Any, argument: str) -> tuple[list[tuple[U32, int, int]], bool]:
    """The RLEs of a list (or one RLE, ``single`` True)."""
    if _checks.is_rle(rles):
        return [_counts(rles, argument)], True
    if not isinstance(rles, (list, tuple)):
        raise _checks.not_an_rle(argument, rles)
    return [_counts(r, f"{argument}[{i}]") for i, r in enumerate(rles)], False


def _rle(counts: ArrayLike, h: int, w: int) -> RLE:
    return {"size": [h, w], "counts": counts_to_string(counts)}


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
    out = [_rle(_encode_flat(stack[:, :, i].ravel(order="F")), h, w) for i in range(n)]
    return out[0] if single else out


def _encode_flat(flat: NDArray[np.uint8]) -> I64:
    """Run lengths of a column-major 0/1 vector (maskApi.c ``rleEncode``)."""
    if flat.size == 0:
        return np.zeros(1, dtype=np.int64)
    change = np.flatnonzero(flat[1:] != flat[:-1]) + 1
    bounds = np.concatenate(([0], change, [flat.size]))
    counts = np.diff(bounds)
    if flat[0]:
        counts = np.concatenate(([0], counts))
    return counts.astype(np.int64)


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
    out = np.array([_bbox(c, h, w) for c, h, w in items], dtype=np.float64).reshape(-1, 4)
    return out[0] if single else out


def _bbox(counts: U32, h: int, w: int) -> tuple[float, float, float, float]:
    m = (counts.shape[0] // 2) * 2
    if m == 0 or h == 0:
        return (0.0, 0.0, 0.0, 0.0)
    cc = np.cumsum(counts[:m].astype(np.int64))
    j = np.arange(m)
    t = (cc - j % 2) & 0xFFFFFFFF  # uint arithmetic, as maskApi.c
    y, x = t % h, t // h
    # A run that spans columns covers every row.
    spans = bool((x[0::2] < x[1::2]).any())
    xs, xe = min(w, int(x.min())), max(0, int(x.max()))
    ys, ye = (0, h - 1) if spans else (min(h, int(y.min())), max(0, int(y.max())))
    return (float(xs), float(ys), float(xe - xs + 1), float(ye - ys + 1))


def _intervals(counts: U32) -> tuple[I64, I64]:
    """Foreground runs as [start, end) in column-major pixel positions."""
    bounds = np.cumsum(counts.astype(np.int64))
    n = bounds.shape[0] // 2
    return bounds[0:2 * n:2], bounds[1:2 * n + 1:2]


def _from_intervals(starts: I64, ends: I64, total: int) -> I64:
    """Canonical run lengths (no empty runs but a leading 0) of sorted, disjoint runs."""
    keep = ends > starts
    starts, ends = starts[keep], ends[keep]
    if starts.shape[0]:
        # Runs that touch become one.
        joined = np.concatenate(([True], starts[1:] != ends[:-1]))
        starts = starts[joined]
        ends = ends[np.concatenate((joined[1:], [True]))]
    bounds = np.empty(2 * starts.shape[0], dtype=np.int64)
    bounds[0::2], bounds[1::2] = starts, ends
    counts = np.diff(np.concatenate(([0], bounds, [total])))
    if counts.shape[0] > 1 and counts[-1] == 0:
        counts = counts[:-1]
    return counts


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
    runs = [_intervals(c) for c, _, _ in items]
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
    return _rle(_from_intervals(unique[entering], unique[leaving], h * w), h, w)


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
    set_d = MaskSet.of([c for c, _, _ in d])
    set_g = MaskSet.of([c for c, _, _ in g])
    rows = np.repeat(np.arange(len(d)), len(g))
    cols = np.tile(np.arange(len(g)), len(d))
    return pair_mask_iou(set_d, rows, set_g, cols, crowd[cols]).reshape(len(d), len(g))


class MaskSet:
    """Many masks' foreground runs in flat arrays (what the evaluation keeps per mask).

    Mask i's runs are ``start[offset[i]:offset[i + 1]]`` and ``end[...]``
    (column-major pixel positions); ``area[i]`` its foreground pixels,
    ``box[i]`` its ``[x, y, w, h]`` as :func:`to_bbox` gives it.
    """

    __slots__ = ("area", "box", "end", "offset", "start")

    def __init__(self, start: I64, end: I64, offset: I64, area: I64, box: F64) -> None:
        self.start, self.end, self.offset, self.area, self.box = start, end, offset, area, box

    @classmethod
    def of(cls, counts: Sequence[U32], sizes: Sequence[tuple[int, int]] | None = None) -> MaskSet:
        runs = [_intervals(c) for c in counts]
        lengths = np.array([s.shape[0] for s, _ in runs], dtype=np.int64)
        offset = np.concatenate(([0], np.cumsum(lengths))).astype(np.int64)
        start = np.concatenate([s for s, _ in runs]) if runs else np.zeros(0, dtype=np.int64)
        end = np.concatenate([e for _, e in runs]) if runs else np.zeros(0, dtype=np.int64)
        area = np.array([int(c[1::2].sum(dtype=np.int64)) for c in counts], dtype=np.int64)
        if sizes is None:
            box = np.zeros((len(counts), 4))
        else:
            box = np.array([_bbox(c, h, w) for c, (h, w) in zip(counts, sizes, strict=True)],
                           dtype=np.float64).reshape(-1, 4)
        return cls(start, end, offset, area, box)

    def take(self, rows: I64) -> tuple[I64, I64, I64]:
        """The runs of masks ``rows`` (with repeats) and, per run, its place in ``rows``."""
        lo, hi = self.offset[rows], self.offset[rows + 1]
        count = hi - lo
        owner = np.repeat(np.arange(rows.shape[0]), count)
        first = np.cumsum(count) - count
        index = lo[owner] + (np.arange(owner.shape[0]) - first[owner])
        return self.start[index], self.end[index], owner


def pair_mask_iou(dt: MaskSet, dt_rows: I64, gt: MaskSet, gt_rows: I64,
                  crowd: NDArray[np.bool_]) -> F64:
    """IoU of mask ``dt_rows[p]`` with ``gt_rows[p]`` for every pair p, from run boundaries.

    Pair p's runs are moved to positions ``p * span + ...`` so that every
    pair's ground-truth runs lie in one sorted array; the covered length of
    the ground truth below x, ``G(x)``, is then one search, and the
    intersection of pair p is the sum over its detection runs [s, e) of
    ``G(e) - G(s)``. Union ``area_d + area_g - inter`` (crowd: ``area_d``),
    and IoU 0 without intersection, as maskApi.c ``rleIou``.
    """
    n = dt_rows.shape[0]
    if n == 0:
        return np.zeros(0)
    span = int(max(dt.end.max(initial=0), gt.end.max(initial=0))) + 1
    gs, ge, g_owner = gt.take(gt_rows)
    ds, de, d_owner = dt.take(dt_rows)
    shift_g = g_owner.astype(np.int64) * span
    gs, ge = gs + shift_g, ge + shift_g
    shift_d = d_owner.astype(np.int64) * span
    ds, de = ds + shift_d, de + shift_d
    covered = np.concatenate(([0], np.cumsum(ge - gs)))

    if gs.shape[0] == 0:
        return np.zeros(n)

    def below(x: I64) -> I64:
        """G(x): ground-truth pixels of the pairs' runs below position x."""
        j = np.searchsorted(gs, x, side="right") - 1
        k = np.maximum(j, 0)
        value: I64 = np.where(j >= 0, covered[k] + np.minimum(x - gs[k], ge[k] - gs[k]), 0)
        return value

    inter = np.bincount(d_owner, weights=(below(de) - below(ds)).astype(np.float64),
                        minlength=n)
    area_d = dt.area[dt_rows].astype(np.float64)
    union = np.where(crowd, area_d, area_d + gt.area[gt_rows] - inter)
    out = np.zeros(n)
    np.divide(inter, union, out=out, where=inter > 0)
    return out


def box_gate(dt: MaskSet, dt_rows: I64, gt: MaskSet, gt_rows: I64,
             crowd: NDArray[np.bool_]) -> NDArray[np.bool_]:
    """Pairs whose masks' boxes overlap (the only pairs whose masks can)."""
    return pair_iou(dt.box[dt_rows], gt.box[gt_rows], crowd) > 0


# ---------------------------------------------------------------- polygons and boxes
def _polygon_counts(xy: F64, h: int, w: int) -> I64:
    """Run lengths of one polygon, rasterized as maskApi.c ``rleFrPoly``.

    The boundary is upsampled 5 times, walked one step of the longer axis at
    a time (coordinates truncated toward zero after adding 0.5, as C's
    ``(int)`` cast), and the crossings of pixel centres' columns kept as the
    first foreground row of each column change; toggles at the same pixel
    cancel.
    """
    scale = 5.0
    x = np.trunc(scale * xy[0::2] + 0.5).astype(np.int64)
    y = np.trunc(scale * xy[1::2] + 0.5).astype(np.int64)
    x = np.concatenate((x, x[:1]))
    y = np.concatenate((y, y[:1]))
    xs, xe, ys, ye = x[:-1], x[1:], y[:-1], y[1:]
    dx, dy = np.abs(xe - xs), np.abs(ys - ye)
    along_x = dx >= dy
    flip = (along_x & (xs > xe)) | (~along_x & (ys > ye))
    xs, xe = np.where(flip, xe, xs), np.where(flip, xs, xe)
    ys, ye = np.where(flip, ye, ys), np.where(flip, ys, ye)
    steps = np.where(along_x, dx, dy)
    with np.errstate(invalid="ignore", divide="ignore"):
        slope = np.where(along_x, (ye - ys) / np.where(steps == 0, 1, dx),
                         (xe - xs) / np.where(steps == 0, 1, dy))
    # A repeated vertex (0 / 0 in C) yields one point whose row is never read.
    slope = np.where(steps == 0, 0.0, slope)
    edge = np.repeat(np.arange(steps.shape[0]), steps + 1)
    first = np.cumsum(steps + 1) - (steps + 1)
    d = np.arange(edge.shape[0]) - first[edge]
    t = np.where(flip[edge], steps[edge] - d, d)
    on_x = along_x[edge]
    u = np.where(on_x, t + xs[edge], np.trunc(xs[edge] + slope[edge] * t + 0.5))
    v = np.where(on_x, np.trunc(ys[edge] + slope[edge] * t + 0.5), t + ys[edge])
    u, v = u.astype(np.int64), v.astype(np.int64)
    # Points where the column changes: the boundary crosses a column of pixel centres.
    j = np.flatnonzero(u[1:] != u[:-1]) + 1
    xd = np.where(u[j] < u[j - 1], u[j], u[j] - 1).astype(np.float64)
    xd = (xd + 0.5) / scale - 0.5
    keep = (np.floor(xd) == xd) & (xd >= 0) & (xd <= w - 1)
    j, xd = j[keep], xd[keep]
    yd = np.minimum(v[j], v[j - 1]).astype(np.float64)
    yd = np.ceil(np.clip((yd + 0.5) / scale - 0.5, 0, h))
    a = np.sort(np.concatenate((xd.astype(np.int64) * h + yd.astype(np.int64), [h * w])))
    a = a & 0xFFFFFFFF
    a = np.diff(np.concatenate(([0], a)))
    # maskApi.c's compaction: after the first run, a run of 0 swallows the next run into
    # the previous one (a toggle twice at one pixel). In a stretch of zeros they pair up,
    # so the run after an odd stretch of zeros is added to the run before it.
    rest = a[1:]
    nonzero = np.flatnonzero(rest > 0)
    zeros_before = nonzero - np.concatenate(([-1], nonzero[:-1])) - 1
    joins = (zeros_before % 2) == 1
    values = np.concatenate((a[:1], rest[nonzero]))
    group = np.cumsum(np.concatenate(([True], ~joins)))
    return np.bincount(group - 1, weights=values).astype(np.int64)


def from_polygons(polygons: Sequence[ArrayLike], h: int, w: int) -> list[RLE]:
    """One RLE per polygon ``[x1, y1, x2, y2, ...]`` on an image of h x w (``frPoly``).

    Examples
    --------
    >>> from_polygons([[0, 0, 0, 2, 2, 2, 2, 0]], 3, 3)
    [{'size': [3, 3], 'counts': b'02103'}]
    """
    h, w = _checks.check_size("size", [h, w])
    return [_rle(_polygon_counts(_checks.check_polygon("polygons", i, p), h, w), h, w)
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
    return [_rle(_polygon_counts(c, h, w), h, w) for c in corners]


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
        counts, rh, rw = _counts(objects, "objects")
        return _rle(counts, rh, rw)
    if isinstance(objects, np.ndarray) and objects.ndim == 2:
        return from_boxes(objects, h, w)
    if not isinstance(objects, (list, tuple)) or not objects:
        raise _checks.not_an_rle("objects", objects)
    if all(map(_checks.is_rle, objects)):
        out = []
        for i, obj in enumerate(objects):
            counts, rh, rw = _counts(obj, f"objects[{i}]")
            out.append(_rle(counts, rh, rw))
        return out
    if all(isinstance(o, (list, tuple, np.ndarray)) for o in objects):
        if len(objects[0]) == 4:
            return from_boxes(objects, h, w)
        return from_polygons(objects, h, w)
    if len(objects) == 4:
        return from_boxes([objects], h, w)[0]
    return from_polygons([objects], h, w)[0]


def segmentation_counts(segmentation: Any, h: int, w: int, argument: str) -> U32:
    """Run lengths of one annotation's segmentation on an h x w image (COCO ``annToRLE``).

    Polygons (a list of ``[x1, y1, ...]``) are rasterized and merged;
    an RLE must have the image's size.
    """
    if isinstance(segmentation, list):
        if not segmentation:
            raise _checks.bad_polygon(argument, 0, segmentation)
        polygons = [_polygon_counts(_checks.check_polygon(argument, i, p), h, w)
                    for i, p in enumerate(segmentation)]
        if len(polygons) == 1:
            return polygons[0].astype(np.uint32)
        rle = merge([_rle(p, h, w) for p in polygons])
        return counts_from_string(rle["counts"])
    counts, _, _ = _counts(segmentation, argument)
    return counts
