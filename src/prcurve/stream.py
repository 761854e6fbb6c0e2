"""Streaming inputs larger than memory into count states: the public entry point.

``prcurve.stream`` re-exports :mod:`prcurve.io.stream`, where the code lives
(docs/scale.md): :func:`stream_scores` and :func:`stream_counts` read CSV,
TSV, Parquet or JSON Lines files in batches and fold them into exact or
binned count states, memory bounded by the state and one batch.
"""

from prcurve.io.stream import (
    DEFAULT_BATCH_ROWS,
    DEFAULT_MAX_DISTINCT,
    DEFAULT_SWITCH_BINS,
    APBounds,
    StreamedCounts,
    StreamedInput,
    ap_bounds,
    parquet_statistics_range,
    stream_counts,
    stream_scores,
)

__all__ = [
    "DEFAULT_BATCH_ROWS",
    "DEFAULT_MAX_DISTINCT",
    "DEFAULT_SWITCH_BINS",
    "APBounds",
    "StreamedCounts",
    "StreamedInput",
    "ap_bounds",
    "parquet_statistics_range",
    "stream_counts",
    "stream_scores",
]
