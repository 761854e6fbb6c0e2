"""Checks and messages of CSV text from other locales: the delimiter and the decimal mark.

``--delimiter`` (the library's ``delimiter=``) is one character; ``tab`` and ``\\t``
name the tab. ``--decimal`` (``decimal=``) is ``.`` or ``,``. Numbers written with a
decimal comma (``0,93``) read with the default decimal point are text: the messages
here say so and name ``--decimal ,``, rather than ``--drop-invalid`` (which would
skip every such row).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from prcurve.errors import InvalidInputError

__all__ = [
    "DECIMAL_COMMA",
    "check_decimal",
    "check_delimiter",
    "decimal_comma_columns",
    "decimal_comma_scores",
    "looks_like_decimal_commas",
]

DECIMAL_COMMA = re.compile(r"\s*[+-]?(\d+,\d*|\d*,\d+)([eE][+-]?\d+)?\s*")
"""A number written with a decimal comma and no other separator: ``0,93``, ``-1,5e-3``."""

_NAMED = {"tab": "\t", "\\t": "\t", "semicolon": ";", "comma": ",", "space": " ",
          "pipe": "|"}


def check_delimiter(value: str | None) -> str | None:
    """``--delimiter``: one character (or ``tab``, ``\\t``, ``semicolon``, ...); None to sniff.

    Examples
    --------
    >>> from prcurve.validation.csv_text import check_delimiter
    >>> check_delimiter(";"), check_delimiter("tab"), check_delimiter(None)
    (';', '\\t', None)
    """
    if value is None:
        return None
    if not isinstance(value, str):
        raise InvalidInputError("--delimiter", f"expected one character, got {value!r}",
                                "pass the character between fields, e.g. --delimiter ';'")
    character = _NAMED.get(value.lower(), value)
    if len(character) != 1 or character in "\"\r\n":
        raise InvalidInputError(
            "--delimiter", f"expected one character between fields, got {value!r}",
            "pass one character other than a quote or a line break: ',', ';', '|', or "
            "'tab' for a tab")
    return character


def check_decimal(value: str, delimiter: str | None = None) -> str:
    """``--decimal``: ``.`` or ``,``, and not the (given) delimiter.

    Examples
    --------
    >>> from prcurve.validation.csv_text import check_decimal
    >>> check_decimal(","), check_decimal(".")
    (',', '.')
    """
    if value not in (".", ","):
        raise InvalidInputError("--decimal", f"expected '.' or ',', got {value!r}",
                                "pass --decimal , for numbers written 0,93")
    if value == delimiter:
        raise InvalidInputError(
            "--decimal", f"the decimal mark {value!r} is also the --delimiter",
            "files with decimal commas separate fields by ';' or a tab: pass --delimiter ';' "
            "(or leave it out: ';' and tab are found by themselves)")
    return value


def looks_like_decimal_commas(examples: Sequence[Any]) -> bool:
    """Whether the (non-numeric) ``examples`` are numbers written with a decimal comma.

    Examples
    --------
    >>> from prcurve.validation.csv_text import looks_like_decimal_commas
    >>> looks_like_decimal_commas(["0,93", b"1,5"]), looks_like_decimal_commas(["0,93", "n/a"])
    (True, False)
    """
    texts = [e.decode("utf-8", "replace") if isinstance(e, bytes) else e for e in examples]
    return bool(texts) and all(isinstance(t, str) and DECIMAL_COMMA.fullmatch(t)
                               for t in texts)


def _example(values: Sequence[Any]) -> str:
    value = values[0]
    return repr(value.decode("utf-8", "replace") if isinstance(value, bytes) else value)


_FIX = ("these are numbers with a decimal comma: pass --decimal , (decimal=',' in Python) "
        "to read a CSV or TSV file so (other formats must hold them as numbers); "
        "--drop-invalid would skip every such row")


def decimal_comma_scores(column: str, path: str, count: int, rows: Sequence[int],
                         examples: Sequence[Any]) -> InvalidInputError:
    """A score column whose non-numeric values are decimal-comma numbers."""
    where = ", ".join(str(r) for r in rows)
    return InvalidInputError(
        "--score",
        f"column {column!r} of {path!r} has {count} score(s) written with a decimal comma, "
        f"read as text ({_example(examples)}; {'row' if count == 1 else 'first at rows'} "
        f"{where})", _FIX)


def decimal_comma_columns(path: str, columns: Sequence[str],
                          examples: Sequence[Any]) -> InvalidInputError:
    """No numeric column, but ``columns`` hold decimal-comma numbers."""
    names = ", ".join(repr(c) for c in columns)
    verb = "holds" if len(columns) == 1 else "hold"
    return InvalidInputError(
        "--score",
        f"{path!r} has no numeric score column: {names} {verb} numbers written with a "
        f"decimal comma, read as text (e.g. {_example(examples)})", _FIX)
