"""The report's default caps on the bootstrap follow its cost, not the thresholds alone
(issue 26, session 35): a curve of few distinct scores over many rows costs draws of its
tie groups (a multinomial), a paired comparison every row."""

from __future__ import annotations

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

import prcurve
from prcurve.present.report import ReportSettings
from prcurve.present.report_build import evaluate
from prcurve.space.intervals import _MULTINOMIAL_COST, _use_multinomial, draws_per_resample


def _tied(n: int, values: int, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    labels = rng.random(n) < 0.3
    scores = np.round(rng.random(n) * (values - 1)) + labels  # about `values` distinct
    return labels, scores


@given(st.integers(1, 5_000), st.integers(0, 5_000), st.integers(1, 5_000))
def test_draws_follow_the_bootstrap_s_own_choice_of_draw(
        cells: int, n_pos: int, n_neg: int) -> None:
    # Each class: sample by sample (its size), or a multinomial over at most `cells`
    # groups where the bootstrap itself picks one (_use_multinomial).
    def one(total: int) -> int:
        return cells * _MULTINOMIAL_COST if _use_multinomial(cells, total) else total

    assert draws_per_resample(cells, n_pos, n_neg) == one(n_pos) + one(n_neg)
    assert draws_per_resample(n_pos + n_neg, n_pos, n_neg) == n_pos + n_neg  # distinct


def test_an_interval_of_few_scores_over_many_rows_is_capped_by_its_draws() -> None:
    labels, scores = _tied(3_000, 10)
    curve = prcurve.pr_curve(labels, scores)
    assert len(curve) <= 12  # far under the cap: thresholds alone let it through
    draws = draws_per_resample(len(curve), 900, 2_100)
    cap = ReportSettings(ci_max_cells=draws - 1, resamples=50)
    skipped = evaluate({"a": (labels, scores)}, cap).models[0].values["ap_interval"]
    assert skipped["low"] is None
    assert "3000 rows make the bootstrap slow" in skipped["note"]
    assert f"about {draws_per_resample(len(curve), *_classes(labels))} draws" in skipped["note"]
    computed = evaluate({"a": (labels, scores)},
                        ReportSettings(ci_max_cells=10**6, resamples=50)).models[0].values
    assert computed["ap_interval"]["low"] is not None


def _classes(labels: np.ndarray) -> tuple[int, int]:
    return int(labels.sum()), int((~labels).sum())


def test_a_comparison_of_tied_models_is_capped_by_its_rows() -> None:
    labels, a = _tied(400, 5, seed=1)
    _, b = _tied(400, 5, seed=2)
    models = {"a": (labels, a), "b": (labels, b)}
    # 5 distinct scores a model, 1 pair: by thresholds it was far under 300; the paired
    # bootstrap draws all 400 rows of every resample.
    skipped = evaluate(models, ReportSettings(ci_level=None, ci_max_cells=300, resamples=50))
    assert skipped.comparison is not None
    assert skipped.comparison["rows"] == []
    assert "1 pair(s) of models of 400 rows" in skipped.comparison["notes"][-1]
    compared = evaluate(models, ReportSettings(ci_level=None, ci_max_cells=400, resamples=50))
    assert compared.comparison is not None
    assert compared.comparison["rows"]
