"""From curves and inputs to a :class:`~prcurve.present.report.Report`: every number read off.

Each model's numbers come from views of its :class:`~prcurve.PRCurve`: AP in
every named method, the Davis–Goadrich area, the unachievable region's minimum
AP and AUCNPR (:mod:`prcurve.space.bounds`), the best F-beta threshold, and
precision at a recall and recall at a precision. Undefined values become None
with a note saying why, never a silent number.

Examples
--------
>>> import numpy as np
>>> from prcurve.present.report import ReportSettings
>>> from prcurve.present.report_build import evaluate
>>> rng = np.random.default_rng(0)
>>> y = np.r_[np.ones(300, bool), np.zeros(500, bool)]
>>> s = np.r_[rng.normal(0, 1, 300), rng.normal(-2, 1, 500)]
>>> report = evaluate({"model": (y, s)}, ReportSettings(ap_method="step"))
>>> round(report.models[0].values["ap"]["value"], 4)
0.8885
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

import numpy as np

from prcurve.core.average_precision import AP_METHODS, APMethod
from prcurve.core.curve import OperatingPoint, PRCurve
from prcurve.errors import UndefinedMetricWarning
from prcurve.present.report import (
    CLASS_AVERAGES,
    ClassAverages,
    InputSummary,
    ModelReport,
    Report,
    ReportSettings,
)
from prcurve.present.report_text import average_label
from prcurve.present.verdict import Candidate, report_comparison
from prcurve.space import bounds
from prcurve.space.intervals import (
    CurveInterval,
    bootstrap_average_precision,
    draws_per_resample,
)
from prcurve.space.multiclass import one_vs_rest, pr_curve
from prcurve.validation.files import frame_column_names, frame_only_options
from prcurve.validation.space import unsupported_with_score_matrix

if TYPE_CHECKING:
    from prcurve.io import LoadedInput, ScoredColumn
    from prcurve.io.class_columns import LoadedClasses
    from prcurve.io.stream import StreamedCounts, StreamedInput

__all__ = [
    "build_report",
    "build_streamed_report",
    "evaluate",
    "evaluate_classes",
    "model_names",
    "report",
]




_BOUNDS_SOURCE = "Boyd et al. (2012), Unachievable region in precision-recall space"


def _number(value: float) -> float | None:
    """A JSON number; None for NaN (undefined)."""
    return None if math.isnan(value) else float(value)


def _point(point: OperatingPoint, **extra: Any) -> dict[str, Any]:
    return {
        **extra,
        "value": _number(point.value),
        "threshold": _number(point.threshold),
        "precision": _number(point.precision),
        "recall": _number(point.recall),
    }


def _bounds_values(
    curve: PRCurve, ap_method: APMethod, ap: float, aucpr: float
) -> dict[str, dict[str, Any]]:
    """The minimum AP, normalized AP, minimum AUCPR and AUCNPR for this curve's classes.

    They come from :mod:`prcurve.space.bounds` (Boyd et al. 2012). A value the bounds
    cannot give (the step minimum of non-integer weights) is None with the reason.
    """
    out: dict[str, dict[str, Any]] = {
        "min_ap": {"method": ap_method, "value": None},
        "normalized_ap": {"method": ap_method, "value": None},
        "min_aucpr": {"method": "davis_goadrich", "value": None},
        "aucnpr": {"method": "davis_goadrich", "value": None},
    }
    def attempt(key: str, compute: Callable[[], float], source: str) -> None:
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", UndefinedMetricWarning)
                value = _number(float(compute()))
        except ValueError as error:  # InvalidInputError included
            out[key]["note"] = f"not available: {error}"
            return
        out[key]["value"] = value
        out[key]["source"] = source
        if value is None:
            out[key]["note"] = "undefined"

    n_pos, n_neg, pi = curve.n_pos, curve.n_neg, curve.prevalence
    attempt("min_ap", lambda: bounds.min_average_precision(n_pos, n_neg, ap_method),
            f"prcurve.space.bounds.min_average_precision; {_BOUNDS_SOURCE}")
    attempt("normalized_ap",
            lambda: bounds.normalized_average_precision(ap, n_pos, n_neg, ap_method),
            f"(AP - min AP) / (1 - min AP), prcurve.space.bounds.normalized_average_precision; "
            f"{_BOUNDS_SOURCE}")
    attempt("min_aucpr", lambda: bounds.min_aucpr(pi),
            f"prcurve.space.bounds.min_aucpr, Theorem 2; {_BOUNDS_SOURCE}")
    attempt("aucnpr", lambda: bounds.aucnpr(aucpr, pi),
            f"(AUCPR - min AUCPR) / (1 - min AUCPR), prcurve.space.bounds.aucnpr, Eq. 3; "
            f"{_BOUNDS_SOURCE}")
    return out


def _interval_values(curve: PRCurve, settings: ReportSettings) -> dict[str, Any] | None:
    """The headline AP's stratified bootstrap interval, or why there is none."""
    if settings.ci_level is None:
        return None
    method = settings.ap_method
    entry: dict[str, Any] = {"statistic": f"average_precision[{method}]",
                             "method": "percentile bootstrap (stratified)",
                             "level": settings.ci_level, "resamples": settings.resamples,
                             "seed": settings.seed, "low": None, "high": None}
    draws = _draws_per_resample(curve)
    if settings.ci_max_cells is not None and draws > settings.ci_max_cells:
        rows = round(curve.n_pos + curve.n_neg)
        entry["note"] = (f"not computed by default: {len(curve)} distinct scores over {rows} "
                         f"rows make the bootstrap slow (about {draws} draws a resample, above "
                         f"{settings.ci_max_cells}); pass --ci {settings.ci_level:g} to compute "
                         "it")
        return entry
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UndefinedMetricWarning)
            interval = bootstrap_average_precision(
                curve, method=method, n_resamples=settings.resamples, level=settings.ci_level,
                seed=settings.seed)
    except ValueError as error:  # e.g. weighted data: resampling needs whole counts
        entry["note"] = f"not available: {error}"
        return entry
    entry["low"], entry["high"] = _number(interval.lower), _number(interval.upper)
    if entry["low"] is None:
        entry["note"] = "undefined"
    return entry


def _draws_per_resample(curve: PRCurve) -> int:
    """The bootstrap's cost a resample (``space.intervals.draws_per_resample``): the
    thresholds where every score differs, far fewer than the rows where many tie; what
    ``ci_max_cells`` caps (issue 26, session 35: by thresholds alone, 10^7 rows of 10^4
    distinct scores spent 2 s of CPU on the interval, 4x the rest of the report)."""
    return draws_per_resample(len(curve), round(curve.n_pos), round(curve.n_neg))


def _model_values(curve: PRCurve, settings: ReportSettings) -> dict[str, Any]:
    """Every number of one model, read off its curve (undefined -> None with a note)."""
    with warnings.catch_warnings():
        # Undefined values become None with a note below, never a silent number.
        warnings.simplefilter("ignore", UndefinedMetricWarning)
        ap = {method: _number(curve.average_precision(cast(APMethod, method)))
              for method in AP_METHODS}
        best = curve.best_f(settings.beta)
        at_recall = curve.precision_at_recall(settings.recall_level)
        at_precision = curve.recall_at_precision(settings.precision_level)
        roc_auc = _number(curve.roc().auc())
    aucpr = ap["davis_goadrich"]
    edges = curve.edges
    values: dict[str, Any] = {
        "positives": float(curve.n_pos),
        "negatives": float(curve.n_neg),
        "prevalence": _number(curve.prevalence),
        "curve": {
            "kind": "binned" if curve.is_binned else "exact",
            "thresholds": len(curve),
            **(
                {"bins": len(edges) - 1, "low": float(edges[0]), "high": float(edges[-1])}
                if edges is not None else {}
            ),
        },
        "average_precision": ap,
        "ap": {"method": settings.ap_method, "value": ap[settings.ap_method]},
        "aucpr": {"method": "davis_goadrich", "value": aucpr},
        **_bounds_values(curve, settings.ap_method, _nan(ap[settings.ap_method]), _nan(aucpr)),
        "roc_auc": roc_auc,
        "ap_interval": _interval_values(curve, settings),
        "best_f": _point(best, beta=settings.beta),
        "precision_at_recall": _point(at_recall, level=settings.recall_level),
        "recall_at_precision": _point(at_precision, level=settings.precision_level),
    }
    if values["precision_at_recall"]["value"] is None:
        values["precision_at_recall"]["note"] = (
            f"undefined: no threshold reaches recall {settings.recall_level:g}")
    if values["recall_at_precision"]["value"] is None:
        values["recall_at_precision"]["note"] = (
            f"undefined: no threshold reaches precision {settings.precision_level:g}")
    return values


def _nan(value: float | None) -> float:
    return math.nan if value is None else value


def model_names(inputs: Sequence[LoadedInput | LoadedClasses]) -> list[list[str]]:
    """A unique name per model: the score column, prefixed by the file when needed.

    Examples
    --------
    >>> from types import SimpleNamespace as NS
    >>> a = NS(path="runs/a.csv", models=[NS(column="score"), NS(column="other")])
    >>> b = NS(path="runs/b.csv", models=[NS(column="score")])
    >>> model_names([a, b])
    [['a:score', 'other'], ['b:score']]
    """
    columns = [m.column for loaded in inputs for m in loaded.models]
    names = []
    for loaded in inputs:
        row = []
        for scored in loaded.models:
            if columns.count(scored.column) == 1:
                row.append(scored.column)
            else:
                row.append(f"{Path(loaded.path).stem}:{scored.column}")
        names.append(row)
    flat = [n for row in names for n in row]
    if len(set(flat)) != len(flat):  # same file stem in two folders: use the paths
        names = [
            [n if flat.count(n) == 1 else f"{loaded.path}:{s.column}"
             for n, s in zip(row, loaded.models, strict=True)]
            for row, loaded in zip(names, inputs, strict=True)
        ]
    return names


def _evaluate_one(
    name: str, summary: InputSummary, column: str | None, scored: ScoredColumn | None,
    y_true: Any, y_score: Any, weights: Any, settings: ReportSettings,
) -> ModelReport:
    curve = pr_curve(y_true, y_score, sample_weight=weights, bins=settings.bins)
    values = {
        "rows": int(np.asarray(y_score).shape[0]),
        "rows_dropped": 0 if scored is None else scored.rows_dropped,
        "dropped": {} if scored is None else dict(scored.dropped),
        **_model_values(curve, settings),
    }
    return ModelReport(name=name, input=summary, score_column=column, curve=curve, values=values)


def evaluate_classes(
    name: str, summary: InputSummary, y_true: Any, y_score: Any, weights: Any,
    settings: ReportSettings, *, classes: Any = None,
    score_columns: Sequence[str | None] = (), rows_dropped: int = 0,
    dropped: Mapping[str, int] | None = None,
) -> tuple[list[ModelReport], ClassAverages]:
    """A multi-class or multi-label model: one report model per class, scored one-vs-rest
    (:func:`prcurve.one_vs_rest`), one for the pooled (micro) curve, and the class averages.

    ``y_true`` holds class labels (multi-class; column ``j`` of the (n, k)
    ``y_score`` scores ``classes[j]``, by default the sorted distinct labels)
    or an (n, k) indicator matrix (multi-label). The classes' curves are exact:
    ``settings.bins`` is refused, as :func:`prcurve.pr_curve` refuses bins
    with a score matrix.

    Examples
    --------
    >>> from prcurve.present.report import InputSummary, ReportSettings
    >>> from prcurve.present.report_build import evaluate_classes
    >>> models, group = evaluate_classes(
    ...     "m", InputSummary(name="arrays"), ["a", "b", "c", "a"],
    ...     [[0.8, 0.1, 0.1], [0.2, 0.5, 0.3], [0.3, 0.3, 0.4], [0.3, 0.6, 0.1]],
    ...     None, ReportSettings(ci_level=None))
    >>> [m.name for m in models], group.support
    (['m[a]', 'm[b]', 'm[c]', 'm[micro]'], [2.0, 1.0, 1.0])
    >>> round(group.average_precision["step"]["macro"], 4)
    0.7778
    """
    if settings.bins is not None:
        raise unsupported_with_score_matrix("bins")
    ovr = one_vs_rest(y_true, y_score, labels=classes, sample_weight=weights)
    kind = "multi-label" if np.ndim(y_true) == 2 else "multi-class"
    rows = int(np.shape(y_score)[0])
    columns = list(score_columns) or [None] * len(ovr.classes)
    labels = [str(c) for c in ovr.classes.tolist()]
    curves = [*ovr.curves(), PRCurve(ovr.micro_counts())]
    models = []
    # The pooled curve's name is never a class's (a class may be named "micro").
    pooled = average_label("micro", labels)
    for label, column, curve in zip([*labels, pooled], [*columns, None], curves, strict=True):
        values = {
            "rows": rows,
            "rows_dropped": rows_dropped,
            "dropped": dict(dropped or {}),
            "class": label,
            **_model_values(curve, settings),
        }
        models.append(ModelReport(name=f"{name}[{label}]", input=summary, score_column=column,
                                  curve=curve, values=values))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedMetricWarning)  # None below means undefined
        average_precision = {
            method: {average: _number(float(ovr.average_precision(
                cast(APMethod, method), cast(Any, average)))) for average in CLASS_AVERAGES}
            for method in AP_METHODS
        }
        roc_auc = {average: _number(float(ovr.roc_auc(cast(Any, average))))
                   for average in CLASS_AVERAGES}
    group = ClassAverages(
        model=name, input=summary.name, kind=kind, classes=labels,
        support=[float(x) for x in ovr.support], members=[m.name for m in models],
        average_precision=average_precision, roc_auc=roc_auc,
        score_columns=list(score_columns), macro_curve=_macro_curve(ovr.curves(), settings),
    )
    return models, group


MACRO_BAND_RESAMPLES = 200
"""The most resamples of a macro-average curve's drawn band (5 classes of 10^5 thresholds:
about 5 s on one loaded core, against 28 s for 1000)."""


def _macro_curve(curves: list[PRCurve], settings: ReportSettings) -> CurveInterval:
    """The classes' macro-average PR curve (the mean of their interpolated precision at
    recall 0, 0.01, ..., 1) with its bootstrap band when the AP interval's rule allows one
    (``ci_level`` set, no class over ``ci_max_cells`` draws a resample, whole counts); else the
    band is NaN (not drawn) and ``n_resamples`` 0. The band is drawn, never reported: it
    takes at most :data:`MACRO_BAND_RESAMPLES` resamples, to keep the report fast."""
    # Here, not at the top: a report of one model aggregates nothing (issue 26).
    from prcurve.space.aggregate import aggregate, macro_average_curve

    limit = settings.ci_max_cells
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedMetricWarning)
        if settings.ci_level is not None and (
                limit is None or max(map(_draws_per_resample, curves)) <= limit):
            try:
                return macro_average_curve(curves, n_resamples=min(settings.resamples,
                                                                   MACRO_BAND_RESAMPLES),
                                           level=settings.ci_level, seed=settings.seed)
            except ValueError:  # weighted data: resampling needs whole counts
                pass
        average = aggregate(curves, "vertical")
    recall, precision = cast(Any, average.recall), cast(Any, average.precision)
    nan = np.full(recall.shape, np.nan)
    return CurveInterval("macro-average interpolated precision at recall levels", recall,
                         precision, nan, nan, "none", math.nan, 0)


def _evaluate_streamed(name: str, summary: InputSummary, streamed: StreamedCounts,
                       settings: ReportSettings) -> ModelReport:
    curve = streamed.curve()
    values = {
        "rows": streamed.rows,
        "rows_dropped": streamed.rows_dropped,
        "dropped": dict(streamed.dropped),
        **_model_values(curve, settings),
        "state": {
            "engine": summary.engine,
            "mode": streamed.mode,
            "max_distinct": streamed.max_distinct,
            "switched_at_row": streamed.switched_at_row,
            "ap_bounds": None if streamed.ap_bounds is None else streamed.ap_bounds.to_dict(),
        },
    }
    return ModelReport(name=name, input=summary, score_column=streamed.column, curve=curve,
                       values=values)


def build_streamed_report(
    inputs: Sequence[StreamedInput], settings: ReportSettings, notes: Sequence[str] = ()
) -> Report:
    """The report of streamed (or Dask) inputs (see :func:`prcurve.io.stream.stream_scores`).

    Every number is read off each model's state, as for :func:`build_report`;
    each model also says which state produced its numbers (``state``: exact or
    binned, with the bounds on the exact AP of a binned state).
    """
    summaries = [InputSummary.of(streamed) for streamed in inputs]
    names = model_names(inputs)  # type: ignore[arg-type]  # same path/models[].column shape
    models = []
    for streamed, summary, row in zip(inputs, summaries, names, strict=True):
        for model, name in zip(streamed.models, row, strict=True):
            models.append(_evaluate_streamed(name, summary, model, settings))
    return Report(settings=settings, inputs=summaries, models=models, notes=list(notes))


def build_report(
    inputs: Sequence[LoadedInput | LoadedClasses], settings: ReportSettings,
    notes: Sequence[str] = (), *, baseline: str | None = None, correction: str = "holm",
    baseline_argument: str = "baseline",
) -> Report:
    """The report of every model of every loaded input (see :func:`prcurve.io.load_scores`);
    a multi-class or multi-label input (:func:`prcurve.io.class_columns.load_input`) is
    reported per class with the class averages (:func:`evaluate_classes`).

    Two or more binary models of the same samples are compared
    (:func:`prcurve.present.verdict.report_comparison`): each against
    ``baseline``, or all pairs; p-values corrected by ``correction``."""
    from prcurve.io.class_columns import LoadedClasses  # io: loaded only with files

    summaries = [InputSummary.of(loaded) for loaded in inputs]
    models = []
    groups = []
    notes = list(notes)
    for loaded in inputs:  # a p_<name> column whose class does not occur: said, not dropped
        note = loaded.unscored_note if isinstance(loaded, LoadedClasses) else None
        if note is not None and note not in notes:
            notes.append(note)
    candidates: list[Candidate] = []
    stems = [Path(loaded.path).stem for loaded in inputs]
    for loaded, summary, names in zip(inputs, summaries, model_names(inputs), strict=True):
        if isinstance(loaded, LoadedClasses):  # one score column per class: one-vs-rest
            stem = Path(loaded.path).stem
            members, group = evaluate_classes(
                stem if stems.count(stem) == 1 else loaded.path, summary, loaded.y_true,
                loaded.scores, loaded.weights, settings, classes=loaded.class_values,
                score_columns=loaded.score_columns, rows_dropped=loaded.rows_dropped,
                dropped=loaded.dropped)
            models.extend(members)
            groups.append(group)
            continue
        for scored, name in zip(loaded.models, names, strict=True):
            models.append(_evaluate_one(name, summary, scored.column, scored, scored.positive,
                                        scored.scores, scored.weights, settings))
            candidates.append(_candidate(name, scored.positive, scored.scores, scored.weights,
                                         scored.rows_dropped))
    comparison = report_comparison(candidates, settings, baseline, correction,
                                   baseline_argument=baseline_argument)
    return Report(settings=settings, inputs=summaries, models=models, notes=notes,
                  class_averages=groups, comparison=comparison)


def _candidate(name: str, labels: Any, scores: Any, weights: Any,
               rows_dropped: int = 0) -> Candidate:
    """A binary model for the verdict, or why it cannot be paired with the others."""
    why = ("it has sample weights (the paired bootstrap resamples whole, unweighted samples)"
           if weights is not None else
           f"--drop-invalid skipped {rows_dropped} of its rows (models are paired by row)"
           if rows_dropped else None)
    return Candidate(name, labels, scores, why)


def evaluate(
    models: Mapping[str, tuple[Any, Any] | tuple[Any, Any, Any]],
    settings: ReportSettings | None = None, *, baseline: str | None = None,
    correction: str = "holm",
) -> Report:
    """The report of models given as arrays: ``{name: (y_true, y_score[, sample_weight])}``.

    Binary models with the same labels are compared (the verdict, as in
    :func:`build_report`).

    Labels and scores are checked as by :func:`prcurve.pr_curve`. An (n, k)
    ``y_score`` is a multi-class (class labels) or multi-label (indicator
    matrix) model, reported per class (:func:`evaluate_classes`).

    Examples
    --------
    >>> from prcurve.present.report_build import evaluate
    >>> report = evaluate({"a": ([1, 0, 1, 0], [0.9, 0.8, 0.7, 0.6])})
    >>> print(report.to_text().splitlines()[3])
    model a (arrays)
    """
    chosen = settings or ReportSettings()
    summary = InputSummary(name="arrays")
    out: list[ModelReport] = []
    groups = []
    candidates: list[Candidate] = []
    for name, data in models.items():
        y_true, y_score = data[0], data[1]
        weights = data[2] if len(data) > 2 else None
        if np.ndim(y_score) == 2:  # one score column per class: one-vs-rest
            members, group = evaluate_classes(name, summary, y_true, y_score, weights, chosen)
            out.extend(members)
            groups.append(group)
        else:
            out.append(_evaluate_one(name, summary, None, None, y_true, y_score, weights,
                                     chosen))
            candidates.append(_candidate(name, y_true, y_score, weights))
    comparison = report_comparison(candidates, chosen, baseline, correction)
    return Report(settings=chosen, inputs=[summary], models=out, class_averages=groups,
                  comparison=comparison)


def report(
    y_true: Any,
    y_score: Any = None,
    *,
    sample_weight: Any = None,
    label: str | Sequence[str] | None = None,
    pos_label: Any = None,
    drop_invalid: bool = False,
    ap_method: APMethod = "step",
    beta: float = 1.0,
    bins: int | None = None,
    recall_level: float = 0.9,
    precision_level: float = 0.9,
    ci: float | None = 0.95,
    resamples: int = 1000,
    baseline: str | None = None,
    correction: str = "holm",
) -> Report:
    """The report of one model's scores, or of several models' scores of the same samples.

    ``y_score`` is one array (a model called "model"), a mapping of model
    name to scores, or an (n, k) matrix of class scores (a multi-class or
    multi-label model, reported one-vs-rest per class with the class
    averages); labels and weights as in :func:`prcurve.pr_curve`.

    ``y_true`` may instead be a data frame (pandas, polars, or a pyarrow
    Table), read as ``prcurve report`` reads a file: ``label`` names the
    label column (default: label, y, y_true, target or truth; several names
    for a multi-label frame), ``y_score`` a score column or a list of them
    (default: every other numeric column), ``sample_weight`` a weight column,
    ``pos_label`` the positive class, and ``drop_invalid`` skips rows with a
    missing label, score or weight. Classes with one score column each are
    found as on the command line (docs/cli.md, multi-class inputs).

    Two or more models of the same samples are compared (the report's
    ``comparison``: which has the higher AP, the paired bootstrap interval of
    the difference and its p-value, corrected by ``correction``): each
    against ``baseline``, or all pairs (docs/report.md).

    The other keywords are :class:`~prcurve.present.report.ReportSettings`
    (``ci=None`` for no bootstrap interval; it is always computed when asked
    here). The :class:`~prcurve.present.report.Report` displays itself in a
    notebook (its models side by side and the PR plot); ``.to_text()``,
    ``.to_json()``, ``.to_html()`` (the interactive page) and
    ``.write(folder)`` give the command line's outputs.

    Examples
    --------
    >>> import prcurve
    >>> r = prcurve.report([1, 0, 1, 0], {"a": [0.9, 0.8, 0.7, 0.6], "b": [0.6, 0.7, 0.8, 0.9]})
    >>> [m.name for m in r.models], round(r.models[0].values["ap"]["value"], 4)
    (['a', 'b'], 0.8333)
    >>> import pandas as pd
    >>> frame = pd.DataFrame({"y": ["a", "b", "a"], "s": [0.9, 0.4, 0.6], "t": [0.1, 0.5, 0.2]})
    >>> r = prcurve.report(frame, pos_label="a", ci=None)
    >>> [m.name for m in r.models], r.models[1].values["ap"]["value"]
    (['s', 't'], 0.5)
    """
    settings = ReportSettings(ap_method=ap_method, beta=beta, bins=bins,
                              recall_level=recall_level, precision_level=precision_level,
                              ci_level=ci, resamples=resamples, ci_max_cells=None)
    if _is_frame(y_true):
        return _report_of_frame(y_true, y_score, sample_weight, label, pos_label,
                                drop_invalid, settings, baseline, correction)
    if label is not None or drop_invalid:
        raise frame_only_options("label" if label is not None else "drop_invalid")
    if pos_label is not None:
        raise frame_only_options("pos_label")
    models = y_score if isinstance(y_score, Mapping) else {"model": y_score}
    return evaluate({str(name): (y_true, scores, sample_weight)
                     for name, scores in models.items()}, settings,
                    baseline=baseline, correction=correction)


def _is_frame(data: Any) -> bool:
    """A pandas or polars DataFrame, or a pyarrow Table (anything with named columns)."""
    return hasattr(data, "columns") and hasattr(data, "shape")


def _report_of_frame(frame: Any, y_score: Any, sample_weight: Any, label: Any,
                     pos_label: Any, drop_invalid: bool, settings: ReportSettings,
                     baseline: str | None = None, correction: str = "holm") -> Report:
    from prcurve.io.class_columns import input_of_table
    from prcurve.io.frames import table_of_frame

    for name, value in (("y_score", y_score), ("sample_weight", sample_weight)):
        if value is not None and not isinstance(value, (str, list, tuple)):
            raise frame_column_names(name, value)
    table = table_of_frame(frame)
    scores = [y_score] if isinstance(y_score, str) else list(y_score or [])
    labels = [label] if isinstance(label, str) else list(label or [])
    loaded = input_of_table(table, labels=labels, scores=scores, weight=sample_weight,
                            positive=None if pos_label is None else str(pos_label),
                            drop_invalid=drop_invalid)
    return build_report([loaded], settings, baseline=baseline,  # bins with classes: refused
                        correction=correction)  # by evaluate_classes
