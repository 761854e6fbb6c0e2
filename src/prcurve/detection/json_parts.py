"""A JSON file's top-level array cut into parts, so that a tree-building parser holds one
part's tree at a time.

orjson parses a document into its own tree (yyjson's) and then builds the Python
objects, so for a moment it holds both: on a 45 MB COCO keypoint results file its peak
is about 100 MB above the standard library's, whose peak is the objects alone. A COCO
results file is one array of records; each record parses the same on its own, so the
array is parsed in parts of a few MB, each part written as an array of its own
(``[`` + the part + ``]``), and the parts' records are joined in order: the same list,
a fraction of the tree. The cuts are the commas between the top-level array's
elements, found by one vectorised scan of the bytes, a window at a time (``WINDOW``
bytes): a quote opens or closes a string unless an odd number of backslashes precedes
it (RFC 8259, section 7); a comma outside every string at depth 1 is a cut.

Any doubt gives ``None`` (the caller parses the file whole): not one array, an
unbalanced bracket, a string left open, bytes after the array, or too few elements.

Examples
--------
>>> from prcurve.detection.json_parts import array_parts
>>> raw = b'[{"a": "x,]"}, [1, 2], 3]'
>>> [raw[start:stop] for start, stop in array_parts(raw, part_bytes=1)]
[b'{"a": "x,]"}', b' [1, 2], 3']
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

__all__ = ["PART_BYTES", "WINDOW", "array_parts"]

PART_BYTES = 1 << 23
"""About how many bytes one part holds (8 MiB: a tree of a few tens of MB)."""

WINDOW = 1 << 22
"""Bytes scanned at once (the scan's own arrays: a few times this)."""

_QUOTE, _BACKSLASH = 0x22, 0x5C
_KIND = np.zeros(256, dtype=np.int8)
_KIND[[0x5B, 0x7B]] = 1  # [ {
_KIND[[0x5D, 0x7D]] = -1  # ] }
_WHITE_SPACE = b" \t\n\r"


def array_parts(raw: bytes | memoryview, part_bytes: int = PART_BYTES,
                window: int = WINDOW) -> list[tuple[int, int]] | None:
    """Byte ranges ``(start, stop)`` of consecutive runs of a top-level JSON array's
    elements, each about ``part_bytes`` long, in order; ``None`` where the bytes are not
    one array that can be cut (module docstring).

    Each range holds whole elements separated by commas, without the commas that
    separate it from its neighbours: ``b"[" + raw[start:stop] + b"]"`` is an array of
    those elements, and the ranges' elements, joined, are the array's. A cut falls
    before an element that is an object or an array (a record), so the scan follows
    brackets and quotes only, never the commas inside records. No range is only white
    space: parsed as parts, a document that is not JSON is refused as it is whole.
    """
    data = np.frombuffer(raw, dtype=np.uint8)
    prefix = bytes(data[:64])
    if not prefix.lstrip(_WHITE_SPACE).startswith(b"["):
        return None
    start = len(prefix) - len(prefix.lstrip(_WHITE_SPACE)) + 1  # after the array's "["
    openings: list[NDArray[np.intp]] = []  # an element's "{" or "[" (depth 1 to 2)
    in_string = False
    depth = 0
    run_before = 0  # the run of backslashes that ends the previous window
    close = -1  # the array's "]"
    for offset in range(0, len(data), window):
        w = data[offset:offset + window]
        quotes = _string_quotes(w, run_before)
        folded = w | 0x20  # "[" and "]" onto "{" and "}"
        marks = np.flatnonzero((folded == 0x7B) | (folded == 0x7D))
        # Outside every string: an even number of string quotes before it in the window
        # (odd when the window starts inside a string).
        marks = marks[(np.searchsorted(quotes, marks) % 2 == 1) == in_string]
        steps = _KIND[w[marks]]
        level = np.cumsum(steps, dtype=np.int64) + depth  # the depth after each bracket
        if len(marks) and (level.min() < 0 or close >= 0):
            return None  # unbalanced, or something after the array's end
        openings.append(offset + marks[(level == 2) & (steps == 1)])
        ends = np.flatnonzero(level == 0)
        if len(ends) > 1:
            return None
        if len(ends):
            close = offset + int(marks[ends[0]])
        if len(level):
            depth = int(level[-1])
        in_string = in_string != (len(quotes) % 2 == 1)
        run_before = _trailing_backslashes(w, run_before)
    if close < 0 or in_string or bytes(data[close + 1:]).strip(_WHITE_SPACE):
        return None
    candidates = np.concatenate(openings)
    at = np.searchsorted(candidates, np.arange(start + part_bytes, close, part_bytes))
    bounds = [start]
    for opening in np.unique(candidates[at[at < len(candidates)]]).tolist():
        # The comma before the element, white space between: the end of a part.
        low = max(opening - 256, bounds[-1])
        before = bytes(data[low:opening]).rstrip(_WHITE_SPACE)
        if before.endswith(b","):
            comma = low + len(before) - 1
            if len(bounds) == 1 and not bytes(data[start:comma]).strip(_WHITE_SPACE):
                # No element before it ("[ ,"): that part would read as "[]", though the
                # whole is not JSON. Every later part holds the element at the cut before.
                continue
            bounds.extend((comma, comma + 1))
    bounds.append(close)
    if len(bounds) == 2:
        return None
    return list(zip(bounds[::2], bounds[1::2], strict=True))


def _string_quotes(w: NDArray[np.uint8], run_before: int) -> NDArray[np.intp]:
    """The quotes of a window that open or close a string: those after an even run of
    backslashes (``run_before``: the run that ends the previous window)."""
    quotes = np.flatnonzero(w == _QUOTE)
    # Only a quote right after a backslash can be escaped (most windows have none).
    after_slash = w[np.maximum(quotes - 1, 0)] == _BACKSLASH
    after_slash[quotes == 0] = run_before > 0
    if not after_slash.any():
        return quotes
    slashes = np.flatnonzero(w == _BACKSLASH)
    if len(slashes) == 0:  # only the previous window's run, before a first quote
        unescaped: NDArray[np.intp] = quotes[(quotes != 0) | (run_before % 2 == 0)]
        return unescaped
    # Each backslash's run so far: its position less that of its run's first backslash.
    first = np.ones(len(slashes), dtype=bool)
    first[1:] = slashes[1:] != slashes[:-1] + 1
    run_start = slashes[np.maximum.accumulate(np.where(first, np.arange(len(slashes)), 0))]
    last = np.searchsorted(slashes, quotes) - 1  # the last backslash before each quote
    run = np.zeros(len(quotes), dtype=np.int64)
    touching = (last >= 0) & (slashes[np.maximum(last, 0)] == quotes - 1)
    ends = np.maximum(last[touching], 0)
    run[touching] = slashes[ends] - run_start[ends] + 1
    run += np.where(quotes - run == 0, run_before, 0)  # a run from the previous window
    kept: NDArray[np.intp] = quotes[run % 2 == 0]
    return kept


def _trailing_backslashes(w: NDArray[np.uint8], run_before: int) -> int:
    """The run of backslashes that ends a window (with the run before it, if the whole
    window is backslashes)."""
    kept = len(bytes(w).rstrip(b"\\"))
    return len(w) - kept + (run_before if kept == 0 else 0)
