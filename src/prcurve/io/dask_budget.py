"""Dask and the local workers under ``prcurve report``'s distinct-score budget (issue
26, item 7): ``screen``, the client reads the first rows and counts their distinct
scores once, as the single process does: a column past the budget there is binned from
the start (``screen_groups``: the same over given row groups, as a worker screens its
share). How a piece's rows are read and checked is :mod:`prcurve.io.piece_tasks`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from numpy.typing import NDArray

from prcurve.io.piece_tasks import check_rows, kept_rows, read_groups
from prcurve.io.readers import need
from prcurve.io.rows import RowProblem

__all__ = ["screen", "screen_groups", "screened_rows"]


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
    if spec.rule is None:
        return [False] * len(spec.scores), True
    for path, group in groups:
        if min(kept.values()) > budget:
            break
        try:
            columns, _ = read_groups(path, [group], spec, use_threads=True)
            _, block = check_rows(columns, spec)
        except (RowProblem, OSError, ValueError, TypeError):
            return [False] * len(spec.scores), True
        for column in spec.scores:
            held[column].append(kept_rows(block, column)[0])
            kept[column] += int(held[column][-1].shape[0])
    past = [kept[s] > budget and distinct_scores(held[s]) > budget for s in spec.scores]
    return past, min(kept.values()) > budget
