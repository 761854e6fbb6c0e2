"""Run-length masks as flat arrays: the codec, rasterization and IoU the evaluation uses.

The building blocks of :mod:`prcurve.detection.masks` (the public,
pycocotools-compatible functions on RLE objects) and of the ``segm``
evaluation: run lengths as numpy arrays, COCO's compressed-string codec
(maskApi.c ``rleToString`` / ``rleFrString``), the enclosing box
(``rleToBbox``), polygon rasterization (``rleFrPoly``), and
:class:`MaskSet`, many masks' foreground runs in flat arrays, whose pairs'
IoU :func:`pair_mask_iou` computes from run boundaries without decoding a
pixel.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from numpy.typing import ArrayLike, NDArray

from prcurve.detection.boxes import pair_iou
from prcurve.validation import masks as _checks

__all__ = ["MaskSet", "box_gate", "counts_from_string", "counts_to_string", "pair_mask_iou",
           "polygon_counts"]

U32 = NDArray[np.uint32]
I64 = NDArray[np.int64]
F64 = NDArray[np.float64]

_GROUPS = 8  # 5-bit groups: enough for any difference of two 32-bit run lengths


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


def encode_flat(flat: NDArray[np.uint8]) -> I64:
    """Run lengths of a column-major 0/1 vector (maskApi.c ``rleEncode``)."""
    if flat.size == 0:
        return np.zeros(1, dtype=np.int64)
    change = np.flatnonzero(flat[1:] != flat[:-1]) + 1
    bounds = np.concatenate(([0], change, [flat.size]))
    counts = np.diff(bounds)
    if flat[0]:
        counts = np.concatenate(([0], counts))
    return counts.astype(np.int64)


def bbox(counts: U32, h: int, w: int) -> tuple[float, float, float, float]:
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


def intervals(counts: U32) -> tuple[I64, I64]:
    """Foreground runs as [start, end) in column-major pixel positions."""
    bounds = np.cumsum(counts.astype(np.int64))
    n = bounds.shape[0] // 2
    return bounds[0:2 * n:2], bounds[1:2 * n + 1:2]


def from_intervals(starts: I64, ends: I64, total: int) -> I64:
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


def polygon_counts(xy: F64, h: int, w: int) -> I64:
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
        runs = [intervals(c) for c in counts]
        lengths = np.array([s.shape[0] for s, _ in runs], dtype=np.int64)
        offset = np.concatenate(([0], np.cumsum(lengths))).astype(np.int64)
        start = np.concatenate([s for s, _ in runs]) if runs else np.zeros(0, dtype=np.int64)
        end = np.concatenate([e for _, e in runs]) if runs else np.zeros(0, dtype=np.int64)
        area = np.array([int(c[1::2].sum(dtype=np.int64)) for c in counts], dtype=np.int64)
        if sizes is None:
            box = np.zeros((len(counts), 4))
        else:
            box = np.array([bbox(c, h, w) for c, (h, w) in zip(counts, sizes, strict=True)],
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
