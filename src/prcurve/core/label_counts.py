"""Counting predicted labels: the four cells of a binary confusion matrix, and the
class-by-class matrix of a multi-class problem, in one chunked pass.

The floor of every label metric is counting. Hard labels are read in chunks of
:data:`~prcurve.validation.label_codes.CHUNK` samples, never copied whole: without
weights the cells are ``count_nonzero`` of the positives, of the predicted positives
and of both (integers, so exact); with weights one ``bincount`` per chunk of the cell
code ``2 * truth + predicted`` sums each cell's weights directly (no cell is found by
subtracting two sums, which would lose the digits of a small cell). Peak memory is a
few chunks, whatever the number of samples.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from prcurve.validation.label_codes import CHUNK, ClassCodes, HardLabels

__all__ = ["Cells", "binary_cells", "class_matrix"]

F64 = NDArray[np.float64]
Cells = tuple[float, float, float, float]
"""(TP, FP, FN, TN)."""


def binary_cells(truth: HardLabels | F64, predicted: HardLabels, weights: F64 | None) -> Cells:
    """(TP, FP, FN, TN) of hard predictions against hard labels or soft labels (floats in
    [0, 1], a sample adding ``w*y`` to the positives and ``w*(1-y)`` to the negatives)."""
    if not isinstance(truth, HardLabels):
        return _soft_cells(truth, predicted.mask(), weights)
    n = truth.n
    size = min(CHUNK, n)
    truth_buffer, pred_buffer = np.empty(size, dtype=bool), np.empty(size, dtype=bool)
    if weights is None:
        both = np.empty(size, dtype=bool)
        tp = positives = predicted_positives = 0
        for start in range(0, n, CHUNK):
            stop = min(start + CHUNK, n)
            t = truth.chunk(start, stop, truth_buffer)
            p = predicted.chunk(start, stop, pred_buffer)
            positives += int(np.count_nonzero(t))
            predicted_positives += int(np.count_nonzero(p))
            tp += int(np.count_nonzero(np.logical_and(t, p, out=both[: stop - start])))
        # Integer counts: the differences are exact.
        return (float(tp), float(predicted_positives - tp), float(positives - tp),
                float(n - positives - predicted_positives + tp))
    code = np.empty(size, dtype=np.uint8)
    sums = np.zeros(4)
    for start in range(0, n, CHUNK):
        stop = min(start + CHUNK, n)
        c = code[: stop - start]
        t = truth.chunk(start, stop, truth_buffer)
        np.add(t, t, out=c, dtype=np.uint8)
        np.add(c, predicted.chunk(start, stop, pred_buffer), out=c, dtype=np.uint8)
        # Cell codes: 0 TN, 1 FP, 2 FN, 3 TP.
        sums += np.bincount(c, weights=weights[start:stop], minlength=4)
    return float(sums[3]), float(sums[1]), float(sums[2]), float(sums[0])


def _soft_cells(fraction: F64, predicted: NDArray[np.bool_], weights: F64 | None) -> Cells:
    w = np.ones(fraction.shape[0]) if weights is None else weights
    pos_w = w * fraction
    neg_w = w * (1.0 - fraction)
    return (float(pos_w[predicted].sum()), float(neg_w[predicted].sum()),
            float(pos_w[~predicted].sum()), float(neg_w[~predicted].sum()))


def class_matrix(codes: ClassCodes, weights: F64 | None) -> tuple[F64, NDArray[np.bool_]]:
    """The (k, k) matrix of summed weights (counts without weights), row: true class,
    column: predicted class, over all ``codes.classes``; and which classes occur.

    A class occurs when some sample has it, whatever its weight (as scikit-learn's
    ``unique_labels``).
    """
    k = codes.n_codes
    n = int(codes.true_codes.shape[0])
    counts = np.zeros(k * k, dtype=np.int64)
    summed = None if weights is None else np.zeros(k * k)
    step = max(CHUNK, k * k)  # each chunk's bincount allocates k*k cells
    cell = np.empty(min(step, n), dtype=np.intp)
    for start in range(0, n, step):
        stop = min(start + step, n)
        c = cell[: stop - start]
        np.multiply(codes.true_codes[start:stop], k, out=c, dtype=np.intp, casting="unsafe")
        np.add(c, codes.pred_codes[start:stop], out=c, dtype=np.intp, casting="unsafe")
        counts += np.bincount(c, minlength=k * k)
        if summed is not None and weights is not None:
            summed += np.bincount(c, weights=weights[start:stop], minlength=k * k)
    square = counts.reshape(k, k)
    present = (square.sum(axis=0) + square.sum(axis=1)) > 0
    matrix: F64 = square.astype(np.float64) if summed is None else summed.reshape(k, k)
    return matrix, present

