"""The count state reduced over a Dask cluster: the public entry point.

``prcurve.dask`` re-exports :mod:`prcurve.io.dask`, where the code lives
(docs/scale.md; the ``dask`` extra): :func:`pr_counts` reduces each score
column of a Dask DataFrame (or Parquet files) to an exact or binned count
state, :func:`evaluate_ranking` evaluates a run held in a Dask DataFrame, and
:func:`evaluate_detections` evaluates detections against ground truth
(:mod:`prcurve.io.dask_detection`). Dask is imported only when one of them is
called.
"""

from prcurve.io.dask import evaluate_ranking, pr_counts
from prcurve.io.dask_detection import evaluate_detections

__all__ = ["evaluate_detections", "evaluate_ranking", "pr_counts"]
