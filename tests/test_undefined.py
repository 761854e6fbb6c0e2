"""One policy for undefined values (0/0): NaN + one warning, 0, 1, or raise."""

from __future__ import annotations

import math
import warnings

import pytest

import prcurve
from prcurve import UndefinedMetricError, UndefinedMetricWarning

NO_POSITIVES = ([0, 0, 0], [0.2, 0.5, 0.9])


def test_default_is_nan_with_one_warning() -> None:
    with pytest.warns(UndefinedMetricWarning, match="average_precision") as record:
        value = prcurve.average_precision(*NO_POSITIVES)
    assert math.isnan(value)
    assert len(record) == 1
    assert "zero_division" in str(record[0].message)


@pytest.mark.parametrize("policy", [0, 1, 0.0, 1.0])
def test_chosen_value_is_silent(policy: float) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert prcurve.average_precision(*NO_POSITIVES, zero_division=policy) == policy
        cm = prcurve.ConfusionMatrix(0, 0, 0, 5, zero_division=policy)
        assert cm.precision == policy
        assert cm.recall == policy
        assert cm.mcc == policy


def test_explicit_nan_behaves_like_default() -> None:
    with pytest.warns(UndefinedMetricWarning):
        assert math.isnan(prcurve.average_precision(*NO_POSITIVES, zero_division=float("nan")))


def test_raise() -> None:
    with pytest.raises(UndefinedMetricError, match="average_precision") as info:
        prcurve.average_precision(*NO_POSITIVES, zero_division="raise")
    assert isinstance(info.value, ZeroDivisionError)
    assert isinstance(info.value, ValueError)
    with pytest.raises(UndefinedMetricError, match="precision"):
        _ = prcurve.ConfusionMatrix(0, 0, 3, 3, zero_division="raise").precision


def test_one_warning_for_many_undefined_metrics() -> None:
    cm = prcurve.ConfusionMatrix(0, 0, 0, 0)
    with pytest.warns(UndefinedMetricWarning) as record:
        values = cm.metrics()
    assert len(record) == 1
    message = str(record[0].message)
    for name in ("recall", "precision", "mcc", "cohen_kappa", "accuracy"):
        assert name in message
        assert math.isnan(values[name])


def test_one_warning_per_call_across_arrays() -> None:
    curve = prcurve.pr_curve(*NO_POSITIVES)
    with pytest.warns(UndefinedMetricWarning) as record:
        table = curve.to_table(("threshold", "precision", "recall", "f1"))
    assert len(record) == 1
    assert all(math.isnan(r) for r in table["recall"])


def test_defined_values_do_not_warn() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        cm = prcurve.ConfusionMatrix(0, 3, 2, 5)
        # TP = 0 with FP, FN present: precision, recall and F are 0, not undefined.
        assert (cm.precision, cm.recall, cm.f1, cm.f_beta(2.0)) == (0.0, 0.0, 0.0, 0.0)
        assert cm.e_measure(0.3) == 1.0


def test_curve_keeps_its_policy() -> None:
    curve = prcurve.pr_curve(*NO_POSITIVES, zero_division=0)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert curve.recall.tolist() == [0.0, 0.0, 0.0]
        assert curve.average_precision("davis_goadrich") == 0.0
