"""64-bit keys of identifiers and a vectorised hash index over them.

Ranking evaluation joins a run (query, document, score) with judgments
(query, document, grade). Comparing string ids row by row, or sorting them,
costs far more than the measures; hashing each id once to a ``uint64`` and
looking the keys up in an open-addressing table costs a few passes over
integer arrays; when pyarrow is installed, large columns use its hash tables
(C, one pass); pyarrow columns and lists of Python ids are encoded by it
directly (:mod:`prcurve.ranking.arrow_ids`). Everything here is
exact: integer ids map to keys bijectively, and every caller compares the ids
themselves wherever two string keys are equal (a collision is then detected,
never trusted).
"""

from __future__ import annotations

from typing import Any, TypeVar

import numpy as np
from numpy.typing import NDArray

from prcurve.core.arrow import arrow_values, numpy_to_arrow
from prcurve.core.sorting import part_bounds, parts_for, run_parts
from prcurve.ranking import distinct_keys as _distinct
from prcurve.ranking import key_table as _key_table
from prcurve.ranking import word_groups as _groups
from prcurve.ranking.byte_words import arrow_words as arrow_words
from prcurve.ranking.byte_words import byte_words as byte_words
from prcurve.ranking.hashing import arrow_dictionary, arrow_module
from prcurve.ranking.key_table import KeyTable
from prcurve.ranking.text_numbers import decimal_text_keys

U64 = NDArray[np.uint64]
I64 = NDArray[np.int64]
_Int = TypeVar("_Int", bound=np.integer[Any])

_MULTIPLIER = np.uint64(0x100000001B3)  # FNV-1's 64-bit prime


def id_keys(ids: NDArray[Any]) -> U64:
    """One ``uint64`` per id: equal ids give equal keys.

    Integer ids: a bijection of the value (equal keys mean equal ids).
    Strings (``U`` or ``S``): a polynomial hash of the code units taken from
    the last to the first, so the NUL padding of a wider array adds nothing
    ("d1" hashes alike as U2 and U3); a ``U`` and an ``S`` array of the same
    ASCII ids give the same keys. Different strings may collide.
    """
    with np.errstate(over="ignore"):
        if ids.dtype.kind in "iu":
            return _groups.finalize(ids.astype(np.int64).view(np.uint64))
        ids = np.ascontiguousarray(ids)
        unit = 4 if ids.dtype.kind == "U" else 1
        width = ids.dtype.itemsize // unit
        columns = ids.view(np.uint32 if unit == 4 else np.uint8).reshape(-1, max(width, 1))
        while width > 1 and not columns[:, width - 1].any():  # padding every id leaves alone
            width -= 1
        out = np.zeros(ids.shape[0], dtype=np.uint64)
        for column in range(width - 1, -1, -1):
            out *= _MULTIPLIER
            out += columns[:, column]
        return _groups.finalize(out)


def byte_order(ids: NDArray[Any]) -> NDArray[Any]:
    """Values that sort as trec_eval orders the ids (``strcmp``, byte order):
    text as it is (code point order is UTF-8's byte order); integers as their
    decimal text, as trec_eval reads them from a file ("10" < "9", "-5" < "1").

    Only the ids whose order is needed go through here (a run's tied documents),
    never a whole column: integer ids are otherwise keys as they are.

    Examples
    --------
    >>> ids = np.array([9, 10, 100, 2, -5])
    >>> ids[np.argsort(byte_order(ids), kind="stable")].tolist()
    [-5, 10, 100, 2, 9]
    """
    if ids.dtype.kind in "iu":
        numbers = ids.astype(np.int64)
        keys = decimal_text_keys(numbers)
        # int64's decimal text (at most 20 bytes) where an id has 18 digits or more.
        return numbers.astype("S20") if keys is None else keys
    return ids


def blocks(values: NDArray[Any]) -> tuple[I64, I64]:
    """Start and length of each run of equal neighbouring values."""
    n = values.shape[0]
    if n == 0:
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
    start = np.concatenate(([0], np.flatnonzero(values[1:] != values[:-1]) + 1))
    return start, np.diff(np.append(start, n))


def block_starts(values: NDArray[Any]) -> NDArray[np.intp]:
    """Where each run of equal neighbouring values starts (row 0 first), from one
    comparison of neighbours (``!=``; Python's for objects, so it raises what their
    comparison raises, as ``pd.NA``'s does).

    Examples
    --------
    >>> block_starts(np.array(["q1", "q1", "q2", "q1"])).tolist()
    [0, 2, 3]
    """
    change = np.empty(values.shape[0], dtype=bool)
    change[:1] = True
    np.not_equal(values[1:], values[:-1], out=change[1:])
    return np.flatnonzero(change)


def few_blocks(starts: NDArray[np.intp], n: int) -> bool:
    """Whether ``n`` rows in blocks starting at ``starts`` are worth encoding by their
    blocks' first ids: at most one block per four rows."""
    return 4 * int(starts.shape[0]) <= n


def rows_of_blocks(block_codes: NDArray[Any], starts: NDArray[np.intp], n: int) -> NDArray[Any]:
    """Each of ``n`` rows' code from its block's: the blocks start at ``starts``
    (ascending, the first at row 0) and block ``k`` has code ``block_codes[k]``.

    Examples
    --------
    >>> rows_of_blocks(np.array([7, 3]), np.array([0, 2]), 5).tolist()
    [7, 7, 3, 3, 3]
    """
    return np.repeat(block_codes, np.diff(np.append(starts, n)))


def distinct(keys: NDArray[_Int]) -> NDArray[_Int]:
    """The distinct values, sorted: ``np.sort`` and a neighbour test (no argsort,
    and faster than ``np.unique``'s hashing for the integers met here)."""
    ordered = np.sort(keys)
    if ordered.shape[0] < 2:
        return ordered
    first = np.empty(ordered.shape[0], dtype=bool)
    first[0] = True
    np.not_equal(ordered[1:], ordered[:-1], out=first[1:])
    return ordered[first]


def repeated_pairs(first: I64, second: I64, n_first: int, n_second: int) -> bool:
    """Whether some pair (``first[i]``, ``second[i]``) of codes (below ``n_first`` and
    ``n_second``) appears on two rows. Exact.

    When each ``first`` code's rows form one block (a run grouped by query),
    repeats can only be within a block: each block's ``second`` codes are
    sorted as one row of a matrix (padded with distinct values past the codes),
    small sorts that stay in cache, about twice as fast as one sort of all
    the pairs, the general way, each pair one integer (32 bits when it fits).
    """
    n = first.shape[0]
    if n < 2:
        return False
    start, length = blocks(first)
    widest = int(length.max())
    if (start.shape[0] * widest <= 2 * n + 4096 and n_second + widest < 2**32
            and distinct(first[start]).shape[0] == start.shape[0]):
        if (length == widest).all():
            matrix = second.astype(np.uint32).reshape(-1, widest)
        else:
            block = np.repeat(np.arange(start.shape[0]), length)
            cell = block * widest + (np.arange(n) - start[block])
            padded = np.tile(np.arange(n_second, n_second + widest, dtype=np.uint32),
                             start.shape[0])
            padded[cell] = second
            matrix = padded.reshape(-1, widest)
        return _rows_repeat(matrix)
    width = max(n_second, 1)
    pair: NDArray[np.integer[Any]]
    if n_first * width < 2**32:
        pair = first.astype(np.uint32)
        pair *= np.uint32(width)
        pair += second.astype(np.uint32)
    else:
        pair = first * width + second
    pair.sort()
    return bool((pair[1:] == pair[:-1]).any())


def _rows_repeat(matrix: NDArray[np.uint32]) -> bool:
    """Whether some row of ``matrix`` holds a value twice; sorts the rows in place,
    blocks of rows in threads (``np.sort`` releases the GIL)."""
    rows = part_bounds(matrix.shape[0], parts_for(matrix.size))

    def repeats(k: int) -> bool:
        block = matrix[rows[k]]
        block.sort(axis=1)
        return bool((block[:, 1:] == block[:, :-1]).any())

    if len(rows) == 1:
        return repeats(0)
    from concurrent.futures import ThreadPoolExecutor  # lazily: issue 26

    with ThreadPoolExecutor(max_workers=len(rows)) as pool:
        return any(run_parts(repeats, len(rows), pool))


class Encoded:
    """A column of ids as distinct ``labels`` and each row's index into them.

    ``dense``: known to have a row for every label (no check needed). Text ids
    encoded as words (:func:`encode_words`) carry each label's key, its one word
    or the hash of its ``key_words`` words (``label_keys[i]`` is label i's), which
    :func:`match` reuses instead of hashing the labels again (None when not known),
    and their ``words``: then the labels are made from them only when first asked
    for (:func:`word_labels`, as ``text`` or bytes, cast to ``label_dtype``): the
    join and the tie order need only the words and keys (issue 26, item 5). With
    ``word_rows``, ``words`` are the rows' and label i's are those of row
    ``word_rows[i]``, gathered when asked for (:meth:`label_words`: some labels').
    """

    __slots__ = ("_labels", "_word_rows", "_words", "codes", "dense", "key_words",
                 "label_dtype", "label_keys", "text")
    _words: list[U64] | None
    _word_rows: I64 | None

    def __init__(self, labels: NDArray[Any] | None, codes: I64, dense: bool = False,
                 label_keys: U64 | None = None, key_words: int = 0, *,
                 words: list[U64] | None = None, text: bool = False,
                 label_dtype: np.dtype[Any] | None = None,
                 word_rows: I64 | None = None) -> None:
        if labels is None and words is None:
            raise TypeError("Encoded: give labels or their words")
        self._labels, self.codes, self.dense = labels, codes, dense
        self.label_keys, self.key_words = label_keys, key_words
        self.words = words if labels is None else None  # kept only while labels are not made
        self._word_rows = word_rows if labels is None else None
        self.text, self.label_dtype = text, label_dtype

    @property
    def words(self) -> list[U64] | None:  # the labels' words (None once labels are made)
        if self._word_rows is not None and self._words is not None:
            self._words, self._word_rows = self.label_words(), None  # gathered once
        return self._words

    @words.setter
    def words(self, words: list[U64] | None) -> None:
        self._words, self._word_rows = words, None

    @property
    def has_words(self) -> bool:  # labels not made yet: words (``words`` not None), cheaply
        return self._words is not None

    def label_words(self, index: NDArray[np.integer[Any]] | None = None) -> list[U64]:
        """The words of the labels at ``index`` (all when None), without gathering
        every label's when they are the rows' (``word_rows``); [] without words."""
        rows = self._word_rows if index is None else (
            index if self._word_rows is None else self._word_rows[index])
        return [w if rows is None else w[rows] for w in self._words or []]

    def stored_words(self) -> tuple[list[U64], I64 | None]:
        """The words as kept, and the row of them holding each label's (None: label i's
        are row i): :meth:`label_words` without the gather (a copy of every label's words
        when they are the rows'); ``([], None)`` without words."""
        return self._words or [], self._word_rows

    @property
    def labels(self) -> NDArray[Any]:  # the distinct ids, made from the words on first use
        if self._labels is None:
            labels = word_labels(self.label_words(), text=self.text)
            if self.label_dtype is not None:
                labels = labels.astype(self.label_dtype, copy=False)
            self._labels, self.words = labels, None
        return self._labels

    @property
    def n_labels(self) -> int:  # how many distinct ids (without making the labels)
        if self._words is not None:
            rows = self._word_rows
            return int((self._words[0] if rows is None else rows).shape[0])
        return int(self.labels.shape[0])

    @property
    def label_kind(self) -> str:  # the labels' dtype kind (without making them)
        if self._words is not None:
            return "U" if self.text else "S"
        return str(self.labels.dtype.kind)

    def with_codes(self, codes: I64, dense: bool) -> Encoded:  # same labels, other codes
        return Encoded(self._labels, codes, dense, self.label_keys, self.key_words,
                       words=self._words, text=self.text, label_dtype=self.label_dtype,
                       word_rows=self._word_rows)


def encode(ids: NDArray[Any], *, grouped: bool = False, sort_labels: bool = False) -> Encoded:
    """Dictionary-encode a column of ids (exact, about four passes over the rows).

    ``grouped``: rows usually come in blocks of one id (a run's query column),
    then only the blocks' ids are encoded. ``sort_labels``: labels in id
    order (byte order for strings), so codes compare as the ids do.
    Large text columns are hashed by pyarrow when it is installed (C, one
    pass), as their words (short ids) or their fixed-width bytes.
    """
    n = ids.shape[0]
    if grouped and n > 1:
        # Neighbours compared as they are (strings: one C pass, no words made):
        # the blocks' first ids alone are encoded.
        starts = block_starts(ids)
        if few_blocks(starts, n):
            block_ids = encode(ids[starts], sort_labels=sort_labels)
            return Encoded(block_ids.labels, rows_of_blocks(block_ids.codes, starts, n))
    if 0 < n <= _key_table.SMALL_ROWS and ids.dtype.kind in "SUiu":  # a sort: labels in order
        return Encoded(*_key_table.sorted_codes(ids))
    words = text_words(ids) if n else None
    if words is not None:  # short text ids: exact words, no check against the ids needed
        # Text back as text: the bytes were code points below 256. (A fresh encoding,
        # not dense: encode_words never says so.)
        out = encode_words(words, text=ids.dtype.kind == "U")
        if ids.dtype.kind == "U":  # the labels, when made, as wide as the ids
            out.label_dtype = ids.dtype
        return by_label(out) if sort_labels else out
    if ids.dtype.kind in "SU":
        fixed = _fixed_width_encode(ids)
        if fixed is not None:
            return by_label(fixed) if sort_labels else fixed
    if ids.dtype.kind in "iu" and n >= _distinct.SORT_ROWS:
        out = _integer_encode(ids)
        return by_label(out) if sort_labels else out
    keys = id_keys(ids)
    table_keys = distinct(keys)
    codes = KeyTable(table_keys).find(keys)
    some_row = np.empty(table_keys.shape[0], dtype=np.int64)
    some_row[codes] = np.arange(n)
    labels = ids[some_row]
    if ids.dtype.kind not in "iu" and not np.array_equal(labels[codes], ids):
        labels, inverse = np.unique(ids, return_inverse=True)  # a hash collision: exact
        return Encoded(labels, inverse.astype(np.int64))
    return by_label(Encoded(labels, codes)) if sort_labels else Encoded(labels, codes)


def _integer_encode(ids: NDArray[Any]) -> Encoded:
    """A large column of integer ids encoded by their value (int64's bits: exact keys):
    one sort when mostly distinct (word_groups), else a hash table (:func:`_distinct_codes`);
    not a table of every distinct key (1 GiB, 4.8 s for 9·10^6 ids; session 36)."""
    key = ids.astype(np.int64, copy=False).view(np.uint64)
    if _distinct.mostly_distinct(key):
        groups = _groups.sorted_groups(key, spread=True)
        known, codes = groups.known, groups.codes
    else:
        known, codes = _distinct_codes(key)
    labels = known.view(np.int64).astype(ids.dtype, copy=False)  # the ids' own values
    return Encoded(labels, codes)


# -- pyarrow's hash tables, for large columns -------------------------------------------

def _arrow_dictionary(array: Any, dtype: Any) -> tuple[NDArray[Any], I64]:
    """:func:`arrow_dictionary` of a fixed-width array: the distinct values
    (first-seen order) as numpy ``dtype`` and each row's code. Buffers are read
    directly (``to_numpy`` may import pandas)."""
    dictionary, codes = arrow_dictionary(array)
    return arrow_values(dictionary, np.dtype(dtype)).copy(), codes


def _fixed_width_encode(ids: NDArray[Any]) -> Encoded | None:
    """Text ids hashed by pyarrow as fixed-width binary values: the array's own
    bytes (NUL-padded, so equal bytes mean equal ids), no copy. None when
    pyarrow is missing or the column is short."""
    pa = arrow_module(ids.shape[0])
    if pa is None or ids.dtype.itemsize == 0:
        return None
    ids = np.ascontiguousarray(ids)
    array = pa.Array.from_buffers(pa.binary(ids.dtype.itemsize), ids.shape[0],
                                  [None, pa.py_buffer(ids.view(np.uint8))])
    labels, codes = _arrow_dictionary(array, ids.dtype)
    return Encoded(labels, codes)


def by_label(encoded: Encoded) -> Encoded:
    """The same encoding with its labels in id order (byte order for strings);
    itself when they are in order already (no pass over the rows)."""
    labels = encoded.labels
    if labels.shape[0] < 2 or bool((labels[1:] > labels[:-1]).all()):
        return encoded
    by_id = np.argsort(encoded.labels, kind="stable")
    rank = np.empty(by_id.shape[0], dtype=np.int64)
    rank[by_id] = np.arange(by_id.shape[0])
    return Encoded(encoded.labels[by_id], rank[encoded.codes])


def text_words(ids: NDArray[Any], max_words: int = 4) -> list[U64] | None:
    """The words (:func:`encode_words`) of a text column: bytes (``S``), or
    ``U`` whose characters are all below 256 (one byte each, exact); None for
    other columns, longer ids than ``max_words`` words, or ids that are empty
    or start with NUL.

    Each character is copied into its byte of the word, column by column over
    blocks of rows small enough to stay in cache (one pass over the ids)."""
    if ids.dtype.kind not in "SU":
        return None
    unit = 4 if ids.dtype.kind == "U" else 1
    width = ids.dtype.itemsize // unit
    n_words = (width + 7) // 8
    if width == 0 or n_words > max_words:
        return None
    n = ids.shape[0]
    matrix = np.ascontiguousarray(ids).view(np.uint32 if unit == 4 else np.uint8).reshape(n, width)
    words = [np.zeros(n, dtype=np.uint64) for _ in range(n_words)]
    # Character i of an id is byte i % 8 of word i // 8, counted from the most
    # significant end (big-endian), so that words compare as the ids do.
    targets = [(words[i // 8].view(np.uint8).reshape(n, 8), 7 - i % 8 if np.little_endian
                else i % 8) for i in range(width)]
    step = 1 << 15
    for begin in range(0, n, step):
        block = matrix[begin:begin + step]
        if unit == 4 and int(block.max()) > 255:
            return None
        if not block[:, 0].all():
            return None  # an empty id, or one starting with NUL: the general path
        for i, (target, byte) in enumerate(targets):
            target[begin:begin + step, byte] = block[:, i]
    return words


def match(ids: NDArray[Any], targets: NDArray[Any], known: Encoded | None = None) -> I64:
    """For each id, its index among the distinct ``targets``, or -1 (exact).

    Both arrays must have one kind of id (see ``_common_id_dtype``). ``known``: the
    encoding whose labels ``ids`` are; its label keys, when it has them, are
    reused (the targets' words are keyed the same way), not computed again.
    """
    reused = _reused_keys(ids, targets, known)
    target_keys = id_keys(targets) if reused is None else reused[1]
    if targets.dtype.kind in "iu" or distinct(target_keys).shape[0] == targets.shape[0]:
        found = KeyTable(target_keys).find(id_keys(ids) if reused is None else reused[0])
        if targets.dtype.kind in "iu":
            return found
        rows = np.flatnonzero(found >= 0)
        found[rows[targets[found[rows]] != ids[rows]]] = -1  # equal keys, other ids
        return found
    by_id = np.argsort(targets, kind="stable")  # colliding keys among targets: exact search
    position = np.minimum(np.searchsorted(targets[by_id], ids), targets.shape[0] - 1)
    return np.where(targets[by_id][position] == ids, by_id[position], -1)


def _reused_keys(
    ids: NDArray[Any], targets: NDArray[Any], known: Encoded | None,
) -> tuple[U64, U64] | None:
    """The keys of ``ids`` (``known``'s label keys) and of ``targets`` keyed the same
    way: their words (:func:`text_words`, NUL-padded to as many words as ``known``'s,
    as a wider column would have them: equal ids, equal keys); None when ``known``
    has no keys for ``ids`` or the targets are not such words."""
    if (known is None or known.label_keys is None or known.labels is not ids
            or targets.dtype.kind != ids.dtype.kind or targets.shape[0] == 0):
        return None
    words = text_words(targets)
    if words is None or len(words) > known.key_words:
        return None
    n = targets.shape[0]
    words += [np.zeros(n, dtype=np.uint64) for _ in range(known.key_words - len(words))]
    return known.label_keys, word_key(words)


# -- ids as words: exact integer keys of short byte strings ------------------------------

_SAMPLE = 1 << 20  # rows whose distinct keys seed the table (the rest are looked up)


def _distinct_codes(key: U64) -> tuple[U64, I64]:
    """The distinct keys (in no particular order) and each row's index among them,
    for a column that is short or not mostly distinct (:func:`encode_words` sorts
    the others): pyarrow's hash table for a large column, when installed; otherwise
    the keys of a sample of rows first, then those of the rows not found."""
    pa = arrow_module(key.shape[0])
    if pa is not None:
        return _arrow_dictionary(numpy_to_arrow(pa, key), np.uint64)
    known = distinct(key[:_SAMPLE])
    codes = KeyTable(known).find(key)
    missing = np.flatnonzero(codes < 0)
    if missing.shape[0]:
        known = np.concatenate((known, distinct(key[missing])))
        codes[missing] = KeyTable(known).find(key[missing])
    return known, codes


def word_key(words: list[U64]) -> U64:
    """Each row's key from its words (:func:`encode_words`): the word itself when there
    is one (exact), else a hash of them (:func:`_mix`; equal words, equal keys)."""
    return words[0] if len(words) == 1 else _mix(words)


def _mix(words: list[U64]) -> U64:
    """One 64-bit hash of several words (equal words give equal hashes), computed in
    blocks of rows that stay in cache (:data:`~prcurve.ranking.word_groups.BLOCK_ROWS`;
    each step over a whole column of 10^7 rows was a pass through memory)."""
    n = words[0].shape[0]
    out = np.empty(n, dtype=np.uint64)
    scratch = np.empty(min(n, _groups.BLOCK_ROWS), dtype=np.uint64)  # the shifts'
    with np.errstate(over="ignore"):
        for begin in range(0, n, _groups.BLOCK_ROWS):
            block = out[begin:begin + _groups.BLOCK_ROWS]
            block[...] = words[0][begin:begin + _groups.BLOCK_ROWS]
            _groups.finalize(block, scratch[:block.shape[0]])
            for word in words[1:]:
                block *= _MULTIPLIER
                block ^= word[begin:begin + _groups.BLOCK_ROWS]
                _groups.finalize(block, scratch[:block.shape[0]])
    return out


def word_labels(words: list[U64], *, text: bool = False) -> NDArray[Any]:
    """Byte strings back from their big-endian words (NUL padding dropped); with
    ``text``, as numpy text instead, each byte one character (Latin-1, exact): the
    bytes widened to 32-bit code points and viewed as numpy's ``U`` of the same width,
    one vectorised pass (``np.char.decode`` calls a codec per element: 0.6 us a label,
    6 s for 10^7 labels here, against 0.1 s).

    The words are written once into big-endian storage, whose bytes are then the
    ids' bytes in order; only the columns up to the longest label are kept.

    Examples
    --------
    >>> w = [np.array([0x6431 << 48, 0x61 << 56], dtype=np.uint64)]
    >>> word_labels(w).tolist(), word_labels(w, text=True).tolist()
    ([b'd1', b'a'], ['d1', 'a'])
    """
    n = words[0].shape[0]
    stacked = np.empty((n, len(words)), dtype=">u8")  # big-endian storage: bytes in order
    for k, word in enumerate(words):
        stacked[:, k] = word
    # The longest label: the last non-zero byte of any row (ids hold no NUL), from the
    # OR of each word column (byte i of the OR is non-zero when some row uses it).
    # Not np.char.str_len: importing numpy.char costs a small run's reading (issue 26).
    width = 0
    for k in range(len(words) - 1, -1, -1):
        used = int(np.bitwise_or.reduce(words[k])) if n else 0
        if used:
            width = 8 * k + 8 - ((used & -used).bit_length() - 1) // 8
            break
    width = max(width, 1)
    points = stacked.view(np.uint8).reshape(n, 8 * len(words))[:, :width]
    if text:
        labels: NDArray[Any] = points.astype(np.uint32).view(f"U{width}").reshape(-1)
        return labels
    return np.ascontiguousarray(points).view(f"S{width}").reshape(-1)


def encode_words(words: list[U64], *, grouped: bool = False, text: bool = False) -> Encoded:
    """Dictionary-encode byte-string ids given as words: word k of a row holds
    its bytes 8k..8k+7, big-endian, NUL-padded (ids hold no NUL), so equal
    words mean equal ids and the words compare as the bytes do. One word: the
    word is the key, exact; several: a hash of them, checked against the
    words of each row (a collision falls back to an exact sort).

    ``grouped``: rows usually come in blocks of one id; then only the first
    row of each block is encoded. Labels are bytes (``S``), in no order; with
    ``text``, numpy text of the same characters (:func:`word_labels`).
    """
    n = words[0].shape[0]
    if grouped and n:
        change = np.zeros(n, dtype=bool)
        change[0] = True
        for word in words:
            change[1:] |= word[1:] != word[:-1]
        starts = np.flatnonzero(change)
        if few_blocks(starts, n):
            first = encode_words([w[starts] for w in words], text=text)
            return first.with_codes(rows_of_blocks(first.codes, starts, n), False)
    key = word_key(words)
    if key.shape[0] >= _distinct.SORT_ROWS and _distinct.mostly_distinct(key):
        # Real document ids: one sort, whose groups also check the words (word_groups).
        groups = _groups.sorted_groups(key, spread=len(words) == 1)
        if len(words) == 1 or _groups.same_words(words, groups):
            return Encoded(None, groups.codes, label_keys=groups.known, key_words=len(words),
                           words=[groups.known] if len(words) == 1 else words, text=text,
                           word_rows=None if len(words) == 1 else groups.first_row)
        # Else two ids share a hash (a group holds other words): the exact encoding below.
    else:
        known, codes = _distinct_codes(key)
        if len(words) == 1:
            return Encoded(None, codes, label_keys=known, key_words=1, words=[known], text=text)
        some_row = np.empty(known.shape[0], dtype=np.int64)
        some_row[codes] = np.arange(n)
        if _same_words(words, codes, some_row):
            return Encoded(None, codes, label_keys=known, key_words=len(words),
                           words=[w[some_row] for w in words], text=text)
    stacked = np.stack(words, axis=1)  # a hash collision: encode the word tuples exactly
    labels, inverse = np.unique(stacked, axis=0, return_inverse=True)
    return Encoded(word_labels([labels[:, k] for k in range(len(words))], text=text),
                   inverse.reshape(-1).astype(np.int64))


def _same_words(words: list[U64], codes: I64, some_row: I64) -> bool:
    """Whether every row has the words of ``some_row[code]``, the row that stands for
    its code (so equal codes mean equal ids: no two ids share a hash).

    A row alone with its code is its own stand-in; when most ids are distinct (real
    document ids) only the rows that share their code are compared, about half the
    random reads of comparing every row."""
    n = codes.shape[0]
    if 2 * some_row.shape[0] > n:
        shared = np.flatnonzero(np.bincount(codes, minlength=some_row.shape[0])[codes] > 1)
        stand_in = some_row[codes[shared]]
        return all(np.array_equal(word[stand_in], word[shared]) for word in words)
    return all(np.array_equal(word[some_row][codes], word) for word in words)
