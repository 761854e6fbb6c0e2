"""Issue 26, item 6: the in-memory report of a large file without copies.

The views a report reads from a long exact curve (best F-beta, precision at a recall,
recall at a precision, the ROC area, the recall steps of AP) are computed a block of
thresholds at a time (core/curve_blocks.py, core/roc.py); here the block is made a few
thresholds long so that small random states cross many blocks, and every value is
compared with the full-array path (itself tested against scikit-learn) and with
scikit-learn. Parquet columns written straight into preallocated arrays
(io/parquet_memory.py) are compared with pyarrow's own whole-table conversion.
"""

from __future__ import annotations

import warnings
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.metrics import roc_auc_score

import prcurve.core.curve as curve_module
import prcurve.core.curve_blocks as blocks
import prcurve.core.roc as roc_module
from prcurve import UndefinedMetricWarning, pr_curve
from prcurve.core.counts import RecallSteps, ThresholdCounts


@st.composite
def states(draw: st.DrawFn) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
    n = draw(st.integers(1, 300))
    rng = np.random.default_rng(draw(st.integers(0, 2**16)))
    labels = rng.random(n) < draw(st.floats(0.0, 1.0))
    labels[0] = True  # a positive: the rates are defined
    levels = draw(st.sampled_from([2, 7, 40, 10**6]))  # few levels: many ties
    scores = rng.integers(0, levels, n).astype(np.float64)
    weights = None
    if draw(st.booleans()):  # zero weights: thresholds where precision is 0/0, and
        # neighbouring thresholds with the same counts (ties between operating points)
        weights = rng.choice(draw(st.sampled_from([[0.0, 0.5, 1.0, 3.0],
                                                    [0.0, 0.0, 0.0, 1.0]])), n)
        weights[0] = 1.0
    return labels, scores, weights


def _views(curve: Any) -> list[Any]:
    with warnings.catch_warnings():  # undefined values (NaN) are compared as values
        warnings.simplefilter("ignore", UndefinedMetricWarning)
        return _all_views(curve)


def _all_views(curve: Any) -> list[Any]:
    return ([curve.best_f(b) for b in (0.5, 1.0, 2.0)]
            + [curve.precision_at_recall(r) for r in (0.0, 0.3, 0.9, 1.0)]
            + [curve.recall_at_precision(p) for p in (0.0, 0.3, 0.9, 1.0)]
            + [curve.roc().auc()])


@settings(max_examples=120, deadline=None)
@given(data=states(), block=st.integers(1, 9))
def test_blocked_views_equal_the_full_arrays(
    data: tuple[np.ndarray, np.ndarray, np.ndarray | None], block: int,
) -> None:
    labels, scores, weights = data
    expected = _views(pr_curve(labels, scores, sample_weight=weights))
    with pytest.MonkeyPatch.context() as patch:
        for module in (blocks, curve_module):
            patch.setattr(module, "VIEW_BLOCK", block)
        patch.setattr(roc_module, "_AUC_BLOCK", block)
        found = _views(pr_curve(labels, scores, sample_weight=weights))
    # The same operating points (index, value, rates) bit for bit; the ROC area is
    # summed in blocks, so the same up to rounding.
    assert repr(found[:-1]) == repr(expected[:-1])
    assert found[-1] == pytest.approx(expected[-1], rel=1e-12, abs=1e-15, nan_ok=True)
    if weights is None and 0 < labels.sum() < labels.shape[0]:
        assert found[-1] == pytest.approx(roc_auc_score(labels, scores), rel=1e-12)


@settings(max_examples=60, deadline=None)
@given(data=states())
def test_recall_steps_gather_the_entering_thresholds(
    data: tuple[np.ndarray, np.ndarray, np.ndarray | None],
) -> None:
    # The slow readable rule: a step wherever the positive weight of a threshold is > 0,
    # with the negatives strictly above it (the previous cumulative fp, 0 at the top).
    labels, scores, weights = data
    counts = ThresholdCounts.from_scores(labels, scores, sample_weight=weights)
    steps = RecallSteps.from_counts(counts)
    tp, fp = counts.tp, counts.fp
    expected = [(tp[i], fp[i], fp[i - 1] if i else 0.0)
                for i in range(len(counts)) if (tp[i] - (tp[i - 1] if i else 0.0)) > 0]
    assert list(zip(steps.tp, steps.fp, steps.fp_above, strict=True)) == expected


def _write(path: Path, statistics: bool = True) -> dict[str, Any]:
    pa = pytest.importorskip("pyarrow")
    pq = pytest.importorskip("pyarrow.parquet")
    rng = np.random.default_rng(0)
    n = 1000
    with_nulls = rng.random(n).tolist()
    with_nulls[700] = None
    table = pa.table({
        "i8": pa.array(rng.integers(-100, 100, n), type=pa.int8()),
        "i32": pa.array(rng.integers(-10**9, 10**9, n), type=pa.int32()),
        "i64": pa.array(rng.integers(-2**62, 2**62, n), type=pa.int64()),
        "u64": pa.array(rng.integers(0, 2**63, n, dtype=np.uint64) * 2 + 1, type=pa.uint64()),
        "f16": pa.array(rng.random(n).astype(np.float16), type=pa.float16()),
        "f32": pa.array(rng.random(n).astype(np.float32), type=pa.float32()),
        "f64": pa.array(rng.standard_normal(n)),
        "flag": pa.array(rng.random(n) < 0.3),
        "nulls": pa.array(with_nulls, type=pa.float64()),
        "text": pa.array([f"w{i % 7}" for i in range(n)]),
    })
    pq.write_table(table, path, row_group_size=128, write_statistics=statistics)
    return {"pa": pa, "pq": pq}


@pytest.mark.parametrize("statistics", [True, False])
def test_parquet_columns_equal_the_whole_table_conversion(tmp_path: Path,
                                                          statistics: bool) -> None:
    from prcurve.io.readers import arrow_to_numpy, read_table

    path = tmp_path / "t.parquet"
    libs = _write(path, statistics)
    whole = libs["pq"].read_table(path)
    rows: list[int] = []
    table = read_table(path, on_rows=rows.append)
    assert sum(r for r in rows if r > 0) == 1000
    for name in whole.column_names:
        expected = arrow_to_numpy(libs["pa"], whole.column(name))
        found = table.columns[name]
        assert found.dtype == expected.dtype, name
        if found.dtype.kind == "f":
            np.testing.assert_array_equal(found, expected)
        else:
            assert found.tolist() == expected.tolist(), name


@pytest.mark.parametrize("block", [1, 2, 3, 4, 8])
def test_blocked_best_f_keeps_the_highest_of_tied_thresholds(block: int) -> None:
    # F1 = 2/3 at the first and the fourth threshold (tp=1, fp=0, fn=1 and tp=2, fp=2,
    # fn=0): the best point is the highest threshold, in one block or across blocks.
    labels, scores = [1, 0, 0, 1, 0], [5.0, 4.0, 3.0, 2.0, 1.0]
    expected = pr_curve(labels, scores).best_f()
    assert expected.threshold == 5.0
    with pytest.MonkeyPatch.context() as patch:
        for module in (blocks, curve_module):
            patch.setattr(module, "VIEW_BLOCK", block)
        found = pr_curve(labels, scores).best_f()
    assert repr(found) == repr(expected)
