"""``prcurve report``'s inputs counted by local worker processes (``--workers N``) or on
a Dask cluster (``--dask ADDRESS``): each input's columns checked before a pool starts
or a scheduler is contacted, then counted under the single process's state policy
(issue 26, item 7; docs/scale.md). Imported only when one of the two options is given.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from prcurve.validation.files import dask_needs_parquet, dask_options_conflict, dask_unreachable
from prcurve.validation.workers import check_workers

__all__ = ["DASK_CONNECT_SECONDS", "load_cluster"]

DASK_CONNECT_SECONDS = 5
"""How long ``--dask ADDRESS`` waits for the scheduler before saying it cannot reach it."""


@contextmanager
def _dask_client(args: argparse.Namespace) -> Iterator[Any]:
    """A distributed Client to the scheduler at --dask ADDRESS."""
    import importlib

    try:
        distributed: Any = importlib.import_module("distributed")
    except ImportError as error:
        raise ImportError("--dask needs dask and distributed, which are not installed: "
                          "pip install 'prcurve[dask]'") from error
    try:
        client = distributed.Client(args.dask, timeout=DASK_CONNECT_SECONDS)
    except (OSError, TimeoutError, ValueError, TypeError) as error:
        reason = str(error).splitlines()[0] if str(error) else type(error).__name__
        raise dask_unreachable(args.dask, reason) from None
    with client:
        yield client


def load_cluster(args: argparse.Namespace, bins: int | None,
                 budget: Callable[[], tuple[int | None, int]],
                 notes_of: Callable[[Any], list[str]]) -> tuple[list[Any], list[str]]:
    """Each input of ``args`` counted by the pool or on Dask: its columns checked first,
    then ``budget()`` (``--max-distinct`` and ``--switch-bins`` as the single process
    would use them: None for an input it would read whole), and ``notes_of`` each
    counted input (what the report says of it). Given by :mod:`prcurve.cli.report`,
    which imports this module only for these options."""
    from prcurve.io.batches import choose_columns, input_files, open_dataset
    from prcurve.io.dask import dask_scores

    if args.dask is not None and args.workers is not None:
        raise dask_options_conflict()
    # --workers N was checked by execute, before the fork server started.
    plans = []  # every input checked before a scheduler is contacted
    for path in args.inputs:
        files, fmt, name = input_files(path, args.input_format)
        if fmt != "parquet":
            raise dask_needs_parquet(name, fmt)
        columns = choose_columns(open_dataset(files, fmt).schema, name, args.label, args.score,
                                 args.weight)
        plans.append((files, name, columns))
    # The single process's state policy: the distinct-score budget where it would
    # stream, exact where it would read the inputs whole (issue 26, item 7).
    max_distinct, switch_bins = budget()
    streamed, notes = [], []
    if args.workers is not None:  # local worker processes, without Dask (docs/scale.md)
        from prcurve.io.workers import WorkerPool, local_scores

        with WorkerPool(check_workers(args.workers)) as pool:
            for files, name, columns in plans:
                one = local_scores(pool, files, name, columns, args.positive, bins,
                                   args.drop_invalid, max_distinct, switch_bins)
                notes.extend(notes_of(one))
                streamed.append(one)
        return streamed, notes
    with _dask_client(args):
        for files, name, columns in plans:
            one = dask_scores(files, name, columns, args.positive, bins, args.drop_invalid,
                              max_distinct=max_distinct, switch_bins=switch_bins)
            notes.extend(notes_of(one))
            streamed.append(one)
    return streamed, notes
