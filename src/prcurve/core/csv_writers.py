"""The CSV writers of numeric tables (:meth:`prcurve.core.table.Table.to_csv`): pyarrow's
and polars', which write the same bytes, and the choice between them.

pyarrow's CSV writer formats blocks of rows in a pool of threads; polars' is about
twice as fast per value and is used, when installed (the ``polars`` extra), for large
tables. Both write each float64's shortest round-trip text in pyarrow's spelling, a
whole-number column as integers and a float32 as its float64 value
(docs/definitions.md, docs/benchmarks.md "Curve CSVs").
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Collection, Iterable, Iterator, Mapping, Sequence
from functools import partial
from typing import Any, BinaryIO

import numpy as np
from numpy.typing import NDArray

from prcurve.core.arrow import numpy_to_arrow
from prcurve.errors import InvalidInputError

__all__ = ["CSV_WRITERS", "POLARS_IMPORT_VALUES", "POLARS_MIN_ROWS", "csv_cell", "csv_line",
           "csv_rows", "csv_writer", "numeric_csv", "set_csv_writer"]

_NEEDS_QUOTES = frozenset(',"\r\n')


def csv_cell(text: str) -> str:
    """``text`` as one CSV field: quoted (RFC 4180, a quote doubled) when it holds a comma,
    a quote, a line feed or a carriage return, else as it is. Every CSV prcurve writes
    quotes its names this way; Python's ``csv`` module with ``lineterminator="\\n"``
    leaves a lone carriage return unquoted, which a reader takes for a line end.

    Examples
    --------
    >>> from prcurve.core.csv_writers import csv_cell
    >>> csv_cell("plain"), csv_cell("a,b"), csv_cell('a"b'), csv_cell("a\\rb")
    ('plain', '"a,b"', '"a""b"', '"a\\rb"')
    """
    if _NEEDS_QUOTES.isdisjoint(text):
        return text
    return '"' + text.replace('"', '""') + '"'


def csv_line(cells: Iterable[str]) -> str:
    """One CSV line (no line end) of ``cells``, each through :func:`csv_cell`; a line of
    one empty cell is ``""`` (an empty line would read back as no cell at all)."""
    texts = [csv_cell(cell) for cell in cells]
    return '""' if texts == [""] else ",".join(texts)


def csv_rows(columns: Sequence[Sequence[str]], plain: Sequence[bool]) -> Iterator[str]:
    """The CSV lines (no line ends) of the rows of ``columns`` (each a column's cells as
    text), the same as :func:`csv_line` of each row; a column whose ``plain`` flag is
    set (a number's text: never empty, never a comma, a quote or a line end) is
    written as it is, without a test per cell (a :func:`csv_line` per row took the
    Python writer 1.6x the CPU: docs/benchmarks.md, session 32).

    Examples
    --------
    >>> from prcurve.core.csv_writers import csv_rows
    >>> list(csv_rows([["1", "2"], ["a,b", ""]], [True, False]))
    ['1,"a,b"', '2,']
    >>> list(csv_rows([["", "x"]], [False]))  # one empty cell is a line of its own
    ['""', 'x']
    """
    cells = [column if flag else list(map(csv_cell, column))
             for column, flag in zip(columns, plain, strict=True)]
    if len(cells) == 1 and not plain[0]:
        return ('""' if cell == "" else cell for cell in cells[0])
    return map(",".join, zip(*cells, strict=True))


def numeric_csv(columns: Mapping[str, NDArray[Any]], digits: int | Mapping[str, int] | None,
                *, header: bool = True, not_whole: Collection[str] = (),
                table_rows: int | None = None) -> Callable[[BinaryIO], None] | None:
    """A function writing ``columns`` as CSV (header, then rows) to a binary file, by the
    writer :func:`csv_writer` picks; None when Python's text is written instead: with
    ``digits``, a column that is not numeric, no columns, or no compiled writer.

    For one block of rows of a longer table (:mod:`prcurve.core.curve_csv`), the same
    bytes as that block's lines in the whole table's text: ``header=False`` leaves the
    header out, ``not_whole`` names the columns that are not whole numbers over the whole
    table (written as floats even where this block's values are all whole: ``1e+10``
    rather than ``10000000000``), and ``table_rows`` (the whole table's length) picks the
    writer as for the whole table.

    Examples
    --------
    >>> import io
    >>> import numpy as np
    >>> from prcurve.core.csv_writers import numeric_csv
    >>> write = numeric_csv({"tp": np.array([1.0, 2.0]), "x": np.array([0.5, -0.0])}, None)
    >>> buffer = io.BytesIO()
    >>> write(buffer)
    >>> buffer.getvalue()
    b'tp,x\\n1,0.5\\n2,-0\\n'
    >>> numeric_csv({"x": np.array([0.5])}, digits=2) is None
    True
    """
    writer = _csv_writer_for(columns, digits, table_rows)
    if writer is None:
        return None
    floats = frozenset(i for i, name in enumerate(columns) if name in not_whole)
    if writer[0] == "polars":
        plan = _polars_plan(writer[1], columns, floats)
        polars = (partial(_polars_csv, writer[1], columns, plan) if header else
                  lambda file: _polars_csv(writer[1], columns, plan, file, False))
        if csv_writer() == "polars" or not _respelling_costs_more(plan, len(columns)):
            return polars
    blocks = (_arrow_csv(columns) if header and not floats  # as a whole table
              else _arrow_csv(columns, header, floats))
    if blocks is None:
        return polars if writer[0] == "polars" else None

    def write(file: BinaryIO) -> None:
        for block in blocks:
            file.write(block)  # releases the GIL: the next blocks format meanwhile

    return write


CSV_WRITERS = ("auto", "polars", "pyarrow", "python")
"""The CSV writers :func:`set_csv_writer` and ``PRCURVE_CSV_WRITER`` name."""

POLARS_MIN_ROWS = 1 << 16
"""With ``auto``, numeric tables of this many rows or more are written by polars when it
is installed and already imported; smaller ones by pyarrow (docs/benchmarks.md: polars
writes 2^16 rows in about half pyarrow's time, and breaks even near 2^12)."""

POLARS_IMPORT_VALUES = 1 << 23
"""With ``auto``, a table of this many values (rows times columns) or more imports
polars to write it: importing polars takes about 0.3 s, which writing 2^23 values by
polars rather than pyarrow saves (docs/benchmarks.md)."""

_writer: str | None = None


def set_csv_writer(writer: str | None) -> None:
    """Pick the writer of numeric tables' CSV text for this process; ``None`` restores
    the default (``PRCURVE_CSV_WRITER``, else ``auto``).

    ``auto`` uses polars when it is installed for tables of :data:`POLARS_MIN_ROWS`
    rows or more (of :data:`POLARS_IMPORT_VALUES` values or more when polars is not
    imported yet) unless so many values need respelling that pyarrow would be faster
    (:data:`_COSTS`: values in [1e10, 1e16) mostly), else pyarrow when it is
    installed, else Python; ``polars`` and
    ``pyarrow`` use that library whatever the length (an ImportError when it is not
    installed); ``python`` writes Python's ``repr`` text. Tables with ``digits``, text
    or boolean columns are always written by Python.

    Raises
    ------
    ValueError
        If ``writer`` is not one of :data:`CSV_WRITERS` or None.

    Examples
    --------
    >>> import numpy as np
    >>> from prcurve.core.csv_writers import csv_writer, set_csv_writer
    >>> from prcurve.core.table import Table
    >>> set_csv_writer("python")
    >>> csv_writer(), Table({"x": np.array([1.0])}).to_csv()
    ('python', 'x\\n1.0\\n')
    >>> set_csv_writer(None)  # back to the default
    """
    global _writer
    if writer is not None and writer not in CSV_WRITERS:
        raise ValueError(f"writer must be one of {CSV_WRITERS} or None, got {writer!r}")
    _writer = writer


def csv_writer() -> str:
    """The CSV writer in use: :func:`set_csv_writer`'s, else ``PRCURVE_CSV_WRITER``'s,
    else ``auto``.

    Raises
    ------
    InvalidInputError
        If ``PRCURVE_CSV_WRITER`` names no writer.
    """
    if _writer is not None:
        return _writer
    setting = os.environ.get("PRCURVE_CSV_WRITER", "").strip().lower()
    if not setting:
        return "auto"
    if setting not in CSV_WRITERS:
        raise InvalidInputError(
            "PRCURVE_CSV_WRITER", f"{setting!r} names no CSV writer",
            f"set it to one of {', '.join(CSV_WRITERS)}, or unset it")
    return setting


def _import(name: str, required: bool) -> Any:
    """The module ``name``, or None when it is not installed and not ``required``."""
    import importlib

    try:
        return importlib.import_module(name)
    except ImportError as error:
        if required:
            extra = "polars" if name == "polars" else "report"
            raise ImportError(f"the {name} CSV writer needs {name}: "
                              f"pip install 'prcurve[{extra}]'") from error
        return None


def _csv_writer_for(columns: Mapping[str, NDArray[Any]], digits: int | Mapping[str, int] | None,
                    table_rows: int | None = None) -> tuple[str, Any] | None:
    """``("polars", module)`` or ``("pyarrow", None)`` (pyarrow when :func:`_arrow_csv`
    finds it) for a numeric table written at full precision; None: Python writes it.
    ``table_rows``: the whole table's length, when ``columns`` are a block of it."""
    if digits is not None or not columns or not all(
            values.dtype.kind in "iuf" for values in columns.values()):
        return None
    writer = csv_writer()
    if writer == "python":
        return None
    if writer == "pyarrow":
        _import("pyarrow", required=True)
        return ("pyarrow", None)
    rows = next(iter(columns.values())).shape[0] if table_rows is None else table_rows
    if writer == "polars" or (rows >= POLARS_MIN_ROWS and (
            "polars" in sys.modules or rows * len(columns) >= POLARS_IMPORT_VALUES)):
        polars = _import("polars", required=writer == "polars")
        if polars is not None:
            return ("polars", polars)
    return ("pyarrow", None)


_CSV_BLOCK = 1 << 18
"""Rows written at a time by the fast CSV path (one block's text is about 15 MB)."""

_EXACT_INTEGER = 2.0**53
"""Floats of smaller magnitude that are whole numbers are written as integers."""

def _arrow_csv(columns: Mapping[str, NDArray[Any]], header: bool = True,
               floats: frozenset[int] = frozenset()) -> Iterator[memoryview] | None:
    """Numeric columns as CSV text by pyarrow, a block of rows at a time (the header
    first, unless ``header`` is False); None without pyarrow (the Python path then). The
    header is written as the Python path writes it (:func:`csv_line`: a name quoted where
    it must be). The columns at the indices ``floats`` are never written as integers.

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
    return _arrow_csv_blocks(pa, pa_csv, compute, columns, header, floats)


def _arrow_csv_blocks(pa: Any, pa_csv: Any, compute: Any, columns: Mapping[str, NDArray[Any]],
                      header: bool = True, floats: frozenset[int] = frozenset()
                      ) -> Iterator[memoryview]:
    from collections import deque
    from concurrent.futures import Future, ThreadPoolExecutor

    from prcurve.core.sorting import sort_threads

    if header:
        yield memoryview((csv_line(columns) + "\n").encode("utf-8"))
    rows = next(iter(columns.values())).shape[0]
    options = pa_csv.WriteOptions(include_header=False, quoting_style="none")

    def block(first: int) -> memoryview:
        last = min(first + _CSV_BLOCK, rows)
        table = pa.table({f"c{i}": _arrow_column_text(pa, compute, values[first:last],
                                                      whole=i not in floats)
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
    integer, the same value (counts: tp, fp). ``floats`` is contiguous.

    The first values are looked at first (a column of fractions is rejected at the cost
    of a few), then a cache-sized piece (:data:`_CHECK` values) at a time, on the bits
    (|x| below 2^53 excludes NaN and infinities)."""
    head = floats[:_SAMPLE]
    if not bool(np.all(np.floor(head) == head)):
        return False
    bits = floats.view(np.uint64)
    exact = np.uint64(_BITS[_EXACT_INTEGER])
    for first in range(0, floats.shape[0], _CHECK):
        piece, values = bits[first:first + _CHECK], floats[first:first + _CHECK]
        if not bool(np.all((piece & _MAGNITUDE) < exact)) or bool(
                np.any(np.floor(values) != values)) or bool(np.any(piece == _NEGATIVE_ZERO)):
            return False
    return True


def _arrow_column_text(pa: Any, compute: Any, values: NDArray[Any], whole: bool = True
                       ) -> Any:
    """One numeric column as a pyarrow ``large_string`` array by pyarrow's cast.

    Narrow floats are formatted as float64 (the values the Python path prints:
    float32's shortest text would read back as a different float64); whole numbers
    as integers (:func:`_whole`), unless ``whole`` is False. A float column made of
    runs of equal neighbours (a curve's recall takes one value per positive) formats
    each run once.
    """
    if values.dtype.kind in "iu":
        return compute.cast(numpy_to_arrow(pa, values), pa.large_string())
    floats = np.ascontiguousarray(values, dtype=np.float64)
    n = floats.shape[0]
    if n and whole and _whole(floats):
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


_POLARS_BLOCK = 1 << 12
"""Rows of one block of :func:`_polars_csv`: each float column's blocks are classed
(:func:`_block_kinds`) and written as floats, integers or text."""

_CHECK = 1 << 16
"""Values classed per pass by :func:`_block_kinds` (a cache-sized piece)."""

_WHOLE, _TEXT_WHOLE, _TEXT_SMALL, _TEXT_LARGE = 1, 2, 4, 8
"""A block's kind (:func:`_block_kinds`): 0, written as floats; :data:`_WHOLE`, as
integers; else text, with the bits of the bands to respell (:func:`_arrow_spelling`)."""

_BITS = {bound: int(np.float64(bound).view(np.uint64))
         for bound in (1e-6, 1e-5, 1e10, 1e16, _EXACT_INTEGER, np.inf)}
_NEGATIVE_ZERO = np.float64(-0.0).view(np.uint64)
_MAGNITUDE = np.uint64(0x7FFF_FFFF_FFFF_FFFF)
"""The bits of |x| of a float64's bits (its sign cleared), ordered as |x| is."""


Plan = tuple[Any, list[tuple[int, NDArray[np.uint8]]]]
"""A table made ready for polars (:func:`_polars_plan`): the polars DataFrame, and the
block kinds of each float column that has a band to respell."""

_COSTS = (0.4, 1.0, 3.7)
"""Measured time per value of polars' path relative to pyarrow's, for a value written as
a float or integer, as respelled text, and as respelled text of the band [1e10, 1e16)
(10^6 values, one column: pyarrow 0.2-0.27 s; docs/benchmarks.md)."""


def _respelling_costs_more(plan: Plan, columns: int) -> bool:
    """Whether respelling so many blocks (:func:`_block_kinds`) would make polars'
    path slower than pyarrow's, by the costs of :data:`_COSTS` counted per block."""
    _, classed = plan
    if not classed:
        return False
    blocks = classed[0][1].shape[0] * columns
    text = sum(int(np.count_nonzero(kinds > _WHOLE)) for _, kinds in classed)
    large = sum(int(np.count_nonzero(kinds & _TEXT_LARGE)) for _, kinds in classed)
    plain, costs = blocks - text, _COSTS
    return bool(plain * costs[0] + (text - large) * costs[1] + large * costs[2] > blocks)


def _polars_plan(pl: Any, columns: Mapping[str, NDArray[Any]],
                 floats: frozenset[int] = frozenset()) -> Plan:
    """The columns as a polars DataFrame (``c0``, ``c1``, ...: the header is written
    apart), and the block kinds of the float columns that have a band to respell
    (:func:`_polars_column`, the columns in threads); the columns at the indices
    ``floats`` are never written whole as integers."""
    rows = next(iter(columns.values())).shape[0]
    prepared = _map_columns(partial(_polars_column, pl, not_whole=floats),
                            list(columns.values()), rows)
    classed = [(i, kinds) for i, (_, kinds) in enumerate(prepared)
               if kinds is not None and kinds.any()]
    return pl.DataFrame([column for column, _ in prepared]), classed


def _polars_csv(pl: Any, columns: Mapping[str, NDArray[Any]], plan: Plan, file: Any,
                header: bool = True) -> None:
    """Numeric columns as CSV by polars' writer, the same bytes as :func:`_arrow_csv`'s.

    Both write the shortest round-trip digits of a float64, and mostly spell them
    alike: polars positionally for magnitudes in [1e-5, 1e16), pyarrow in [1e-6, 1e10)
    (its converter's ``decimal_in_shortest`` range, exponents -6 to 9), both with an
    exponent elsewhere (``1e-7``, ``1.5e+300``). They differ in three bands: whole
    numbers below 1e10 (polars ``1.0``, ``-0.0``; pyarrow ``1``, ``-0``), [1e-6, 1e-5)
    and [1e10, 1e16). A whole-number column (:func:`_whole`) is written as integers,
    as by pyarrow; NaN as a null, spelled ``nan``. Every other float column is classed
    a block of :data:`_POLARS_BLOCK` rows at a time (:func:`_block_kinds`): a block
    with none of the three bands is written as floats, a block of whole numbers below
    1e10 as integers, and a block with some as polars' text respelled
    (:func:`_arrow_spelling`); ``plan`` is :func:`_polars_plan`'s. The rows go out in
    runs of blocks of one kind per column, each run written by polars (in threads)
    straight to ``file`` (after the header, unless ``header`` is False).
    """
    if header:
        file.write((csv_line(columns) + "\n").encode("utf-8"))
    rows = next(iter(columns.values())).shape[0]
    frame, classed = plan
    options = {"include_header": False, "quote_style": "never", "null_value": "nan",
               "line_terminator": "\n"}
    if not classed:
        frame.write_csv(file, **options)
        return
    matrix = np.stack([kinds for _, kinds in classed], axis=1)
    change = np.flatnonzero(np.any(matrix[1:] != matrix[:-1], axis=1)) + 1
    starts = np.concatenate([[0], change]).tolist()
    stops = np.concatenate([change, [matrix.shape[0]]]).tolist()
    for start, stop in zip(starts, stops, strict=True):
        first = start * _POLARS_BLOCK
        part = frame.slice(first, min(stop * _POLARS_BLOCK, rows) - first)
        respelled = [(pl.col(f"c{i}").cast(pl.Int64) if kind == _WHOLE
                      else _arrow_spelling(pl, pl.col(f"c{i}"), kind)).alias(f"c{i}")
                     for (i, _), kind in zip(classed, matrix[start].tolist(), strict=True)
                     if kind]
        if respelled:
            part = part.with_columns(respelled)
        part.write_csv(file, **options)


def _polars_column(pl: Any, values: NDArray[Any], index: int,
                   not_whole: frozenset[int] = frozenset()
                   ) -> tuple[Any, NDArray[np.uint8] | None]:
    """Column ``index`` as a polars Series named ``c{index}``, with its blocks' kinds
    when it is written as floats (:func:`_block_kinds`; always when ``index`` is in
    ``not_whole``)."""
    name = f"c{index}"
    if values.dtype.kind in "iu":
        return pl.Series(name, np.ascontiguousarray(
            values, dtype=values.dtype.newbyteorder("="))), None
    floats = np.ascontiguousarray(values, dtype=np.float64)
    whole, kinds = _block_kinds(floats, may_be_whole=index not in not_whole)
    if whole:
        return pl.Series(name, floats.astype(np.int64)), None
    return pl.Series(name, floats, nan_to_null=True), kinds


def _map_columns(work: Any, columns: list[NDArray[Any]], rows: int) -> list[Any]:
    """``work(column, index)`` for each column, in threads for long columns (numpy's
    loops release the GIL), in order."""
    from concurrent.futures import ThreadPoolExecutor

    from prcurve.core.sorting import sort_threads

    threads = min(sort_threads(), len(columns)) if rows >= _CHECK else 1
    if threads <= 1:
        return [work(column, i) for i, column in enumerate(columns)]
    with ThreadPoolExecutor(max_workers=threads) as pool:
        return list(pool.map(work, columns, range(len(columns))))


def _block_kinds(floats: NDArray[np.float64], may_be_whole: bool = True
                 ) -> tuple[bool, NDArray[np.uint8]]:
    """Whether the column is whole numbers (:func:`_whole`, computed alongside), and
    the kind of each block of :data:`_POLARS_BLOCK` values (see :func:`_polars_csv`):
    0 when no value is in a band that pyarrow spells unlike polars; :data:`_WHOLE` when
    every value is NaN or a whole number below 1e10 other than -0.0 (and one is not
    NaN); else the bands present, :data:`_TEXT_WHOLE` (a whole number below 1e10),
    :data:`_TEXT_SMALL` ([1e-6, 1e-5)) and :data:`_TEXT_LARGE` ([1e10, 1e16)).

    A band ``low <= |x| < high`` is tested on the bits ``b`` of |x| (ordered as the
    floats are): ``b - bits(low) < bits(high) - bits(low)`` as unsigned integers (a
    smaller ``b`` wraps around). Classed a cache-sized piece at a time. With
    ``may_be_whole`` False the column is not tested as a whole (a block of a longer
    column that is not).
    """
    n = floats.shape[0]
    kinds = np.zeros(-(-n // _POLARS_BLOCK), dtype=np.uint8)
    bits = floats.view(np.uint64)
    magnitude = np.empty(_CHECK, dtype=np.uint64)
    shifted = np.empty(_CHECK, dtype=np.uint64)
    rounded = np.empty(_CHECK, dtype=np.float64)
    whole = np.empty(_CHECK, dtype=bool)
    flag = np.empty(_CHECK, dtype=bool)
    band = np.empty(_CHECK, dtype=bool)
    low, high = np.uint64(_BITS[1e-6]), np.uint64(_BITS[1e-5])
    ten, large = np.uint64(_BITS[1e10]), np.uint64(_BITS[1e16])
    inf = np.uint64(_BITS[np.inf])
    def per_block(flags: NDArray[np.bool_], reduce: Any) -> NDArray[np.bool_]:
        k = flags.shape[0]
        full = k - k % _POLARS_BLOCK
        out = reduce(flags[:full].reshape(-1, _POLARS_BLOCK), axis=1)
        return out if full == k else np.append(out, reduce(flags[full:]))

    def in_band(m: NDArray[np.uint64], lower: np.uint64, upper: np.uint64,
                out: NDArray[np.bool_]) -> NDArray[np.bool_]:
        np.subtract(m, lower, out=shifted[:m.shape[0]])
        np.less(shifted[:m.shape[0]], upper - lower, out=out)
        return out

    if may_be_whole and _whole(floats):  # written as integers: the blocks need no kinds
        return n > 0, kinds
    for first in range(0, n, _CHECK):
        piece = bits[first:first + _CHECK]
        values = floats[first:first + _CHECK]
        k = piece.shape[0]
        m, w, f, b = magnitude[:k], whole[:k], flag[:k], band[:k]
        np.bitwise_and(piece, _MAGNITUDE, out=m)
        np.floor(values, out=rounded[:k])
        np.equal(rounded[:k], values, out=w)  # whole (NaN: False; inf: True)
        np.less(m, ten, out=f)
        np.logical_and(w, f, out=w)  # whole below 1e10, zeros included
        any_whole = per_block(w, np.any)
        np.logical_or(in_band(m, low, high, f), in_band(m, ten, large, b), out=b)
        any_band = per_block(b, np.any)
        if not (any_whole.any() or any_band.any()):
            continue  # the common piece: floats throughout
        # Integers where every value is whole below 1e10 or NaN, and none is -0.0.
        np.greater(m, inf, out=f)
        np.logical_or(f, w, out=f)
        np.not_equal(piece, _NEGATIVE_ZERO, out=b)
        np.logical_and(f, b, out=f)
        only_whole = per_block(f, np.all) & any_whole
        small = per_block(in_band(m, low, high, f), np.any)
        big = per_block(in_band(m, ten, large, f), np.any)
        at = slice(first // _POLARS_BLOCK, -(-(first + k) // _POLARS_BLOCK))
        kinds[at] = np.where(only_whole & ~small & ~big, _WHOLE,
                             any_whole * _TEXT_WHOLE | small * _TEXT_SMALL | big * _TEXT_LARGE)
    return False, kinds


def _arrow_spelling(pl: Any, column: Any, kind: int) -> Any:
    """A polars expression: a float column as pyarrow's text of each value (null stays
    null), respelling the bands in ``kind`` (:func:`_block_kinds`).

    polars' cast to text is the shortest round-trip text, the same digits as pyarrow's
    and spelled alike outside three bands, which are rewritten: whole numbers below
    1e10 (``1.0`` -> ``1``, ``-0.0`` -> ``-0``: a ``.0`` ending is a whole number's,
    positional only below 1e16), [1e-6, 1e-5) (``1.5e-6`` -> ``0.0000015``) and
    [1e10, 1e16) (``12500000000.5`` -> ``1.25000000005e+10``).
    """
    text = column.cast(pl.String)
    base = text.str.strip_suffix(".0") if kind & _TEXT_WHOLE else text
    if not kind & (_TEXT_SMALL | _TEXT_LARGE):
        return base
    magnitude = column.abs()
    sign = pl.when(column < 0).then(pl.lit("-")).otherwise(pl.lit(""))
    unsigned = text.str.strip_prefix("-")
    chain: Any = pl
    if kind & _TEXT_SMALL:
        small = pl.concat_str([sign, pl.lit("0.00000"), unsigned.str.strip_suffix("e-6")
                               .str.replace(".", "", literal=True)])
        chain = chain.when((magnitude >= 1e-6) & (magnitude < 1e-5)).then(small)
    if kind & _TEXT_LARGE:
        parts = unsigned.str.strip_suffix(".0").str.split_exact(".", 1)
        integral = parts.struct.field("field_0")
        digits = pl.concat_str([integral, parts.struct.field("field_1").fill_null("")]
                               ).str.strip_chars_end("0")
        fraction = pl.when(digits.str.len_bytes() > 1).then(
            pl.concat_str([pl.lit("."), digits.str.slice(1)])).otherwise(pl.lit(""))
        large = pl.concat_str([sign, digits.str.slice(0, 1), fraction, pl.lit("e+"),
                               (integral.str.len_bytes() - 1).cast(pl.String)])
        chain = chain.when((magnitude >= 1e10) & (magnitude < 1e16)).then(large)
    return chain.otherwise(base)
