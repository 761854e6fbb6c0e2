"""The count state reduced over a Dask cluster: the public entry point.

``prcurve.dask`` re-exports :mod:`prcurve.io.dask`, where the code lives
(docs/scale.md; the ``dask`` extra): :func:`pr_counts` reduces each score
column of a Dask DataFrame (or Parquet files) to an exact or binned count
state, and :func:`evaluate_ranking` evaluates a run held in a Dask DataFrame.
Dask is imported only when one of them is called.
"""

from prcurve.io.dask import evaluate_ranking, pr_counts

__all__ = ["evaluate_ranking", "pr_counts"]
