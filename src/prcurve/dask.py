"""The count state reduced over a Dask cluster: the public entry point.

``prcurve.dask`` re-exports :mod:`prcurve.io.dask` and :mod:`prcurve.io.dask_ranking`,
where the code lives
(docs/scale.md; the ``dask`` extra): :func:`pr_counts` reduces each score
column of a Dask DataFrame (or Parquet files) to an exact or binned count
state, and :func:`evaluate_ranking` evaluates a run held in a Dask DataFrame.
Dask is imported only when one of them is called.
"""

from prcurve.io.dask import pr_counts
from prcurve.io.dask_ranking import evaluate_ranking

__all__ = ["evaluate_ranking", "pr_counts"]
