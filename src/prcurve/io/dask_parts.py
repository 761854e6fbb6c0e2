"""What a task of :mod:`prcurve.io.dask` (or of a local worker process,
:mod:`prcurve.io.workers`) returns, how two results merge, and the input they make.

A task never raises (a raised error would print the worker's traceback): it returns a
:class:`Part`, plain data, with the states of its rows and the first problem found.
Merging is associative and commutative (states merge, counts add, the first problem by
partition wins), so the tree of merges may group results in any way.
:func:`finish_input` applies the rules of the whole (labels across parts, no rows, no
positives, weights) and makes the ``StreamedInput`` of ``prcurve report``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import reduce
from typing import Any

import numpy as np

from prcurve.core.binned import BinnedCounts, ap_bounds
from prcurve.core.counts import ThresholdCounts
from prcurve.io.batches import Columns
from prcurve.io.rows import LabelRule, RowProblem, check_weight_totals
from prcurve.validation.files import (
    empty_input,
    no_positives,
    no_positives_left,
    no_rows_left,
    positive_not_found,
)

__all__ = ["Budget", "Part", "State", "finish_input", "merge_parts", "some_values",
           "within_budget"]

State = ThresholdCounts | BinnedCounts


@dataclass
class Part:
    """The result of one or more partitions: plain data, never an exception raised."""

    sizes: list[tuple[int, int]]  # (partition, rows)
    states: list[State]
    rules: list[tuple[int, LabelRule]] = field(default_factory=list)
    problem: tuple[int, RowProblem | str] | None = None  # the first, by partition
    ranges: list[tuple[float, float]] = field(default_factory=list)
    positives: int = 0  # positive rows (file rules), whatever their weight
    # Per score column (file rules): rows and positive rows kept, rows dropped by reason.
    kept: list[int] = field(default_factory=list)
    kept_positives: list[int] = field(default_factory=list)
    dropped: list[dict[str, int]] = field(default_factory=list)
    # pos_label (library rules): whether any partition holds it, and else a few label values
    # of each kind, so that the rule for an absent pos_label is applied to the whole.
    matched: bool = False
    unmatched: list[Any] = field(default_factory=list)
    # Without pos_label (library rules): the few distinct values of hard labels, checked
    # as one binary coding over the whole ({0, 1} in one partition and {-1, 1} in another
    # is not one); ``soft`` once a partition held soft labels (checked there).
    labels: list[Any] = field(default_factory=list)
    soft: bool = False


UNMATCHED_KEPT = 8  # label values kept of each kind (text, other) when pos_label is absent


def some_values(values: Sequence[Any]) -> list[Any]:
    """At most ``UNMATCHED_KEPT`` distinct values of each kind: enough for the rule's
    message and for its checks (two distinct values; text beside numbers)."""
    text = [v for v in dict.fromkeys(values) if isinstance(v, (str, bytes))]
    other = [v for v in dict.fromkeys(values) if not isinstance(v, (str, bytes))]
    return text[:UNMATCHED_KEPT] + other[:UNMATCHED_KEPT]


Budget = tuple[int, Sequence[Any]]
"""A distinct-score budget and, per score column, the edges of its bins past it."""


def merge_parts(*parts: Part, within: Budget | None = None) -> Part:
    """Merge several partitions' results: states merge column by column; the first problem.

    With ``within`` = (max_distinct, edges per column), a column's exact state that
    holds more than max_distinct thresholds is binned over its edges, and exact states
    merged with binned ones are binned first: the result is exact exactly when the rows
    of all the parts have at most max_distinct distinct scores, whatever the grouping.
    """
    problems = [p.problem for p in parts if p.problem is not None]
    ranges = [
        (min(r[0] for r in column), max(r[1] for r in column))
        for column in zip(*(p.ranges for p in parts), strict=True)
    ]
    return Part(
        sizes=[size for p in parts for size in p.sizes],
        states=[_merge_states(states, within, i)
                for i, states in enumerate(zip(*(p.states for p in parts), strict=True))],
        rules=[rule for p in parts for rule in p.rules],
        problem=min(problems, key=lambda p: p[0]) if problems else None,
        ranges=ranges,
        positives=sum(p.positives for p in parts),
        kept=_sum_lists([p.kept for p in parts]),
        kept_positives=_sum_lists([p.kept_positives for p in parts]),
        dropped=[_sum_counts(column) for column in zip(*(p.dropped for p in parts if p.dropped),
                                                       strict=True)],
        matched=any(p.matched for p in parts),
        unmatched=some_values([v for p in parts for v in p.unmatched]),
        labels=list(dict.fromkeys(v for p in parts for v in p.labels)),
        soft=any(p.soft for p in parts),
    )


def _merge_states(states: Sequence[State], within: Budget | None = None,
                  column: int = 0) -> State:
    """One column's states merged: binned ones added into one new pair of arrays."""
    if within is not None and any(isinstance(s, BinnedCounts) for s in states):
        edges = within[1][column]  # exact states past the budget elsewhere: bin them too
        states = [s if isinstance(s, BinnedCounts) else s.to_binned(edges) for s in states]
    first, *rest = states  # one column of one spec: all binned or all exact
    if rest and isinstance(first, BinnedCounts):
        return first.merge(*rest)  # type: ignore[arg-type]
    # Exact states merged in pairs, pairs of pairs, ...: each threshold is merged about
    # log2(k) times, not up to k - 1 times as in a left-to-right fold of k states.
    level = list(states)
    while len(level) > 1:
        level = [reduce(lambda a, b: a.merge(b), level[i:i + 2])  # type: ignore[arg-type]
                 for i in range(0, len(level), 2)]
    return within_budget(level[0], within, column)


def within_budget(state: State, within: Budget | None, column: int) -> State:
    """``state``, or its bins when it is exact and holds more thresholds than the budget."""
    if within is None or not isinstance(state, ThresholdCounts) or len(state) <= within[0]:
        return state
    edges = within[1][column]
    return state if edges is None else state.to_binned(edges)


def _sum_lists(lists: list[list[int]]) -> list[int]:
    present = [one for one in lists if one]
    return [sum(values) for values in zip(*present, strict=True)] if present else []


def _sum_counts(counts: tuple[dict[str, int], ...]) -> dict[str, int]:
    total: dict[str, int] = {}
    for one in counts:
        for reason, n in one.items():
            total[reason] = total.get(reason, 0) + n
    return total


def finish_input(result: Part, columns: Columns, name: str, files: int,
                 positive: str | None, budgeted: bool, max_distinct: int | None,
                 switched: Sequence[int | None], engine: str) -> Any:
    """The ``StreamedInput`` of the merged ``result`` of every part (no problem left):
    the label rule of all parts, and the rules of the whole. Its states are within the
    budget already: each piece's exact state is checked when counted
    (``piece_tasks.count_piece``) and every merge checks again (:func:`merge_parts`).

    ``budgeted``: the distinct-score budget ``max_distinct`` applied (no ``--bins``);
    ``switched[i]``: the rows the screen read when column ``i`` was binned from the start.
    """
    from prcurve.io.stream import StreamedCounts, StreamedInput  # io: the report's input

    rule = LabelRule(columns.label, positive)
    try:
        for _, one in sorted(result.rules, key=lambda r: r[0]):
            rule.merge(one)
    except RowProblem as problem:
        raise problem.error(name) from None
    rows = sum(n for _, n in result.sizes)
    if rows == 0:
        raise empty_input(name, "no rows")
    if result.positives == 0:
        if positive is not None:
            raise positive_not_found(positive, columns.label, rule.values_seen())
        raise no_positives(columns.label, name, np.array([0]))
    models = []
    for i, (column, state) in enumerate(zip(columns.scores, result.states, strict=True)):
        kept = result.kept[i]
        if kept == 0:
            raise no_rows_left(column, name, rows)
        if result.kept_positives[i] == 0:
            raise no_positives_left(column, name)
        check_weight_totals(columns.weight, name, state.n_pos, state.n_pos + state.n_neg)
        dropped = result.dropped[i] if result.dropped else {}
        bounds = ap_bounds(state) if isinstance(state, BinnedCounts) else None
        at = (switched[i] or rows) if budgeted and bounds is not None else None
        models.append(StreamedCounts(column, state, "exact" if bounds is None else "binned",
                                     kept, max_distinct if budgeted else None, at, bounds,
                                     rows - kept, dropped))
    return StreamedInput(path=name, format="parquet", files=files, n_rows=rows,
                         batches=0, label_column=columns.label,
                         label_chosen=columns.label_chosen, positive_label=rule.value,
                         weight_column=columns.weight, scores_chosen=columns.scores_chosen,
                         models=models, skipped_columns=columns.skipped, engine=engine)
