"""The C library's heap: freed large arrays kept for reuse (glibc's ``mallopt``), or
freed memory given back (glibc's ``malloc_trim``).

Set by the command line for its own process (:mod:`prcurve.cli.main`) and by the worker
processes of ``prcurve report --workers`` (:mod:`prcurve.io.worker_tasks`), never by
``import prcurve``.

Examples
--------
>>> from prcurve.core.heap import reuse_freed_memory
>>> reuse_freed_memory() in (True, False)
True
"""

from __future__ import annotations

import os
from typing import Any

__all__ = ["give_back_freed_memory", "reuse_freed_memory"]

_M_TRIM_THRESHOLD, _M_MMAP_THRESHOLD = -1, -3  # glibc's mallopt parameters (malloc.h)
_KEEP = 1 << 30  # blocks up to 1 GiB come from malloc's heap, and stay there when freed


def reuse_freed_memory() -> bool:
    """Let this process reuse the memory of freed large arrays: glibc's ``malloc``
    serves blocks up to 1 GiB from its heap and keeps freed memory there
    (``mallopt``: ``M_MMAP_THRESHOLD`` and ``M_TRIM_THRESHOLD``). True when set;
    False where the C library is not glibc (nothing changes).

    By default glibc maps each block above a threshold (32 MiB at most) freshly
    from the kernel and unmaps it when freed, so every large temporary NumPy array
    is faulted in and zeroed by the kernel again: about 0.3-0.5 s of system time
    in ``prcurve trec`` on a 10^7-line run (docs/benchmarks.md). Peak memory is
    that of the arrays alive at once, as before. The command line sets it for its
    own process, and so does each worker process of ``prcurve report --workers``
    (:mod:`prcurve.io.worker_tasks`); never when prcurve is imported as a library.
    """
    mallopt = _glibc_function("mallopt")
    if mallopt is None:
        return False
    return bool(mallopt(_M_MMAP_THRESHOLD, _KEEP)) and bool(mallopt(_M_TRIM_THRESHOLD, _KEEP))


def give_back_freed_memory() -> bool:
    """Return the memory glibc's ``malloc`` holds freed to the system (``malloc_trim(0)``,
    every arena); True when asked, False where the C library is not glibc.

    By default glibc serves blocks under its mmap threshold from its heaps, and that
    threshold rises to 32 MiB once larger arrays are freed, with a trim threshold of
    twice that: freed arrays of a few MB then stay in the process's resident memory
    (59 MB after reading and checking 3*10^7 rows of Parquet, issue 26 item 6). Called
    once a large input is read (:func:`prcurve.io.parquet_memory.release_freed_memory`).
    """
    trim = _glibc_function("malloc_trim")
    if trim is None:
        return False
    trim(0)
    return True


def _glibc_function(name: str) -> Any:
    """The C library's function ``name``, or None where the C library is not glibc."""
    import ctypes  # here, not at the top: `prcurve --help` needs no C library

    try:
        if not os.confstr("CS_GNU_LIBC_VERSION"):
            return None
        return getattr(ctypes.CDLL(None), name)
    except (ValueError, OSError, AttributeError):  # not glibc
        return None
