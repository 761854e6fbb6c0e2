"""Input and scale: file readers, streaming batches, and Dask.

- :mod:`~prcurve.io.readers`: files (CSV, TSV, Parquet, JSON Lines, .npz) to named columns;
- :mod:`~prcurve.io.columns`: the label, score and weight columns chosen and checked
  (:func:`load_scores`);
- :mod:`~prcurve.io.stream`: inputs larger than memory, read in batches into count states
  (public as :mod:`prcurve.stream`);
- :mod:`~prcurve.io.dask`: count states reduced over a Dask cluster (public as
  :mod:`prcurve.dask`);
- :mod:`~prcurve.io.demo`: the simulated data of ``prcurve demo``.

Everything here turns input into the core count state; nothing computes a metric.
"""

from prcurve.io.columns import LoadedInput, ScoredColumn, load_scores
from prcurve.io.readers import FORMATS, RawTable, detect_format, read_table

__all__ = ["FORMATS", "LoadedInput", "RawTable", "ScoredColumn", "detect_format", "load_scores",
           "read_table"]
