"""NumPy arrays and pyarrow arrays as views of each other's buffers, without pandas.

pyarrow's ``to_numpy`` and ``pa.array`` of a NumPy array both import pandas when it is
installed (about a second of a command's start-up), though neither needs it for a
fixed-width column without nulls: such a column *is* its values buffer. Every module
that hands numbers to pyarrow or reads them back goes through here; pyarrow itself is
passed in by the caller (imported lazily there: ``import prcurve`` stays numpy-only).

Examples
--------
>>> import numpy as np
>>> import pyarrow as pa
>>> from prcurve.core.arrow import numpy_to_arrow, primitive_numpy
>>> column = numpy_to_arrow(pa, np.array([0.5, 2.0]))
>>> column.type, primitive_numpy(pa, column).tolist()
(DataType(double), [0.5, 2.0])
"""

from __future__ import annotations

import importlib
from typing import Any

import numpy as np
from numpy.typing import NDArray

__all__ = ["arrow_values", "numpy_to_arrow", "primitive_numpy"]


def numpy_to_arrow(pa: Any, values: NDArray[Any]) -> Any:
    """A pyarrow array of a 1-d NumPy array of numbers: a view of its buffer (a copy
    only when it is not contiguous in native byte order), never nulls.

    Booleans are packed into Arrow's bits (a copy an eighth of the size).

    Raises
    ------
    TypeError
        If the array does not hold numbers or booleans (a programming error: callers
        pass numeric columns only).
    """
    values = np.ascontiguousarray(values)
    if values.dtype.kind == "b":
        bits = np.packbits(values.view(np.uint8), bitorder="little")
        return pa.Array.from_buffers(pa.bool_(), values.shape[0], [None, pa.py_buffer(bits)])
    if values.dtype.kind not in "iuf":
        raise TypeError(f"numpy_to_arrow takes numbers or booleans, got {values.dtype}")
    values = values.astype(values.dtype.newbyteorder("="), copy=False)
    kind = pa.from_numpy_dtype(values.dtype)
    return pa.Array.from_buffers(kind, values.shape[0], [None, pa.py_buffer(values)])


def arrow_values(array: Any, dtype: np.dtype[Any]) -> NDArray[Any]:
    """The values of a fixed-width pyarrow array without nulls, as ``dtype``: a view of
    its buffer."""
    raw = np.frombuffer(array.buffers()[1], dtype=np.uint8)
    begin = array.offset * dtype.itemsize
    return raw[begin:begin + len(array) * dtype.itemsize].view(dtype)


def primitive_numpy(pa: Any, column: Any) -> NDArray[Any]:
    """A pyarrow array or chunked array of numbers or booleans without nulls as NumPy:
    a view of its buffer when it is one piece (booleans, stored as bits, are unpacked).
    """
    if isinstance(column, pa.ChunkedArray):
        column = (column.chunk(0) if column.num_chunks == 1 else column.combine_chunks()
                  if column.num_chunks else pa.nulls(0, column.type))
    kind = column.type
    if pa.types.is_boolean(kind):
        compute: Any = importlib.import_module("pyarrow.compute")
        bytes_ = compute.cast(column, pa.uint8())
        return arrow_values(bytes_, np.dtype(np.uint8)).view(bool)
    code = "f" if pa.types.is_floating(kind) else "u" if pa.types.is_unsigned_integer(
        kind) else "i"
    return arrow_values(column, np.dtype(f"{code}{kind.bit_width // 8}"))
