"""What a local worker process of ``prcurve report --workers N`` runs (issue 26, item 7).

A worker is a process of :mod:`prcurve.io.workers`' pool (started from a fork server
that has imported this module once: numpy, pyarrow and the readers, nothing of the
report). It serves tasks, one at a time, from its pipe: ``(name, arguments)`` in,
``("ok", result)`` or ``("error", one line)`` out, until ``None``. What it holds between
tasks (a segment of an exact state) stays in ``held``.

Two kinds of work:

- **count** (the distinct-score budget, or ``--bins``): consecutive pieces of row groups
  read (the next piece while one is counted), checked and counted as one Dask task
  does (:func:`prcurve.io.piece_tasks.count_piece`:
  binned, or exact within the budget), after the worker screened its own first rows
  as the single process screens the file's; the result is a small
  :class:`~prcurve.io.dask_parts.Part`.
- **the exact state by ranges of scores** (a file one process reads whole): ``hold``
  reads and checks the worker's pieces and writes the kept scores, positives and
  weights of each score column to files in shared memory (``/dev/shm``), returning a
  sample of the scores; ``segment`` takes the rows of every worker whose score lies in
  one range ``(low, high]`` (ties never cross ranges) and builds their exact state
  (the single process's ``ThresholdCounts._from_checked``); ``write`` puts that segment
  at its place in the whole state, a file the parent maps: thresholds as they are, ``tp``
  and ``fp`` plus the weight of the ranges above. The parent never holds the rows, the
  partial states or a merge's inputs: only the final state.
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
from prcurve.io.piece_tasks import TaskSpec, check_piece, count_piece, read_piece
from prcurve.validation.labels import BinaryLabels

__all__ = ["SAMPLE_PER_PIECE", "Source", "serve", "state_layout"]

SAMPLE_PER_PIECE = 4096
"""Scores sampled from each piece of each column (evenly spaced rows), to place the
ranges of scores that the workers' segments cover."""

Source = tuple[str, int, str]
"""One piece's kept rows of one column, as ``hold`` wrote them: (the files' common stem,
rows, the scores' dtype)."""


def serve(connection: Connection, threads: int) -> None:
    """One worker's loop: tasks from ``connection`` until ``None`` (or the pipe closes).

    ``threads``: the threads of this process's sorts (``set_sort_threads``): the cores
    divided among the workers.
    """
    set_sort_threads(threads)
    reuse_freed_memory()  # each piece's large arrays reuse the last one's pages, not fresh ones
    _small_pages()
    held: dict[int, ThresholdCounts] = {}
    while True:
        try:
            message = connection.recv()
        except EOFError:  # the parent is gone
            return
        if message is None:
            return
        name, arguments = message
        try:
            result = _TASKS[name](held, *arguments)
        except Exception as error:  # a bug: its one line goes to the parent
            connection.send(("error", f"{type(error).__name__}: {error}"))
        else:
            connection.send(("ok", result))


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


def _small_pages() -> None:
    """NumPy's large arrays in this worker without ``madvise(MADV_HUGEPAGE)``: where the
    kernel compacts memory to find huge pages on a fault (``defrag`` set to ``madvise``),
    a worker's fresh arrays cost it 0.5-1 s of system time at 3*10^7 rows, against about
    0.2 s with small pages (docs/benchmarks.md, session 32). NumPy's switch for it is
    private (``NUMPY_MADVISE_HUGEPAGE`` is read at import); where it is missing, nothing
    changes."""
    import importlib

    try:
        multiarray: Any = importlib.import_module("numpy._core.multiarray")
    except ImportError:  # NumPy 1
        multiarray = importlib.import_module("numpy.core.multiarray")
    switch = getattr(multiarray, "_set_madvise_hugepage", None)
    if switch is not None:
        switch(False)


def _count(held: dict[int, ThresholdCounts], pieces: list[tuple[str, list[int], int]],
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


def _hold(held: dict[int, ThresholdCounts], pieces: list[tuple[str, list[int], int]],
          spec: TaskSpec, folder: str, worker: int
          ) -> tuple[Part | None, list[list[Source]], list[NDArray[Any]]]:
    """Read and check this worker's pieces; write each column's kept rows to ``folder``.

    Returns the merged bookkeeping of the pieces (rows, label rules, kept and dropped
    counts, the first problem: a :class:`Part` without states), each column's sources
    and a sample of each column's kept scores.
    """
    result: Part | None = None
    sources: list[list[Source]] = [[] for _ in spec.scores]
    samples: list[list[NDArray[Any]]] = [[] for _ in spec.scores]
    for _, index, read in _read_ahead(pieces, spec):
        part = Part([(index, 0)], [])
        if isinstance(read, Part):  # unreadable: the read's problem
            part.problem = read.problem
        else:
            _hold_piece(part, *read, index, spec, folder, worker, sources, samples)
        result = part if result is None else merge_parts(result, part)
        if part.problem is not None:
            break
    joined = [np.concatenate(s) if s else np.empty(0) for s in samples]
    return result, sources, joined


def _hold_piece(part: Part, columns: dict[str, NDArray[Any]], n: int, index: int,
                spec: TaskSpec, folder: str, worker: int, sources: list[list[Source]],
                samples: list[list[NDArray[Any]]]) -> None:
    """One piece's rows checked, each column's kept rows written, ``part`` filled in."""
    part.sizes = [(index, n)]
    kept = check_piece(part, columns, index, spec)
    if kept is None:
        return
    for c, (scores, positive, weights) in enumerate(kept):
        stem = os.path.join(folder, f"w{worker}-p{index}-c{c}")
        scores.tofile(stem + ".scores")
        positive.tofile(stem + ".positive")
        if weights is not None:
            weights.tofile(stem + ".weights")
        sources[c].append((stem, int(scores.shape[0]), scores.dtype.str))
        step = max(1, scores.shape[0] // SAMPLE_PER_PIECE)
        samples[c].append(scores[::step].copy())


def _load(file: str, dtype: Any, n: int) -> NDArray[Any]:
    """A file of ``n`` values mapped read-only (no copy until a mask takes rows)."""
    if n == 0:
        return np.empty(0, dtype=dtype)
    with open(file, "rb") as handle:
        # Every page is read once: mapped in one call (MAP_POPULATE, Linux), not page by
        # page as the masks reach them.
        flags = mmap.MAP_SHARED | getattr(mmap, "MAP_POPULATE", 0)
        mapped = mmap.mmap(handle.fileno(), 0, flags=flags, prot=mmap.PROT_READ)
    return np.frombuffer(mapped, dtype=dtype, count=n)


def _inside(values: NDArray[Any], low: Any, high: Any) -> NDArray[np.bool_] | None:
    """The rows with ``low < value <= high`` (None: every row; a bound None: none)."""
    inside: NDArray[np.bool_] | None = None
    if low is not None:
        inside = values > low
    if high is not None:
        at_most = values <= high
        inside = at_most if inside is None else np.logical_and(inside, at_most, out=inside)
    return inside


def _segment(held: dict[int, ThresholdCounts], column: int, low: Any, high: Any,
             sources: Sequence[Source], dtype: str, weighted: bool
             ) -> tuple[int, float, float, str]:
    """The exact state of the rows of every source whose score lies in (low, high]
    (None: unbounded), held for :func:`_write`; returns its length, its positive and
    negative weight, and its thresholds' dtype."""
    common = np.dtype(dtype)
    masks = []
    for stem, n, kind in sources:  # first the rows each source gives: one array each
        values = _load(stem + ".scores", np.dtype(kind), n).astype(common, copy=False)
        masks.append(_inside(values, low, high))
    sizes = [n if m is None else int(np.count_nonzero(m))
             for (_, n, _), m in zip(sources, masks, strict=True)]
    total = sum(sizes)
    scores = np.empty(total, dtype=common)
    positive = np.empty(total, dtype=bool)
    weights = np.empty(total) if weighted else None
    at = 0
    for (stem, n, kind), mask, size in zip(sources, masks, sizes, strict=True):
        parts = [(stem + ".scores", np.dtype(kind), scores),
                 (stem + ".positive", np.dtype(bool), positive)]
        if weights is not None:
            parts.append((stem + ".weights", np.dtype(np.float64), weights))
        for file, kind_of, out in parts:
            values = _load(file, kind_of, n)
            if mask is None:
                out[at:at + size] = values
            else:
                np.compress(mask, values, out=out[at:at + size])
        at += size
    del masks
    state = ThresholdCounts._from_checked(scores, BinaryLabels(positive=positive, soft=None),
                                          weights)
    held[column] = state
    return len(state), state.n_pos, state.n_neg, state.thresholds.dtype.str


def state_layout(total: int, dtype: str) -> list[tuple[int, np.dtype[Any]]]:
    """Where the whole state's arrays lie in its file: (byte offset, dtype) of the
    thresholds, ``tp`` and ``fp``, one after the other, ``total`` values each."""
    kind = np.dtype(dtype)
    return [(0, kind), (total * kind.itemsize, np.dtype(np.float64)),
            (total * (kind.itemsize + 8), np.dtype(np.float64))]


_WRITE_BLOCK = 1 << 20  # values written at a time (8 MiB): a buffer reused, no full copy


def _write(held: dict[int, ThresholdCounts], column: int, file: str, total: int,
           dtype: str, offset: int, above_pos: float, above_neg: float) -> None:
    """Put the held segment of ``column`` at ``offset`` in the whole state's file, its
    cumulative weights raised by the weight of the ranges above it (written with
    ``pwrite``, a block at a time: no page faults of a shared mapping)."""
    state = held.pop(column)
    n = len(state)
    if n == 0:
        return
    (t_at, t_kind), (p_at, _), (f_at, _) = state_layout(total, dtype)
    buffer = np.empty(min(n, _WRITE_BLOCK))
    descriptor = os.open(file, os.O_WRONLY)
    try:
        _pwrite(descriptor, state.thresholds, t_at + offset * t_kind.itemsize)
        for array, at, above in ((state.tp, p_at, above_pos), (state.fp, f_at, above_neg)):
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


_TASKS: dict[str, Callable[..., Any]] = {"count": _count, "hold": _hold,
                                         "segment": _segment, "write": _write}
