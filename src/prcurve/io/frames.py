"""Data frames read as files are: pandas, polars and pyarrow tables to a :class:`RawTable`.

:func:`table_of_frame` goes through pyarrow, column by column as the Parquet
reader does (:func:`prcurve.io.readers.arrow_to_numpy`), so every rule of the
files (missing values, text labels, categorical and nullable columns) holds for
a frame given to :func:`prcurve.report`.

Examples
--------
>>> import pandas as pd
>>> from prcurve.io.frames import table_of_frame
>>> table = table_of_frame(pd.DataFrame({"y": pd.Series(["a", None], dtype="string"),
...                                      "s": [0.5, 0.25]}))
>>> table.columns["y"].tolist(), table.columns["s"].tolist(), table.format
(['a', None], [0.5, 0.25], 'dataframe')
"""

from __future__ import annotations

from typing import Any

from prcurve.io.readers import RawTable, arrow_to_numpy, check_unique_names, need

__all__ = ["table_of_frame"]


def table_of_frame(frame: Any, name: str = "DataFrame") -> RawTable:
    """A pandas or polars DataFrame, or a pyarrow Table, as a :class:`RawTable` named ``name``.

    Read through pyarrow (needed: the ``files`` extra), column by column as a
    Parquet file is, so that every rule of the files holds for data frames too
    (missing values, text labels, categorical and nullable columns).
    """
    pa = need("pyarrow", "data frames")
    if isinstance(frame, pa.Table):
        table = frame
    elif hasattr(frame, "iloc") and hasattr(frame, "columns"):  # pandas: never its index
        table = pa.Table.from_pandas(frame, preserve_index=False)
    else:
        table = pa.table(frame)  # polars and anything with the Arrow stream interface
    check_unique_names(name, table.column_names)
    columns = {column: arrow_to_numpy(pa, table.column(i))
               for i, column in enumerate(table.column_names)}
    return RawTable(path=name, format="dataframe", columns=columns, n_rows=table.num_rows)
