"""Bad input: one error class, a message naming the argument, what was found and the fix."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import prcurve
from prcurve import InvalidInputError

# Every public entry point that takes (y_true, y_score).
SCORED: list[Callable[..., Any]] = [
    prcurve.average_precision,
    prcurve.pr_curve,
    prcurve.ThresholdCounts.from_scores,
    lambda y, s, **kw: prcurve.BinnedCounts.from_scores(y, s, [0, 0.5, 1], **kw),
    lambda y, s, **kw: prcurve.average_precision(y, s, bins=4, **kw),
]


@pytest.fixture(params=range(len(SCORED)), ids=["ap", "curve", "counts", "binned", "ap-binned"])
def scored(request: pytest.FixtureRequest) -> Callable[..., Any]:
    return SCORED[request.param]


def raises(argument: str, *fragments: str) -> Any:
    """pytest.raises for InvalidInputError whose message has every fragment."""

    class Matcher:
        def __enter__(self) -> None:
            self.ctx = pytest.raises(InvalidInputError)
            self.info = self.ctx.__enter__()

        def __exit__(self, *exc: Any) -> bool:
            suppressed = self.ctx.__exit__(*exc)
            error = self.info.value
            assert isinstance(error, ValueError)
            assert error.argument == argument
            message = str(error)
            assert message.startswith(f"{argument}: ")
            for fragment in fragments:
                assert fragment in message, (fragment, message)
            return bool(suppressed)

    return Matcher()


def test_length_mismatch(scored: Callable[..., Any]) -> None:
    with raises("y_score", "length mismatch", "y_true has 3", "y_score has 2"):
        scored([0, 1, 1], [0.1, 0.2])


def test_empty_input(scored: Callable[..., Any]) -> None:
    with raises("y_score", "empty"):
        scored([], [])


@pytest.mark.parametrize(("bad", "what"), [(np.nan, "1 NaN"), (np.inf, "1 infinite"),
                                           (-np.inf, "1 infinite")])
def test_non_finite_scores(scored: Callable[..., Any], bad: float, what: str) -> None:
    with raises("y_score", what, "first at index 2", "Remove"):
        scored([0, 1, 1, 0], [0.1, 0.2, bad, 0.3])


def test_non_numeric_scores(scored: Callable[..., Any]) -> None:
    with raises("y_score", "expected numbers"):
        scored([0, 1], ["a", "b"])


def test_labels_not_binary_lists_values(scored: Callable[..., Any]) -> None:
    with raises("y_true", "not binary", "{0, 1, 2}", "pos_label"):
        scored([0, 1, 2, 1], [0.1, 0.2, 0.3, 0.4])


def test_string_labels_need_pos_label(scored: Callable[..., Any]) -> None:
    with raises("y_true", "not binary", "'ham'", "'spam'", "pos_label"):
        scored(["spam", "ham"], [0.1, 0.2])


def test_label_listing_stops_at_ten(scored: Callable[..., Any]) -> None:
    labels = np.arange(25)
    with raises("y_true", "and 15 more", "(25 distinct)"):
        scored(labels, np.linspace(0, 1, 25))


def test_soft_labels_outside_unit_interval(scored: Callable[..., Any]) -> None:
    with raises("y_true", "soft labels must lie in [0, 1]", "1 outside", "index 1"):
        scored([0.5, 1.5, 0.2], [0.1, 0.2, 0.3])


def test_nan_labels(scored: Callable[..., Any]) -> None:
    # One message for every kind of missing label (issue 10): NaN, None, pandas NA.
    with raises("y_true", "1 missing label(s) (None, NaN or NA)", "index 1"):
        scored([0.0, np.nan], [0.1, 0.2])


@pytest.mark.parametrize(("weights", "what"), [([1, -1, 1], "negative"),
                                               ([1, np.nan, 1], "NaN or infinite"),
                                               ([1, np.inf, 1], "NaN or infinite")])
def test_bad_weights(scored: Callable[..., Any], weights: list[float], what: str) -> None:
    with raises("sample_weight", what, "index 1"):
        scored([0, 1, 1], [0.1, 0.2, 0.3], sample_weight=weights)


def test_weight_length(scored: Callable[..., Any]) -> None:
    with raises("sample_weight", "length mismatch", "2 weights for 3 samples"):
        scored([0, 1, 1], [0.1, 0.2, 0.3], sample_weight=[1, 1])


@pytest.mark.parametrize("argument", ["y_true", "y_score"])
def test_not_one_dimensional(scored: Callable[..., Any], argument: str) -> None:
    good = {"y_true": [[0, 1], [1, 0]], "y_score": [[0.1, 0.2], [0.3, 0.4]]}
    args = {"y_true": [0, 1, 1, 0], "y_score": [0.1, 0.2, 0.3, 0.4]}
    args[argument] = good[argument]
    with raises(argument, "1-D", "(2, 2)"):
        scored(args["y_true"], args["y_score"])


def test_scalar_input() -> None:
    with raises("y_score", "1-D", "found shape ()"):
        prcurve.average_precision([1], 0.5)


@pytest.mark.parametrize("edges", [[0.0, 0.5, 0.5, 1.0], [1.0, 0.0], [0.0, np.nan, 1.0]])
def test_bin_edges_not_increasing(edges: list[float]) -> None:
    with pytest.raises(InvalidInputError, match=r"^bins: ") as info:
        prcurve.pr_curve([0, 1], [0.2, 0.7], bins=edges)
    assert info.value.argument == "bins"
    with pytest.raises(InvalidInputError, match=r"^edges: "):
        prcurve.BinnedCounts(edges)


def test_single_edge() -> None:
    with raises("edges", "1 edge", "at least two"):
        prcurve.BinnedCounts([0.5])


@pytest.mark.parametrize("bins", [0, -3, True, 2.5])
def test_bad_bin_count(bins: Any) -> None:
    with pytest.raises(InvalidInputError, match=r"^bins: "):
        prcurve.average_precision([0, 1], [0.2, 0.7], bins=bins)


def test_unknown_method() -> None:
    with raises("method", "'voc'", "'step'", "'davis_goadrich'"):
        prcurve.average_precision([0, 1], [0.2, 0.7], method="voc")  # type: ignore[arg-type]
    with raises("method", "'area'"):
        prcurve.pr_curve([0, 1], [0.2, 0.7]).average_precision("area")  # type: ignore[arg-type]


@pytest.mark.parametrize("beta", [0, -1, np.nan, np.inf, "2"])
def test_bad_beta(beta: Any) -> None:
    with raises("beta", "> 0"):
        prcurve.f_beta([0, 1], [0, 1], beta=beta)
    with raises("beta"):
        prcurve.pr_curve([0, 1], [0.2, 0.7]).best_f(beta)


@pytest.mark.parametrize("policy", ["warn", 2, -1, None, True])
def test_bad_zero_division(policy: Any) -> None:
    with raises("zero_division", '"nan"', "0, 1", '"raise"'):
        prcurve.average_precision([0, 1], [0.2, 0.7], zero_division=policy)
    with raises("zero_division"):
        prcurve.ConfusionMatrix(1, 0, 0, 1, zero_division=policy)


@pytest.mark.parametrize("value", [-0.1, 1.1, np.nan])
def test_recall_and_precision_levels(value: float) -> None:
    curve = prcurve.pr_curve([0, 1], [0.2, 0.7])
    with raises("recall", "[0, 1]"):
        curve.precision_at_recall(value)
    with raises("precision", "[0, 1]"):
        curve.recall_at_precision(value)


def test_negative_counts() -> None:
    with raises("fp", ">= 0"):
        prcurve.ConfusionMatrix(tp=1, fp=-2, fn=0, tn=3)


def test_predictions_must_be_hard() -> None:
    with raises("y_pred", "not binary"):
        prcurve.precision([0, 1, 1], [0.2, 0.9, 0.6])


def test_merge_needs_same_edges() -> None:
    a = prcurve.BinnedCounts.uniform(4)
    b = prcurve.BinnedCounts.uniform(5)
    with raises("other", "edges differ", "4 bins", "5 bins"):
        a.merge(b)
    with raises("other", "expected ThresholdCounts"):
        prcurve.ThresholdCounts.empty().merge(a)  # type: ignore[arg-type]


def test_threshold_counts_invariants() -> None:
    with raises("thresholds", "strictly decreasing"):
        prcurve.ThresholdCounts([0.1, 0.5], [1, 2], [0, 0], 2, 0)
    with raises("tp", "decrease"):
        prcurve.ThresholdCounts([0.5, 0.1], [2, 1], [0, 0], 2, 0)
    with raises("n_pos", "below the cumulative count"):
        prcurve.ThresholdCounts([0.5, 0.1], [1, 2], [0, 0], 1, 0)


def test_input_is_never_modified() -> None:
    y_true = np.array([1, 0, 1, 0, 1])
    y_score = np.array([0.3, 0.9, 0.3, 0.1, 0.5])
    weights = np.array([1.0, 2.0, 0.0, 1.0, 3.0])
    copies = [a.copy() for a in (y_true, y_score, weights)]
    prcurve.pr_curve(y_true, y_score, sample_weight=weights).average_precision()
    prcurve.average_precision(y_true, y_score)
    prcurve.average_precision(y_true, y_score, bins=3)
    prcurve.ThresholdCounts.from_scores(y_true, y_score).to_binned([0, 0.5, 1])
    for original, copy in zip((y_true, y_score, weights), copies, strict=True):
        np.testing.assert_array_equal(original, copy)


def test_state_arrays_are_read_only() -> None:
    counts = prcurve.ThresholdCounts.from_scores([1, 0], [0.4, 0.6])
    with pytest.raises(ValueError, match="read-only"):
        counts.tp[0] = 5.0
