"""The memory one call allocates, for the suite's memory bounds: ``tracemalloc`` traces
NumPy's arrays and Python's objects (not memory that a C library such as pyarrow
allocates for itself), so a bound in bytes a row says what a change added.

Examples
--------
>>> import numpy as np
>>> made, kept, peak = traced(lambda: np.ones(1 << 20).sum())
>>> float(made), kept < 1 << 16, peak >= 8 << 20
(1048576.0, True, True)
"""

from __future__ import annotations

import tracemalloc
from collections.abc import Callable
from typing import TypeVar

T = TypeVar("T")


def traced(make: Callable[[], T]) -> tuple[T, int, int]:
    """What ``make()`` returns, the bytes it left allocated and its peak, both counted
    from the start of the call (tracing is on for the call only)."""
    tracemalloc.start()
    try:
        start = tracemalloc.get_traced_memory()[0]
        made = make()
        current, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    return made, current - start, peak - start
