"""A small column table: what ``PRCurve.to_table()`` returns.

It formats numbers it is given and computes none: as aligned text (``print``),
Markdown, CSV, HTML for notebooks (``_repr_html_``) or a pandas DataFrame. The
other objects' notebook displays are built from Tables, so they need nothing
above the core.
"""

from __future__ import annotations

import html
import math
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from prcurve.core.arrow import numpy_to_arrow

__all__ = ["Table"]


class Table:
    """Named columns of equal length, in order.

    Examples
    --------
    >>> import numpy as np
    >>> from prcurve.core.table import Table
    >>> t = Table({"threshold": np.array([0.9, 0.5]), "precision": np.array([1.0, 2 / 3])})
    >>> print(t.to_markdown(digits=2))
    | threshold | precision |
    |:---------:|:---------:|
    |   0.90    |   1.00    |
    |   0.50    |   0.67    |
    """

    def __init__(self, columns: Mapping[str, NDArray[Any]]) -> None:
        lengths = {len(values) for values in columns.values()}
        if len(lengths) > 1:
            raise ValueError(f"columns differ in length: {sorted(lengths)}")
        self._columns = {name: np.asarray(values) for name, values in columns.items()}

    @property
    def columns(self) -> list[str]:
        return list(self._columns)

    def __getitem__(self, name: str) -> NDArray[Any]:
        return self._columns[name]

    def __len__(self) -> int:
        return len(next(iter(self._columns.values()))) if self._columns else 0

    def __repr__(self) -> str:
        return self.to_text(max_rows=10)

    def __str__(self) -> str:
        return self.to_text()

    def _repr_html_(self) -> str:
        return self.to_html(max_rows=20)

    def _shown_rows(self, max_rows: int | None) -> tuple[list[int], bool]:
        """The row indices to show (first and last halves of ``max_rows``), and whether
        rows were left out."""
        n = len(self)
        if max_rows is None or n <= max_rows:
            return list(range(n)), False
        head = max(max_rows // 2, 1)
        return list(range(head)) + list(range(n - (max_rows - head), n)), True

    def to_text(self, digits: int | Mapping[str, int] | None = 4,
                max_rows: int | None = None) -> str:
        """Aligned plain text, right-justified columns; ``max_rows`` shows the first and
        last rows of a long table with the count of the rest.

        Examples
        --------
        >>> import numpy as np
        >>> from prcurve.core.table import Table
        >>> print(Table({"threshold": np.array([0.9, 0.5]), "tp": np.array([1, 2])}))
        threshold  tp
           0.9000   1
           0.5000   2
        """
        shown, cut = self._shown_rows(max_rows)
        columns = [[name] + [cells[i] for i in shown]
                   for name, cells in zip(self._columns, self._text_columns(digits),
                                          strict=True)]
        widths = [max(map(len, column)) for column in columns]
        lines = ["  ".join(cell.rjust(w) for cell, w in zip(row, widths, strict=True))
                 for row in zip(*columns, strict=True)]
        if cut:
            head = len([i for i in shown if i < len(self) // 2]) + 1
            lines.insert(head, f"... {len(self) - len(shown)} more rows ...")
        if not self._columns:
            return "Table(no columns)"
        return "\n".join(lines)

    def to_html(self, digits: int | Mapping[str, int] | None = 4,
                max_rows: int | None = None, caption: str | None = None) -> str:
        """An HTML table (for notebooks): escaped text, numbers right-aligned.

        Examples
        --------
        >>> import numpy as np
        >>> from prcurve.core.table import Table
        >>> Table({"recall": np.array([0.5])}).to_html().count("<td")
        1
        """
        shown, cut = self._shown_rows(max_rows)
        texts = self._text_columns(digits)
        head = "".join(f"<th>{html.escape(name)}</th>" for name in self._columns)
        body = []
        for k, i in enumerate(shown):
            if cut and k == len([j for j in shown if j < len(self) // 2]):
                body.append(f'<tr><td colspan="{len(texts)}">... '
                            f"{len(self) - len(shown)} more rows ...</td></tr>")
            body.append("<tr>" + "".join(
                f'<td style="text-align:right">{html.escape(column[i])}</td>'
                for column in texts) + "</tr>")
        title = f"<caption>{html.escape(caption)}</caption>" if caption else ""
        return (f'<table class="prcurve">{title}<thead><tr>{head}</tr></thead>'
                f"<tbody>{''.join(body)}</tbody></table>")

    def to_pandas(self) -> Any:
        """The table as a pandas DataFrame (pandas is imported here, when called)."""
        import importlib

        try:
            pd = importlib.import_module("pandas")
        except ImportError as error:
            raise ImportError("Table.to_pandas needs pandas: pip install pandas") from error
        return pd.DataFrame(dict(self._columns))

    def rows(self) -> list[tuple[float, ...]]:
        """The rows as tuples of Python numbers."""
        return list(zip(*(values.tolist() for values in self._columns.values()), strict=True))

    def to_dict(self) -> dict[str, list[float]]:
        """Column name -> list of values (JSON-ready; NaN stays NaN)."""
        return {name: values.tolist() for name, values in self._columns.items()}

    def _column_text(
        self, name: str, values: NDArray[Any], digits: int | Mapping[str, int] | None
    ) -> list[str]:
        """One column as text: ``repr`` of each number, or ``digits`` decimals."""
        items = values.tolist()
        places = digits.get(name) if isinstance(digits, Mapping) else digits
        if values.dtype.kind in "OUS":
            return [x.decode("utf-8", "replace") if isinstance(x, bytes) else str(x)
                    for x in items]
        if places is None or values.dtype.kind != "f":
            return list(map(repr, items))
        if values.shape[0] and np.all(np.isfinite(values)) and np.all(values == np.round(values)):
            return [str(int(x)) for x in items]  # counts: whole numbers print as such
        fixed = f"{{:.{places}f}}".format
        return ["nan" if math.isnan(x) else fixed(x) for x in items]

    def _text_columns(self, digits: int | Mapping[str, int] | None) -> list[list[str]]:
        return [self._column_text(name, values, digits) for name, values in self._columns.items()]

    def to_markdown(self, digits: int | Mapping[str, int] | None = None) -> str:
        """A Markdown table with centred columns (the Precision And Recall tutorial's layout).

        ``digits`` fixes the decimals, for all columns or per column name;
        by default numbers print in full (``repr``).
        """
        header = [f" {name} " for name in self._columns]
        columns = self._text_columns(digits)
        widths = [
            max([len(h)] + [len(cell) + 2 for cell in column])
            for h, column in zip(header, columns, strict=True)
        ]
        lines = ["|" + "|".join(h.center(w) for h, w in zip(header, widths, strict=True)) + "|"]
        lines.append("|" + "|".join(":" + "-" * (w - 2) + ":" for w in widths) + "|")
        lines.extend(
            "|" + "|".join(c.center(w) for c, w in zip(row, widths, strict=True)) + "|"
            for row in zip(*columns, strict=True)
        )
        return "\n".join(lines)

    def to_csv(self, digits: int | Mapping[str, int] | None = None) -> str:
        """Comma-separated text with a header row; full precision by default.

        Full precision is the shortest text that reads back as the same float64 (the
        number is never rounded). When pyarrow is installed (the ``report`` extra) and
        every column is numeric, pyarrow formats the columns and writes the rows, in
        threads (docs/benchmarks.md: a few seconds for 10^7 rows, where Python's
        ``repr`` takes about a second per 10^6 rows per column); a column of whole
        numbers (counts) is written as integers, and a run of equal neighbours (a
        curve's recall) is formatted once. Its spelling of a number can differ from
        ``repr``'s (``1`` for ``1.0``, ``1e-7`` for ``1e-07``, ``0.00001`` for
        ``1e-05``), never its value.
        With ``digits`` (decimals for all columns or per column name), string or
        boolean columns, the text is Python's, column by column.

        Examples
        --------
        >>> import numpy as np
        >>> from prcurve.core.table import Table
        >>> text = Table({"recall": np.array([0.5, 2 / 3])}).to_csv()
        >>> [float(x) for x in text.split()[1:]] == [0.5, 2 / 3]
        True
        """
        blocks = self._fast_csv(digits)
        if blocks is not None:
            return "".join(str(memoryview(block), "ascii") for block in blocks)
        lines = [",".join(self._columns)]
        lines.extend(",".join(row) for row in zip(*self._text_columns(digits), strict=True))
        return "\n".join(lines) + "\n"

    def write_csv(self, path: str | Path, digits: int | Mapping[str, int] | None = None
                  ) -> None:
        """Write :meth:`to_csv`'s text to ``path``, a block of rows at a time when pyarrow
        writes it (memory is one block's text, not the file's).

        Examples
        --------
        >>> import os, tempfile
        >>> import numpy as np
        >>> from prcurve.core.table import Table
        >>> path = os.path.join(tempfile.mkdtemp(), "t.csv")
        >>> from pathlib import Path
        >>> Table({"tp": np.array([1.0, 2.0])}).write_csv(path)
        >>> Path(path).read_text().split()
        ['tp', '1', '2']
        """
        blocks = self._fast_csv(digits)
        with open(path, "wb") as file:
            if blocks is None:
                file.write(self.to_csv(digits).encode("utf-8"))
                return
            for block in blocks:
                file.write(block)  # releases the GIL: the next blocks format meanwhile

    def _fast_csv(self, digits: int | Mapping[str, int] | None
                  ) -> Iterator[memoryview] | None:
        """pyarrow's blocks of CSV text, when it can write this table (see to_csv)."""
        if digits is None and self._columns and all(
                values.dtype.kind in "iuf" for values in self._columns.values()):
            return _arrow_csv(self._columns)
        return None


_CSV_BLOCK = 1 << 18
"""Rows written at a time by the fast CSV path (one block's text is about 15 MB)."""

_EXACT_INTEGER = 2.0**53
"""Floats of smaller magnitude that are whole numbers are written as integers."""

def _arrow_csv(columns: Mapping[str, NDArray[Any]]) -> Iterator[memoryview] | None:
    """Numeric columns as CSV text by pyarrow, a block of rows at a time (the header
    first); None without pyarrow (the Python path then). The header is written as the
    Python path writes it (unquoted).

    Each block of :data:`_CSV_BLOCK` rows is one task: its columns cast to text
    (:func:`_arrow_column_text`) and written as rows by pyarrow's CSV writer. The
    blocks run in a pool of threads (pyarrow works without the GIL), a few ahead of the
    consumer, and are yielded in order: while the caller writes one block to its file,
    the next ones are being formatted. Memory is a few blocks' text.
    """
    import importlib

    try:
        pa = importlib.import_module("pyarrow")
        pa_csv = importlib.import_module("pyarrow.csv")
        compute = importlib.import_module("pyarrow.compute")
    except ImportError:
        return None
    return _arrow_csv_blocks(pa, pa_csv, compute, columns)


def _arrow_csv_blocks(pa: Any, pa_csv: Any, compute: Any, columns: Mapping[str, NDArray[Any]]
                      ) -> Iterator[memoryview]:
    from collections import deque
    from concurrent.futures import Future, ThreadPoolExecutor

    from prcurve.core.sorting import sort_threads

    yield memoryview((",".join(columns) + "\n").encode())
    rows = next(iter(columns.values())).shape[0]
    options = pa_csv.WriteOptions(include_header=False, quoting_style="none")

    def block(first: int) -> memoryview:
        last = min(first + _CSV_BLOCK, rows)
        table = pa.table({f"c{i}": _arrow_column_text(pa, compute, values[first:last])
                          for i, values in enumerate(columns.values())})
        sink = pa.BufferOutputStream()
        pa_csv.write_csv(table, sink, options)
        return memoryview(sink.getvalue())  # a view of pyarrow's buffer: no copy

    firsts = range(0, rows, _CSV_BLOCK)
    threads = max(1, min(sort_threads(), len(firsts)))
    if threads == 1:
        yield from map(block, firsts)
        return
    with ThreadPoolExecutor(max_workers=threads) as pool:
        # Invariant: at most `threads` blocks are queued or running beyond the one the
        # caller holds, so memory stays a few blocks whatever the table's length.
        ahead: deque[Future[memoryview]] = deque()
        for first in firsts:
            ahead.append(pool.submit(block, first))
            if len(ahead) > threads:
                yield ahead.popleft().result()
        while ahead:
            yield ahead.popleft().result()


_SAMPLE = 1024
"""The first values of a column looked at before a full pass decides how to format it
(either way, the same text)."""


def _whole(floats: NDArray[np.float64]) -> bool:
    """Every value a whole number below 2^53 in magnitude, and no -0.0: written as an
    integer, the same value (counts: tp, fp)."""
    head = floats[:_SAMPLE]
    if not bool(np.all(np.floor(head) == head)):  # rejected at the cost of a few values
        return False
    return bool(np.all(np.abs(floats) < _EXACT_INTEGER)) and bool(
        np.all(np.floor(floats) == floats)) and not bool(
        np.any((floats == 0) & np.signbit(floats)))


def _arrow_column_text(pa: Any, compute: Any, values: NDArray[Any]) -> Any:
    """One numeric column as a pyarrow ``large_string`` array by pyarrow's cast.

    Narrow floats are formatted as float64 (the values the Python path prints:
    float32's shortest text would read back as a different float64); whole numbers
    as integers (:func:`_whole`). A float column made of runs of equal neighbours (a
    curve's recall takes one value per positive) formats each run once.
    """
    if values.dtype.kind in "iu":
        return compute.cast(numpy_to_arrow(pa, values), pa.large_string())
    floats = np.ascontiguousarray(values, dtype=np.float64)
    n = floats.shape[0]
    if n and _whole(floats):
        return compute.cast(numpy_to_arrow(pa, floats.astype(np.int64)), pa.large_string())
    # Neighbours compared bit for bit: -0.0 and 0.0 are two runs (two texts).
    bits = floats.view(np.int64)
    head = bits[:_SAMPLE]
    if 4 * np.count_nonzero(head[1:] != head[:-1]) > head.shape[0]:  # few ties ahead
        return compute.cast(numpy_to_arrow(pa, floats), pa.large_string())
    new_run = np.empty(n, dtype=bool)
    new_run[:1] = True
    np.not_equal(bits[1:], bits[:-1], out=new_run[1:])
    starts = np.flatnonzero(new_run)
    if 4 * starts.shape[0] > n:
        return compute.cast(numpy_to_arrow(pa, floats), pa.large_string())
    run_text = compute.cast(numpy_to_arrow(pa, floats[starts]), pa.large_string())
    return run_text.take(numpy_to_arrow(pa, np.cumsum(new_run) - 1))
