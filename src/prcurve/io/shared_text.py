"""Text columns read as codes from Arrow's plain text (JSON Lines read by pyarrow, and any
text that does not come dictionary-encoded): a label column such as "pos"/"neg" becomes
:class:`~prcurve.io.text_codes.CodedText`, 4 bytes a row and one ``str`` per distinct
value, not a Python string a row (issue 26, item 6, sessions 35-36). Used by
:func:`prcurve.io.arrow_columns.arrow_column`.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from prcurve.io.text_codes import CodedText

__all__ = ["SHARED_TEXT_ROWS", "shared_text"]


def shared_text(pa: Any, column: Any) -> CodedText | None:
    """A text column as codes (converted a chunk at a time, each chunk's values looked up
    among those seen), or None when the first chunks' values are mostly distinct: then
    one ``str`` a row, as before.

    The values of ``column.to_pylist()`` (None where missing), each distinct value one
    object; a column of labels such as "pos"/"neg" costs 4 bytes a row, not a Python
    string a row (about 60 bytes: 1.2 GB at 10^7 rows; issue 26, item 6, session 35).
    pyarrow's dictionary encoding would do it in C, but ``pyarrow.compute`` imports
    pandas (0.4-0.8 s).

    Examples
    --------
    >>> import pyarrow as pa
    >>> from prcurve.io.shared_text import shared_text
    >>> coded = shared_text(pa, pa.chunked_array([["pos", "neg", None] * 30_000]))
    >>> coded.categories.tolist(), coded.codes[:4].tolist()
    (['pos', 'neg', None], [0, 1, 2, 0])
    """
    n = len(column)
    if n < SHARED_TEXT_ROWS:
        return None
    chunks = column.chunks if isinstance(column, pa.ChunkedArray) else [column]
    codes = np.empty(n, dtype=np.int32)
    index: dict[str | None, int] = {}
    at = 0
    for chunk in chunks:
        for low in range(0, len(chunk), SHARED_TEXT_ROWS):
            values = chunk.slice(low, SHARED_TEXT_ROWS).to_pylist()
            for value in dict.fromkeys(values):  # the block's distinct values, in order
                index.setdefault(value, len(index))
            size = len(values)
            codes[at:at + size] = np.fromiter(map(index.__getitem__, values), dtype=np.int32,
                                              count=size)
            at += size
            if 2 * len(index) > at:  # mostly distinct text (ids): one str a row
                return None
    categories = np.empty(len(index), dtype=object)
    categories[:] = list(index)
    return CodedText(codes, categories)


SHARED_TEXT_ROWS = 1 << 16
"""Text columns of at least this many rows are read by :func:`shared_text`, this many
rows at a time."""
