"""The verdict of a report with two or more models: which is better, by how much, how sure.

Two parts. :func:`report_comparison` chooses the models that can be compared
(scores of the same samples: binary, unweighted, the same labels in the same
row order, nothing dropped) and compares them with
:func:`prcurve.space.model_comparison.compare_scores` (the paired bootstrap of
:func:`prcurve.space.intervals.compare_average_precision`, corrected across
models). The rest shows a comparison — report.json's ``comparison`` section,
a dict — as text lines, a short verdict sentence and an HTML table; the
detection command (``prcurve coco DT1 DT2 ...``) shows its own comparison with
the same functions. Layout of the section: docs/report.md.

Examples
--------
>>> import prcurve
>>> r = prcurve.report([1, 0, 1, 0, 1, 0], {"a": [.9, .2, .8, .3, .7, .4],
...                                         "b": [.5, .6, .4, .7, .6, .3]}, ci=None)
>>> print(headline(r.comparison))
a has the higher AP (step) than b: 1.0000 vs 0.4778; not significant at 0.05 (Holm).
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, cast

import numpy as np

from prcurve.errors import UndefinedMetricWarning

if TYPE_CHECKING:
    from prcurve.present.report import ReportSettings

__all__ = ["DEFAULT_MAX_WORK", "Candidate", "headline", "html_section", "report_comparison",
           "table_rows", "text_lines"]


DEFAULT_MAX_WORK = 100_000
"""Without an interval (``ci_level`` None) the comparison is skipped, with a note, when
pairs × the rows of the compared models exceed this (or ``ci_max_cells``)."""


@dataclass(frozen=True)
class Candidate:
    """One model of a report as the comparison sees it: its labels and scores, or why not."""

    name: str
    labels: Any = None
    scores: Any = None
    why_not: str | None = None


def _same_labels(a: Any, b: Any) -> bool:
    x, y = np.asarray(a), np.asarray(b)
    return x.shape == y.shape and bool(np.array_equal(x, y))


def report_comparison(
    candidates: Sequence[Candidate], settings: ReportSettings, baseline: str | None,
    correction: str = "holm", *, baseline_argument: str = "baseline",
) -> dict[str, Any] | None:
    """report.json's ``comparison`` section, or None when fewer than two models can be
    compared and no baseline was asked for.

    The compared models are the first group (in the report's order) of candidates
    with the same labels in the same order; the AP measures are the headline
    method and the Davis–Goadrich area (the report's AP and AUCPR); the
    resamples and seed are the report's; the level is ``settings.ci_level``
    (0.95 when the report has no interval). With ``settings.ci_max_cells`` set (the
    command line's default), pairs × the compared models' rows (the paired bootstrap
    draws every row) above it skips the comparison with a note (its cost grows with both);
    without an interval, above ``ci_max_cells`` or :data:`DEFAULT_MAX_WORK`.
    """
    from prcurve.validation.significance import check_correction, check_model_baseline

    check_correction(correction)
    usable = [c for c in candidates if c.why_not is None]
    group: list[Candidate] = []
    for first in usable:
        group = [c for c in usable if _same_labels(c.labels, first.labels)]
        if len(group) >= 2:
            break
    if len(group) < 2:
        group = usable[:1]
    names = [c.name for c in group]
    notes = [f"{c.name} not compared: {c.why_not}" for c in candidates if c.why_not]
    notes.extend(f"{c.name} not compared: its labels differ from {names[0]}'s (models are "
                 "paired by row: the same samples in the same order)"
                 for c in usable if c not in group)
    if baseline is not None:
        every = [c.name for c in candidates]
        check_model_baseline(baseline_argument, baseline, every)  # a model, and not alone
        if baseline not in names or len(names) < 2:
            reason = next((n for n in notes if n.startswith(f"{baseline} not compared")),
                          f"{baseline} not compared: no other model has its labels")
            check_model_baseline(baseline_argument, baseline, [],
                                 f"models that can be compared: {reason}")
    if len(names) < 2:
        return None if not notes else {"models": names, "baseline": None, "rows": [],
                                       "notes": notes}
    # Here: a report of one model loads no comparison code (with the paired tests' and
    # their distributions' modules, about 5 ms; issue 26).
    from prcurve.space.model_comparison import compare_scores, model_pairs

    cap = settings.ci_max_cells
    if settings.ci_level is None:  # no interval asked for: no slow comparison either
        cap = cap or DEFAULT_MAX_WORK
    pairs = len(model_pairs(names, baseline))
    # The paired bootstrap draws every row of every resample, tied scores or not (its
    # cost is rows, not thresholds: by thresholds, two models of 10^6 rows with 2-decimal
    # scores were compared in 18 s of CPU; issue 26, session 35).
    rows = max(np.shape(c.labels)[0] for c in group)
    if cap is not None and rows * pairs > cap:  # the cost grows with both
        return {"models": names, "baseline": baseline, "rows": [], "notes": [
            *notes, f"not computed by default: {pairs} pair(s) of models of {rows} rows "
            f"(above {cap} in all) make the paired bootstrap slow; pass --ci "
            f"{settings.ci_level or 0.95:g} to compute it, or --baseline to compare fewer "
            "pairs"]}
    methods = list(dict.fromkeys((settings.ap_method, "davis_goadrich")))
    if settings.bins is not None:
        notes.append("the comparison uses the exact scores, not the bins")
    try:
        with warnings.catch_warnings():  # an undefined AP is null, said as "undefined"
            warnings.simplefilter("ignore", UndefinedMetricWarning)
            comparison = compare_scores(
                group[0].labels, {c.name: c.scores for c in group},
                methods=cast(Any, methods), baseline=baseline, correction=cast(Any, correction),
                n_resamples=settings.resamples, level=settings.ci_level or 0.95,
                seed=settings.seed, baseline_argument=baseline_argument)
    except ValueError as error:  # e.g. soft labels: the bootstrap needs hard ones
        return {"models": names, "baseline": baseline, "rows": [],
                "notes": [*notes, f"not available: {error}"]}
    out = comparison.to_dict()
    out["notes"] = [*out["notes"], *notes]
    return out


# -- showing a comparison (a dict: report.json's "comparison" section) ----------------------


def _f(value: float | None, digits: int = 4) -> str:
    return "undefined" if value is None else f"{value:.{digits}f}"


def _p(value: float | None) -> str:
    return "undefined" if value is None else f"{value:.3g}"


def _oriented(row: dict[str, Any]) -> tuple[str, str, Any, Any, Any, Any, Any]:
    """(better, other, better's value, other's, difference, low, high), the better first."""
    if row["better"] is not None and row["better"] == row["b"]:
        neg = [None if v is None else -v for v in (row["difference"], row["ci_high"],
                                                    row["ci_low"])]
        return (row["b"], row["a"], row["value_b"], row["value_a"], *neg)
    return (row["a"], row["b"], row["value_a"], row["value_b"], row["difference"],
            row["ci_low"], row["ci_high"])


def _correction(comparison: dict[str, Any]) -> str:
    # Here, not at the top: a report of one model loads no comparison code (issue 26).
    from prcurve.space.model_comparison import CORRECTION_NAMES

    return CORRECTION_NAMES.get(comparison.get("correction", ""), "")


def headline(comparison: dict[str, Any] | None) -> str:
    """The verdict in one sentence: the first measure's best model and how sure that is."""
    if not comparison or not comparison.get("rows"):
        notes = (comparison or {}).get("notes", [])
        return f"No comparison: {notes[-1]}." if notes else "No comparison."
    rows = comparison["rows"]
    measure = rows[0]["measure"]
    own = [r for r in rows if r["measure"] == measure]
    alpha = comparison["alpha"]
    correction = _correction(comparison)
    baseline = comparison.get("baseline")
    if baseline is not None and len(own) > 1:
        return _against_baseline(own, baseline, measure, alpha, correction)
    if len(own) == 1:
        row = own[0]
        if row["difference"] is None:
            return f"No model has a defined {measure}; nothing to compare."
        if row["better"] is None:
            return f"{row['a']} and {row['b']}: no difference in {measure}."
        better, other, va, vb, _, _, _ = _oriented(row)
        sure = ("significant" if row["significant"] else "not significant")
        return (f"{better} has the higher {measure} than {other}: {_f(va)} vs {_f(vb)}; "
                f"{sure} at {alpha:g} ({correction}).")
    values: dict[str, float] = {}
    for r in own:
        for name, value in ((r["a"], r["value_a"]), (r["b"], r["value_b"])):
            if value is not None:
                values[name] = value
    if not values:
        return f"No model has a defined {measure}; nothing to compare."
    best = max(values, key=lambda n: values[n])
    beaten = [(r["b"] if r["a"] == best else r["a"]) for r in own
              if r["significant"] and r["better"] == best]
    against = [r for r in own if best in (r["a"], r["b"])]
    unsure = [(r["b"] if r["a"] == best else r["a"]) for r in against
              if not (r["significant"] and r["better"] == best)]
    sure = (f"significantly better than {', '.join(beaten)}" if beaten
            else "not significantly better than any other")
    if beaten and unsure:
        sure += f"; not significantly better than {', '.join(unsure)}"
    if beaten and not unsure:
        sure = "significantly better than every model it was compared with"
    return (f"{best} has the highest {measure} ({_f(values[best])}); {sure} "
            f"(paired bootstrap, {correction}, alpha {alpha:g}).")


def _against_baseline(rows: list[dict[str, Any]], baseline: str, measure: str, alpha: float,
                      correction: str) -> str:
    """``Against the baseline B (M v): significantly higher: a (+d), ...; ...``."""
    groups: dict[str, list[str]] = {"significantly higher": [], "significantly lower": [],
                                    "not significantly different": []}
    for row in rows:  # each row is (model, baseline)
        diff = row["difference"]
        key = ("not significantly different" if not row["significant"] or diff is None
               else "significantly higher" if diff > 0 else "significantly lower")
        groups[key].append(row["a"] if diff is None else f"{row['a']} ({diff:+.4f})")
    parts = [f"{key}: {', '.join(names)}" for key, names in groups.items() if names]
    return (f"Against the baseline {baseline} ({measure} {_f(rows[0]['value_b'])}): "
            f"{'; '.join(parts)} (paired bootstrap, {correction}, alpha {alpha:g}).")


def table_rows(comparison: dict[str, Any]) -> list[dict[str, str]]:
    """One row per comparison, the better model first, as text cells."""
    level = 100 * comparison["level"]
    out = []
    for row in comparison["rows"]:
        better, other, va, vb, diff, low, high = _oriented(row)
        out.append({"measure": row["measure"], "better": better, "vs": other,
                    "values": f"{_f(va)} vs {_f(vb)}", "difference": _f(diff),
                    f"{level:g}% interval": f"[{_f(low)}, {_f(high)}]",
                    "p": _p(row["p_value"]), f"p ({_correction(comparison)})":
                    _p(row["p_adjusted"]),
                    "significant": "yes" if row["significant"] else "no"})
    return out


def _how(comparison: dict[str, Any]) -> str:
    pairs = (f"each model against the baseline {comparison['baseline']}"
             if comparison.get("baseline") else "all pairs")
    return (f"{pairs}; {comparison['method']}; {comparison['resamples']} resamples, seed "
            f"{comparison['seed']}; p-values corrected by {_correction(comparison)} over the "
            f"comparisons of each measure; significant: corrected p < {comparison['alpha']:g}")


def _other_notes(comparison: dict[str, Any]) -> list[str]:
    """The notes the headline does not already say (without rows it says the last)."""
    notes = list(comparison.get("notes", []))
    return notes if comparison.get("rows") else notes[:-1]


def text_lines(comparison: dict[str, Any] | None) -> list[str]:
    """The verdict as plain text: the headline, an aligned table, how it was computed."""
    if comparison is None:
        return []
    out = ["verdict", "  " + headline(comparison)]
    rows = table_rows(comparison) if comparison.get("rows") else []
    if rows:
        columns = list(rows[0])
        widths = [max(len(c), *(len(r[c]) for r in rows)) for c in columns]
        out.append("  " + "  ".join(c.ljust(w) for c, w in zip(columns, widths, strict=True)))
        out.extend("  " + "  ".join(r[c].ljust(w) for c, w in zip(columns, widths, strict=True))
                   .rstrip() for r in rows)
        out.append("  " + _how(comparison))
    out.extend(f"  note: {n}" for n in _other_notes(comparison))
    return out


def html_section(comparison: dict[str, Any] | None, heading: str = "h2") -> str:
    """The verdict sentence and the table as HTML (escaped); empty without a comparison."""
    if comparison is None:
        return ""
    import html  # here: its entity table is about 1 ms of a small report (issue 26)

    parts = [f"<{heading}>Verdict</{heading}>",
             f"<p class='prc-verdict'><b>{html.escape(headline(comparison))}</b></p>"]
    rows = table_rows(comparison) if comparison.get("rows") else []
    if rows:
        head = "".join(f"<th>{html.escape(c)}</th>" for c in rows[0])
        body = "".join("<tr>" + "".join(f"<td>{html.escape(v)}</td>" for v in r.values())
                       + "</tr>" for r in rows)
        parts.append(f"<table class='prc-verdict-table'><tr>{head}</tr>{body}</table>")
        parts.append(f"<p class='prc-meta'>{html.escape(_how(comparison))}</p>")
    parts.extend(f"<p class='prc-meta'>note: {html.escape(n)}</p>"
                 for n in _other_notes(comparison))
    return "\n".join(parts)
