"""Integer columns beyond int64 kept exact (labels such as 2^64 + 1).

pyarrow's CSV reader types a column of integers that overflow int64 as float64, which
rounds distinct labels into one (2^64 and 2^64 + 1 are both 1.8446744073709552e19): one
class where the file holds two, and ``--positive 18446744073709551617`` matching every
row. :func:`exact_integers` reads such columns again as text and keeps Python ints
(docs/cli.md, "Labels beyond int64").
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from importlib import import_module
from typing import Any

import numpy as np

__all__ = ["exact_integers", "exact_json_integers"]

_TWO_63 = 2.0**63


def _wide(columns: Mapping[str, Any]) -> list[str]:
    """The float64 columns holding a value beyond int64 (NaN compares False; ``columns``
    maps names to arrays, or to text as codes, whose dtype is object)."""
    return [name for name, values in columns.items() if values.dtype == np.float64
            and bool(np.any(np.abs(values) >= _TWO_63))]


def exact_json_integers(columns: Mapping[str, Any], reparse: Callable[[], Mapping[str, Any]]
                        ) -> Mapping[str, Any]:
    """JSON Lines ``columns`` read by pyarrow, or, when one holds a value beyond int64
    (pyarrow's float64 for a JSON integer of 20 digits), ``reparse()``: Python's json
    keeps such integers exact."""
    return reparse() if _wide(columns) else columns


def exact_integers(columns: Mapping[str, Any], path: Any, parse: Any) -> Mapping[str, Any]:
    """``columns`` (of the CSV file at ``path``, read with pyarrow's ``parse`` options)
    with every float64 column that holds a value beyond int64 read again as text and,
    when each value is the text of an integer, kept as Python ints in an object array
    (None where missing).

    Examples
    --------
    >>> import pyarrow.csv as pacsv, tempfile, pathlib
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "y.csv"
    >>> _ = path.write_text(chr(10).join(["y", str(2**64), str(2**64 + 1)]))
    >>> read = {"y": pacsv.read_csv(path).column("y").to_numpy()}
    >>> read["y"].tolist()
    [1.8446744073709552e+19, 1.8446744073709552e+19]
    >>> exact_integers(read, path, pacsv.ParseOptions())["y"].tolist()
    [18446744073709551616, 18446744073709551617]
    """
    wide = _wide(columns)
    if not wide:
        return columns
    # pyarrow, loaded already: the CSV file was read with it.
    pa, pacsv = import_module("pyarrow"), import_module("pyarrow.csv")

    convert = pacsv.ConvertOptions(strings_can_be_null=True, include_columns=wide,
                                   column_types=dict.fromkeys(wide, pa.string()))
    text = pacsv.read_csv(path, parse_options=parse, convert_options=convert)
    out = dict(columns)
    for name in wide:
        try:
            exact = [None if v is None else int(v) for v in text.column(name).to_pylist()]
        except ValueError:  # a fraction or an exponent: float64 numbers after all
            continue
        array = np.empty(len(exact), dtype=object)
        array[:] = exact
        out[name] = array
    return out
