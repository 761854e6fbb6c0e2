"""Run-length masks as flat arrays: the codec, rasterization and IoU the evaluation uses.

The building blocks of :mod:`prcurve.detection.masks` (the public,
pycocotools-compatible functions on RLE objects) and of the ``segm``
evaluation: run lengths as numpy arrays, COCO's compressed-string codec
(maskApi.c ``rleToString`` / ``rleFrString``, in
:mod:`prcurve.detection.rle_strings`, re-exported here), the enclosing box
(``rleToBbox``), polygon rasterization (``rleFrPoly``), and
:class:`MaskSet`, many masks' foreground runs in flat arrays, whose pairs'
IoU :func:`pair_mask_iou` computes from run boundaries without decoding a
pixel.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from typing import Any

import numpy as np
from numpy.typing import NDArray

from prcurve.detection.boxes import pair_iou
from prcurve.detection.rle_strings import (
    counts_from_string,
    counts_to_string,
    strings_to_counts,
)

__all__ = [
    "MaskSet",
    "RunLengths",
    "box_gate",
    "counts_bbox",
    "counts_from_string",
    "counts_to_string",
    "flat_polygons_to_counts",
    "gated_mask_iou",
    "pair_mask_iou",
    "polygon_counts",
    "polygons_to_counts",
    "strings_to_counts",
]

U32 = NDArray[np.uint32]
I64 = NDArray[np.int64]
F64 = NDArray[np.float64]

_CHUNK_RUNS = 1 << 18  # runs read at once (masks built, pairs intersected): bounded memory
_CHUNK_POLYGONS = 512  # polygons rasterized at once


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
    """The enclosing box ``[x, y, w, h]`` of one mask's run lengths (``rleToBbox``)."""
    box = counts_bbox(np.asarray(counts, dtype=np.int64), np.array([0, counts.shape[0]]),
                      np.array([h]), np.array([w]))[0]
    return (float(box[0]), float(box[1]), float(box[2]), float(box[3]))


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
    """Run lengths of one polygon, rasterized as maskApi.c ``rleFrPoly``."""
    counts, _ = polygons_to_counts([xy], np.array([h]), np.array([w]))
    return counts


def _segment_starts(offset: I64) -> I64:
    """Per element of a flat array cut at ``offset``: the start of its segment."""
    lengths = np.diff(offset)
    return np.repeat(offset[:-1], lengths)


def _local_index(offset: I64) -> I64:
    """Per element of a flat array cut at ``offset``: its place within its segment."""
    return np.arange(int(offset[-1]), dtype=np.int64) - _segment_starts(offset)


def counts_bbox(counts: NDArray[Any], offset: I64, h: I64, w: I64) -> F64:
    """Enclosing boxes of many masks' run lengths (maskApi.c ``rleToBbox``), shape (n, 4)."""
    start, end, run_offset, _ = _foreground(counts, offset)
    return _runs_bbox(start, end, run_offset, np.diff(offset), h, w)


def _foreground(counts: NDArray[Any], offset: I64) -> tuple[I64, I64, I64, I64]:
    """Each mask's foreground runs of non-zero length as [start, end) (column-major pixel
    positions), their offsets, and each mask's area."""
    n = offset.shape[0] - 1
    # Run j of mask i ends at cs[j + 1] - base[i]: one running sum over every mask.
    cs = np.concatenate(([0], np.cumsum(counts, dtype=np.int64)))
    base = cs[offset[:-1]]
    # The foreground runs are each mask's odd runs 1, 3, ...
    n_fg = np.diff(offset) // 2
    fg_offset = np.concatenate(([0], np.cumsum(n_fg))).astype(np.int64)
    owner = np.repeat(np.arange(n), n_fg)
    index = (offset[:-1] + 1 - 2 * fg_offset[:-1])[owner] + 2 * np.arange(
        int(fg_offset[-1]), dtype=np.int64)
    length = counts[index].astype(np.int64)
    covered = np.concatenate(([0], np.cumsum(length)))
    area = covered[fg_offset[1:]] - covered[fg_offset[:-1]]
    nonzero = length > 0
    kept = np.concatenate(([0], np.cumsum(nonzero))).astype(np.int64)
    end = (cs[index + 1] - base[owner])[nonzero]
    return end - length[nonzero], end, kept[fg_offset], area


def _runs_bbox(start: I64, end: I64, run_offset: I64, n_counts: I64, h: I64, w: I64) -> F64:
    """maskApi.c ``rleToBbox`` (pycocotools' maintained version) from the foreground runs.

    It visits the foreground runs of non-zero length (those in the first ``2 * (m // 2)``
    runs: all of them) and takes the column of each one's first pixel and of its last,
    and its rows, or every row when it spans two columns. Runs are sorted, so the first
    run's column is the least and the last run's the greatest. A mask of fewer than two
    runs is ``[0, 0, 0, 0]``; one without foreground keeps C's starting values
    ``xs = w, ys = h, xe = ye = 0``, its width and height ``xe - xs + 1`` in 32-bit
    unsigned arithmetic.
    """
    n = run_offset.shape[0] - 1
    box = np.zeros((n, 4))
    empty = (n_counts >= 2) & (run_offset[1:] == run_offset[:-1])
    box[empty] = np.stack((w[empty], h[empty], (1 - w[empty]) & 0xFFFFFFFF,
                           (1 - h[empty]) & 0xFFFFFFFF), axis=1)
    has = run_offset[1:] > run_offset[:-1]
    if not has.any():
        return box
    owner = np.repeat(np.arange(n), np.diff(run_offset))
    hh = np.maximum(h[owner], 1)  # MaskSet.of without sizes (no boxes wanted) has h = 0
    first_x, first_y = np.divmod(start, hh)
    last_x, last_y = np.divmod(end - 1, hh)
    at = run_offset[:-1][has]
    spans = np.logical_or.reduceat(first_x != last_x, at)
    xs = first_x[at]
    xe = last_x[run_offset[1:][has] - 1]
    ys = np.where(spans, 0, np.minimum.reduceat(first_y, at))
    ye = np.where(spans, h[has] - 1, np.maximum.reduceat(last_y, at))
    box[has] = np.stack((xs, ys, xe - xs + 1, ye - ys + 1), axis=1)
    return box


def _walk(start: I64, slope: F64, t: I64) -> I64:
    """maskApi.c's point of a walk: ``(int)(start + slope * t + .5)``, truncated toward 0."""
    out: I64 = np.trunc(start + slope * t + 0.5).astype(np.int64)
    return out


def _column_changes(edges: I64, xs: I64, xe: I64, ys: I64, slope: F64,
                    edge_poly: I64) -> tuple[I64, I64, I64]:
    """Column changes of the walks along y: lower column q = 2 mod 5, row, polygon.

    Along y, u(t) moves by at most one column a step, monotonically from xs to
    xe, so each column boundary q | q + 1 between them is crossed once. The
    step t is estimated from the line and settled by evaluating u exactly at
    the candidates around it (rounding can move the estimate by one).
    """
    low, high = np.minimum(xs[edges], xe[edges]), np.maximum(xs[edges], xe[edges])
    first_q = low + (2 - low) % 5
    n_q = np.maximum((high - first_q + 4) // 5, 0)
    e = np.repeat(edges, n_q)
    q = first_q[np.repeat(np.arange(edges.shape[0]), n_q)] + 5 * _local_index(
        np.concatenate(([0], np.cumsum(n_q))).astype(np.int64))
    s = slope[e]
    rising = s > 0
    # Rising: the first t with u(t) >= q + 1; falling: the first t with u(t) <= q.
    estimate = np.floor((q + 0.5 - xs[e]) / s).astype(np.int64)
    window = estimate[:, None] + np.arange(-2, 4)[None, :]
    u = _walk(xs[e][:, None], s[:, None], window)
    reached = np.where(rising[:, None], u >= q[:, None] + 1, u <= q[:, None])
    t_first = window[np.arange(e.shape[0]), np.argmax(reached, axis=1)]
    return q, ys[e] + t_first - 1, edge_poly[e]


def polygons_to_counts(polygons: Sequence[F64], h: I64, w: I64) -> tuple[I64, I64]:
    """Run lengths of many polygons (each a flat ``[x1, y1, x2, y2, ...]``) on grids of
    ``h[p]`` x ``w[p]``: the run lengths one after another and their offsets."""
    sizes = np.fromiter((p.shape[0] for p in polygons), dtype=np.int64, count=len(polygons))
    flat = np.concatenate(polygons) if len(polygons) else np.zeros(0)
    return flat_polygons_to_counts(flat, sizes, h, w)


def flat_polygons_to_counts(flat: F64, sizes: I64, h: I64, w: I64) -> tuple[I64, I64]:
    """:func:`polygons_to_counts` of polygons given as every coordinate one after another
    and each polygon's number of coordinates, ``_CHUNK_POLYGONS`` at a time so that
    memory stays bounded."""
    if sizes.shape[0] <= _CHUNK_POLYGONS:
        return _polygons_to_counts(flat, sizes, h, w)
    first = np.concatenate(([0], np.cumsum(sizes))).tolist()
    parts, offsets, base = [], [np.zeros(1, dtype=np.int64)], 0
    for lo in range(0, sizes.shape[0], _CHUNK_POLYGONS):
        hi = min(lo + _CHUNK_POLYGONS, sizes.shape[0])
        counts, offset = _polygons_to_counts(flat[first[lo]:first[hi]], sizes[lo:hi],
                                             h[lo:hi], w[lo:hi])
        parts.append(counts)
        offsets.append(offset[1:] + base)
        base += int(offset[-1])
    return np.concatenate(parts), np.concatenate(offsets)


def _polygons_to_counts(flat: F64, sizes: I64, h: I64, w: I64) -> tuple[I64, I64]:
    """Run lengths of many polygons at once, rasterized as maskApi.c ``rleFrPoly``.

    Polygon p (``sizes[p]`` coordinates ``x1, y1, x2, y2, ...`` of ``flat``) is drawn
    on an ``h[p]`` x ``w[p]``
    grid. Its boundary is upsampled 5 times and walked one step of the longer
    axis at a time (coordinates truncated toward zero after adding 0.5, as
    C's ``(int)`` cast); where the walk crosses a column of pixel centres, the
    first foreground row of that column is a run boundary; the boundaries
    are sorted, and toggles at one pixel cancel. Returns the run lengths of
    every polygon, one after another, and their offsets.
    """
    scale = 5.0
    n_poly = sizes.shape[0]
    k = sizes // 2
    vx = np.trunc(scale * flat[0::2] + 0.5).astype(np.int64)
    vy = np.trunc(scale * flat[1::2] + 0.5).astype(np.int64)
    vertex_offset = np.concatenate(([0], np.cumsum(k))).astype(np.int64)
    edge_poly = np.repeat(np.arange(n_poly), k)
    # Edge e goes from vertex e to the next vertex of its polygon (the last back to the first).
    nxt = np.arange(vx.shape[0]) + 1
    nxt[vertex_offset[1:] - 1] = vertex_offset[:-1]
    xs, xe, ys, ye = vx, vx[nxt], vy, vy[nxt]
    dx, dy = np.abs(xe - xs), np.abs(ys - ye)
    along_x = dx >= dy
    flip = (along_x & (xs > xe)) | (~along_x & (ys > ye))
    xs, xe = np.where(flip, xe, xs), np.where(flip, xs, xe)
    ys, ye = np.where(flip, ye, ys), np.where(flip, ys, ye)
    steps = np.where(along_x, dx, dy)
    # A repeated vertex (0 / 0 in C) yields one point whose row is never read.
    slope = np.where(along_x, (ye - ys), (xe - xs)) / np.maximum(steps, 1)
    # The walk of an edge visits t = 0..steps (in either direction): along x the points
    # (xs + t, v(t)), along y the points (u(t), ys + t), with v(t) = (int)(ys + s t + .5)
    # and u(t) = (int)(xs + s t + .5). Consecutive edges share their vertex, so the column
    # changes only inside an edge, between t and t + 1. A change is kept where the lower
    # column q satisfies (q + .5) / 5 - .5 = (q - 2) / 5 whole, in [0, w - 1]: q = 2 mod 5.
    # So only those t are evaluated, not the whole walk.
    edge = np.arange(steps.shape[0])
    x_edge = edge[along_x & (steps > 0)]
    first_t = (2 - xs[x_edge]) % 5
    n_t = np.maximum((steps[x_edge] - first_t + 4) // 5, 0)
    e = np.repeat(x_edge, n_t)
    t = first_t[np.repeat(np.arange(x_edge.shape[0]), n_t)] + 5 * _local_index(
        np.concatenate(([0], np.cumsum(n_t))).astype(np.int64))
    q_x = xs[e] + t
    row_x = np.minimum(_walk(ys[e], slope[e], t), _walk(ys[e], slope[e], t + 1))
    poly_x = edge_poly[e]
    q_y, row_y, poly_y = _column_changes(edge[~along_x & (xs != xe)], xs, xe, ys, slope,
                                         edge_poly)
    q = np.concatenate((q_x, q_y))
    yd_raw = np.concatenate((row_x, row_y))
    poly = np.concatenate((poly_x, poly_y))
    xd = (q - 2) // 5
    keep = (q >= 2) & (xd <= w[poly] - 1)
    xd, yd_raw, poly = xd[keep], yd_raw[keep], poly[keep]
    yd = np.ceil(np.clip((yd_raw.astype(np.float64) + 0.5) / scale - 0.5, 0, h[poly]))
    a = xd * h[poly] + yd.astype(np.int64)
    # Each polygon's boundaries and the end of its grid, sorted within the polygon.
    # One integer key per boundary, polygon first (a <= h * w < stride): one sort, not two.
    stride = int((h * w).max(initial=0)) + 1
    key = np.sort(np.concatenate((poly * stride + a, np.arange(n_poly) * stride + h * w)))
    owner, a = np.divmod(key, stride)
    n_bounds = np.bincount(owner, minlength=n_poly).astype(np.int64)
    bound_offset = np.concatenate(([0], np.cumsum(n_bounds))).astype(np.int64)
    starts = bound_offset[:-1]
    previous = np.concatenate(([0], a[:-1]))
    previous[starts] = 0
    runs = a - previous
    # maskApi.c's compaction: after a polygon's first run, a run of 0 swallows the next run
    # into the previous one; in a stretch of zeros they pair up, so the run after an odd
    # stretch of zeros is added to the run before it.
    is_first = np.zeros(runs.shape[0], dtype=bool)
    is_first[starts] = True
    anchor = np.flatnonzero(is_first | (runs > 0))
    gap = np.diff(anchor, prepend=0) - 1
    joins = ~is_first[anchor] & (gap % 2 == 1)
    group = np.cumsum(~joins) - 1
    counts = np.bincount(group, weights=runs[anchor]).astype(np.int64)
    n_groups = np.bincount(owner[anchor][~joins], minlength=n_poly).astype(np.int64)
    offset = np.concatenate(([0], np.cumsum(n_groups))).astype(np.int64)
    return counts, offset


class RunLengths:
    """Many masks' run lengths in flat arrays, selectable by rows like a column.

    Mask i's runs are ``counts[offset[i]:offset[i + 1]]``, on an
    ``h[i]`` x ``w[i]`` grid. Results read from a COCO file keep their masks
    this way once decoded, so evaluating them does not decode them again.
    """

    __slots__ = ("_masks", "counts", "h", "offset", "w")

    def __init__(self, counts: NDArray[Any], offset: I64, h: I64, w: I64) -> None:
        self.counts, self.offset, self.h, self.w = counts, offset, h, w
        self._masks: MaskSet | None = None

    def __len__(self) -> int:
        return int(self.offset.shape[0] - 1)

    def __getitem__(self, rows: Any) -> RunLengths:
        index = np.arange(len(self))[rows]
        lo, hi = self.offset[:-1][index], self.offset[1:][index]
        lengths = hi - lo
        offset = np.concatenate(([0], np.cumsum(lengths))).astype(np.int64)
        picked = np.repeat(lo - offset[:-1], lengths) + np.arange(int(offset[-1]))
        return RunLengths(self.counts[picked], offset, self.h[index], self.w[index])

    def mask_set(self) -> MaskSet:
        """The masks' foreground runs, boxes and areas (computed once)."""
        if self._masks is None:
            self._masks = MaskSet.from_counts(self.counts, self.offset, self.h, self.w)
        return self._masks


class MaskSet:
    """Many masks' foreground runs in flat arrays (what the evaluation keeps per mask).

    Mask i's runs are ``start[offset[i]:offset[i + 1]]`` and ``end[...]``
    (column-major pixel positions, 32-bit integers unless a mask has 2^31 pixels or
    more); ``area[i]`` its foreground pixels,
    ``box[i]`` its ``[x, y, w, h]`` as :func:`to_bbox` gives it.
    """

    __slots__ = ("area", "box", "end", "offset", "start")

    def __init__(self, start: NDArray[Any], end: NDArray[Any], offset: I64, area: I64,
                 box: F64) -> None:
        self.start, self.end, self.offset, self.area, self.box = start, end, offset, area, box

    @classmethod
    def of(cls, counts: Sequence[NDArray[Any]],
           sizes: Sequence[tuple[int, int]] | None = None) -> MaskSet:
        """From each mask's run lengths (and size, for the boxes)."""
        lengths = np.fromiter((c.shape[0] for c in counts), dtype=np.int64, count=len(counts))
        flat = (np.concatenate(counts).astype(np.int64) if counts
                else np.zeros(0, dtype=np.int64))
        offset = np.concatenate(([0], np.cumsum(lengths))).astype(np.int64)
        shape = np.asarray(sizes if sizes is not None else [(0, 0)] * len(counts),
                           dtype=np.int64).reshape(-1, 2)
        return cls.from_counts(flat, offset, shape[:, 0], shape[:, 1])

    @classmethod
    def from_counts(cls, counts: NDArray[Any], offset: I64, h: I64, w: I64) -> MaskSet:
        """From run lengths one after another, cut at ``offset``, masks of h x w
        (in parts of about ``_CHUNK_RUNS`` runs: memory stays bounded). Positions are
        kept in 32 bits where every mask has fewer than 2^31 pixels (half the memory)."""
        n = offset.shape[0] - 1
        cuts = np.unique(np.concatenate((
            [0], np.searchsorted(offset, np.arange(1, offset[-1] // _CHUNK_RUNS + 1)
                                 * _CHUNK_RUNS), [n])))
        # Each mask has at most half its runs in the foreground: one array for all of
        # them, filled part by part (the parts are never joined, a second copy).
        start = np.empty(int((np.diff(offset) // 2).sum()), dtype=np.int32)
        end = np.empty_like(start)
        run_offset = np.zeros(n + 1, dtype=np.int64)
        area = np.zeros(n, dtype=np.int64)
        box = np.zeros((n, 4))
        base = 0
        for lo, hi in itertools.pairwise(cuts.tolist()):
            if hi <= lo:
                continue
            part = cls._from_counts(counts[offset[lo]:offset[hi]],
                                    offset[lo:hi + 1] - offset[lo], h[lo:hi], w[lo:hi])
            k = part.start.shape[0]
            if k and int(part.end.max()) >= 2**31 and start.dtype != np.int64:
                start, end = start.astype(np.int64), end.astype(np.int64)
            start[base:base + k], end[base:base + k] = part.start, part.end
            run_offset[lo + 1:hi + 1] = part.offset[1:] + base
            area[lo:hi], box[lo:hi] = part.area, part.box
            base += k
        return cls(start[:base], end[:base], run_offset, area, box)

    @classmethod
    def _from_counts(cls, counts: NDArray[Any], offset: I64, h: I64, w: I64) -> MaskSet:
        start, end, run_offset, area = _foreground(counts, offset)
        return cls(start, end, run_offset, area,
                   _runs_bbox(start, end, run_offset, np.diff(offset), h, w))

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
    runs = (dt.offset[dt_rows + 1] - dt.offset[dt_rows]
            + gt.offset[gt_rows + 1] - gt.offset[gt_rows])
    if runs.sum() > _CHUNK_RUNS:  # bounded memory: pairs in parts of about _CHUNK_RUNS runs
        part = np.searchsorted(np.cumsum(runs), np.arange(1, runs.sum() // _CHUNK_RUNS + 1)
                               * _CHUNK_RUNS)
        cuts = np.unique(np.concatenate(([0], part, [n])))
        return np.concatenate([
            _pair_mask_iou(dt, dt_rows[lo:hi], gt, gt_rows[lo:hi], crowd[lo:hi])
            for lo, hi in itertools.pairwise(cuts.tolist()) if hi > lo])
    return _pair_mask_iou(dt, dt_rows, gt, gt_rows, crowd)


def _pair_mask_iou(dt: MaskSet, dt_rows: I64, gt: MaskSet, gt_rows: I64,
                   crowd: NDArray[np.bool_]) -> F64:
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


def gated_mask_iou(dt: MaskSet, dt_rows: I64, gt: MaskSet, gt_rows: I64,
                   crowd: NDArray[np.bool_]) -> F64:
    """Masks' IoU of each pair; only pairs whose masks' boxes overlap are computed
    (pycocotools' ``rleIou`` gates on ``bbIou`` the same way)."""
    out = np.zeros(dt_rows.shape[0])
    near = box_gate(dt, dt_rows, gt, gt_rows, crowd)
    out[near] = pair_mask_iou(dt, dt_rows[near], gt, gt_rows[near], crowd[near])
    return out


def box_gate(dt: MaskSet, dt_rows: I64, gt: MaskSet, gt_rows: I64,
             crowd: NDArray[np.bool_]) -> NDArray[np.bool_]:
    """Pairs whose masks' boxes overlap (the only pairs whose masks can)."""
    return pair_iou(dt.box[dt_rows], gt.box[gt_rows], crowd) > 0
