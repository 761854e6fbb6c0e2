"""compute_many (prcurve.ranking.cutoffs): every measure's values bit for bit those of
kernels.compute on the measure alone, whatever the rankings, cutoffs and conventions
(the oracle: each measure computed by itself, the code trec_eval's tests check)."""

from __future__ import annotations

from typing import Any

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from prcurve.core.undefined import undefined_scope
from prcurve.ranking import Measure
from prcurve.ranking.cutoffs import compute_many
from prcurve.ranking.evaluation import judge
from prcurve.ranking.kernels import compute

CUTOFF_MEASURES = ["P", "R", "relative_P", "success", "AP", "ndcg_cut", "unj"]


@st.composite
def judged_runs(draw: Any) -> tuple[dict[str, dict[str, int]], dict[str, dict[str, float]]]:
    n_queries = draw(st.integers(1, 4))
    qrels: dict[str, dict[str, int]] = {}
    run: dict[str, dict[str, float]] = {}
    for q in range(n_queries):
        docs = draw(st.integers(0 if q else 1, 12))
        qrels[f"q{q}"] = {f"d{d}": draw(st.integers(-1, 3)) for d in range(docs)}
        retrieved = draw(st.integers(0 if q else 1, 15))
        run[f"q{q}"] = {f"d{d}": float(draw(st.integers(0, 5))) for d in range(retrieved)}
    return qrels, run


@given(data=judged_runs(),
       ks=st.lists(st.integers(1, 20), min_size=1, max_size=5, unique=True),
       levels=st.lists(st.sampled_from([0.0, 0.1, 0.25, 0.5, 0.9, 1.0]), min_size=1,
                       max_size=4, unique=True),
       multiples=st.lists(st.sampled_from([0.2, 0.5, 1.0, 1.4, 3.0]), min_size=1, max_size=3,
                          unique=True),
       convention=st.sampled_from(["trec_eval_10", "trec_eval_9"]),
       judged_only=st.booleans(), depth=st.sampled_from([None, 3]))
def test_batched_cutoffs_equal_each_measure_alone(
    data: tuple[dict[str, dict[str, int]], dict[str, dict[str, float]]], ks: list[int],
    levels: list[float], multiples: list[float], convention: str, judged_only: bool,
    depth: int | None,
) -> None:
    qrels, run = data
    rankings = judge(qrels, run, judged_only=judged_only, depth=depth,
                     queries_without_results="zero")._prepared.rankings
    measures = [Measure(name, k) for name in CUTOFF_MEASURES for k in ks]
    measures += [Measure("AP"), Measure("gm_AP"), Measure("bpref"), Measure("ndcg")]
    measures += [Measure("iprec", level) for level in levels]
    measures += [Measure("Rprec_mult", m) for m in multiples]
    with undefined_scope(0):
        together = compute_many(measures, rankings, convention, trec_raw=True)
        assert set(together) == set(measures)
        for m in measures:
            alone = compute(m, rankings, convention, trec_raw=True)
            assert together[m].dtype == alone.dtype
            assert together[m].view(np.int64).tolist() == alone.view(np.int64).tolist(), m
