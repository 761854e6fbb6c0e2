"""prcurve: precision–recall analysis with every convention named.

One core state, :class:`ThresholdCounts` (exact) or :class:`BinnedCounts`
(per bin), and many views: :class:`PRCurve`, :func:`average_precision` in
every named method, :class:`ConfusionMatrix` and its rates. Conventions are in
docs/definitions.md. ``import prcurve`` imports numpy only.

Examples
--------
>>> import prcurve
>>> round(prcurve.average_precision([1, 0, 1, 1], [0.8, 0.6, 0.55, 0.2]), 4)
0.8056
"""

from prcurve._version import __version__
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
from prcurve.errors import InvalidInputError, UndefinedMetricError, UndefinedMetricWarning
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

# The report of fitted scikit-learn classifiers, also reachable as prcurve.report's
# from_estimator (the name scikit-learn's displays use): prcurve.report.from_estimator(
# {"a": model_a, "b": model_b}, X, y) is prcurve.report_from_estimators(...).
report.from_estimator = report_from_estimators  # type: ignore[attr-defined]
