"""A small column table: what ``PRCurve.to_table()`` returns.

Presentation only: it formats numbers it is given and computes none.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import numpy as np
from numpy.typing import NDArray

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
        return f"Table({len(self)} rows, columns={self.columns})"

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
        if places is None or values.dtype.kind != "f":
            return list(map(repr, items))
        fixed = f"{{:.{places}f}}".format
        return ["nan" if math.isnan(x) else fixed(x) for x in items]

    def _text_columns(self, digits: int | Mapping[str, int] | None) -> list[list[str]]:
        return [self._column_text(name, values, digits) for name, values in self._columns.items()]

    def to_markdown(self, digits: int | Mapping[str, int] | None = None) -> str:
        """A Markdown table with centred columns (seed 000's layout).

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
        """Comma-separated text with a header row; full precision (``repr``) by default.

        Built column by column: a million rows take about a second.
        """
        lines = [",".join(self._columns)]
        lines.extend(",".join(row) for row in zip(*self._text_columns(digits), strict=True))
        return "\n".join(lines) + "\n"
