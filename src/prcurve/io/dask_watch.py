"""Dask results waited for with an eye on the cluster: lost workers are an error, never
a wait for ever (issue 26, item 7).

A distributed scheduler whose workers die keeps the graph's tasks waiting until a worker
comes back: with no worker left (killed for memory, a cluster without nannies, a
machine gone) ``dask.compute`` never returns. :func:`compute_watching` submits the
graph to the active client and waits a second at a time; between waits it asks the
scheduler for its workers. No worker for :data:`NO_WORKERS_SECONDS` in a row, a task
that killed :data:`allowed-failures <distributed.scheduler.KilledWorker>` workers, or a
scheduler that stops answering: an :class:`~prcurve.errors.InvalidInputError` naming
what happened (one line from the command line). Without a distributed client (the local
threaded scheduler, ``scheduler="sync"``) it is ``dask.compute``.
"""

from __future__ import annotations

import contextlib
import time
from typing import Any

from prcurve.validation.files import workers_lost

__all__ = ["NO_WORKERS_SECONDS", "active_client", "compute_watching"]

NO_WORKERS_SECONDS = 60.0
"""How long a cluster may have no worker at all before the wait ends (a cluster that
starts its workers on demand may have none for a while)."""

_POLL_SECONDS = 1.0


def active_client() -> Any:
    """The active ``distributed.Client``, else None."""
    try:
        from distributed import get_client

        return get_client()
    except (ImportError, ValueError):  # no distributed, or no client
        return None


def compute_watching(dask: Any, graph: Any, option: str = "--dask",
                     **compute: Any) -> Any:
    """``dask.compute(graph, **compute)[0]``, watching the workers of an active
    distributed client (see the module's text). ``graph``: one Dask collection or a list
    of them (then a list of their values)."""
    client = None if compute else active_client()
    if client is None:
        return dask.compute(graph, **compute)[0]
    import distributed

    wait: Any = distributed.wait
    futures = client.compute(graph)  # a list of futures for a list of collections
    pending = futures if isinstance(futures, list) else [futures]
    alone_since: float | None = None
    try:
        while True:
            with contextlib.suppress(TimeoutError):  # a second passed: look at the workers
                wait(pending, timeout=_POLL_SECONDS)
            if all(future.done() for future in pending):
                values = [future.result() for future in pending]
                return values if isinstance(futures, list) else values[0]
            try:
                workers = client.scheduler_info().get("workers", {})
            except (OSError, TimeoutError) as error:
                raise workers_lost(option, "the Dask scheduler stopped answering "
                                   f"({type(error).__name__}: {error})") from None
            if workers:
                alone_since = None
            elif alone_since is None:
                alone_since = time.monotonic()
            elif time.monotonic() - alone_since > NO_WORKERS_SECONDS:
                raise workers_lost(option, f"the Dask cluster has had no worker for "
                                   f"{NO_WORKERS_SECONDS:g} seconds while tasks waited (its "
                                   "workers died or never started)")
    except distributed.KilledWorker as error:
        raise workers_lost(option, f"Dask workers died running a task ({error})") from None
    finally:
        for future in pending:
            future.release()
