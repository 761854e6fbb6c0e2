"""pyarrow columns as NumPy arrays without pyarrow's ``to_numpy``, which imports pandas.

pandas costs almost a second of a command's start-up and is not needed to read a
file's numbers: a column of numbers without nulls is a view of its Arrow buffer.
"""

from __future__ import annotations

import importlib
from typing import Any

import numpy as np
from numpy.typing import NDArray

__all__ = ["primitive_numpy"]


def primitive_numpy(pa: Any, column: Any) -> NDArray[Any]:
    """A pyarrow array or chunked array of numbers or booleans without nulls as NumPy:
    a view of its buffer when it is one piece (booleans, stored as bits, are unpacked).

    Not ``to_numpy``: for any type, pyarrow's ``to_numpy`` imports pandas, almost a
    second of a command's start-up.
    """
    from prcurve.ranking.keys import arrow_values

    if isinstance(column, pa.ChunkedArray):
        column = (column.chunk(0) if column.num_chunks == 1 else column.combine_chunks()
                  if column.num_chunks else pa.array([], type=column.type))
    kind = column.type
    if pa.types.is_boolean(kind):
        compute: Any = importlib.import_module("pyarrow.compute")
        bytes_ = compute.cast(column, pa.uint8())
        return arrow_values(bytes_, np.dtype(np.uint8)).view(bool)
    code = "f" if pa.types.is_floating(kind) else "u" if pa.types.is_unsigned_integer(
        kind) else "i"
    return arrow_values(column, np.dtype(f"{code}{kind.bit_width // 8}"))
