"""``prcurve report FILE --workers N``: N local worker processes, without Dask (issue 26,
item 7).

The single process's state policy, on N processes of this machine
(:class:`WorkerPool`: started from a fork server that imports
:mod:`prcurve.io.worker_tasks` once: numpy, pyarrow and the readers):

- **within the distinct-score budget, or ``--bins``** (where one process streams):
  the row groups are cut into N consecutive shares; each worker screens its first rows
  (as one process screens the file's: past the budget there, binned from the start)
  and reads, checks and counts its share as a Dask task does (binned, or exact until
  the budget), and the parent merges the N small results
  (:func:`prcurve.io.dask_parts.merge_parts`).
- **exact** (where one process reads the file whole): each worker reads and checks
  its share and keeps the kept rows; the parent places N - 1 cuts at quantiles of a
  sample of the scores; each worker sends the rows of every other range to that
  range's worker through an anonymous file (``memfd``, passed over the pipes); worker
  ``j`` builds the exact state of range ``j`` (ties never cross a cut), and writes it at
  its place in the whole state's anonymous file, raised by the weight of the ranges
  above. The parent maps that file: it holds the final state (24 bytes a threshold) and
  nothing else of that length (no rows, no partial states, no merge). No file has a
  name, so a parent killed at any step leaves nothing behind.

Whatever the path, the result is the state one process computes from the same rows:
bit for bit for counts (integer counts are exact in float64), to rounding for
fractional weights (summed by segment). A worker that ends before answering (killed
for memory) is an :class:`~prcurve.errors.InvalidInputError` naming it, never a wait
for ever.

Examples
--------
>>> from prcurve.io.workers import shares
>>> shares(5, 2)
[[0, 1, 2], [3, 4]]
"""

from __future__ import annotations

import contextlib
import mmap
import multiprocessing
import os
import sys
import tempfile
import types
from collections.abc import Iterator, Sequence
from multiprocessing.connection import Connection, wait
from types import TracebackType
from typing import Any

import numpy as np
from numpy.typing import NDArray

from prcurve.core.counts import ThresholdCounts
from prcurve.io.batches import Columns, parquet_statistics_range
from prcurve.io.dask_budget import screen, screened_rows
from prcurve.io.dask_parts import Part, finish_input, merge_parts
from prcurve.io.piece_tasks import (
    Piece,
    TaskSpec,
    equal_width_over,
    parquet_pieces,
    raise_problem,
)
from prcurve.io.pool_rule import available_cores
from prcurve.io.rows import LabelRule
from prcurve.io.worker_tasks import send_fds, state_layout
from prcurve.validation.files import workers_lost
from prcurve.validation.workers import workers_unstartable

__all__ = ["WorkerPool", "anonymous_file", "local_scores", "shares", "start_fork_server"]

_CLOSE_SECONDS = 5.0  # how long a worker may take to leave before it is terminated


def shares(n_pieces: int, n_workers: int) -> list[list[int]]:
    """The pieces (by index) each worker reads: consecutive, as even as the pieces allow."""
    return [chunk.tolist() for chunk in np.array_split(np.arange(n_pieces), n_workers)]


def start_fork_server() -> Any:
    """Start the fork server the workers are forked from (if not running), without
    waiting for it: it imports :mod:`prcurve.io.worker_tasks` (numpy, pyarrow, the
    readers) while this process goes on; ``prcurve report --workers`` calls it first.
    Returns the multiprocessing context."""
    from multiprocessing import forkserver

    context = multiprocessing.get_context("forkserver")
    # The server imports the worker's modules once; every worker is a fork of it.
    context.set_forkserver_preload(["prcurve.io.worker_tasks"])
    try:
        forkserver.ensure_running()
    except OSError as error:  # its socket lives in the temporary folder ("path too long")
        raise workers_unstartable(tempfile.gettempdir(), error.strerror or str(error)
                                  ) from None
    return context


@contextlib.contextmanager
def _bare_main_module() -> Iterator[None]:
    """While the workers start, ``__main__`` is a bare module: multiprocessing tells each
    new process to import the parent's main module (by path or name, to find what was
    pickled there), which runs a script's top level again, so a script calling
    ``prcurve.cli.main([... "--workers", "2"])`` unguarded would start workers from its
    workers (multiprocessing refuses: an error). The workers need nothing of it (their code
    is :mod:`prcurve.io.worker_tasks`, their tasks plain data), so no guard is needed."""
    main = sys.modules.get("__main__")
    sys.modules["__main__"] = types.ModuleType("__main__")
    try:
        yield
    finally:
        if main is None:
            del sys.modules["__main__"]
        else:
            sys.modules["__main__"] = main


class WorkerPool:
    """``size`` worker processes serving :mod:`prcurve.io.worker_tasks`, each with
    ``cores // size`` sort threads (at least one).

    A context manager: entering starts them (forked from a fork server: no process
    inherits this one's threads), leaving ends them. :meth:`run` sends each its task
    and waits for every answer, watching the processes: one that ends first is an
    error (``workers_lost``).
    """

    def __init__(self, size: int) -> None:
        self.size = size
        self._connections: list[Connection] = []
        self._processes: list[Any] = []

    def __enter__(self) -> WorkerPool:
        from prcurve.io.worker_tasks import serve

        context = start_fork_server()
        threads = max(1, available_cores() // self.size)
        try:
            for _ in range(self.size):
                mine, theirs = context.Pipe()
                process = context.Process(target=serve, args=(theirs, threads), daemon=True)
                with _bare_main_module():
                    process.start()
                theirs.close()
                self._connections.append(mine)
                self._processes.append(process)
        except BaseException:
            self._stop()
            raise
        return self

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 trace: TracebackType | None) -> None:
        self._stop()

    def _stop(self) -> None:
        for connection in self._connections:
            with contextlib.suppress(OSError):  # that worker is gone already
                connection.send(None)
        for process in self._processes:
            process.join(_CLOSE_SECONDS)
            if process.is_alive():
                process.terminate()
                process.join()
        for connection in self._connections:
            connection.close()
        self._connections, self._processes = [], []

    def run(self, tasks: Sequence[tuple[str, tuple[Any, ...]] | None],
            fds: Sequence[Sequence[int]] | None = None) -> list[Any]:
        """Task ``i`` on worker ``i`` (None: nothing for it), with the file descriptors
        ``fds[i]`` (sent over its pipe; the worker closes its copies); their results in
        order."""
        waiting: dict[int, int] = {}  # a pipe's or a process's handle -> worker
        for worker, task in enumerate(tasks):
            if task is not None:
                sent = list(fds[worker]) if fds is not None else []
                try:
                    self._connections[worker].send((*task, len(sent)))
                    if sent:
                        send_fds(self._connections[worker], sent)
                except OSError:  # its end of the pipe is closed: the worker is gone
                    self._answer(worker)
                waiting[id(self._connections[worker])] = worker
        results: list[Any] = [None] * len(tasks)
        while waiting:
            watched: list[Any] = [self._connections[w] for w in waiting.values()]
            watched += [self._processes[w].sentinel for w in waiting.values()]
            for ready in wait(watched):
                found = (waiting.get(id(ready)) if isinstance(ready, Connection)
                         else next((w for w in waiting.values()
                                    if self._processes[w].sentinel == ready), None))
                if found is None or id(self._connections[found]) not in waiting:
                    continue
                results[found] = self._answer(found)
                del waiting[id(self._connections[found])]
        return results

    def _answer(self, worker: int) -> Any:
        connection = self._connections[worker]
        try:
            if connection.poll():
                status, value = connection.recv()
                if status == "ok":
                    return value
                raise RuntimeError(f"--workers: worker {worker + 1} failed: {value}")
        except (EOFError, OSError):
            pass
        process = self._processes[worker]
        process.join(_CLOSE_SECONDS)
        code = process.exitcode
        how = (f"was killed by signal {-code}" if code is not None and code < 0
               else f"exited with status {code}")
        raise workers_lost("--workers", f"worker process {worker + 1} of {self.size} {how} "
                           "before returning its result")


def _share_tasks(pieces: Sequence[Piece], size: int) -> list[list[tuple[str, list[int], int]]]:
    return [[(pieces[i].path, pieces[i].groups, i) for i in share]
            for share in shares(len(pieces), size)]


def _counted(pool: WorkerPool, pieces: Sequence[Piece], spec: TaskSpec
             ) -> tuple[Part, list[bool] | None]:
    """Each worker counts its share (one folded result); the parent merges the N. Also
    returns the screen of the first worker's first rows when it decided the file's (the
    same rows one process screens), else None."""
    results = pool.run([("count", (share, spec)) if share else None
                        for share in _share_tasks(pieces, pool.size)])
    done = [r for r in results if r is not None]
    first = done[0] if done else None
    return (merge_parts(*[r[0] for r in done], within=spec.within),
            first[1] if first is not None and first[2] else None)


def _edges(n_bins: int, files: Sequence[str], spec: TaskSpec, pool: WorkerPool,
           pieces: Sequence[Piece], name: str) -> list[NDArray[np.float64] | None]:
    """Equal-width edges over each column's full range: from the Parquet statistics,
    else one pass of the workers (as ``prcurve.io.dask._edges``)."""
    known = [parquet_statistics_range(files, s) for s in spec.scores]
    if all(r is not None for r in known):
        return equal_width_over(n_bins, known)
    result, _ = _counted(pool, pieces, spec.ranging())
    raise_problem(result, list(pieces), name)
    return equal_width_over(n_bins, [], result)


def anonymous_file() -> int:
    """A file descriptor of a new file without a name (``memfd_create``: in memory, Linux;
    elsewhere a temporary file unlinked at once): the rows the workers exchange and the
    state's file. Nothing is left behind when the processes holding it end, however they
    end (a SIGKILLed parent included)."""
    if hasattr(os, "memfd_create"):
        return int(os.memfd_create("prcurve-workers", os.MFD_CLOEXEC))
    descriptor, path = tempfile.mkstemp(prefix="prcurve-workers-")
    os.unlink(path)
    return descriptor


def _exact(pool: WorkerPool, pieces: Sequence[Piece], spec: TaskSpec) -> Part:
    """The exact state of every column, built by ranges of scores on the workers."""
    held = pool.run([("hold", (share, spec)) if share else None
                     for share in _share_tasks(pieces, pool.size)])
    held = [h for h in held if h is not None and h[0] is not None]
    result = merge_parts(*[h[0] for h in held])
    if result.problem is None:
        weighted = spec.weight is not None
        result.states = [
            _exact_column(pool, c, [k for h in held for k in h[1][c]], [h[2][c] for h in held],
                          weighted)
            for c in range(len(spec.scores))]
    return result


def _exact_column(pool: WorkerPool, column: int, kinds: list[str],
                  samples: list[NDArray[Any]], weighted: bool) -> ThresholdCounts:
    common = np.result_type(*kinds) if kinds else np.dtype(np.float64)
    sample = np.sort(np.concatenate([s.astype(common, copy=False) for s in samples]))
    k = pool.size
    # N - 1 cuts at the sample's quantiles: range j holds the scores in (cut[j-1], cut[j]]
    # (unbounded at both ends), so every copy of a score falls in one range. No rows kept:
    # no cuts (every range empty).
    cuts = (np.array([sample[(sample.shape[0] * j) // k] for j in range(1, k)], dtype=common)
            if sample.shape[0] else None)
    # Worker i writes its rows of range j (i != j) to channel (i, j), an anonymous file;
    # worker j reads the channels (i, j) of every i.
    channels = {(i, j): anonymous_file() for i in range(k) for j in range(k) if i != j}
    try:
        chunks = pool.run([("scatter", (column, cuts, common.str, weighted, i, k))
                           for i in range(k)],
                          [[channels[i, j] for j in range(k) if j != i] for i in range(k)])
        segments = pool.run(
            [("segment", (column, common.str, weighted,
                          [chunks[i][j] for i in range(k) if i != j])) for j in range(k)],
            [[channels[i, j] for i in range(k) if i != j] for j in range(k)])
    finally:
        for descriptor in channels.values():
            os.close(descriptor)
    total = sum(s[0] for s in segments)
    dtype = next((s[3] for s in segments if s[0]), np.dtype(np.float64).str)
    layout = state_layout(total, dtype)
    size = layout[2][0] + 8 * total
    # Descending thresholds: the highest range first; each segment raised by the ranges
    # above it (summed from the top, as one cumulative sum adds them).
    offset, above_pos, above_neg = 0, 0.0, 0.0
    places: list[tuple[int, float, float]] = [(0, 0.0, 0.0)] * k
    for j in reversed(range(k)):
        places[j] = (offset, above_pos, above_neg)
        offset += segments[j][0]
        above_pos += segments[j][1]
        above_neg += segments[j][2]
    file = anonymous_file()
    try:
        os.ftruncate(file, size)
        pool.run([("write", (column, total, dtype, *places[j])) for j in range(k)],
                 [[file] for _ in range(k)])
        if total == 0:
            return ThresholdCounts.empty()
        # Mapped page by page as the views read it (not MAP_POPULATE): the views read tp
        # and fp whole but the thresholds only where they choose a point, so most of the
        # thresholds' pages never count in this process's memory (240 MB at 3*10^7 rows).
        mapped = mmap.mmap(file, size, access=mmap.ACCESS_READ)
    finally:
        os.close(file)
    arrays = [np.frombuffer(mapped, dtype=kind, count=total, offset=at) for at, kind in layout]
    thresholds, tp, fp = arrays
    return ThresholdCounts._trusted(thresholds, tp, fp, float(tp[-1]), float(fp[-1]))


def local_scores(pool: WorkerPool, files: list[str], name: str, columns: Columns,
                 positive: str | None = None, bins: int | None = None,
                 drop_invalid: bool = False, max_distinct: int | None = None,
                 switch_bins: int = 1 << 20) -> Any:
    """Parquet files counted on ``pool`` with ``prcurve report``'s rules: the
    ``StreamedInput`` (``engine="workers"``) of :func:`prcurve.io.dask.dask_scores`,
    the same state and numbers as one process (docs/scale.md)."""
    spec = TaskSpec(columns.label, list(columns.scores), columns.weight,
                    [None] * len(columns.scores), rule=LabelRule(columns.label, positive),
                    drop_invalid=drop_invalid)
    pieces = parquet_pieces(files)
    switched: list[int | None] = [None] * len(spec.scores)
    budgeted = bins is None and max_distinct is not None
    if bins is None and max_distinct is None:
        result = _exact(pool, pieces, spec)
    else:
        if bins is not None:
            spec.edges = _edges(bins, files, spec, pool, pieces, name)
            result, _ = _counted(pool, pieces, spec)
        else:
            # Each worker screens its own first rows (at the same time): the state does
            # not depend on the screen; the row the report names as the switch is the
            # file's screen, the first worker's when it read enough rows.
            spec.budget = max_distinct
            spec.switch_edges = _edges(switch_bins, files, spec, pool, pieces, name)
            result, first = _counted(pool, pieces, spec)
            past = first if first is not None else screen(files, spec, int(max_distinct or 0))
            screened = screened_rows(files, int(max_distinct or 0))
            switched = [screened if p else None for p in past]
    raise_problem(result, list(pieces), name)
    return finish_input(result, columns, name, len(files), positive, budgeted,
                        max_distinct, switched, "workers")
