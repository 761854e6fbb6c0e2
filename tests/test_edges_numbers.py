"""Issue 10, library side: no silent wrong number at the edges of the input.

Each section holds one item of the issue and its siblings; every test here failed (or
hung, or raised a raw internal error) before the fix it guards:

1. a missing label (None, NaN, pandas NA, ...) is an error, never a negative;
3. merged, chunked, streamed and Dask states give the in-memory numbers, every AP
   method and every operating-point query, weighted (a recall or precision compared
   with a level is robust to the order in which weights were summed);
5. normalized AP and AUCNPR without negatives (or positives) are 0/0 and follow the
   undefined-value policy; weights that are all 0 are an error;
6. weights of any finite size (1e308, 1e-320) give the right answer or a clear error;
7. object arrays of 0/1 and True/False are binary labels;
9. a classifier that never predicts the positive class is legitimate, and a
   ``pos_label`` absent from the labels follows one rule;
and every prcurve warning points at the caller's line.

References are independent of the code under test: scikit-learn, the unweighted value
(every quantity is invariant to a common scale of the weights), brute-force sums, the
in-memory state (for the merged ones).
"""

from __future__ import annotations

import math
import signal
import warnings
from collections.abc import Callable, Iterator
from decimal import Decimal
from functools import reduce
from itertools import pairwise
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest
import sklearn.metrics as skm
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from tests.strategies import TIE_POOL

import prcurve
from prcurve import (
    AP_METHODS,
    BinnedCounts,
    ConfusionMatrix,
    InvalidInputError,
    PRCurve,
    ThresholdCounts,
    UndefinedMetricWarning,
)
from prcurve.core.binned import ap_bounds
from prcurve.space import bounds, intervals
from prcurve.space.aggregate import aggregate

THIS_FILE = __file__

# -- 1. missing labels ---------------------------------------------------------------------

SCORES8 = [0.9, 0.8, 0.7, 0.6, 0.5, 0.4, 0.3, 0.2]
TEXT = ["p", "n", None, "n", "p", "n", "n", "p"]


def _string_dtype_with_na() -> Any:
    from numpy.dtypes import StringDType  # numpy >= 2

    return np.array(TEXT, dtype=StringDType(na_object=None))


# Every container a missing text, categorical or nullable label arrives in. Each holds
# one missing label, at index 2, among 8.
MISSING_TEXT: dict[str, Callable[[], Any]] = {
    "list with None": lambda: list(TEXT),
    "object array with NaN": lambda: np.array([np.nan if v is None else v for v in TEXT],
                                              dtype=object),
    "object array with pd.NA": lambda: np.array([pd.NA if v is None else v for v in TEXT],
                                                dtype=object),
    "object array with NaT": lambda: np.array([pd.NaT if v is None else v for v in TEXT],
                                              dtype=object),
    "object array with Decimal NaN": lambda: np.array(
        [Decimal("NaN") if v is None else v for v in TEXT], dtype=object),
    "pandas categorical": lambda: pd.Series(TEXT, dtype="category"),
    "pandas string": lambda: pd.Series(TEXT, dtype="string"),
    "pandas string[pyarrow]": lambda: pd.Series(TEXT, dtype="string[pyarrow]"),
    "pandas object": lambda: pd.Series(TEXT, dtype=object),
    "numpy StringDType(na_object=None)": _string_dtype_with_na,
}

NUMERIC = [1, 0, None, 0, 1, 0, 0, 1]
MISSING_NUMERIC: dict[str, Callable[[], Any]] = {
    "float NaN": lambda: np.array([np.nan if v is None else v for v in NUMERIC], dtype=float),
    "pandas Int64": lambda: pd.Series(NUMERIC, dtype="Int64"),
    "pandas boolean": lambda: pd.Series(
        [None if v is None else bool(v) for v in NUMERIC], dtype="boolean"),
    "object 0/1 with None": lambda: np.array(NUMERIC, dtype=object),
    "numeric categorical": lambda: pd.Series(NUMERIC, dtype="category"),
}


def _missing_error(name: str = "y_true") -> Any:
    return pytest.raises(InvalidInputError, match=rf"^{name}: found 1 missing label\(s\) "
                         r"\(None, NaN or NA\) among 8, at index 2\. Drop those samples")


def _text_entry_points() -> dict[str, Callable[[Any], Any]]:
    s = np.array(SCORES8)
    matrix = np.column_stack([s, 1 - s])
    pred = ["p", "p", "n", "n", "p", "p", "n", "n"]
    return {
        "average_precision": lambda y: prcurve.average_precision(y, s, pos_label="p"),
        "average_precision 11point": lambda y: prcurve.average_precision(
            y, s, pos_label="p", method="11point", sample_weight=np.ones(8)),
        "average_precision bins": lambda y: prcurve.average_precision(y, s, pos_label="p",
                                                                      bins=4),
        "pr_curve": lambda y: prcurve.pr_curve(y, s, pos_label="p"),
        "ThresholdCounts.from_scores": lambda y: ThresholdCounts.from_scores(
            y, s, pos_label="p"),
        "BinnedCounts.from_scores": lambda y: BinnedCounts.from_scores(
            y, s, [0, 0.5, 1], pos_label="p"),
        "BinnedCounts.update": lambda y: BinnedCounts.uniform(4).update(y, s, pos_label="p"),
        "confusion_matrix y_true": lambda y: prcurve.confusion_matrix(y, pred, pos_label="p"),
        "confusion_matrix y_pred": lambda y: prcurve.confusion_matrix(pred, y, pos_label="p"),
        "precision": lambda y: prcurve.precision(y, pred, pos_label="p"),
        "recall": lambda y: prcurve.recall(y, pred, pos_label="p"),
        "f1": lambda y: prcurve.f1(y, pred, pos_label="p"),
        "f_beta": lambda y: prcurve.f_beta(y, pred, beta=2.0, pos_label="p"),
        "one_vs_rest": lambda y: prcurve.one_vs_rest(y, matrix),
        "average_precision matrix": lambda y: prcurve.average_precision(y, matrix),
        "pr_curve matrix": lambda y: prcurve.pr_curve(y, matrix, average=None),
        "compare_average_precision": lambda y: prcurve.compare_average_precision(
            y, s, s[::-1], pos_label="p", n_resamples=10, seed=0),
        "precision_at_k": lambda y: prcurve.precision_at_k(y, s, k=3, pos_label="p"),
        "average_precision_at_k": lambda y: prcurve.average_precision_at_k(
            y, s, pos_label="p"),
        "r_precision": lambda y: prcurve.r_precision(y, s, pos_label="p"),
        "ranking_counts": lambda y: prcurve.ranking_counts(y, s, pos_label="p"),
    }


@pytest.mark.parametrize("container", list(MISSING_TEXT))
@pytest.mark.parametrize("entry", list(_text_entry_points()))
def test_missing_text_label_is_an_error_everywhere(container: str, entry: str) -> None:
    name = "y_pred" if entry == "confusion_matrix y_pred" else "y_true"
    with _missing_error(name):
        _text_entry_points()[entry](MISSING_TEXT[container]())


@pytest.mark.parametrize("container", list(MISSING_NUMERIC))
@pytest.mark.parametrize("pos_label", [None, 1])
def test_missing_numeric_or_nullable_label_is_an_error(container: str, pos_label: Any) -> None:
    if container == "pandas boolean" and pos_label == 1:
        pos_label = True
    for call in (
        lambda y: prcurve.average_precision(y, SCORES8, pos_label=pos_label),
        lambda y: prcurve.pr_curve(y, SCORES8, pos_label=pos_label),
        lambda y: prcurve.confusion_matrix(y, [1, 0] * 4, pos_label=pos_label),
    ):
        with _missing_error():
            call(MISSING_NUMERIC[container]())


def test_missing_class_label_in_a_labels_argument() -> None:
    matrix = np.column_stack([SCORES8, SCORES8[::-1]])
    with pytest.raises(InvalidInputError, match=r"^labels: found 1 missing label"):
        prcurve.average_precision(["p", "n"] * 4, matrix, labels=["p", None])


def test_missing_label_message_counts_and_lists_positions() -> None:
    y = [None, "a", np.nan, "b", pd.NA, "a", None, None, "b", None]
    with pytest.raises(InvalidInputError) as info:
        prcurve.average_precision(y, np.arange(10.0), pos_label="a")
    message = str(info.value)
    assert info.value.argument == "y_true"
    assert "found 6 missing label(s)" in message
    assert "at index 0, 2, 4, 6, 7 ..." in message
    assert "never counted as a negative" in message


def test_mixed_kind_classes_are_a_clear_error() -> None:
    # np.unique of text and numbers raised a raw TypeError.
    with pytest.raises(InvalidInputError, match=r"^y_true: class labels of mixed kinds"):
        prcurve.average_precision(np.array(["a", 1, "a"], dtype=object), np.eye(3)[:, :2])


def test_unmissing_labels_still_work_in_every_container() -> None:
    want = prcurve.average_precision([1, 0, 0, 0, 1, 0, 0, 1], SCORES8)
    complete = ["p", "n", "n", "n", "p", "n", "n", "p"]
    for y in (pd.Series(complete, dtype="category"), pd.Series(complete, dtype="string"),
              np.array(complete, dtype=object)):
        assert prcurve.average_precision(y, SCORES8, pos_label="p") == want
    assert prcurve.average_precision(pd.Series([1, 0, 0, 0, 1, 0, 0, 1], dtype="Int64"),
                                     SCORES8) == want


# -- 3. merged, chunked, streamed and Dask states equal in-memory -------------------------

NICE_WEIGHTS = (0.1, 0.2, 0.3, 0.7, 1 / 3, 1.0, 2.5)
QUERY_LEVELS = tuple(k / 10 for k in range(11))
PERCENT_LEVELS = np.arange(101) / 100  # COCO's levels, as exact quotients


@st.composite
def weighted_data(draw: st.DrawFn, max_size: int = 40) -> tuple[np.ndarray, ...]:
    """Hard labels, tied scores and weights whose sums round differently by order.

    Weights like 0.1 and 1/3 make recalls and precisions that equal a level
    mathematically (3 of 10 equal weights = 0.3) land an ulp either side of it.
    """
    n = draw(st.integers(2, max_size))
    pool = draw(st.lists(st.sampled_from(TIE_POOL), min_size=1, max_size=6, unique=True))
    scores = np.array(draw(st.lists(st.sampled_from(pool), min_size=n, max_size=n)))
    labels = np.array(draw(st.lists(st.integers(0, 1), min_size=n, max_size=n)))
    labels[draw(st.integers(0, n - 1))] = 1  # at least one positive sample
    weight = st.one_of(st.sampled_from(NICE_WEIGHTS), st.floats(0.01, 10.0))
    weights = np.array(draw(st.lists(weight, min_size=n, max_size=n)))
    return labels, scores, weights


def _cuts(draw: st.DrawFn, n: int) -> list[tuple[int, int]]:
    count = draw(st.integers(1, min(6, n)))
    inner = sorted(draw(st.lists(st.integers(1, n - 1), min_size=count - 1,
                                 max_size=count - 1, unique=True))) if n > 1 else []
    bounds_ = [0, *inner, n]
    return list(pairwise(bounds_))


def _same_point(got: prcurve.OperatingPoint, want: prcurve.OperatingPoint, what: str) -> None:
    if math.isnan(want.threshold):
        assert math.isnan(got.threshold), what
    else:
        assert got.threshold == want.threshold, (what, got, want)
    for field in ("value", "precision", "recall"):
        a, b = getattr(got, field), getattr(want, field)
        assert (math.isnan(a) and math.isnan(b)) or a == pytest.approx(b, abs=1e-12), \
            (what, field, got, want)


def assert_same_views(got_counts: ThresholdCounts, want_counts: ThresholdCounts) -> None:
    """Every AP method and every operating-point query agrees to 1e-12 (thresholds
    exactly): the property of issue 10, item 3."""
    got = PRCurve(got_counts, zero_division=0)
    want = PRCurve(want_counts, zero_division=0)
    np.testing.assert_array_equal(got.thresholds, want.thresholds)
    for method in AP_METHODS:
        assert got.average_precision(method) == pytest.approx(
            want.average_precision(method), abs=1e-12), method
    for method in ("step", "trapezoid", "interpolated", "davis_goadrich"):
        assert got.aucpr(method, (0.25, 0.75)) == pytest.approx(
            want.aucpr(method, (0.25, 0.75)), abs=1e-12), method
    np.testing.assert_allclose(got.interpolated_precision(PERCENT_LEVELS),
                               want.interpolated_precision(PERCENT_LEVELS), atol=1e-12)
    np.testing.assert_allclose(got.interpolated_precision(), want.interpolated_precision(),
                               atol=1e-12)
    recalls = sorted({*QUERY_LEVELS, *want.recall.tolist()})
    precisions = sorted({*QUERY_LEVELS, *want.precision.tolist()})
    for r in recalls:
        _same_point(got.precision_at_recall(min(r, 1.0)), want.precision_at_recall(min(r, 1.0)),
                    f"precision_at_recall({r})")
    for p in precisions:
        _same_point(got.recall_at_precision(min(p, 1.0)), want.recall_at_precision(min(p, 1.0)),
                    f"recall_at_precision({p})")
    for beta in (0.5, 1.0, 2.0):
        _same_point(got.best_f(beta), want.best_f(beta), f"best_f({beta})")


@settings(max_examples=300, deadline=None)
@given(data=weighted_data(), split=st.data())
def test_merged_chunks_equal_in_memory(data: tuple[np.ndarray, ...], split: Any) -> None:
    y, s, w = data
    want = ThresholdCounts.from_scores(y, s, sample_weight=w)
    parts = [ThresholdCounts.from_scores(y[a:b], s[a:b], sample_weight=w[a:b])
             for a, b in _cuts(split.draw, len(y))]
    order = split.draw(st.permutations(range(len(parts))))
    shuffled = [parts[i] for i in order]
    left_fold = reduce(ThresholdCounts.merge, shuffled)
    # A tree, as a cluster reduces: pairs, then pairs of pairs.
    level = shuffled
    while len(level) > 1:
        level = [reduce(ThresholdCounts.merge, level[i:i + 2]) for i in range(0, len(level), 2)]
    for merged in (left_fold, level[0]):
        assert merged.tp[-1] == merged.n_pos  # every positive above the last threshold
        assert_same_views(merged, want)


def test_merged_final_recall_is_exactly_one() -> None:
    # The case: weights 0.1 in chunks; the recall-1 level of 11-point AP was lost.
    y = np.array([1, 0, 1, 1, 0, 1, 1, 0, 1, 1, 1, 0, 1, 1])
    s = np.linspace(1, 0, y.shape[0])
    w = np.full(y.shape[0], 0.1)
    want = ThresholdCounts.from_scores(y, s, sample_weight=w)
    merged = reduce(ThresholdCounts.merge, [
        ThresholdCounts.from_scores(y[i:i + 3], s[i:i + 3], sample_weight=w[i:i + 3])
        for i in range(0, y.shape[0], 3)])
    assert merged.tp[-1] / merged.n_pos == 1.0
    for method in ("11point", "101point"):
        assert PRCurve(merged).average_precision(method) == pytest.approx(
            PRCurve(want).average_precision(method), abs=1e-12)


@pytest.fixture(scope="module")
def stream_folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("streamed")


@settings(max_examples=40, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=weighted_data(max_size=30), batch_rows=st.integers(1, 8))
def test_streamed_equals_in_memory(stream_folder: Path, data: tuple[np.ndarray, ...],
                                   batch_rows: int) -> None:
    import pyarrow as pa
    import pyarrow.parquet as pq

    from prcurve.stream import stream_counts

    y, s, w = data
    path = stream_folder / "data.parquet"  # rewritten by every example
    pq.write_table(pa.table({"label": y, "score": s, "w": w}), path)
    streamed = stream_counts(path, label="label", score="score", weight="w",
                             batch_rows=batch_rows)
    assert streamed.mode == "exact"
    assert isinstance(streamed.counts, ThresholdCounts)
    assert_same_views(streamed.counts, ThresholdCounts.from_scores(y, s, sample_weight=w))


@pytest.fixture(scope="module")
def dask_client() -> Iterator[object]:
    distributed = pytest.importorskip("distributed")
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  dashboard_address=":0") as cluster, \
            distributed.Client(cluster) as client:
        yield client


@settings(max_examples=12, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=weighted_data(max_size=30), split=st.data())
def test_dask_equals_in_memory(dask_client: object, data: tuple[np.ndarray, ...],
                               split: Any) -> None:
    dd = pytest.importorskip("dask.dataframe")
    from prcurve.dask import pr_counts

    y, s, w = data
    frame = pd.DataFrame({"label": y, "score": s, "w": w})
    ddf = dd.concat([dd.from_pandas(frame.iloc[a:b], npartitions=1)
                     for a, b in _cuts(split.draw, len(y))])
    got = pr_counts(ddf, label="label", score="score", weight="w", split_every=2)
    assert isinstance(got, ThresholdCounts)
    assert_same_views(got, ThresholdCounts.from_scores(y, s, sample_weight=w))


def test_recall_exactly_on_a_linspace_level() -> None:
    # 7 of 20 positives is recall 0.35; np.linspace(0, 1, 101)[35] is 0.35000000000000003.
    # In memory too, a grid built that way skipped the point (and its precision 1).
    y = np.r_[np.ones(7), np.zeros(5), np.ones(13)]
    curve = prcurve.pr_curve(y, -np.arange(y.shape[0], dtype=float))
    level = np.linspace(0, 1, 101)[35]
    assert level > 0.35
    assert curve.interpolated_precision([level])[0] == 1.0
    assert curve.precision_at_recall(level).value == 1.0
    assert aggregate([curve], "vertical").precision is not None
    band = intervals.bootstrap_curve(curve, [level], n_resamples=1, seed=0)
    assert band.estimate[0] == 1.0


def test_logit_interval_of_a_merged_perfect_ranking() -> None:
    # A perfect ranking's AP summed in another order is 0.9999999999999998; the logit
    # interval was then a huge number instead of undefined.
    y = np.r_[np.ones(10), np.zeros(5)]
    s = -np.arange(15.0)
    w = np.full(15, 0.1)
    merged = reduce(ThresholdCounts.merge, [
        ThresholdCounts.from_scores(y[i:i + 4], s[i:i + 4], sample_weight=w[i:i + 4])
        for i in range(0, 15, 4)])
    for counts in (merged, ThresholdCounts.from_scores(y, s, sample_weight=w)):
        with pytest.warns(UndefinedMetricWarning, match="logit interval"):
            ci = intervals.aucpr_interval(counts, method="trapezoid")
        assert math.isnan(ci.lower)
        assert math.isnan(ci.upper)


def test_state_total_below_its_cumulative_count_at_any_scale() -> None:
    # The absolute slack of 1e-12 accepted a total half the cumulative count for tiny weights.
    with pytest.raises(InvalidInputError, match=r"^n_pos: total"):
        ThresholdCounts([1.0], [2e-20], [0.0], 1e-20, 0.0)
    ThresholdCounts([1.0], [1.0], [0.0], 1.0 - 1e-16, 0.0)  # rounding still accepted


# -- 5. all-positive, all-negative and all-zero-weight data ------------------------------


@pytest.mark.parametrize(("y", "reason"), [([1, 1], "no negatives"), ([0, 0], "no positives")])
def test_normalized_ap_of_one_class_is_undefined(y: list[int], reason: str) -> None:
    curve = prcurve.pr_curve(y, [0.9, 0.1])
    calls = {
        "PRCurve.normalized_average_precision": curve.normalized_average_precision,
        "PRCurve.aucnpr": curve.aucnpr,
        "PRCurve.aucnpr step": lambda: curve.aucnpr("step"),
        "normalized_average_precision": lambda: bounds.normalized_average_precision(
            1.0, sum(y), 2 - sum(y)),
        "aucnpr": lambda: bounds.aucnpr(1.0, sum(y) / 2),
        "aggregate": lambda: aggregate([curve], "mean_normalized").value,
    }
    for name, call in calls.items():
        with pytest.warns(UndefinedMetricWarning, match=reason):
            assert math.isnan(call()), name
    assert curve.aucnpr(degenerate="paper") == (1.0 if sum(y) else 0.0)
    with pytest.raises(prcurve.UndefinedMetricError):
        prcurve.pr_curve(y, [0.9, 0.1], zero_division="raise").aucnpr()


def test_normalized_ap_when_prevalence_rounds_to_one() -> None:
    # 1e20 positive weight and 1 negative: π rounds to 1, the achievable area to 0 and
    # the normalization divided by zero (a raw ZeroDivisionError).
    curve = prcurve.pr_curve([1, 0], [0.9, 0.1], sample_weight=[1e20, 1.0])
    with pytest.warns(UndefinedMetricWarning, match="below rounding"):
        assert math.isnan(curve.aucnpr())
    with pytest.warns(UndefinedMetricWarning, match="below rounding"):
        assert math.isnan(bounds.normalized_average_precision(1.0, 1e20, 1.0, "davis_goadrich"))


ZERO_WEIGHT_CALLS: dict[str, Callable[[], Any]] = {
    "average_precision": lambda: prcurve.average_precision([1, 0], [0.9, 0.1],
                                                           sample_weight=[0, 0]),
    "average_precision bins": lambda: prcurve.average_precision(
        [1, 0], [0.9, 0.1], sample_weight=[0.0, 0.0], bins=3),
    "pr_curve": lambda: prcurve.pr_curve([1, 0], [0.9, 0.1], sample_weight=[0, 0]),
    "confusion_matrix": lambda: prcurve.confusion_matrix([1, 0], [1, 1], sample_weight=[0, 0]),
    "recall": lambda: prcurve.recall([1, 0], [1, 1], sample_weight=[0, 0]),
    "one_vs_rest": lambda: prcurve.one_vs_rest([0, 1], np.eye(2), sample_weight=[0, 0]),
    "average_precision matrix": lambda: prcurve.average_precision([0, 1], np.eye(2),
                                                                  sample_weight=[0, 0]),
}


@pytest.mark.parametrize("call", list(ZERO_WEIGHT_CALLS))
def test_all_zero_weights_are_an_error(call: str) -> None:
    with pytest.raises(InvalidInputError, match=r"^sample_weight: all 2 weights are 0"):
        ZERO_WEIGHT_CALLS[call]()


def test_part_with_zero_weights_is_an_empty_state() -> None:
    # A chunk, batch or partition is part of the data: it may weigh nothing.
    part = ThresholdCounts.from_scores([1, 0], [0.9, 0.1], sample_weight=[0, 0])
    assert len(part) == 0
    assert (part.n_pos, part.n_neg) == (0.0, 0.0)
    other = ThresholdCounts.from_scores([1, 0], [0.5, 0.4])
    assert part.merge(other).tp.tolist() == other.tp.tolist()
    binned = BinnedCounts.uniform(2).update([1], [0.3], [0.0])
    assert binned.n_pos == 0.0


# -- 6. weights of any finite size ---------------------------------------------------------

Y10 = np.array([1, 0, 1, 0, 1, 1, 0, 0, 1, 0])
S10 = np.array([0.9, 0.85, 0.8, 0.7, 0.6, 0.55, 0.5, 0.4, 0.3, 0.2])
SCALES = [1e-320, 1e-300, 1e-160, 1e150, 1e200, 1e300, 1e307]


@pytest.mark.parametrize("scale", SCALES)
@pytest.mark.parametrize("method", AP_METHODS)
def test_ap_of_equal_weights_of_any_size(scale: float, method: str) -> None:
    # Equal weights are no weights: the reference is the unweighted AP (scikit-learn's
    # for step).
    want = prcurve.average_precision(Y10, S10, method=method)
    if method == "step":
        assert want == pytest.approx(skm.average_precision_score(Y10, S10), abs=1e-15)
    w = np.full(10, scale)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no overflow or invalid-value warning from numpy
        assert prcurve.average_precision(Y10, S10, method=method, sample_weight=w) == \
            pytest.approx(want, abs=1e-12)
        assert prcurve.pr_curve(Y10, S10, sample_weight=w).average_precision(method) == \
            pytest.approx(want, abs=1e-12)


@pytest.mark.parametrize("method", AP_METHODS)
def test_ap_with_weights_whose_total_overflows(method: str) -> None:
    w = np.full(10, 1e308)  # the total, 1e309, is not a float64
    want = prcurve.average_precision(Y10, S10, method=method)
    got = prcurve.average_precision(Y10, S10, method=method, sample_weight=w)
    assert got == pytest.approx(want, abs=1e-12)
    matrix = np.column_stack([S10, 1 - S10])
    assert prcurve.average_precision(Y10, matrix, sample_weight=w, method=method) == \
        pytest.approx(prcurve.average_precision(Y10, matrix, method=method), abs=1e-12)
    assert w[0] == 1e308  # the caller's weights are not modified


@pytest.mark.parametrize("call", [
    lambda w: prcurve.pr_curve(Y10, S10, sample_weight=w),
    lambda w: ThresholdCounts.from_scores(Y10, S10, sample_weight=w),
    lambda w: BinnedCounts.from_scores(Y10, S10, [0, 0.5, 1], sample_weight=w),
    lambda w: prcurve.confusion_matrix(Y10, Y10, sample_weight=w),
    lambda w: prcurve.one_vs_rest(Y10, np.column_stack([S10, S10]), sample_weight=w),
])
def test_states_whose_total_overflows_are_refused(call: Callable[[Any], Any]) -> None:
    with pytest.raises(InvalidInputError, match=r"^sample_weight: the total weight "
                       r"overflows float64.*Divide every weight by a common factor"):
        call(np.full(10, 1e308))


def test_label_rates_with_weights_whose_total_overflows() -> None:
    w = np.full(10, 1e308)
    pred = S10 > 0.65
    for name in ("precision", "recall", "f1"):
        want = getattr(skm, f"{name}_score")(Y10, pred)
        assert getattr(prcurve, name)(Y10, pred, sample_weight=w) == pytest.approx(want)


def test_adding_states_past_float64_is_refused() -> None:
    big = ThresholdCounts.from_scores([1, 0], [0.9, 0.1], sample_weight=[8e307, 8e307])
    with pytest.raises(InvalidInputError, match=r"^other: the total weight overflows"):
        big.merge(big)
    binned = BinnedCounts.from_scores([1, 0], [0.9, 0.1], [0, 1], sample_weight=[8e307, 8e307])
    with pytest.raises(InvalidInputError, match=r"^other: the total weight overflows"):
        binned.merge(binned)
    before = binned.pos
    with pytest.raises(InvalidInputError, match=r"^sample_weight: the total weight overflows"):
        binned.update([1], [0.5], [1e308])
    np.testing.assert_array_equal(binned.pos, before)  # refused before anything changed


@pytest.mark.parametrize("scale", SCALES)
def test_confusion_rates_of_counts_of_any_size(scale: float) -> None:
    want = ConfusionMatrix(4, 1, 2, 5).metrics()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        got = ConfusionMatrix(4 * scale, 1 * scale, 2 * scale, 5 * scale).metrics()
    for name, value in want.items():
        assert got[name] == pytest.approx(value, abs=1e-12), name
    assert want["mcc"] == pytest.approx(skm.matthews_corrcoef(
        [1] * 6 + [0] * 6, [1] * 4 + [0] * 2 + [1] + [0] * 5))


@pytest.mark.parametrize("scale", SCALES)
def test_curve_views_and_binned_bounds_of_any_size(scale: float) -> None:
    plain = prcurve.pr_curve(Y10, S10)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        curve = prcurve.pr_curve(Y10, S10, sample_weight=np.full(10, scale))
        np.testing.assert_allclose(curve.f_beta(2.0), plain.f_beta(2.0), atol=1e-12)
        assert curve.best_f().threshold == plain.best_f().threshold
        assert curve.aucnpr() == pytest.approx(plain.aucnpr(), abs=1e-12)
        got = ap_bounds(BinnedCounts.from_scores(Y10, S10, [0, 0.5, 1],
                                                 sample_weight=np.full(10, scale)))
    want = ap_bounds(BinnedCounts.from_scores(Y10, S10, [0, 0.5, 1]))
    for field in ("lower", "binned", "upper"):
        assert getattr(got, field) == pytest.approx(getattr(want, field), abs=1e-12)


class _HangError(Exception):
    pass


@pytest.fixture
def no_hang() -> Iterator[None]:
    """Turn a hang (the step minimum summed term by term over 10^12 terms) into a failure."""
    def alarm(*_: Any) -> None:
        raise _HangError("took more than 20 s")

    previous = signal.signal(signal.SIGALRM, alarm)
    signal.alarm(20)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


def test_step_minimum_of_huge_class_totals(no_hang: None) -> None:
    # Integer weights count as repeated samples: totals of 10^12 and more. As P and N grow
    # at a fixed prevalence, the step minimum (a Riemann sum of Theorem 1's curve) tends to
    # the Davis–Goadrich minimum (Theorem 2), from above, within about 1/P.
    for p, n in ((1e12, 3e12), (3e15, 1e15), (1e150, 1e150)):
        step = bounds.min_average_precision(p, n, "step")
        dg = bounds.min_average_precision(p, n, "davis_goadrich")
        assert dg <= step <= dg + 2.0 / p + 1e-15
        trapezoid = bounds.min_average_precision(p, n, "trapezoid")
        assert trapezoid == pytest.approx(step - 1 / (2 * (p + n)), abs=1e-15)
        for lo, hi in ((0.0, 0.5), (0.3, 0.9)):
            got = bounds.min_average_precision(p, n, "step", recall_range=(lo, hi))
            want = bounds.min_average_precision(p, n, "davis_goadrich", recall_range=(lo, hi))
            assert got == pytest.approx(want, abs=1e-9)
    curve = prcurve.pr_curve(Y10, S10, sample_weight=np.full(10, 1e6))
    assert 0.0 <= curve.aucnpr("step") <= 1.0


def test_closed_form_step_sums_against_term_by_term(monkeypatch: pytest.MonkeyPatch) -> None:
    # The Euler–Maclaurin branch, switched on early, against brute-force fsum.
    monkeypatch.setattr(bounds, "_EXACT_TERMS", 2000)
    monkeypatch.setattr(bounds, "_EULER_MACLAURIN_START", 1000)
    monkeypatch.setattr(bounds, "_SEGMENTS_IN_ARRAYS", 100)
    for p, n in ((5000, 0), (5000, 1), (7919, 3), (20000, 10**6), (12345, 777)):
        i = np.arange(1, p + 1, dtype=np.float64)
        want = math.fsum((i / (i + n)).tolist())
        assert bounds._step_sum(float(p), float(n)) == pytest.approx(want, rel=1e-14)
        for method in ("step", "trapezoid"):
            for lo, hi in ((0.0, 1.0), (0.1234, 0.9), (0.5, 0.50005), (0.0, 0.3)):
                segments = bounds._worst_segments(float(n), 1.0, float(p))
                exact = float(bounds.segment_areas(*segments, float(p), method, lo, hi).sum())
                got = bounds._min_area_of_segments(method, float(p), float(n), lo, hi)
                assert got == pytest.approx(exact, abs=1e-13), (p, n, method, lo, hi)


def test_discrete_minimum_curves_too_large_for_memory() -> None:
    # 10^12 samples: numpy's raw MemoryError (7 TiB) before; now what to use instead.
    with pytest.raises(InvalidInputError, match=r"^n_pos: the result would have "
                                                r"1,000,000,000,001 points.*Use min_pr_curve"):
        bounds.min_pr_curve(n_pos=10**12, n_neg=1)
    with pytest.raises(InvalidInputError, match=r"Use min_average_precision"):
        bounds.worst_ranking_counts(10**12, 1)


# -- 7. object arrays of numbers are binary labels ----------------------------------------


@pytest.mark.parametrize("labels", [
    np.array([1, 0, 0, 0, 1, 0, 0, 1], dtype=object),
    np.array([True, False, False, False, True, False, False, True], dtype=object),
    np.array([np.int64(1), 0, 0, 0, 1, 0, 0, np.float64(1.0)], dtype=object),
    pd.Series([1, 0, 0, 0, 1, 0, 0, 1], dtype=object),
    np.array([1, -1, -1, -1, 1, -1, -1, 1], dtype=object),
])
def test_object_labels_holding_numbers_are_binary(labels: Any) -> None:
    numeric = np.array([1, 0, 0, 0, 1, 0, 0, 1])
    want = skm.average_precision_score(numeric, SCORES8)
    assert prcurve.average_precision(labels, SCORES8) == pytest.approx(want)
    assert prcurve.pr_curve(labels, SCORES8).n_pos == 3
    assert prcurve.recall(labels, labels) == 1.0


def test_text_zero_one_labels_say_how_to_convert() -> None:
    with pytest.raises(InvalidInputError, match=r"The labels are text: convert them"):
        prcurve.average_precision(np.array(["1", "0", "1"], dtype=object), [0.3, 0.2, 0.1])


# -- 9. the positive class never predicted; a pos_label absent from the labels ------------


@pytest.mark.parametrize(("y_true", "y_pred", "pos_label"), [
    ([0, 1, 1], [0, 0, 0], 1),
    (["a", "b", "b"], ["a", "a", "a"], "b"),
    ([True, False, True], [False, False, False], True),
    (["a", "b", "c", "b"], ["a", "a", "c", "c"], "b"),  # multi-class, one-vs-rest
    (["a", "a", "c"], ["c", "a", "a"], "b"),  # in neither, among other classes: see below
])
def test_classifier_never_predicting_the_positive_class(
    y_true: list[Any], y_pred: list[Any], pos_label: Any,
) -> None:
    present = {*y_true, *y_pred}
    if pos_label not in present:  # the rule of docs/definitions.md: two or more other values
        with pytest.raises(InvalidInputError, match=r"^pos_label: 'b' does not occur in y_true "
                                                    r"or y_pred"):
            prcurve.recall(y_true, y_pred, pos_label=pos_label, zero_division=0)
        return
    for name in ("precision", "recall", "f1"):
        want = getattr(skm, f"{name}_score")(y_true, y_pred, labels=[pos_label], average=None,
                                             zero_division=0)[0]
        got = getattr(prcurve, name)(y_true, y_pred, pos_label=pos_label, zero_division=0)
        assert got == want, name
    want_f2 = skm.fbeta_score(y_true, y_pred, beta=2.0, labels=[pos_label], average=None,
                              zero_division=0)[0]
    assert prcurve.f_beta(y_true, y_pred, beta=2.0, pos_label=pos_label,
                          zero_division=0) == want_f2
    cm = prcurve.confusion_matrix(y_true, y_pred, pos_label=pos_label)
    assert (cm.tp, cm.fp) == (0.0, 0.0)


def test_absent_pos_label_follows_one_rule() -> None:
    s = [0.2, 0.1]
    # One value only: no positives, exactly like [0, 0] (the undefined-value policy).
    for y, pos_label in ((["a", "a"], "b"), ([0, 0], None), ([0, 0], 1), ([2, 2], 1)):
        with pytest.warns(UndefinedMetricWarning, match="no positives"):
            assert math.isnan(prcurve.average_precision(y, s, pos_label=pos_label))
        assert prcurve.average_precision(y, s, pos_label=pos_label, zero_division=0) == 0.0
    # Two or more values, none of them pos_label: a mistake (a typo), as in scikit-learn.
    with pytest.raises(InvalidInputError, match=r"^pos_label: 'spma' does not occur in y_true"):
        prcurve.average_precision(["spam", "ham"], s, pos_label="spma")
    # A sequence is not a label value (np.array == [1] broadcast and passed for 1).
    with pytest.raises(InvalidInputError, match=r"^pos_label: expected one label value"):
        prcurve.average_precision([1, 0], s, pos_label=[1])
    # A label of the other kind never names a class.
    with pytest.raises(InvalidInputError, match=r"^pos_label: 1 is a number, but y_true holds "
                                                r"text"):
        prcurve.average_precision(["1", "1"], s, pos_label=1)
    with pytest.raises(InvalidInputError, match=r"^pos_label: 'a' is text, but y_true holds"):
        prcurve.average_precision([0, 0], s, pos_label="a")


# -- warnings point at the caller ----------------------------------------------------------

_NO_POS = prcurve.pr_curve([0, 0, 0], [0.3, 0.2, 0.1])
_COUNTS = ThresholdCounts.from_scores([0, 0, 0], [0.3, 0.2, 0.1])

WARNING_CALLS: dict[str, Callable[[], Any]] = {
    "average_precision": lambda: prcurve.average_precision([0, 0], [0.2, 0.1]),
    "average_precision bins": lambda: prcurve.average_precision([0, 0], [0.2, 0.1], bins=2),
    "average_precision matrix": lambda: prcurve.average_precision(
        [0, 0], [[0.2, 0.8], [0.4, 0.6]], labels=[1, 0]),
    "OneVsRest.average_precision": lambda: prcurve.one_vs_rest(
        [0, 0], [[0.2, 0.8], [0.4, 0.6]], labels=[1, 0]).average_precision(),
    "PRCurve.recall": lambda: prcurve.pr_curve([0, 0], [0.2, 0.1]).recall,
    "PRCurve.prevalence": lambda: PRCurve(ThresholdCounts.empty()).prevalence,
    "PRCurve.average_precision": lambda: _NO_POS.average_precision("11point"),
    "PRCurve.aucpr": lambda: _NO_POS.aucpr("step", (0.2, 0.4)),
    "PRCurve.aucnpr": lambda: _NO_POS.aucnpr(),
    "PRCurve.best_f": lambda: prcurve.pr_curve([0, 0], [0.2, 0.1]).best_f(),
    "PRCurve.precision_at_recall": lambda: _NO_POS.precision_at_recall(0.5),
    "PRCurve.recall_at_precision": lambda: prcurve.pr_curve(
        [1, 0], [0.1, 0.2]).recall_at_precision(1.0),
    "PRCurve.to_table": lambda: prcurve.pr_curve([0, 0], [0.2, 0.1]).to_table(("recall",)),
    "PRCurve.min_curve": lambda: PRCurve(ThresholdCounts.empty()).min_curve([0.5]),
    "ConfusionMatrix.precision": lambda: ConfusionMatrix(0, 0, 1, 1).precision,
    "ConfusionMatrix.metrics": lambda: ConfusionMatrix(0, 0, 0, 0).metrics(),
    "precision": lambda: prcurve.precision([1, 0], [0, 0]),
    "recall": lambda: prcurve.recall([0, 0], [0, 1]),
    "f1": lambda: prcurve.f1([0, 0], [0, 0]),
    "f_beta": lambda: prcurve.f_beta([0, 0], [0, 0], beta=2.0),
    "min_average_precision": lambda: prcurve.min_average_precision(0, 3),
    "normalized_average_precision": lambda: prcurve.normalized_average_precision(0.5, 0, 3),
    "aucnpr": lambda: prcurve.aucnpr(0.5, 1.0),
    "modified_f_beta": lambda: prcurve.modified_f_beta(0.0, 0.0, 0.0),
    "aggregate": lambda: aggregate([_NO_POS], "mean"),
    "bootstrap_average_precision": lambda: prcurve.bootstrap_average_precision(
        _COUNTS, n_resamples=5, seed=0),
    "bootstrap_threshold": lambda: prcurve.bootstrap_threshold(
        _NO_POS, 1.0, n_resamples=5, seed=0),
    "aucpr_interval": lambda: prcurve.aucpr_interval(_NO_POS),
    "compare_average_precision": lambda: prcurve.compare_average_precision(
        [0, 0], [0.2, 0.1], [0.1, 0.2], n_resamples=5, seed=0),
}


@pytest.mark.parametrize("call", list(WARNING_CALLS))
def test_warnings_point_at_the_callers_line(call: str) -> None:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        WARNING_CALLS[call]()
    assert caught, f"{call} did not warn"
    for warning in caught:
        assert warning.category is UndefinedMetricWarning
        assert warning.filename == THIS_FILE, (call, warning.filename, warning.lineno)
