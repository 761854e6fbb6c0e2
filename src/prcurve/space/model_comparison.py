"""Which model is better, and is it real: paired comparisons of models with a correction.

The verdict of ``prcurve report`` (classifiers) and ``prcurve coco`` (detectors)
with two or more models. Each compared pair ``(a, b)`` is one paired bootstrap
comparison — :func:`prcurve.space.intervals.compare_average_precision` for
scores of the same samples, :func:`prcurve.detection.compare_detectors` for
detections of the same images — giving ``AP(a) − AP(b)``, its percentile
interval and a two-sided p-value of "no difference". This module resamples
nothing itself: it chooses the pairs (every pair, or each model against a
baseline, as ``compare_runs`` does) and corrects the p-values of one measure's
comparisons as one family with :func:`prcurve.space.significance.adjust_p_values`
(Holm by default). A comparison is *significant* when its adjusted p-value is
below ``1 − level``.

Every pair is compared with the same ``seed``: a pair's numbers equal
``compare_average_precision(y, scores[a], scores[b], seed=seed, ...)`` called
directly.

Examples
--------
>>> import numpy as np
>>> from prcurve.space.model_comparison import compare_scores
>>> rng = np.random.default_rng(0)
>>> y = rng.random(500) < 0.3
>>> scores = {"good": rng.normal(size=500) + 2 * y, "weak": rng.normal(size=500) + 0.3 * y}
>>> verdict = compare_scores(y, scores, n_resamples=200, seed=0)
>>> row = verdict.rows[0]
>>> row.a, row.b, row.better, row.significant
('good', 'weak', 'good', True)
>>> print(verdict.sentences()[0])  # doctest: +NORMALIZE_WHITESPACE
good has the higher AP (step): 0.8477 vs 0.3442 (difference 0.5036,
95% interval [0.4193, 0.5595], p = 0.00995 (Holm), 200 resamples, seed 0)
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from prcurve.space.significance import Correction, adjust_p_values
from prcurve.validation.significance import check_correction, check_model_baseline

if TYPE_CHECKING:
    from numpy.typing import ArrayLike

    from prcurve.core.average_precision import APMethod
    from prcurve.space.intervals import PairedComparison

__all__ = ["ModelComparison", "ModelPair", "compare_scores", "model_pairs", "verdict_of"]

CORRECTION_NAMES = {"none": "uncorrected", "bonferroni": "Bonferroni", "holm": "Holm",
                    "bh": "Benjamini-Hochberg"}


def _number(value: float) -> float | None:
    return None if math.isnan(value) else float(value)


@dataclass(frozen=True)
class ModelPair:
    """One paired comparison: ``measure(a) − measure(b)``, its interval and p-values."""

    measure: str
    a: str
    b: str
    value_a: float
    value_b: float
    difference: float
    low: float
    high: float
    p_value: float
    p_adjusted: float
    significant: bool

    @property
    def better(self) -> str | None:
        """The model with the higher value; None for a tie or an undefined difference."""
        if math.isnan(self.difference) or self.difference == 0:
            return None
        return self.a if self.difference > 0 else self.b

    def to_dict(self) -> dict[str, Any]:
        return {"measure": self.measure, "a": self.a, "b": self.b,
                "value_a": _number(self.value_a), "value_b": _number(self.value_b),
                "difference": _number(self.difference), "ci_low": _number(self.low),
                "ci_high": _number(self.high), "p_value": _number(self.p_value),
                "p_adjusted": _number(self.p_adjusted), "significant": self.significant,
                "better": self.better}


@dataclass(frozen=True)
class ModelComparison:
    """The verdict: every compared pair of every measure, with how it was computed."""

    models: list[str]
    baseline: str | None
    measures: list[str]
    rows: list[ModelPair]
    method: str
    correction: str
    level: float
    resamples: int
    seed: int
    notes: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        """report.json's ``comparison`` section (docs/report.md)."""
        return {"models": list(self.models), "baseline": self.baseline,
                "pairs": "baseline" if self.baseline is not None else "all",
                "measures": list(self.measures), "method": self.method,
                "correction": self.correction, "family": "the comparisons of one measure",
                "alpha": round(1.0 - self.level, 12), "level": self.level,
                "resamples": self.resamples, "seed": self.seed,
                "rows": [row.to_dict() for row in self.rows], "notes": list(self.notes)}

    def sentences(self) -> list[str]:
        """One sentence per comparison (see :func:`sentence`)."""
        return [sentence(row, self.correction, self.level, self.resamples, self.seed)
                for row in self.rows]


def sentence(row: ModelPair, correction: str, level: float, resamples: int, seed: int) -> str:
    """``A has the higher M: a vs b (difference d, L% interval [lo, hi], p = p (Holm))``,
    with "not significant" when the adjusted p-value is not below ``1 − level``."""
    if row.better is None:
        head = (f"{row.a} and {row.b} have the same {row.measure}" if row.difference == 0
                else f"{row.a} vs {row.b}: the {row.measure} difference is undefined")
        first, second, diff = row.value_a, row.value_b, row.difference
    else:
        head = f"{row.better} has the higher {row.measure}"
        flip = row.better == row.b
        first, second = (row.value_b, row.value_a) if flip else (row.value_a, row.value_b)
        diff = -row.difference if flip else row.difference
        low, high = (-row.high, -row.low) if flip else (row.low, row.high)
    if row.better is None:
        low, high = row.low, row.high
    name = CORRECTION_NAMES.get(correction, correction)
    adjusted = "" if correction == "none" else f" ({name})"
    verdict = "" if row.significant else "; not significant"
    return (f"{head}: {first:.4f} vs {second:.4f} (difference {diff:.4f}, "
            f"{100 * level:g}% interval [{low:.4f}, {high:.4f}], p = {row.p_adjusted:.3g}"
            f"{adjusted}, {resamples} resamples, seed {seed}){verdict}")


def model_pairs(names: Sequence[str], baseline: str | None) -> list[tuple[str, str]]:
    """The pairs compared: each model against ``baseline`` (``(model, baseline)``), or
    every pair in the models' order.

    Examples
    --------
    >>> model_pairs(["a", "b", "c"], None)
    [('a', 'b'), ('a', 'c'), ('b', 'c')]
    >>> model_pairs(["a", "b", "c"], "b")
    [('a', 'b'), ('c', 'b')]
    """
    if baseline is not None:
        return [(name, baseline) for name in names if name != baseline]
    return [(a, b) for i, a in enumerate(names) for b in names[i + 1:]]


def verdict_of(
    results: Sequence[tuple[str, str, str, PairedComparison]], *, models: Sequence[str],
    baseline: str | None, method: str, correction: Correction = "holm", level: float = 0.95,
    resamples: int = 1000, seed: int = 0, notes: Sequence[str] = (),
) -> ModelComparison:
    """The verdict of paired comparisons ``(measure, a, b, comparison)``: the p-values of
    each measure's comparisons corrected as one family by ``correction``."""
    name = check_correction(correction)
    measures = list(dict.fromkeys(measure for measure, _, _, _ in results))
    adjusted: dict[int, float] = {}
    for measure in measures:
        index = [i for i, row in enumerate(results) if row[0] == measure]
        corrected = adjust_p_values([results[i][3].p_value for i in index], name)
        adjusted.update(zip(index, corrected.tolist(), strict=True))
    alpha = 1.0 - level
    rows = []
    for i, (measure, a, b, comparison) in enumerate(results):
        p_adjusted = adjusted[i]
        rows.append(ModelPair(
            measure=measure, a=a, b=b, value_a=comparison.estimate_a,
            value_b=comparison.estimate_b, difference=comparison.difference.estimate,
            low=comparison.difference.lower, high=comparison.difference.upper,
            p_value=comparison.p_value, p_adjusted=p_adjusted,
            significant=bool(not math.isnan(p_adjusted) and p_adjusted < alpha)))
    return ModelComparison(models=list(models), baseline=baseline, measures=measures,
                           rows=rows, method=method, correction=name, level=level,
                           resamples=resamples, seed=seed, notes=list(notes))


def compare_scores(
    y_true: ArrayLike, scores: Mapping[str, ArrayLike], *,
    methods: Sequence[APMethod] = ("step",), baseline: str | None = None,
    correction: Correction = "holm", n_resamples: int = 1000, level: float = 0.95,
    seed: int = 0, baseline_argument: str = "baseline",
) -> ModelComparison:
    """Models' scores of the same samples compared by the paired bootstrap of their AP.

    Each AP method in ``methods`` is one measure (``"AP (step)"``), its
    comparisons one family for ``correction``. Hard, unweighted labels (as
    :func:`prcurve.space.intervals.compare_average_precision`).
    """
    from prcurve.space.intervals import compare_pairs

    names = list(scores)
    chosen = check_model_baseline(baseline_argument, baseline, names)
    pairs = model_pairs(names, chosen)
    # One set of resamples for every pair and method: each comparison equals
    # compare_average_precision(y, scores[a], scores[b], seed=seed) called alone.
    comparisons = iter(compare_pairs(y_true, scores, pairs, methods=methods,
                                     n_resamples=n_resamples, level=level, seed=seed))
    results = []
    for method in methods:
        for a, b in pairs:
            measure = ("AUCPR (davis_goadrich)" if method == "davis_goadrich"  # as reported
                       else f"AP ({method})")
            results.append((measure, a, b, next(comparisons)))
    return verdict_of(results, models=names, baseline=chosen,
                      method="paired stratified percentile bootstrap of samples "
                      "(prcurve.space.intervals.compare_average_precision)",
                      correction=correction, level=level, resamples=n_resamples, seed=seed)
