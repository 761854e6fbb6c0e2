"""A small column table: what ``PRCurve.to_table()`` returns.

It formats numbers it is given and computes none: as aligned text (``print``),
Markdown, CSV, HTML for notebooks (``_repr_html_``) or a pandas DataFrame. The
other objects' notebook displays are built from Tables, so they need nothing
above the core.
"""

from __future__ import annotations

import io
import math
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from prcurve.core.csv_writers import csv_line, csv_rows, numeric_csv
from prcurve.core.safe_files import replace_file

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
        import html  # here: its entity table is about 1 ms of a small report (issue 26)

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
        number is never rounded). When every column is numeric, a compiled writer
        formats the numbers and writes the rows, in threads (docs/benchmarks.md, "Curve
        CSVs"): polars (the ``polars`` extra) for large tables, else pyarrow (the
        ``report`` extra); Python's ``repr`` takes about a second per 10^6 rows per
        column. The two writers write the same bytes: a column of whole numbers
        (counts) as integers, a float32 as its float64 value, and every other float in
        pyarrow's spelling, which can differ from ``repr``'s (``1`` for ``1.0``, ``-0``
        for ``-0.0``, ``1e-7`` for ``1e-07``, ``0.00001`` for ``1e-05``, ``1.5e+10``
        for ``15000000000.0``), never its value; ``nan``, ``inf`` and ``-inf`` as
        Python spells them. :func:`prcurve.core.csv_writers.set_csv_writer` (or the
        environment variable ``PRCURVE_CSV_WRITER``) picks the writer.
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
        write = numeric_csv(self._columns, digits)
        if write is not None:
            with io.BytesIO() as buffer:
                write(buffer)
                return str(buffer.getbuffer(), "utf-8")  # no copy of the bytes first
        # A number's text (repr, fixed decimals, nan) needs no quotes (csv_rows' plain).
        numbers = [values.dtype.kind in "biuf" for values in self._columns.values()]
        lines = [csv_line(self._columns), *csv_rows(self._text_columns(digits), numbers)]
        return "\n".join(lines) + "\n"

    def write_csv(self, path: str | Path, digits: int | Mapping[str, int] | None = None
                  ) -> None:
        """Write :meth:`to_csv`'s text to ``path``, a part of the rows at a time when a
        compiled writer writes it (memory is a part's text, not the file's).

        The file is written beside ``path`` and renamed onto it
        (:func:`prcurve.core.safe_files.replace_file`): an existing file or link
        there is replaced, never written through; a folder there is refused.

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
        write = numeric_csv(self._columns, digits)

        def save(temp: Path) -> None:
            with open(temp, "wb") as file:
                if write is None:
                    file.write(self.to_csv(digits).encode("utf-8"))
                else:
                    write(file)

        replace_file(Path(path), save, argument="path")
