"""A run's document column joined with its judgments while it was read, without a
dictionary of the documents (issue 26, items 4 and 5).

:func:`prcurve.ranking.trec_stream.read_judged_run` reads a large run file in blocks
and keeps, per row, only what trec_eval's evaluation needs of its document id: the
judgment row it matches (the row of the qrels with that query and document, or -1),
and, for the rows whose score ties with another row of their query, the rank of the
document id among them in byte order (trec_eval breaks ties by document id,
descending). The duplicate check (a query listing a document twice) was made, exactly,
while reading. No document is interned: a run of 3·10^6 lines with as many distinct
document ids keeps 8 bytes a row for them instead of a dictionary of 3·10^6 ids.

:class:`RowDocs` is that column: each row its own code (``codes`` is ``0 .. n - 1``),
so that :class:`~prcurve.ranking.Run` and the join treat it as any encoded column;
its labels, each row's document id, are read again from the file when something asks
for them (``Run.doc_id``, another qrels than the one it was joined with).

:class:`BlockQueries` is the same run's query column: one code per block of rows (a
query's lines are together), the rows' codes made on first use (by the join, once
the reading's temporaries are gone: 8 bytes a line less at the peak of reading).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
from numpy.typing import NDArray

from prcurve.ranking.keys import Encoded, rows_of_blocks

__all__ = ["BlockQueries", "RowDocs"]


class RowDocs(Encoded):
    """A run's documents as one code per row, joined with one qrels table.

    ``judged_row[i]``: the row of ``qrels`` judging row i's (query, document), or
    -1. ``rank[i]``: for a row whose score ties with another row of its query (as
    float32, so that trec_eval 9's ties are covered too), the rank of its document id
    in byte order among all such rows of its block of queries (from
    :mod:`~prcurve.ranking.dict_join`: a number that rises with the id within its tie);
    0 elsewhere. Ranks are only ever compared between rows of one tie. ``read_labels`` gives each
    row's document id (bytes), read again from the file.

    Examples
    --------
    >>> docs = RowDocs(3, np.array([0, -1, -1], dtype=np.int32),
    ...                np.zeros(3, dtype=np.int32), None,
    ...                lambda: np.array([b"d1", b"d7", b"d2"]))
    >>> docs.n_labels, docs.codes.tolist(), docs.labels.tolist()
    (3, [0, 1, 2], [b'd1', b'd7', b'd2'])
    """

    __slots__ = ("_n", "_read_labels", "judged_row", "qrels", "rank")

    def __init__(self, n: int, judged_row: NDArray[np.int32], rank: NDArray[np.int32],
                 qrels: Any, read_labels: Callable[[], NDArray[Any]]) -> None:
        # Encoded's fields, set here: its codes are a property (no arange kept).
        self._labels, self.dense, self.label_keys, self.key_words = None, True, None, 0
        self.words, self.text, self.label_dtype = None, False, None
        self._n, self.judged_row, self.rank, self.qrels = n, judged_row, rank, qrels
        self._read_labels = read_labels

    @property  # read-only here: row i is code i, made when asked for
    def codes(self) -> NDArray[np.int64]:  # type: ignore[override]
        return np.arange(self._n, dtype=np.int64)

    @property
    def labels(self) -> NDArray[Any]:  # each row's document id, read on first use
        if self._labels is None:
            self._labels = self._read_labels()
        return self._labels

    @property
    def n_labels(self) -> int:
        return self._n

    def as_run(self, run: Any) -> Any:
        """The same run with its document ids read and encoded (a plain
        :class:`~prcurve.ranking.Run`), to join with other judgments."""
        return type(run)(run._queries, self.labels, run.score, run.run_id, run.source,
                         None, consecutive_lines=True)


class BlockQueries(Encoded):
    """A column whose rows come in blocks of one id each: block ``k`` starts at row
    ``starts[k]`` and has id ``labels[block_codes[k]]``. The labels are kept in id order
    (byte order), so that :func:`~prcurve.ranking.keys.by_label` keeps the column as it
    is; the rows' codes are made when first asked for, and kept.

    Examples
    --------
    >>> queries = BlockQueries(np.array([b"q2", b"q1"]), np.array([0, 1]), np.array([0, 2]), 5)
    >>> queries.labels.tolist(), queries.codes.tolist()
    ([b'q1', b'q2'], [1, 1, 0, 0, 0])
    """

    __slots__ = ("_block_codes", "_n", "_row_codes", "_starts")

    def __init__(self, labels: NDArray[Any], block_codes: NDArray[np.int64],
                 starts: NDArray[Any], n: int) -> None:
        by_id = np.argsort(labels, kind="stable")
        rank = np.empty(by_id.shape[0], dtype=np.int64)
        rank[by_id] = np.arange(by_id.shape[0])
        # Encoded's fields, set here: its codes are a property (made on first use).
        self._labels, self.dense, self.label_keys, self.key_words = labels[by_id], False, None, 0
        self.words, self.text, self.label_dtype = None, False, None
        self._block_codes, self._starts, self._n = rank[block_codes], starts, n
        self._row_codes: NDArray[np.int64] | None = None

    @property  # read-only here: made from the blocks when first asked for
    def codes(self) -> NDArray[np.int64]:  # type: ignore[override]
        if self._row_codes is None:
            self._row_codes = rows_of_blocks(self._block_codes, self._starts, self._n)
        return self._row_codes
