"""compare_runs and ``prcurve trec ... --compare``: p-values on pytrec_eval's per-query values
equal scipy.stats' and statsmodels' (1e-9); missing queries scored 0 (trec_eval -c); several
runs per system; bad input in one line."""

from __future__ import annotations

import itertools
import json
import math
import warnings
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import pytrec_eval
from scipy import stats
from statsmodels.stats.multitest import multipletests

import prcurve
from prcurve.cli import main
from prcurve.errors import InvalidInputError

TOL = 1e-9
# pytrec_eval name -> prcurve measure
MEASURES = {"map": "AP", "P_10": "P@10", "ndcg": "ndcg", "recip_rank": "RR"}


def collection(seed: int, n_queries: int = 25, n_runs: int = 3, drop: float = 0.0
               ) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """Judgments and runs whose systems differ in quality; scores are multiples of 1/8
    (exact in float32, so pytrec_eval's float32 ranking is prcurve's)."""
    rng = np.random.default_rng(seed)
    qrels = {f"q{q}": {f"d{d}": int(rng.integers(0, 3)) for d in range(30)}
             for q in range(n_queries)}
    runs = []
    for r in range(n_runs):
        run = {}
        for q, judged in qrels.items():
            if rng.random() < drop:
                continue
            noise = rng.integers(0, 16, size=30) / 8.0
            run[q] = {d: float(noise[i] + (0.25 * r + 0.5) * g) for i, (d, g)
                      in enumerate(judged.items())}
        runs.append(run)
    return qrels, runs


def per_query(qrels: dict[str, Any], run: dict[str, Any], measure: str) -> np.ndarray:
    """pytrec_eval's values, judged queries in id order, 0 for those the run lacks (-c)."""
    values = pytrec_eval.RelevanceEvaluator(qrels, set(MEASURES)).evaluate(run)
    return np.array([values[q][measure] if q in values else 0.0 for q in sorted(qrels)])


def same(got: float, want: float) -> bool:
    if math.isnan(want):  # e.g. every difference 0: scipy's NaN, ours too
        return math.isnan(got)
    return abs(got - want) <= TOL * max(1e-3, abs(want))


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize(("test", "correction", "drop"), [
    ("t", "holm", 0.0), ("wilcoxon", "bh", 0.0), ("sign", "bonferroni", 0.1),
    ("t", "none", 0.2)])
def test_p_values_equal_scipy_and_statsmodels_on_pytrec_eval_values(
        seed: int, test: str, correction: str, drop: float) -> None:
    qrels, runs = collection(seed, drop=drop)
    systems = {f"s{i}": run for i, run in enumerate(runs)}
    result = prcurve.compare_runs(qrels, systems, list(MEASURES.values()), test=test,
                                  correction=correction)
    table = result.to_table()
    assert len(table) == len(MEASURES) * 3  # all pairs
    assert np.isfinite(table["p_value"]).sum() >= 6  # RR ties everywhere (NaN); the rest not
    for theirs, ours in MEASURES.items():
        values = {name: per_query(qrels, run, theirs) for name, run in systems.items()}
        rows = [i for i in range(len(table)) if table["measure"][i] == ours]
        raw = []
        for i in rows:
            a, b = values[table["system"][i]], values[table["versus"][i]]
            d = a - b
            with warnings.catch_warnings():  # scipy warns where every difference is 0
                warnings.simplefilter("ignore", RuntimeWarning)
                if not d.any():  # binomtest refuses n = 0; the others give NaN
                    want = math.nan
                elif test == "t":
                    want = stats.ttest_rel(a, b).pvalue
                elif test == "wilcoxon":
                    want = stats.wilcoxon(a, b).pvalue
                else:
                    want = stats.binomtest(int((d > 0).sum()), int((d != 0).sum())).pvalue
            assert same(table["p_value"][i], float(want)), (ours, test)
            assert table["difference"][i] == pytest.approx(d.mean(), abs=1e-12)
            assert table["mean"][i] == pytest.approx(a.mean(), abs=1e-12)
            raw.append(float(want))
        method = {"holm": "holm", "bh": "fdr_bh", "bonferroni": "bonferroni"}.get(correction)
        want_adjusted = np.array(raw)
        known = ~np.isnan(want_adjusted)  # NaN p-values are left out of the family
        if method and known.any():
            want_adjusted[known] = multipletests(want_adjusted[known], method=method)[1]
        for i, want in zip(rows, want_adjusted, strict=True):
            assert same(table["p_adjusted"][i], float(want))
            assert table["significant"][i] == (float(want) < 0.05)


def test_baseline_rows_and_randomization_against_enumeration() -> None:
    qrels, runs = collection(7, n_queries=10)
    systems = {"base": runs[0], "mid": runs[1], "top": runs[2]}
    result = prcurve.compare_runs(qrels, systems, ["AP"], baseline="base",
                                  test="randomization", permutations=2**10)
    table = result.to_table()
    assert table["system"].tolist() == ["base", "mid", "top"]
    assert table["versus"].tolist() == ["", "base", "base"]
    assert math.isnan(table["p_value"][0])
    assert not table["significant"][0]
    base = per_query(qrels, runs[0], "map")
    for row, run in ((1, runs[1]), (2, runs[2])):
        d = per_query(qrels, run, "map") - base
        observed = abs(d.sum())
        extreme = sum(abs(np.dot(signs, d)) >= observed - 1e-12
                      for signs in itertools.product([1, -1], repeat=10))
        assert table["p_value"][row] == pytest.approx(extreme / 1024, abs=1e-15)
    assert result.method == "exact (1024 sign patterns)"


def test_several_runs_per_system_compare_their_mean_per_query() -> None:
    qrels, runs = collection(11, n_runs=4)
    result = prcurve.compare_runs(qrels, {"one": runs[0], "seeds": runs[1:]}, ["AP", "P@10"],
                                  test="t", seed=0)
    for theirs, ours in (("map", "AP"), ("P_10", "P@10")):
        seeds = np.array([per_query(qrels, run, theirs) for run in runs[1:]])
        mean = seeds.mean(axis=0)
        np.testing.assert_allclose(result.per_query[ours][:, 1], mean, atol=1e-12)
        assert result.spread[ours][1] == pytest.approx(seeds.mean(axis=1).std(ddof=1), abs=1e-12)
        assert math.isnan(result.spread[ours][0])
        p = stats.ttest_rel(per_query(qrels, runs[0], theirs), mean).pvalue
        row = next(i for i, m in enumerate(result.to_table()["measure"]) if m == ours)
        assert same(result.to_table()["p_value"][row], float(p))
    assert result.runs_per_system == {"one": 1, "seeds": 3}
    assert "± the standard deviation" in result.to_markdown()


def test_missing_queries_are_scored_zero_and_said_or_refused() -> None:
    qrels, runs = collection(3, n_queries=12)
    short = {q: v for q, v in runs[1].items() if q not in ("q3", "q7")}
    result = prcurve.compare_runs(qrels, {"full": runs[0], "short": short}, ["AP"])
    assert result.missing == {"full": (), "short": ("q3", "q7")}
    ids = result.query_ids.tolist()
    assert result.per_query["AP"][ids.index("q3"), 1] == 0.0
    assert "scored 0 (trec_eval -c): short 2 (q3, q7)" in result.to_text()
    with pytest.raises(InvalidInputError, match="short lacks 2"):
        prcurve.compare_runs(qrels, {"full": runs[0], "short": short}, ["AP"],
                             missing_queries="refuse")


def test_tukey_and_bootstrap_rows() -> None:
    qrels, runs = collection(5, n_queries=30)
    systems = {f"s{i}": run for i, run in enumerate(runs)}
    tukey = prcurve.compare_runs(qrels, systems, ["AP"], test="tukey", permutations=999, seed=0)
    table = tukey.to_table()
    assert (table["p_value"] == table["p_adjusted"]).all()
    assert tukey.correction == "tukey-hsd"
    boot = prcurve.compare_runs(qrels, systems, ["AP"], test="bootstrap", permutations=999,
                                seed=0)
    low, high, d = boot.to_table()["ci_low"], boot.to_table()["ci_high"], boot.to_table()[
        "difference"]
    assert ((low <= d) & (d <= high)).all()


def test_result_displays() -> None:
    qrels, runs = collection(2, n_queries=15)
    result = prcurve.compare_runs(qrels, {"a_b": runs[0], "c": runs[2]}, ["AP"], seed=0)
    assert result.to_latex().startswith("\\begin{tabular}{lr}")
    assert "a\\_b" in result.to_latex()
    assert "<table>" in result._repr_html_()
    assert json.loads(json.dumps(result.to_dict()))["systems"][0]["name"] == "a_b"
    frame = result.to_pandas()
    assert list(frame.columns) == ["measure", "system", "mean", "difference", "ci_low",
                                   "ci_high", "p_value", "p_adjusted", "significant", "versus",
                                   "spread"]
    # the better system of a significant pair carries the other's letter
    table = result.to_table()
    if table["significant"][0]:
        winner = "(a)" if table["difference"][0] > 0 else "(b)"
        line = next(x for x in result.to_markdown().splitlines() if winner in x)
        assert "<sup>" in line


@pytest.mark.parametrize(("kwargs", "argument"), [
    ({"runs": {"only": "RUN"}}, "runs"),
    ({"baseline": "nope"}, "baseline"),
    ({"test": "anova"}, "test"),
    ({"correction": "sidak"}, "correction"),
    ({"permutations": 0}, "permutations"),
    ({"alpha": 1.5}, "alpha"),
    ({"measures": ["relstring@5"]}, "measures"),
    ({"missing_queries": "drop"}, "missing_queries"),
])
def test_bad_input_is_one_line_naming_the_argument(kwargs: dict[str, Any], argument: str) -> None:
    qrels, runs = collection(1, n_queries=5)
    call: dict[str, Any] = {"qrels": qrels, "runs": {"x": runs[0], "y": runs[1]},
                            "measures": ["AP"]}
    call.update(kwargs)
    if call["runs"] == {"only": "RUN"}:
        call["runs"] = {"only": runs[0]}
    with pytest.raises(InvalidInputError) as error:
        prcurve.compare_runs(**call)
    assert error.value.argument == argument
    assert "\n" not in str(error.value)


def test_fewer_than_two_queries_is_refused() -> None:
    qrels = {"q1": {"a": 1}}
    with pytest.raises(InvalidInputError, match="1 query to compare on"):
        prcurve.compare_runs(qrels, {"x": {"q1": {"a": 1.0}}, "y": {"q1": {"b": 1.0}}}, ["AP"])


# -- the command line -------------------------------------------------------------------------


def write_trec(tmp_path: Path, qrels: dict[str, Any], runs: list[dict[str, Any]]) -> list[str]:
    lines = [f"{q} 0 {d} {g}\n" for q, docs in qrels.items() for d, g in docs.items()]
    (tmp_path / "qrels").write_text("".join(lines))
    paths = [str(tmp_path / "qrels")]
    for i, run in enumerate(runs):
        path = tmp_path / f"run{i}"
        path.write_text("".join(f"{q} Q0 {d} 1 {s!r} r{i}\n" for q, docs in run.items()
                                for d, s in docs.items()))
        paths.append(str(path))
    return paths


def test_cli_compare_prints_the_papers_table_and_each_format(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    qrels, runs = collection(4, n_queries=20)
    paths = write_trec(tmp_path, qrels, runs)
    assert main(["trec", *paths, "--compare", "-m", "map", "-m", "P.5,10", "--seed", "0"]) == 0
    out = capsys.readouterr().out
    assert out.splitlines()[0].split() == ["system", "AP", "P@5", "P@10"]
    assert "Systems: a = run0, b = run1, c = run2." in out
    want = prcurve.compare_runs(paths[0], {"run0": paths[1], "run1": paths[2],
                                           "run2": paths[3]}, ["AP", "P@5", "P@10"])
    assert out == want.to_text()
    for fmt in ("markdown", "latex", "csv", "json"):
        assert main(["trec", *paths, "--compare", "--format", fmt, "--baseline", "run0",
                     "--test", "randomization", "--seed", "1", "--permutations", "500"]) == 0
        text = capsys.readouterr().out
        if fmt == "json":
            rows = json.loads(text)["rows"]
            assert [r["system"] for r in rows[:3]] == ["run0", "run1", "run2"]
        elif fmt == "csv":
            assert text.startswith("measure,system,mean,difference,ci_low")
    assert main(["trec", paths[0], f"seeds={paths[1]},{paths[2]}", paths[3], "--compare"]) == 0
    assert "a = seeds (2 runs)" in capsys.readouterr().out


@pytest.mark.parametrize(("extra", "message"), [
    (["--compare"], "--compare needs at least two runs"),
    (["RUN2", "--compare", "--baseline", "nope"], "baseline: 'nope' is not one of the runs"),
    (["RUN2", "--compare", "--test", "z"], "invalid choice"),
    (["RUN2", "--compare", "-m", "relstring@3"], "measures: relstring@3 is text"),
])
def test_cli_bad_input_is_one_line_and_exit_2(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], extra: list[str], message: str
) -> None:
    qrels, runs = collection(6, n_queries=6, n_runs=2)
    paths = write_trec(tmp_path, qrels, runs)
    args = ["trec", paths[0], paths[1]] + [paths[2] if x == "RUN2" else x for x in extra]
    assert main(args) == 2
    err = capsys.readouterr().err
    assert message in err
    assert err.count("\n") == 1


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("test", ["t", "wilcoxon", "sign", "randomization", "bootstrap"])
def test_the_order_of_the_systems_changes_only_the_sign(seed: int, test: str) -> None:
    qrels, runs = collection(20 + seed, n_queries=12, drop=0.1)
    forward = prcurve.compare_runs(qrels, {"x": runs[0], "y": runs[2]}, ["AP", "P@10"],
                                   test=test, permutations=2000, seed=0).to_table()
    backward = prcurve.compare_runs(qrels, {"y": runs[2], "x": runs[0]}, ["AP", "P@10"],
                                    test=test, permutations=2000, seed=0).to_table()
    np.testing.assert_allclose(backward["difference"], -forward["difference"], atol=1e-15)
    np.testing.assert_allclose(backward["p_value"], forward["p_value"], atol=1e-12)
    np.testing.assert_allclose(backward["ci_low"], -forward["ci_high"], atol=1e-12)


def test_default_measures_and_test() -> None:
    qrels, runs = collection(30, n_queries=8, n_runs=2)
    result = prcurve.compare_runs(qrels, {"x": runs[0], "y": runs[1]})
    assert result.measures == ("AP", "ndcg", "P@10")
    assert (result.test, result.correction, result.alpha) == ("t", "holm", 0.05)


def test_a_plain_list_of_runs_is_one_run_per_system(tmp_path: Path) -> None:
    qrels, runs = collection(8, n_queries=10)
    paths = write_trec(tmp_path, qrels, runs)
    by_path = prcurve.compare_runs(paths[0], paths[1:], ["AP"], test="sign")
    assert by_path.systems == ("run0", "run1", "run2")
    by_object = prcurve.compare_runs(qrels, runs[:2], ["AP"], test="sign")
    assert by_object.systems == ("run1", "run2")
    np.testing.assert_array_equal(by_object.to_table()["p_value"][:1],
                                  by_path.to_table()["p_value"][:1])


def test_cli_refuses_different_query_sets_with_same_queries_in_one_line(
        capsys: pytest.CaptureFixture[str]) -> None:
    folder = Path(__file__).parent / "fixtures" / "trec_eval_v10"  # trec_eval's test data
    args = ["trec", str(folder / "qrels.test"), str(folder / "results.test"),
            str(folder / "results.trunc"), "--compare"]
    assert main(args) == 0
    assert "scored 0 (trec_eval -c): results.trunc 1 (302)" in capsys.readouterr().out
    assert main([*args, "--same-queries"]) == 2
    err = capsys.readouterr().err
    assert "results.trunc lacks 1 (302)" in err
    assert err.count("\n") == 1
