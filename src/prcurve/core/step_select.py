"""The recall steps of a state: the thresholds where positive weight enters, selected a
block of thresholds at a time (issue 26, item 6, session 36). Used by
``RecallSteps.from_counts`` (:mod:`prcurve.core.counts`).

A threshold is a step where ``tp[i] > tp[i - 1]`` (``tp[0] > 0`` for the first: the same
as ``pos_weight() > 0`` without its full-length float copy); each step keeps ``tp`` and
``fp`` there and ``fp`` at the threshold before (0 above the first). The indices of the
steps are found 2^20 thresholds at a time (no index array of 8 bytes a step: 1.5*10^7
steps at 3*10^7 rows of 50% positives; nor the shifted copy of it that gathered the
previous ``fp``), and the counts written straight into the three float64 arrays (exact
for integer counts).

Examples
--------
>>> import numpy as np
>>> from prcurve.core.step_select import recall_steps
>>> [a.tolist() for a in recall_steps(np.array([1, 1, 3]), np.array([0, 2, 2]))]
[[1.0, 3.0], [0.0, 2.0], [0.0, 2.0]]
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import NDArray

__all__ = ["recall_steps"]

F64 = NDArray[np.float64]

_BLOCK = 1 << 20  # thresholds looked at at a time (read at each call: tests lower it)


def recall_steps(tp: NDArray[Any], fp: NDArray[Any]) -> tuple[F64, F64, F64]:
    """``(tp, fp, fp_above)`` at the thresholds where positive weight enters, float64."""
    n = tp.shape[0]
    enters = np.empty(n, dtype=bool)
    if n:
        enters[0] = tp[0] > 0
        np.greater(tp[1:], tp[:-1], out=enters[1:])
    m = int(np.count_nonzero(enters))
    at_tp, at_fp, above = np.empty(m), np.empty(m), np.empty(m)
    done = 0
    for low in range(0, n, _BLOCK):
        at = np.flatnonzero(enters[low:low + _BLOCK])
        at += low
        end = done + at.shape[0]
        at_tp[done:end] = tp[at]
        at_fp[done:end] = fp[at]
        at -= 1  # the threshold before: -1 (the last) for the first, set to 0 below
        above[done:end] = fp[at]
        done = end
    if m and enters[0]:
        above[0] = 0.0
    return at_tp, at_fp, above
