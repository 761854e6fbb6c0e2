"""Arrow columns as NumPy arrays: numbers, booleans, and text as objects (one ``str``
per distinct value where the column repeats its text: :mod:`prcurve.io.shared_text`,
:mod:`prcurve.io.text_codes`); what every tabular reader shares
(:mod:`prcurve.io.readers`, the streamed and Dask readers, DataFrames).

Examples
--------
>>> import pyarrow as pa
>>> from prcurve.io.arrow_columns import arrow_to_numpy
>>> arrow_to_numpy(pa, pa.chunked_array([[1, None, 3]])).tolist()
[1.0, nan, 3.0]
"""

from __future__ import annotations

import contextlib
import math
from collections.abc import Sequence
from typing import Any

import numpy as np
from numpy.typing import NDArray

from prcurve.core.arrow import primitive_numpy
from prcurve.io.shared_text import shared_text
from prcurve.io.text_codes import CodedText, dictionary_text

__all__ = ["Column", "arrow_column", "arrow_labels", "arrow_numbers", "arrow_to_numpy", "decoded",
           "need", "object_array"]

Column = NDArray[Any] | CodedText
"""A column as a reader holds it: an array, or text as codes (:class:`CodedText`)."""


def need(module: str, what: str) -> Any:
    """Import an optional dependency, or say which extra installs it."""
    import importlib

    try:
        return importlib.import_module(module)
    except ImportError as error:
        package = module.split(".")[0]
        raise ImportError(
            f"reading {what} needs {package}, which is not installed: "
            f"pip install 'prcurve[report]'"
        ) from error


def object_array(values: Sequence[Any]) -> NDArray[np.object_]:
    """A 1-D object array of ``values``, each kept whole (a list stays one element)."""
    return np.fromiter(values, dtype=object, count=len(values))


def arrow_to_numpy(pa: Any, column: Any) -> NDArray[Any]:
    """One pyarrow column as NumPy: numbers (NaN if missing), bools, or objects.

    Signed integers become int64 and unsigned ones keep their type (a uint64
    above 2**63 is not wrapped around); with a missing value, float64. Text is
    ``str``, bytes ``bytes``, a missing value None, and any other value (a
    list, a struct, a date) a Python object, kept whole.
    """
    coded = arrow_column(pa, column)
    return coded.values() if isinstance(coded, CodedText) else coded


def arrow_column(pa: Any, column: Any) -> Column:
    """:func:`arrow_to_numpy`, except that a dictionary-encoded text column stays coded
    (:class:`~prcurve.io.text_codes.CodedText`): how the readers read a table."""
    kind = column.type
    if pa.types.is_dictionary(kind):  # text: coded by NumPy (io.text_codes), else cast
        coded = dictionary_text(pa, column)
        if coded is not None:
            return coded
        column = column.cast(kind.value_type)
        kind = column.type
    has_nulls = column.null_count > 0
    if pa.types.is_integer(kind) and not has_nulls:
        values = primitive_numpy(pa, column)
        return values if pa.types.is_unsigned_integer(kind) else values.astype(np.int64,
                                                                             copy=False)
    if pa.types.is_integer(kind) or pa.types.is_floating(kind) or pa.types.is_decimal(kind):
        floats = column.cast(pa.float64())
        if has_nulls:  # a missing number is NaN
            floats = need("pyarrow.compute", "files").fill_null(floats, math.nan)
        return primitive_numpy(pa, floats)
    if pa.types.is_boolean(kind) and not has_nulls:
        return primitive_numpy(pa, column)
    if pa.types.is_nested(kind):
        # Never a label, score or weight: each row is an empty list or object (named as
        # such if the column is used), and the values are not read. pyarrow 26's JSON
        # reader can build a list of strings whose values cannot be read back.
        marker: Any = {} if pa.types.is_struct(kind) or pa.types.is_map(kind) else []
        valid = np.asarray(column.is_valid().to_numpy(zero_copy_only=False), dtype=bool)
        return object_array([marker if v else None for v in valid.tolist()])
    if pa.types.is_temporal(kind):  # shown as text: Python's datetime has a smaller range
        column = column.cast(pa.string())
    try:
        text = pa.types.is_string(kind) or pa.types.is_large_string(kind)
        shared = shared_text(pa, column) if text else None  # codes: one str per equal text
        return object_array(column.to_pylist()) if shared is None else shared
    except UnicodeDecodeError:  # pyarrow's JSON reader does not check UTF-8: keep the bytes
        raw = column.cast(pa.large_binary() if pa.types.is_large_string(kind) else pa.binary())
        return decoded(object_array(raw.to_pylist()))


def arrow_numbers(pa: Any, column: Any) -> NDArray[Any]:
    """:func:`arrow_to_numpy`, except that a floating column without missing values keeps
    its type (float32 stays float32) and is not copied: the columns of labels, scores and
    weights that the streamed and Parquet-task readers check
    (:func:`prcurve.io.rows.check_block`)."""
    if pa.types.is_floating(column.type) and column.null_count == 0:
        return primitive_numpy(pa, column)
    return arrow_to_numpy(pa, column)


def decoded(values: NDArray[Any]) -> NDArray[Any]:
    """Bytes as text where they are UTF-8; other bytes are kept (and named when used)."""
    out: NDArray[Any] = values.copy()
    for i, value in enumerate(values.tolist()):
        if isinstance(value, bytes):
            with contextlib.suppress(UnicodeDecodeError):
                out[i] = value.decode("utf-8")
    return out


def arrow_labels(pa: Any, column: Any) -> Column:
    """:func:`arrow_numbers` of a label column, text that repeats kept as codes
    (:class:`~prcurve.io.text_codes.CodedText`, which the label rules use): the label
    column of the streamed reader's batches."""
    if pa.types.is_floating(column.type) and column.null_count == 0:
        return primitive_numpy(pa, column)
    return arrow_column(pa, column)
