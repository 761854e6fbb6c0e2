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

from prcurve.average_precision import AP_METHODS, APMethod, average_precision
from prcurve.binned import BinnedCounts
from prcurve.confusion import ConfusionMatrix, confusion_matrix, f1, f_beta, precision, recall
from prcurve.counts import ThresholdCounts
from prcurve.curve import OperatingPoint, PRCurve, pr_curve
from prcurve.errors import InvalidInputError, UndefinedMetricError, UndefinedMetricWarning
from prcurve.table import Table

__version__ = "0.1.0"

__all__ = [
    "AP_METHODS",
    "APMethod",
    "BinnedCounts",
    "ConfusionMatrix",
    "InvalidInputError",
    "OperatingPoint",
    "PRCurve",
    "Table",
    "ThresholdCounts",
    "UndefinedMetricError",
    "UndefinedMetricWarning",
    "__version__",
    "average_precision",
    "confusion_matrix",
    "f1",
    "f_beta",
    "pr_curve",
    "precision",
    "recall",
]
