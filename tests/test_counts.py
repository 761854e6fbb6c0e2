"""The exact count state: construction, merge edge cases."""

from __future__ import annotations

import numpy as np

from prcurve import ThresholdCounts


def test_merge_keeps_a_threshold_whose_weight_is_below_rounding() -> None:
    # diff(cumsum) of 1.0 then 1e-17 is 0: the threshold must survive anyway.
    a = ThresholdCounts.from_scores([1, 1], [0.5, 0.4], sample_weight=[1.0, 1e-17])
    assert a.thresholds.tolist() == [0.5, 0.4]
    assert a.merge(ThresholdCounts.empty()).thresholds.tolist() == [0.5, 0.4]
    assert ThresholdCounts.empty().merge(a).thresholds.tolist() == [0.5, 0.4]
    b = ThresholdCounts.from_scores([0], [0.45])
    assert a.merge(b).thresholds.tolist() == [0.5, 0.45, 0.4]


def test_merge_keeps_weight_below_every_threshold() -> None:
    a = ThresholdCounts([2.0, 1.0], [1, 2], [0, 1], n_pos=5, n_neg=1)
    b = ThresholdCounts.from_scores([1, 0], [1.5, 0.5])
    merged = a.merge(b)
    assert (merged.n_pos, merged.n_neg) == (6.0, 2.0)
    assert merged.thresholds.tolist() == [2.0, 1.5, 1.0, 0.5]
    np.testing.assert_array_equal(merged.tp, [1, 2, 3, 3])
    np.testing.assert_array_equal(merged.fp, [0, 0, 1, 2])


def test_average_precision_never_leaves_the_unit_interval() -> None:
    # Davis-Goadrich with only positives sums d^2/D = d per segment; the float sum of
    # many tiny recall steps can round above 1 unless clamped.
    from prcurve import AP_METHODS, average_precision

    weights = np.full(1000, 0.1)
    for method in AP_METHODS:
        value = average_precision(np.ones(1000), np.arange(1000.0), method=method,
                                  sample_weight=weights)
        assert 0.0 <= value <= 1.0
        assert value == 1.0 or abs(value - 1.0) < 1e-12


def test_average_precision_does_not_depend_on_blas_threads() -> None:
    """AP sums its products itself (counts.sum_of_products), not by np.dot: OpenBLAS
    splits a long dot product over its threads, so the last bit followed the number
    of cores (and its spinning threads took them from the next sort)."""
    import os
    import subprocess
    import sys

    script = (
        "import numpy as np, prcurve\n"
        "rng = np.random.default_rng(5)\n"
        "y = rng.random(400_000) < 0.5\n"
        "s = rng.random(400_000)\n"
        "print(repr(prcurve.average_precision(y, s)),"
        " repr(prcurve.average_precision(y, s, method='interpolated')))\n"
    )
    printed = []
    for threads in ("1", "2", "4"):
        env = dict(os.environ, OPENBLAS_NUM_THREADS=threads, OMP_NUM_THREADS=threads)
        printed.append(subprocess.run([sys.executable, "-c", script], env=env, check=True,
                                      capture_output=True, text=True).stdout)
    assert printed[0] == printed[1] == printed[2]
