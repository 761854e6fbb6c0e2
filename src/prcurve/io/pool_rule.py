"""When ``prcurve report --workers N`` starts its pool of worker processes, and when one
process runs instead, with the same numbers (issue 26, item 7; docs/scale.md, "When one
process runs instead").

A module of its own, importing nothing but :mod:`os` until it reads a file's metadata:
the command decides before it imports the pool's code (multiprocessing, the piece tasks)
or starts the fork server, so that one process pays nothing for them. Examples:
:func:`one_process_reason`.
"""

from __future__ import annotations

import os
from collections.abc import Sequence

__all__ = ["POOL_MIN_CORES", "POOL_MIN_ROWS", "available_cores", "one_process_note",
           "one_process_reason"]

POOL_MIN_CORES = 4
"""The fewest cores (those this process may run on) on which ``--workers N`` starts its
pool. One process already keeps most of 2 cores busy (it reads ahead while it counts,
and sorts on every core): its CPU is 1.1-1.3x its wall time at 3*10^7 and 10^8 rows on
this project's 2-core machine, and two workers spend 1.4-2.0 times its CPU, so they need
more than 2 busy cores to gain; on 2 cores they took 0.99-2.3x its wall time
(docs/benchmarks.md, sessions 32 and 33). Not measured above 2 cores; 4 leaves a
margin."""

POOL_MIN_ROWS = 2 * (1 << 22)
"""The fewest rows for which ``--workers N`` starts its pool: two of
:data:`prcurve.io.piece_tasks.PIECE_ROWS` (a test keeps them equal). Below two pieces of
row groups one worker would read them all, and starting the pool (a fork server and its
imports, 0.3-0.5 s of CPU) pays for nothing; one process holds such a file in under
0.5 GB."""


def available_cores() -> int:
    """The cores this process may run on (its affinity, where the system says)."""
    if hasattr(os, "sched_getaffinity"):
        return len(os.sched_getaffinity(0))
    return os.cpu_count() or 1


def one_process_reason(n_workers: int, files: Sequence[str],
                       cores: int | None = None) -> str | None:
    """Why ``--workers n_workers`` over these Parquet ``files`` runs the single process's
    code instead of a pool (the same numbers, sooner), or None when the pool runs: one
    worker, fewer than :data:`POOL_MIN_CORES` cores, or fewer than :data:`POOL_MIN_ROWS`
    rows. (Where one process reads a file whole, it then holds the rows too: 1.41 GB at
    3*10^7 rows, where the pool's parent holds 0.81 GB; docs/scale.md.)

    Examples
    --------
    >>> from prcurve.io.pool_rule import one_process_reason
    >>> one_process_reason(1, [])
    '--workers 1: one worker is one process'
    >>> one_process_reason(2, [], cores=2)
    '--workers 2: this process may use 2 cores, fewer than 4, and one process keeps them busy'
    """
    cores = available_cores() if cores is None else cores
    if n_workers < 2:
        return f"--workers {n_workers}: one worker is one process"
    if cores < POOL_MIN_CORES:
        return (f"--workers {n_workers}: this process may use {cores} cores, fewer than "
                f"{POOL_MIN_CORES}, and one process keeps them busy")
    from prcurve.io.readers import need

    pq = need("pyarrow.parquet", "Parquet files")
    try:
        rows = sum(int(pq.read_metadata(path).num_rows) for path in files)
    except (OSError, ValueError):  # unreadable: the pool's path says so, with the file
        return None
    if rows < POOL_MIN_ROWS:
        return (f"--workers {n_workers}: {rows} rows, fewer than {POOL_MIN_ROWS}: too few "
                "for a pool to pay")
    return None


def one_process_note(inputs: Sequence[str], input_format: str | None,
                     n_workers: int) -> str | None:
    """:func:`one_process_reason` for ``prcurve report``'s inputs (files or folders), as
    the report's note; None for the pool, and where an input is not Parquet or not found
    (the pool's path refuses it with its message)."""
    from prcurve.errors import InvalidInputError
    from prcurve.io.batches import input_files

    files = []
    for path in inputs:
        try:
            found, fmt, _ = input_files(path, input_format)
        except InvalidInputError:
            return None
        if fmt != "parquet":
            return None
        files.extend(found)
    reason = one_process_reason(n_workers, files)
    if reason is None:
        return None
    return f"{reason}; read as without --workers (the same numbers; docs/scale.md)"
