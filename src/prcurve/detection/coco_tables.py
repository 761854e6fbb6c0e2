"""COCO's accumulate for every category at once: recall steps and interpolated precision.

pycocotools' ``COCOeval.accumulate`` walks the categories one by one; so did
prcurve's :func:`prcurve.detection.coco.accumulate`, a dozen NumPy calls per category
and maximum-detections value, which on a small data set of many categories (80
categories, a few boxes each) cost more than the matching (issue 26, item 2). These
functions compute the same numbers for a block of categories with a fixed number of
NumPy calls:

- :func:`recall_steps`: for every ground-truth count ``n`` and recall threshold ``r``,
  the least true-positive count ``c`` with ``c / n >= r`` (the division pycocotools
  does), from ``ceil(r * n)`` corrected by one either way;
- :func:`segmented_reverse_max`: the interpolated precision (the maximum of the
  precisions at or after each true positive, within its category and row), exactly, as
  one running maximum over integer codes of (segment, rank of the value);
- :func:`interpolate`: pycocotools' ``precision``, ``scores`` and true-positive counts
  of a block of categories, read off those tables.

Examples
--------
>>> import numpy as np
>>> recall_steps(np.array([3]), np.array([0.0, 0.3, 0.34, 1.0])).tolist()
[[0, 1, 2, 3]]
>>> segmented_reverse_max(np.array([0.5, 1.0, 0.2, 0.1, 0.4]), np.array([0, 0, 0, 1, 1])
...                       ).tolist()
[1.0, 1.0, 0.2, 0.4, 0.4]
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from prcurve.detection._sorting import sorted_distinct

__all__ = ["interpolate", "recall_steps", "segmented_reverse_max"]

F64 = NDArray[np.float64]
I64 = NDArray[np.int64]

BLOCK_CELLS = 1 << 16
"""Cells (category x row x recall threshold) of one block of :func:`interpolate`: a few
8-byte tables of this size are live at once (512 KiB each), whatever the categories:
small enough to be reused from the heap rather than mapped afresh (page faults)."""


def recall_steps(n_pos: I64, recall_thresholds: F64) -> I64:
    """For each count ``n_pos[i] > 0`` and threshold ``r``, the least ``c`` in [0, n] with
    ``c / n >= r`` (``steps[i, r]``), as ``np.searchsorted(np.arange(n + 1) / n, r)``.

    ``c / n`` is the float division pycocotools does and is non-decreasing in c, so
    "recall >= r" is exactly "TP >= c". ``r * n`` rounds by at most half an ulp, so
    ``ceil(r * n)`` is the answer or one off it; one test either way corrects it.
    """
    n = n_pos.astype(np.float64)[:, None]
    c = np.ceil(recall_thresholds[None, :] * n)
    c = np.where((c - 1) / n >= recall_thresholds, c - 1, c)
    c = np.where(c / n < recall_thresholds, c + 1, c)
    steps: I64 = np.clip(c, 0, n).astype(np.int64)
    return steps


def segmented_reverse_max(values: F64, key: I64) -> F64:
    """``out[i] = max(values[j] for j >= i with key[j] == key[i])``; ``key`` sorted.

    Exact (a maximum selects one of the values): each value is replaced by its rank
    among the distinct values, offset by its segment so that, read backwards, a later
    segment's codes exceed every earlier one's; one running maximum then never crosses a
    segment, and the ranks map back to the values.
    """
    n = values.shape[0]
    if n == 0:
        empty: F64 = np.zeros(0)
        return empty
    distinct = sorted_distinct(values)
    rank = np.searchsorted(distinct, values).astype(np.int64)
    starts = np.ones(n, dtype=bool)
    starts[1:] = key[1:] != key[:-1]
    segment = np.cumsum(starts) - 1
    # Read backwards, segments come last-first: offset (S - 1 - s) rises along the walk.
    offset = (int(segment[-1]) - segment) * distinct.shape[0]
    running = np.maximum.accumulate((offset + rank)[::-1])[::-1]
    out: F64 = distinct[running - offset]
    return out


def interpolate(key: I64, envelope: F64, score: F64, steps: I64, first_score: F64,
                k0: int) -> tuple[F64, F64, I64]:
    """pycocotools' interpolated precision, scores and TP counts for categories ``k0`` on.

    ``key`` (sorted): category * rows + row of every true positive, in (category, row,
    score order); ``envelope``: :func:`segmented_reverse_max` of the precision at each,
    ``score``: its detection's score. ``steps`` (block, rows, R): the TP count where each
    recall threshold is first reached (:func:`recall_steps`; 0: the first detection),
    ``first_score`` (block,): the category's first detection's score (0 without
    detections). Returns ``q`` and ``ss`` (block, rows, R), 0 where recall never reaches
    the threshold, and the TP count (block, rows).

    Threshold r is first reached at the c-th TP (c = steps), and the interpolated
    precision there is the maximum precision from the c-th TP on (precision only rises at
    a TP); c = 0 (recall 0) is the first detection, where it is the maximum over all TPs.
    """
    block, rows, _ = steps.shape
    edges = np.searchsorted(key, np.arange(k0 * rows, (k0 + block) * rows + 1))
    first = edges[:-1].reshape(block, rows, 1)
    count = np.diff(edges).reshape(block, rows)
    column = np.maximum(steps - 1, 0)
    # The TP where each threshold is reached, or one past the end (a 0) when never.
    index = np.where(column < count[:, :, None], first + column, envelope.shape[0])
    q: F64 = np.append(envelope, 0.0)[index]
    ss: F64 = np.append(score, 0.0)[index]
    ss = np.where(steps == 0, first_score[:, None, None], ss)
    return q, ss, count.astype(np.int64)
