"""The count state reduced over a Spark DataFrame: the public entry point.

``prcurve.spark`` re-exports :mod:`prcurve.io.spark`, where the code lives
(docs/scale.md; the ``spark`` extra): :func:`pr_counts` reduces a score column of a
Spark DataFrame to an exact or binned count state, equal to the in-memory one, and
:func:`report` builds the report of ``prcurve report`` from a Spark DataFrame.
pyspark is imported only when one of them is called.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from numpy.typing import ArrayLike

from prcurve.core.binned import BinnedCounts, ap_bounds
from prcurve.io.spark import pr_counts, pr_counts_columns
from prcurve.io.stream import StreamedCounts, StreamedInput
from prcurve.present.report import Report, ReportSettings
from prcurve.present.report_build import build_streamed_report

__all__ = ["pr_counts", "pr_counts_columns", "report"]


def report(
    frame: Any,
    *,
    label: str,
    scores: str | Sequence[str],
    weight: str | None = None,
    pos_label: Any = None,
    bins: int | ArrayLike | None = None,
    settings: ReportSettings | None = None,
    depth: int = 2,
) -> Report:
    """The report of ``prcurve report`` for score columns of a Spark DataFrame.

    One pass over the DataFrame computes every column's state
    (:func:`pr_counts_columns`); every number of the report is read off those states,
    as for a streamed input (docs/report.md): exact states by default, or ``bins``
    equal-width bins (a binned model carries the bounds on its exact step AP).
    ``settings`` chooses the AP method, beta and levels; its ``bins`` is not used.

    Returns
    -------
    prcurve.present.report.Report
        ``to_text()``, ``to_json()``, ``write(folder)`` as for the command line.
    """
    columns = [scores] if isinstance(scores, str) else list(scores)
    rows, states = pr_counts_columns(frame, label=label, scores=columns, weight=weight,
                                     bins=bins, pos_label=pos_label, depth=depth)
    models = []
    for column, state in zip(columns, states, strict=True):
        bounds = ap_bounds(state) if isinstance(state, BinnedCounts) else None
        models.append(StreamedCounts(
            column=column, counts=state, mode="exact" if bounds is None else "binned",
            rows=rows, max_distinct=None, ap_bounds=bounds,
        ))
    one = StreamedInput(
        path="Spark DataFrame", format="spark", files=1,
        n_rows=rows, batches=frame.rdd.getNumPartitions(), label_column=label,
        label_chosen="given", positive_label=pos_label, weight_column=weight,
        scores_chosen="given", models=models, skipped_columns=[], engine="spark",
    )
    return build_streamed_report([one], settings or ReportSettings())
