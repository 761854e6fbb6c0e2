"""Dask under ``prcurve report``'s distinct-score budget (issue 26, item 7), and the
row groups a task reads: the helpers of :mod:`prcurve.io.dask`.

- ``screen``: the client reads the first rows and counts their distinct scores once,
  as the single process does: a column past the budget there is binned from the start.
- ``packed``/``unpacked``: equal-width edges cross to the workers as (low, high, bins),
  rebuilt once per process (``equal_edges``).
- ``read_groups``: the spec's columns of row groups of one Parquet file.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from typing import Any

import numpy as np
from numpy.typing import NDArray

from prcurve.core.bin_edges import equal_width_edges
from prcurve.io.readers import arrow_numbers, need
from prcurve.io.rows import LabelRule, RowProblem, check_block

__all__ = ["equal_edges", "packed", "read_groups", "screen", "screen_groups", "screened_rows",
           "unpacked"]


@functools.lru_cache(maxsize=8)
def equal_edges(low: float, high: float, n_bins: int) -> NDArray[np.float64]:
    """Equal-width edges, one array per process for each (low, high, bins): every task
    of a worker gets the same object (``empty_over`` checks it once)."""
    return equal_width_edges(low, high, n_bins)


def packed(edges: NDArray[np.float64] | None) -> Any:
    if edges is None or edges.shape[0] < 2:
        return edges
    compact = (float(edges[0]), float(edges[-1]), int(edges.shape[0] - 1))
    return compact if np.array_equal(equal_edges(*compact), edges) else edges


def unpacked(edges: Any) -> NDArray[np.float64] | None:
    return equal_edges(*edges) if isinstance(edges, tuple) else edges


def read_groups(path: str, groups: list[int], spec: Any, use_threads: bool = False
                 ) -> tuple[dict[str, NDArray[Any]], int]:
    """The spec's columns of row groups of one Parquet file, as a task reads them."""
    pa = need("pyarrow", "Parquet files")
    pq = need("pyarrow.parquet", "Parquet files")
    with pq.ParquetFile(path) as file:
        # One thread in a task: a worker's threads are Dask's to give (pyarrow's own pool
        # would make one single-threaded worker use every core of its machine).
        table = file.read_row_groups(groups, columns=spec.columns, use_threads=use_threads)
    columns = {name: arrow_numbers(pa, table.column(name)) for name in spec.columns}
    return columns, int(table.num_rows)


def screened_rows(files: Sequence[str], budget: int) -> int:
    """The rows :func:`screen` reads: whole row groups until more than ``budget``."""
    pq = need("pyarrow.parquet", "Parquet files")
    rows = 0
    for path in files:
        metadata = pq.read_metadata(path)
        for group in range(metadata.num_row_groups):
            if rows > budget:
                return rows
            rows += metadata.row_group(group).num_rows
    return rows


def screen(files: Sequence[str], spec: Any, budget: int) -> list[bool]:
    """Which score columns hold more than ``budget`` distinct kept scores in their first
    ``budget + 1`` kept rows or more (read in the client, one sort of those scores, as
    the single process screens its first rows): those are binned from the start. A
    column not found past the budget here is counted exactly, within the budget
    (:func:`merge_parts`), so the state never depends on this shortcut; a bad row found
    here is left for the tasks to report with its file and row."""
    pq = need("pyarrow.parquet", "Parquet files")
    groups: list[tuple[str, int]] = []
    for path in files:
        with pq.ParquetFile(path) as file:
            groups.extend((path, g) for g in range(file.num_row_groups))
    return screen_groups(groups, spec, budget)[0]


def screen_groups(groups: Sequence[tuple[str, int]], spec: Any, budget: int
                  ) -> tuple[list[bool], bool]:
    """:func:`screen` over these row groups (path, group), in order; also whether it
    reached ``budget + 1`` kept rows of every column within them (then it read the same
    groups as a screen of all the groups that start with these: the same answer)."""
    from prcurve.io.stream import distinct_scores  # io: the single process's count

    held: dict[str, list[NDArray[Any]]] = {s: [] for s in spec.scores}
    kept = dict.fromkeys(spec.scores, 0)
    rule = None if spec.rule is None else LabelRule(spec.rule.column, spec.rule.positive)
    if rule is None:
        return [False] * len(spec.scores), True
    for path, group in groups:
        if min(kept.values()) > budget:
            break
        try:
            columns, _ = read_groups(path, [group], spec, use_threads=True)
            block = check_block(columns[spec.label], rule,
                                None if spec.weight is None else columns[spec.weight],
                                spec.weight, {s: columns[s] for s in spec.scores},
                                spec.drop_invalid)
        except (RowProblem, OSError, ValueError, TypeError):
            return [False] * len(spec.scores), True
        for column in spec.scores:
            keep = block.keep[column]
            scores = block.scores[column]
            held[column].append(scores if keep is None else scores[keep])
            kept[column] += int(held[column][-1].shape[0])
    past = [kept[s] > budget and distinct_scores(held[s]) > budget for s in spec.scores]
    return past, min(kept.values()) > budget
