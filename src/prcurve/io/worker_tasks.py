"""What a local worker process of ``prcurve report --workers N`` runs (issue 26, item 7).

A worker is a process of :mod:`prcurve.io.workers`' pool (started from a fork server
that has imported this module once: numpy, pyarrow and the readers, nothing of the
report). It serves tasks, one at a time, from its pipe: ``(name, arguments, n_fds)`` in
(then ``n_fds`` file descriptors), ``("ok", result)`` or ``("error", one line)`` out,
until ``None``. What it holds between tasks (its rows, a segment of an exact state)
stays in ``held``.

Two kinds of work:

- **count** (the distinct-score budget, or ``--bins``): consecutive pieces of row groups
  read (the next piece while one is counted), checked and counted as one Dask task
  does (:func:`prcurve.io.piece_tasks.count_piece`:
  binned, or exact within the budget), after the worker screened its own first rows
  as the single process screens the file's; the result is a small
  :class:`~prcurve.io.dask_parts.Part`.
- **the exact state by ranges of scores** (a file one process reads whole): ``hold``
  reads and checks the worker's pieces and keeps each score column's kept rows in its
  own memory, returning a sample of the scores; ``scatter`` splits them by the ranges of
  scores the parent cut (ties never cross ranges), keeps its own range's rows and writes
  each other range's to an anonymous file (``memfd``) the parent passed over the pipe;
  ``segment`` builds the exact state of its range from its rows and the files the others
  wrote for it (the single process's ``ThresholdCounts._from_checked``); ``write`` puts
  that segment at its place in the whole state, an anonymous file the parent maps:
  thresholds as they are, ``tp`` and ``fp`` plus the weight of the ranges above. The
  parent never holds the rows, the partial states or a merge's inputs: only the final
  state. No file has a name: nothing is left behind, however the processes end.
"""

from __future__ import annotations

import mmap
import os
from collections.abc import Callable, Iterator, Sequence
from multiprocessing.connection import Connection
from typing import Any

import numpy as np
from numpy.typing import NDArray

from prcurve.core.counts import ThresholdCounts
from prcurve.core.heap import reuse_freed_memory
from prcurve.core.sorting import set_sort_threads
from prcurve.io.dask_budget import screen_groups
from prcurve.io.dask_parts import Part, merge_parts
from prcurve.io.piece_tasks import Kept, TaskSpec, check_piece, count_piece, read_piece
from prcurve.validation.labels import BinaryLabels

__all__ = ["SAMPLE_PER_PIECE", "receive_fds", "send_fds", "serve", "state_layout"]

SAMPLE_PER_PIECE = 4096
"""Scores sampled from each piece of each column (evenly spaced rows), to place the
ranges of scores that the workers' segments cover."""

def serve(connection: Connection, threads: int) -> None:
    """One worker's loop: tasks from ``connection`` until ``None`` (or the pipe closes).

    ``threads``: the threads of this process's sorts (``set_sort_threads``): the cores
    divided among the workers. A task is ``(name, arguments, n)``: with ``n`` > 0, ``n``
    file descriptors follow it on the pipe (:func:`receive_fds`), passed as ``fds``.
    """
    set_sort_threads(threads)
    reuse_freed_memory()  # each piece's large arrays reuse the last one's pages, not fresh ones
    _huge_pages(False)
    held: dict[Any, Any] = {}
    while True:
        try:
            message = connection.recv()
            if message is None:
                return
            name, arguments, n_fds = message
            fds = receive_fds(connection, n_fds) if n_fds else None
        except (EOFError, OSError):  # the parent is gone
            return
        try:
            result = (_TASKS[name](held, *arguments) if fds is None
                      else _TASKS[name](held, *arguments, fds=fds))
        except Exception as error:  # a bug: its one line goes to the parent
            connection.send(("error", f"{type(error).__name__}: {error}"))
        else:
            connection.send(("ok", result))


def send_fds(connection: Connection, fds: Sequence[int]) -> None:
    """File descriptors sent over a pool's pipe (a Unix socket pair): one byte carrying
    them (``SCM_RIGHTS``), right after the task that takes them."""
    import socket

    with socket.socket(fileno=os.dup(connection.fileno())) as channel:
        socket.send_fds(channel, [b"f"], list(fds))


def receive_fds(connection: Connection, n: int) -> list[int]:
    """The ``n`` file descriptors :func:`send_fds` sent (new ones of this process)."""
    import socket

    with socket.socket(fileno=os.dup(connection.fileno())) as channel:
        _, fds, _, _ = socket.recv_fds(channel, 1, n)
    if len(fds) != n:
        raise OSError(f"expected {n} file descriptors, received {len(fds)}")
    return list(fds)


def _read_ahead(pieces: Sequence[tuple[str, list[int], int]], spec: TaskSpec
                ) -> Iterator[tuple[str, int, tuple[dict[str, NDArray[Any]], int] | Part]]:
    """Each piece read (path, index, its columns and rows or the result of a failed read)
    while the one before is counted, on one reading thread (pyarrow's decoding releases
    the GIL): the single process reads ahead the same way."""
    from concurrent.futures import ThreadPoolExecutor  # here: the workers' own thread

    with ThreadPoolExecutor(max_workers=1, thread_name_prefix="prcurve-read") as reader:
        ahead = reader.submit(read_piece, *pieces[0], spec)
        for k, (path, _, index) in enumerate(pieces):
            read = ahead.result()
            if k + 1 < len(pieces):
                ahead = reader.submit(read_piece, *pieces[k + 1], spec)
            yield path, index, read


def _huge_pages(enabled: bool) -> None:
    """Whether NumPy ``madvise``s this worker's large arrays ``MADV_HUGEPAGE`` (off in the
    workers): where the kernel compacts memory to find huge pages on a fault (``defrag``
    set to ``madvise``), a worker's fresh arrays cost it 0.5-1 s of system time at 3*10^7
    rows, against about 0.2 s with small pages (docs/benchmarks.md, session 32). For
    counting (pieces whose arrays reuse the last one's pages) session 33 measured no
    clear difference either way (a worker's half of 10^8 rows in one process: 0.15-0.81 s
    of system time with small pages, 0.10-0.25 s with huge ones, in five pairs of runs
    under load 2-4; whole commands under load 5-6 spent more CPU with huge pages), so the
    workers keep small pages throughout. NumPy's switch is private
    (``NUMPY_MADVISE_HUGEPAGE`` is read at import); where it is missing, nothing
    changes."""
    import importlib

    try:
        multiarray: Any = importlib.import_module("numpy._core.multiarray")
    except ImportError:  # NumPy 1
        multiarray = importlib.import_module("numpy.core.multiarray")
    switch = getattr(multiarray, "_set_madvise_hugepage", None)
    if switch is not None:
        switch(enabled)


def _count(held: dict[Any, Any], pieces: list[tuple[str, list[int], int]],
           spec: TaskSpec) -> tuple[Part, list[bool], bool] | None:
    """Consecutive pieces counted and folded into one result (None without pieces).

    Under the distinct-score budget the worker first screens its own first rows, as the
    single process screens the file's (:func:`~prcurve.io.dask_budget.screen_groups`):
    a column past the budget there is binned from the start (``spec.switch_edges``),
    the others counted exactly within the budget. Returns the result, that screen and
    whether it was decided within these pieces.
    """
    if not pieces:
        return None
    past, decided = [False] * len(spec.scores), True
    if spec.budget is not None and spec.switch_edges is not None:
        past, decided = screen_groups([(path, g) for path, groups, _ in pieces for g in groups],
                                      spec, spec.budget)
        spec.edges = [e if p else None for p, e in zip(past, spec.switch_edges, strict=True)]
    result: Part | None = None
    for _, index, read in _read_ahead(pieces, spec):
        part = read if isinstance(read, Part) else count_piece(*read, index, spec)
        result = part if result is None else merge_parts(result, part, within=spec.within)
    if result is None:  # unreachable: there are pieces
        raise ValueError("no pieces counted")
    return result, past, decided


def _hold(held: dict[Any, Any], pieces: list[tuple[str, list[int], int]], spec: TaskSpec
          ) -> tuple[Part | None, list[list[str]], list[NDArray[Any]]]:
    """Read and check this worker's pieces and keep each column's kept rows here (in this
    process's memory, for :func:`_scatter`).

    Returns the merged bookkeeping of the pieces (rows, label rules, kept and dropped
    counts, the first problem: a :class:`Part` without states), each column's scores'
    dtypes (one per piece with rows) and a sample of each column's kept scores.
    """
    result: Part | None = None
    kinds: list[list[str]] = [[] for _ in spec.scores]
    samples: list[list[NDArray[Any]]] = [[] for _ in spec.scores]
    rows: list[list[Kept]] = [[] for _ in spec.scores]
    for _, index, read in _read_ahead(pieces, spec):
        part = Part([(index, 0)], [])
        if isinstance(read, Part):  # unreadable: the read's problem
            part.problem = read.problem
        else:
            part.sizes = [(index, read[1])]
            kept = check_piece(part, read[0], index, spec)
            for c, one in enumerate(kept or []):
                scores = one[0]
                if scores.shape[0]:
                    rows[c].append(one)
                    kinds[c].append(scores.dtype.str)
                    step = max(1, scores.shape[0] // SAMPLE_PER_PIECE)
                    samples[c].append(scores[::step].copy())
        result = part if result is None else merge_parts(result, part)
        if part.problem is not None:
            break
    for c, column_rows in enumerate(rows):
        held[("rows", c)] = column_rows
    joined = [np.concatenate(s) if s else np.empty(0) for s in samples]
    return result, kinds, joined


def _ranges(values: NDArray[Any], cuts: NDArray[Any] | None, k: int
            ) -> list[NDArray[np.bool_] | None]:
    """Which rows lie in each range ``j``: ``(cuts[j-1], cuts[j]]`` (unbounded at both ends;
    None: every row); every copy of a score falls in one range."""
    if cuts is None or k == 1:
        return [None] + [np.zeros(values.shape[0], dtype=bool)] * (k - 1)
    if k == 2:
        upper = values > cuts[0]
        return [~upper, upper]
    which = np.searchsorted(cuts, values, side="left")  # j: cuts[j-1] < value <= cuts[j]
    return [which == j for j in range(k)]


def _chunk_bytes(n: int, common: np.dtype[Any], weighted: bool) -> list[tuple[int, np.dtype[Any]]]:
    """Byte sizes (padded to 8) and dtypes of one chunk's scores, positives and weights."""
    parts = [(common, n * common.itemsize), (np.dtype(bool), n)]
    if weighted:
        parts.append((np.dtype(np.float64), 8 * n))
    return [(-(-size // 8) * 8, kind) for kind, size in parts]


def _scatter(held: dict[Any, Any], column: int, cuts: NDArray[Any] | None, dtype: str,
             weighted: bool, me: int, k: int, fds: Sequence[int] = ()) -> list[list[int]]:
    """Split this worker's rows of ``column`` by the ranges of scores: range ``me``'s rows
    kept here, range ``j``'s written to the anonymous file ``fds`` gives for ``j`` (in the
    order of the other ranges), chunk after chunk: scores (``dtype``), positives, weights,
    each padded to 8 bytes. Returns, per range, the rows of each chunk written for it."""
    common = np.dtype(dtype)
    rows = held.pop(("rows", column), [])
    others = [j for j in range(k) if j != me]
    chunks: list[list[int]] = [[] for _ in range(k)]
    ends = [0] * k  # the bytes written so far for each range
    mine: list[Kept] = []
    try:
        for scores, positive, weights in rows:
            values = scores.astype(common, copy=False)
            for j, inside in enumerate(_ranges(values, cuts, k)):
                if inside is None:
                    part: Kept = (values, positive, weights)
                else:
                    part = (values[inside], positive[inside],
                            None if weights is None else weights[inside])
                if not part[0].shape[0]:
                    continue
                if j == me:
                    mine.append(part)
                    continue
                descriptor = fds[others.index(j)]
                for (size, _), array in zip(_chunk_bytes(part[0].shape[0], common, weighted),
                                            part, strict=False):
                    if array is not None:  # its bytes, then the padding's (a hole)
                        _pwrite(descriptor, array, ends[j])
                    ends[j] += size
                chunks[j].append(int(part[0].shape[0]))
        for j, descriptor in zip(others, fds, strict=True):
            os.ftruncate(descriptor, ends[j])  # the last padding too
    finally:
        for descriptor in fds:
            os.close(descriptor)
    held[("mine", column)] = mine
    return chunks


def _segment(held: dict[Any, Any], column: int, dtype: str, weighted: bool,
             incoming: Sequence[Sequence[int]], fds: Sequence[int] = ()
             ) -> tuple[int, float, float, str]:
    """The exact state of this worker's range of scores: its own rows of that range and
    the chunks the other workers wrote for it (``incoming[i]``: the rows of each chunk in
    the anonymous file ``fds[i]``), held for :func:`_write`; returns its length, its
    positive and negative weight, and its thresholds' dtype."""
    common = np.dtype(dtype)
    mine: list[Kept] = held.pop(("mine", column), [])
    total = sum(p[0].shape[0] for p in mine) + sum(sum(c) for c in incoming)
    scores = np.empty(total, dtype=common)
    positive = np.empty(total, dtype=bool)
    weights = np.empty(total) if weighted else None
    at = 0
    for part in mine:
        n = part[0].shape[0]
        for out, values in zip((scores, positive, weights), part, strict=True):
            if out is not None:
                out[at:at + n] = values
        at += n
    del mine
    try:
        for descriptor, chunk_rows in zip(fds, incoming, strict=True):
            at = _copy_chunks(descriptor, chunk_rows, common, weighted,
                              (scores, positive, weights), at)
    finally:
        for descriptor in fds:
            os.close(descriptor)
    state = ThresholdCounts._from_checked(scores, BinaryLabels(positive=positive, soft=None),
                                          weights)
    held[("state", column)] = state
    return len(state), state.n_pos, state.n_neg, state.thresholds.dtype.str


def _copy_chunks(descriptor: int, chunk_rows: Sequence[int], common: np.dtype[Any],
                 weighted: bool, outs: tuple[NDArray[Any], NDArray[Any], NDArray[Any] | None],
                 at: int) -> int:
    """The chunks of one anonymous file copied into ``outs`` from row ``at``; returns
    the row after them."""
    size = sum(sum(s for s, _ in _chunk_bytes(n, common, weighted)) for n in chunk_rows)
    if not size:
        return at
    # Every page is read once: mapped in one call (MAP_POPULATE, Linux).
    flags = mmap.MAP_SHARED | getattr(mmap, "MAP_POPULATE", 0)
    mapped = mmap.mmap(descriptor, size, flags=flags, prot=mmap.PROT_READ)
    try:
        offset = 0
        for n in chunk_rows:
            for (bytes_, kind), out in zip(_chunk_bytes(n, common, weighted), outs,
                                           strict=False):
                if out is not None:
                    out[at:at + n] = np.frombuffer(mapped, dtype=kind, count=n, offset=offset)
                offset += bytes_
            at += n
    finally:
        mapped.close()
    return at


def state_layout(total: int, dtype: str) -> list[tuple[int, np.dtype[Any]]]:
    """Where the whole state's arrays lie in its file: (byte offset, dtype) of the
    thresholds, ``tp`` and ``fp``, one after the other, ``total`` values each."""
    kind = np.dtype(dtype)
    return [(0, kind), (total * kind.itemsize, np.dtype(np.float64)),
            (total * (kind.itemsize + 8), np.dtype(np.float64))]


_WRITE_BLOCK = 1 << 20  # values written at a time (8 MiB): a buffer reused, no full copy


def _write(held: dict[Any, Any], column: int, total: int, dtype: str, offset: int,
           above_pos: float, above_neg: float, fds: Sequence[int]) -> None:
    """Put the held segment of ``column`` at ``offset`` in the whole state's anonymous file
    (``fds[0]``), its cumulative weights raised by the weight of the ranges above it
    (written with ``pwrite``, a block at a time: no page faults of a shared mapping)."""
    descriptor = fds[0]
    try:
        state = held.pop(("state", column))
        n = len(state)
        if n == 0:
            return
        (t_at, t_kind), (p_at, _), (f_at, _) = state_layout(total, dtype)
        buffer = np.empty(min(n, _WRITE_BLOCK))
        _pwrite(descriptor, state.thresholds, t_at + offset * t_kind.itemsize)
        # The state's own counts (uint32 for hard labels), a block at a time into float64.
        for array, at, above in ((state._tp, p_at, above_pos), (state._fp, f_at, above_neg)):
            for low in range(0, n, _WRITE_BLOCK):
                block = buffer[:min(n - low, _WRITE_BLOCK)]
                # Integer counts are exact in float64: a segment's tp plus the positives
                # above it is the whole state's tp bit for bit (fractional weights: to
                # rounding).
                np.add(array[low:low + block.shape[0]], above, out=block)
                _pwrite(descriptor, block, at + (offset + low) * 8)
    finally:
        os.close(descriptor)


def _pwrite(descriptor: int, values: NDArray[Any], at: int) -> None:
    """All of ``values``' bytes at byte ``at`` of the file (pwrite may write fewer)."""
    view = memoryview(np.ascontiguousarray(values).data).cast("B")
    while view.nbytes:
        written = os.pwrite(descriptor, view, at)
        view, at = view[written:], at + written


_TASKS: dict[str, Callable[..., Any]] = {"count": _count, "hold": _hold, "scatter": _scatter,
                                         "segment": _segment, "write": _write}
