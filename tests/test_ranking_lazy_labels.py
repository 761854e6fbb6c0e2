"""Labels of word-encoded ids made on demand (issue 26, item 5): ``evaluate`` joins and
orders ties by the words alone, and its results equal those from the same ids given
as Python objects (encoded by ``pd.factorize``, labels made at once) and from a slow
per-query oracle of the tie order."""

from __future__ import annotations

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from prcurve.ranking import Qrels, Run, evaluate
from prcurve.ranking import key_table as _key_table
from prcurve.ranking import keys as _keys

# Short ids sharing prefixes (words equal but the last), some longer than a word.
IDS = st.text(alphabet=st.sampled_from(["d", "1", "2", "x", "\xe9"]), min_size=1, max_size=12)


@given(docs=st.lists(IDS, min_size=2, max_size=30, unique=True), seed=st.integers(0, 2**16))
def test_evaluate_same_from_words_and_from_objects(docs: list[str], seed: int) -> None:
    rng = np.random.default_rng(seed)
    n = len(docs)
    run_q = np.array(["q1"] * n)
    run_d = np.array(docs)
    scores = rng.integers(0, 3, n).astype(np.float64)  # many ties: ordered by id
    judged = rng.choice(n, size=max(n // 2, 1), replace=False)
    extra = np.array(["zz-not-in-run"])
    qrels_d = np.concatenate((run_d[judged], extra))
    grades = rng.integers(0, 2, qrels_d.shape[0])
    qrels_q = np.array(["q1"] * qrels_d.shape[0])
    original, _key_table.SMALL_ROWS = _key_table.SMALL_ROWS, 0  # the words' path
    try:
        run = Run.from_arrays(run_q, run_d, scores)
    finally:
        _key_table.SMALL_ROWS = original
    lazy = isinstance(run._docs, _keys.Encoded) and run._docs.words is not None
    objects = Run.from_arrays(run_q.astype(object), run_d.astype(object), scores)
    measures = ["AP", "P@5", "AP@3"]
    got = evaluate(Qrels.from_arrays(qrels_q, qrels_d, grades), run, measures)
    want = evaluate(Qrels.from_arrays(qrels_q, qrels_d, grades), objects, measures)
    for m in measures:
        np.testing.assert_array_equal(got.per_query[m], want.per_query[m])
    # A slow oracle of AP: score descending, then document id descending (byte order).
    relevant = {d for d, g in zip(qrels_d.tolist(), grades.tolist(), strict=True) if g >= 1}
    order = sorted(range(n), key=lambda i: (-scores[i], (*(-b for b in docs[i].encode()), 1)))
    hits, total = 0, 0.0
    for rank, i in enumerate(order, 1):
        if docs[i] in relevant:
            hits += 1
            total += hits / rank
    expected = total / len(relevant) if relevant else 0.0
    assert abs(float(got.per_query["AP"][0]) - expected) < 1e-12
    # The labels, made when asked for, are the ids as given (the words made them).
    assert lazy  # short Latin-1 text: encoded as words, and evaluate made no labels
    labels = run._docs.labels
    assert labels[run._docs.codes].tolist() == docs
    assert run._docs.words is None
