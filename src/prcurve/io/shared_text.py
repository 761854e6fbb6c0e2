"""Text columns read with one ``str`` per distinct value: a label column such as
"pos"/"neg" costs 8 bytes a row (a pointer), not a Python string a row (issue 26, item
6, session 35). Used by :func:`prcurve.io.readers.arrow_to_numpy`.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import NDArray

__all__ = ["SHARED_TEXT_ROWS", "shared_text"]


def shared_text(pa: Any, column: Any) -> NDArray[np.object_] | None:
    """A text column as objects, rows of equal text sharing one ``str`` (converted a
    chunk at a time, each chunk's values looked up among those seen), or None when the
    first chunks' values are mostly distinct: then one ``str`` a row, as before.

    The same values as ``column.to_pylist()`` (None where missing); a column of labels
    such as "pos"/"neg" then costs 8 bytes a row, not a Python string a row (about 60
    bytes: 1.2 GB at 10^7 rows; issue 26, item 6, session 35). pyarrow's dictionary
    encoding would do it in C, but ``pyarrow.compute`` imports pandas (0.4-0.8 s).

    Examples
    --------
    >>> import pyarrow as pa
    >>> from prcurve.io.shared_text import shared_text
    >>> values = shared_text(pa, pa.chunked_array([["pos", "neg", None] * 30_000]))
    >>> values[:3].tolist(), values[0] is values[3]
    (['pos', 'neg', None], True)
    """
    n = len(column)
    if n < SHARED_TEXT_ROWS:
        return None
    chunks = column.chunks if isinstance(column, pa.ChunkedArray) else [column]
    out = np.empty(n, dtype=object)
    seen: dict[str | None, str | None] = {}
    at = 0
    for chunk in chunks:
        for low in range(0, len(chunk), SHARED_TEXT_ROWS):
            values = chunk.slice(low, SHARED_TEXT_ROWS).to_pylist()
            values = list(map(seen.setdefault, values, values))
            out[at:at + len(values)] = values
            at += len(values)
            if 2 * len(seen) > at:  # mostly distinct text (ids): one str a row
                return None
    return out


SHARED_TEXT_ROWS = 1 << 16
"""Text columns of at least this many rows are read by :func:`_shared_text`, this many
rows at a time."""
