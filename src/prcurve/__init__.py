"""prcurve: precision–recall analysis with every convention named.

One core state, :class:`ThresholdCounts` (exact) or :class:`BinnedCounts`
(per bin), and many views: :class:`PRCurve`, :func:`average_precision` in
every named method, :class:`ConfusionMatrix` and its rates. Conventions are in
docs/definitions.md.

``import prcurve`` is light: it loads the version and the error classes, and
each public name loads its module (and numpy) when first used (PEP 562's module
``__getattr__``); the subpackages load the same way (docs/architecture.md, "What
an import loads"). ``from prcurve import X``, ``dir(prcurve)`` and ``__all__``
work as for eager names.

Examples
--------
>>> import prcurve
>>> round(prcurve.average_precision([1, 0, 1, 1], [0.8, 0.6, 0.55, 0.2]), 4)
0.8056
"""

from importlib import import_module as _import_module
from types import ModuleType as _ModuleType
from typing import TYPE_CHECKING, Any

from prcurve._version import __version__
from prcurve.errors import InvalidInputError, UndefinedMetricError, UndefinedMetricWarning

if TYPE_CHECKING:  # the type checker sees every name; at run time __getattr__ loads it
    from prcurve.core.average_precision import AP_METHODS, APMethod
    from prcurve.core.binned import BinnedCounts
    from prcurve.core.confusion import ConfusionMatrix, confusion_matrix
    from prcurve.core.counts import ThresholdCounts
    from prcurve.core.curve import OperatingPoint, PRCurve
    from prcurve.core.label_metrics import (
        ClassConfusion,
        class_confusion,
        f1,
        f_beta,
        precision,
        recall,
    )
    from prcurve.core.roc import ROCCurve, roc_curve
    from prcurve.core.table import Table
    from prcurve.io.scorers import scorer
    from prcurve.present.estimator_report import report_from_estimators
    from prcurve.present.report_build import report
    from prcurve.ranking import (
        JudgedRun,
        Measure,
        Qrels,
        RankingEvaluation,
        Run,
        RunComparison,
        average_precision_at_k,
        compare_runs,
        judge,
        precision_at_k,
        r_precision,
        ranking_counts,
        read_qrels,
        read_run,
        recall_at_k,
        reciprocal_rank,
    )
    from prcurve.ranking import evaluate as evaluate_ranking
    from prcurve.space.aggregate import Aggregate, aggregate
    from prcurve.space.bounds import (
        MinimumPRCurve,
        aucnpr,
        is_achievable,
        min_aucpr,
        min_average_precision,
        min_pr_curve,
        min_precision,
        modified_f1,
        modified_f_beta,
        normalized_average_precision,
        worst_ranking_counts,
    )
    from prcurve.space.intervals import (
        CurveInterval,
        Interval,
        PairedComparison,
        ThresholdIntervals,
        aucpr_interval,
        bootstrap_average_precision,
        bootstrap_curve,
        bootstrap_threshold,
        compare_average_precision,
    )
    from prcurve.space.multiclass import (
        OneVsRest,
        average_precision,
        one_vs_rest,
        pr_curve,
        roc_auc,
    )

# Each lazy public name: (the module defining it, its name there). Kept equal to the
# TYPE_CHECKING imports above (tests/test_package.py checks both against __all__).
_LAZY: dict[str, tuple[str, str]] = {
    **{name: ("prcurve.core.average_precision", name) for name in ("AP_METHODS", "APMethod")},
    "BinnedCounts": ("prcurve.core.binned", "BinnedCounts"),
    **{name: ("prcurve.core.confusion", name) for name in ("ConfusionMatrix",
                                                           "confusion_matrix")},
    "ThresholdCounts": ("prcurve.core.counts", "ThresholdCounts"),
    **{name: ("prcurve.core.curve", name) for name in ("OperatingPoint", "PRCurve")},
    **{name: ("prcurve.core.label_metrics", name) for name in (
        "ClassConfusion", "class_confusion", "f1", "f_beta", "precision", "recall")},
    **{name: ("prcurve.core.roc", name) for name in ("ROCCurve", "roc_curve")},
    "Table": ("prcurve.core.table", "Table"),
    "report": ("prcurve.present.report_build", "report"),
    "report_from_estimators": ("prcurve.present.estimator_report", "report_from_estimators"),
    "scorer": ("prcurve.io.scorers", "scorer"),
    **{name: ("prcurve.ranking", name) for name in (
        "JudgedRun", "Measure", "Qrels", "RankingEvaluation", "Run", "RunComparison",
        "average_precision_at_k", "compare_runs", "judge", "precision_at_k", "r_precision",
        "ranking_counts", "read_qrels", "read_run", "recall_at_k", "reciprocal_rank")},
    "evaluate_ranking": ("prcurve.ranking", "evaluate"),
    **{name: ("prcurve.space.aggregate", name) for name in ("Aggregate", "aggregate")},
    **{name: ("prcurve.space.bounds", name) for name in (
        "MinimumPRCurve", "aucnpr", "is_achievable", "min_aucpr", "min_average_precision",
        "min_pr_curve", "min_precision", "modified_f1", "modified_f_beta",
        "normalized_average_precision", "worst_ranking_counts")},
    **{name: ("prcurve.space.intervals", name) for name in (
        "CurveInterval", "Interval", "PairedComparison", "ThresholdIntervals",
        "aucpr_interval", "bootstrap_average_precision", "bootstrap_curve",
        "bootstrap_threshold", "compare_average_precision")},
    **{name: ("prcurve.space.multiclass", name) for name in (
        "OneVsRest", "average_precision", "one_vs_rest", "pr_curve", "roc_auc")},
}

# Subpackages and modules reachable as attributes (``prcurve.ranking.Qrels`` after a
# bare ``import prcurve``), each imported on first use.
_SUBMODULES = frozenset({
    "cli", "core", "dask", "detection", "io", "present", "ranking", "space", "spark",
    "stream", "validation",
})


def __getattr__(name: str) -> Any:
    """Load a public name or a subpackage on first use (PEP 562) and keep it."""
    if name in _LAZY:
        module, attribute = _LAZY[name]
        value = getattr(_import_module(module), attribute)
        if name == "report":  # prcurve.report.from_estimator, as scikit-learn's displays name it
            value.from_estimator = _import_module(
                "prcurve.present.estimator_report").report_from_estimators
    elif name in _SUBMODULES:
        value = _import_module(f"{__name__}.{name}")
    else:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    globals()[name] = value  # later look-ups find it without this function
    return value


def __dir__() -> list[str]:
    """The public names, loaded or not, and the subpackages loaded so far."""
    loaded = {name for name, value in globals().items()
              if isinstance(value, _ModuleType) and not name.startswith("_")}
    return sorted(set(__all__) | loaded)


__all__ = [
    "AP_METHODS",
    "APMethod",
    "Aggregate",
    "BinnedCounts",
    "ClassConfusion",
    "ConfusionMatrix",
    "CurveInterval",
    "Interval",
    "InvalidInputError",
    "JudgedRun",
    "Measure",
    "MinimumPRCurve",
    "OneVsRest",
    "OperatingPoint",
    "PRCurve",
    "PairedComparison",
    "Qrels",
    "ROCCurve",
    "RankingEvaluation",
    "Run",
    "RunComparison",
    "Table",
    "ThresholdCounts",
    "ThresholdIntervals",
    "UndefinedMetricError",
    "UndefinedMetricWarning",
    "__version__",
    "aggregate",
    "aucnpr",
    "aucpr_interval",
    "average_precision",
    "average_precision_at_k",
    "bootstrap_average_precision",
    "bootstrap_curve",
    "bootstrap_threshold",
    "class_confusion",
    "compare_average_precision",
    "compare_runs",
    "confusion_matrix",
    "evaluate_ranking",
    "f1",
    "f_beta",
    "is_achievable",
    "judge",
    "min_aucpr",
    "min_average_precision",
    "min_pr_curve",
    "min_precision",
    "modified_f1",
    "modified_f_beta",
    "normalized_average_precision",
    "one_vs_rest",
    "pr_curve",
    "precision",
    "precision_at_k",
    "r_precision",
    "ranking_counts",
    "read_qrels",
    "read_run",
    "recall",
    "recall_at_k",
    "reciprocal_rank",
    "report",
    "report_from_estimators",
    "roc_auc",
    "roc_curve",
    "scorer",
    "worst_ranking_counts",
]
