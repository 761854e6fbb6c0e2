"""trec_eval's preference (-R prefs, qrels_prefs) and judgment-group (-R qrels_jg)
measures: against the real trec_eval 10 on random files, a slow readable oracle,
invariants, and the errors (prcurve.ranking.prefs, prcurve.ranking.judgment_groups)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from tests.strategies import FAST, PreferenceCase, preference_cases

from prcurve.cli import main
from prcurve.errors import InvalidInputError
from prcurve.ranking import evaluate
from prcurve.ranking.judgment_groups import JudgmentGroups, read_qrels_jg
from prcurve.ranking.prefs import PREFS_MEASURES, Preferences, prefs_values
from prcurve.ranking.trec_eval import TrecEvalOptions, format_trec_eval

FIXTURES = Path(__file__).parent / "fixtures"
V10 = FIXTURES / "trec_eval_v10"


def random_cases() -> list[dict[str, Any]]:
    path = FIXTURES / "trec_eval_prefs_random" / "cases.jsonl"
    return [json.loads(line) for line in path.read_text().splitlines()]


CASES = random_cases()


def test_random_cases_cover_every_kind() -> None:
    assert len(CASES) == 90
    formats = [c["args"][1] for c in CASES]
    assert {f: formats.count(f) for f in set(formats)} == {
        "prefs": 30, "qrels_prefs": 30, "qrels_jg": 30}
    several = [c for c in CASES if c["args"][1] == "prefs" and " s1 " in c["rel"]]
    assert len(several) >= 10  # groups of several sub-groups: the transitive closure
    assert sum("-c" in c["args"] for c in CASES) >= 20
    # trec_eval 10 prints the judged queries without results under -c -q; 9 does not.
    assert sum(c["expected"] != c["expected_9"] for c in CASES) >= 5


@pytest.mark.parametrize("version", [10, 9])
@pytest.mark.parametrize("case", CASES, ids=lambda c: " ".join(c["args"]))
def test_real_trec_eval_on_random_preferences(
    case: dict[str, Any], version: int, tmp_path: Path,
    capsysbinary: pytest.CaptureFixture[bytes],
) -> None:
    # The C trec_eval's output, 10.0 and 9.0.8
    # (tests/fixtures/trec_eval_prefs_random/generate.py).
    (tmp_path / "rel").write_text(case["rel"])
    (tmp_path / "run").write_text(case["run"])
    code = main(["trec", "--trec-eval-version", str(version), *case["args"],
                 str(tmp_path / "rel"), str(tmp_path / "run")])
    captured = capsysbinary.readouterr()
    assert code == 0, captured.err
    assert captured.out == case["expected" if version == 10 else "expected_9"].encode()


# -- a slow readable oracle, from the definitions (trec_eval's get_prefs.c comment) ---------


def ratio(a: int, b: int) -> float:
    return a / b if b else 0.0


def _oracle(case: PreferenceCase) -> dict[str, dict[str, float]]:
    """Each query's prefs_* values by loops over document pairs: a group of one
    sub-group prefers every line to every line of lower level; one of several
    sub-groups, the transitive closure (Floyd-Warshall) of its sub-groups'
    preferences. A preference a > b is fulfilled when a is retrieved above b, or
    a is retrieved and b is not."""
    out = {}
    for q in sorted({line[0] for line in case.lines}):
        rows = sorted(((d, s) for qq, d, s in case.run if qq == q), key=lambda r: (-r[1], r[0]))
        position = {d: i for i, (d, _) in enumerate(rows)}
        lines = [line for line in case.lines if line[0] == q]
        groups: dict[str, list[tuple[str, str, float]]] = {}
        for _, g, s, d, level in lines:
            groups.setdefault(g, []).append((s, d, level))
        per_group = []
        votes: dict[tuple[str, str], int] = {}
        for g in sorted(groups):
            members = groups[g]
            if len({s for s, _, _ in members}) == 1:
                prefs = [(a, b) for _, a, la in members for _, b, lb in members if la > lb]
            else:
                docs = sorted({d for _, d, _ in members})
                better = {(a, b) for s1, a, la in members for s2, b, lb in members
                          if s1 == s2 and la > lb}
                for k in docs:
                    for i in docs:
                        for j in docs:
                            if (i, k) in better and (k, j) in better:
                                better.add((i, j))
                prefs = sorted((a, b) for a, b in better if a != b)
            kinds = {"ful_ret": 0, "ful_imp": 0, "poss_ret": 0, "poss_imp": 0, "none": 0}
            for a, b in prefs:
                votes[(a, b)] = votes.get((a, b), 0) + 1
                ra, rb = a in position, b in position
                if ra and rb:
                    kinds["poss_ret"] += 1
                    kinds["ful_ret"] += position[a] < position[b]
                elif ra or rb:
                    kinds["poss_imp"] += 1
                    kinds["ful_imp"] += ra
                else:
                    kinds["none"] += 1
            per_group.append(kinds)
        total = {k: sum(g[k] for g in per_group) for k in per_group[0]}

        def mean_over_groups(ful: list[str], poss: list[str],
                             groups: list[dict[str, int]] = per_group) -> float:
            s = sum(ratio(sum(g[k] for k in ful), sum(g[k] for k in poss)) for g in groups)
            return s / len(groups) if s > 0 else 0.0

        pairs = {tuple(sorted(p)) for p in votes}
        shares = {"ret": [], "imp": [], "none": []}
        for a, b in pairs:
            ra, rb = a in position, b in position
            if not (ra or rb):
                shares["none"].append(0.0)
                continue
            top, low = (a, b) if (ra and (not rb or position[a] < position[b])) else (b, a)
            share = votes.get((top, low), 0) / (votes.get((top, low), 0) + votes.get((low, top), 0))
            shares["ret" if ra and rb else "imp"].append(share)
        every = shares["ret"] + shares["imp"] + shares["none"]
        ful, ful_ret = total["ful_ret"] + total["ful_imp"], total["ful_ret"]
        poss_all = total["poss_ret"] + total["poss_imp"] + total["none"]
        out[q] = {
            "prefs_num_prefs_poss": poss_all,
            "prefs_num_prefs_ful": ful,
            "prefs_num_prefs_ful_ret": ful_ret,
            "prefs_simp": ratio(ful, poss_all),
            "prefs_simp_ret": ratio(ful_ret, total["poss_ret"]),
            "prefs_simp_imp": ratio(ful, total["poss_ret"] + total["poss_imp"]),
            "prefs_avgjg": mean_over_groups(["ful_ret", "ful_imp"],
                                            ["poss_ret", "poss_imp", "none"]),
            "prefs_avgjg_ret": mean_over_groups(["ful_ret"], ["poss_ret"]),
            "prefs_avgjg_imp": mean_over_groups(["ful_ret", "ful_imp"], ["poss_ret", "poss_imp"]),
            "prefs_pair": sum(every) / len(every) if every else 0.0,
            "prefs_pair_ret": (sum(shares["ret"]) / len(shares["ret"]) if shares["ret"]
                               else 0.0),
            "prefs_pair_imp": (sum(shares["ret"] + shares["imp"])
                               / len(shares["ret"] + shares["imp"])
                               if shares["ret"] + shares["imp"] else 0.0),
        }
    return out


def _prcurve(case: PreferenceCase, **options: Any) -> dict[str, dict[str, float]]:
    prefs = Preferences.from_arrays(*zip(*case.lines, strict=True))
    run_q, run_d, run_s = (list(c) for c in zip(*case.run, strict=True)) if case.run else (
        [], [], [])
    labels, codes = np.unique(np.array(run_q, dtype="S"), return_inverse=True)
    queries, _, values = prefs_values(
        prefs, labels, codes, np.array(run_d, dtype="S"), np.array(run_s, dtype=float),
        list(PREFS_MEASURES), depth=None, complete=True, **options,
    )
    return {q.decode(): {m: float(values[m][i]) for m in PREFS_MEASURES}
            for i, q in enumerate(queries.tolist())}


@FAST
@given(preference_cases())
def test_prefs_measures_equal_a_slow_oracle(case: PreferenceCase) -> None:
    ours, oracle = _prcurve(case), _oracle(case)
    assert ours.keys() == oracle.keys()
    for q, values in oracle.items():
        for name, value in values.items():
            assert ours[q][name] == pytest.approx(value, abs=1e-12), (q, name)


@FAST
@given(preference_cases())
def test_each_preference_is_fulfilled_by_a_ranking_or_its_reverse(case: PreferenceCase) -> None:
    # Every judged document retrieved, distinct scores: a preference a > b is
    # fulfilled by exactly one of a ranking and its reverse; what is possible does not
    # depend on the run.
    docs = sorted({(q, d) for q, _, _, d, _ in case.lines})
    forward = PreferenceCase(case.lines, [(q, d, float(i)) for i, (q, d) in enumerate(docs)])
    backward = PreferenceCase(case.lines, [(q, d, -float(i)) for i, (q, d) in enumerate(docs)])
    a, b = _prcurve(forward), _prcurve(backward)
    for q in a:
        assert a[q]["prefs_num_prefs_poss"] == b[q]["prefs_num_prefs_poss"]
        assert a[q]["prefs_num_prefs_ful"] + b[q]["prefs_num_prefs_ful"] == (
            a[q]["prefs_num_prefs_poss"])
        assert a[q]["prefs_num_prefs_ful_ret"] == a[q]["prefs_num_prefs_ful"]


# -- the library and its errors -----------------------------------------------------------


def test_format_trec_eval_takes_tables_as_well_as_files() -> None:
    lines = [line.split() for line in (V10 / "prefs.test").read_text().splitlines()]
    prefs = Preferences.from_arrays(*zip(*[(q, g, s, d, float(v)) for q, g, s, d, v in lines],
                                         strict=True))
    options = TrecEvalOptions(measures=("all_prefs",), per_query=True, rel_format="prefs")
    expected = (V10 / "out.test.prefs").read_text()
    assert format_trec_eval(prefs, V10 / "prefs.results.test", options) == expected
    assert format_trec_eval(V10 / "prefs.test", V10 / "prefs.results.test", options) == expected
    groups = read_qrels_jg(V10 / "qrels.123")
    jg = TrecEvalOptions(measures=("qrels_jg",), per_query=True, rel_format="qrels_jg")
    assert format_trec_eval(groups, V10 / "results.test", jg) == (
        V10 / "out.test.qrels_jg").read_text()


def test_one_group_per_query_is_the_ordinary_measure() -> None:
    # qrels_jg with one group per query (the iter field of qrels.test, all 0) gives
    # map, P and Rprec_mult exactly.
    plain = format_trec_eval(V10 / "qrels.test", V10 / "results.test", TrecEvalOptions(
        measures=("map", "P.5,10", "Rprec_mult.0.5,1.0"), per_query=True))
    grouped = format_trec_eval(V10 / "qrels.test", V10 / "results.test", TrecEvalOptions(
        measures=("map_avgjg", "P_avgjg.5,10", "Rprec_mult_avgjg.0.5,1.0"), per_query=True,
        rel_format="qrels_jg"))

    def rows(text: str) -> list[tuple[str, ...]]:
        split = [line.split("\t") for line in text.splitlines()]
        return [(n.rstrip().replace("_avgjg", ""), q, v) for n, q, v in split]

    assert len(grouped.splitlines()) == 5 * 4  # 5 values for each of 3 queries and all
    assert rows(grouped) == rows(plain)


PREF_ERRORS = [
    ("q g s a 2\nq g s b 1\nq g t b 2\nq g t a 1\n", "prefs",
     "documents 'a' and 'b' are each preferred to the other"),
    ("q g s a 2\nq g s a 1\nq g s b 0\n", "prefs", "document 'a' has two levels in one sub-group"),
    ("q g s a 0\nq g t a 1\nq g t b 0\n", "prefs",
     "document 'a' has level 0 in one sub-group and a level > 0"),
    ("q g s a high\n", "prefs", "line 1: level 'high' is not a finite number"),
    ("q g s a\n", "prefs", "line 1: expected 5 fields"),
    ("q 0 a 1\nq 0 a 2\n", "qrels_jg", "document 'a' appears twice for query 'q'"),
    ("z g s a 1\nz g s b 0\n", "prefs", "no query has both results and relevance judgments"),
    ("z 0 a 1\n", "qrels_jg", "no query has both results and relevance judgments"),
]


@pytest.mark.parametrize(("text", "fmt", "message"), PREF_ERRORS)
def test_bad_preferences_are_one_line(
    text: str, fmt: str, message: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "rel").write_text(text)
    (tmp_path / "run").write_text("q Q0 a 1 1.0 R\nq Q0 b 2 0.5 R\n")
    measure = "qrels_jg" if fmt == "qrels_jg" else "all_prefs"
    code = main(["trec", "-R", fmt, "-m", measure, str(tmp_path / "rel"),
                 str(tmp_path / "run")])
    err = capsys.readouterr().err
    assert code == 2
    assert err.count("\n") == 1
    assert message in err
    assert "Traceback" not in err


def test_judged_queries_without_results_are_said(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "rel").write_text("q g s a 1\nq g s b 0\nr g s a 1\nr g s b 0\n")
    (tmp_path / "run").write_text("q Q0 a 1 1.0 R\nq Q0 b 2 0.5 R\n")
    argv = ["trec", "-R", "prefs", "-m", "prefs_simp", str(tmp_path / "rel"),
            str(tmp_path / "run")]
    assert main(argv) == 0
    captured = capsys.readouterr()
    assert captured.out.splitlines()[-1] == "prefs_simp            \tall\t1.0000"
    assert "1 judged query without results left out (r)" in captured.err
    assert main([argv[0], "-c", *argv[1:]]) == 0  # r scores 0 and counts: (1 + 0) / 2
    assert capsys.readouterr().out.splitlines()[-1] == "prefs_simp            \tall\t0.5000"


@FAST
@given(st.lists(st.tuples(st.sampled_from(["1", "2"]), st.sampled_from(["u", "v", "w"]),
                          st.sampled_from([f"d{i}" for i in range(6)]), st.integers(-1, 2)),
                min_size=1, max_size=30, unique_by=lambda r: r[:3]),
       st.lists(st.tuples(st.sampled_from(["1", "2"]), st.sampled_from([f"d{i}" for i in range(8)]),
                          st.integers(0, 3)), min_size=1, max_size=16, unique_by=lambda r: r[:2]),
       st.integers(1, 2))
def test_judgment_groups_average_ordinary_evaluations(
    rows: list[tuple[str, str, str, int]], run_rows: list[tuple[str, str, int]], level: int
) -> None:
    # Each *_avgjg value is the mean over the query's groups of prcurve.ranking.evaluate
    # (checked against pytrec_eval elsewhere) on that group's judgments alone.
    groups = JudgmentGroups.from_arrays(*zip(*rows, strict=True))
    run = {q: {d: float(s) for qq, d, s in run_rows if qq == q} for q, _, _ in run_rows}
    options = TrecEvalOptions(measures=("map_avgjg", "P_avgjg.1,3", "Rprec_mult_avgjg.0.5,1.5"),
                              per_query=True, rel_format="qrels_jg", relevance_level=level)
    common = sorted({q for q, _, _, _ in rows} & set(run))
    if not common:
        with pytest.raises(InvalidInputError, match="no query has both results and relevance"):
            format_trec_eval(groups, run, options)
        return
    got = {}
    for line in format_trec_eval(groups, run, options).splitlines():
        name, query, value = line.split("\t")
        got[(name.rstrip(), query)] = float(value)
    measures = {"map_avgjg": "AP", "P_avgjg_1": "P@1", "P_avgjg_3": "P@3",
                "Rprec_mult_avgjg_0.50": "Rprec_mult@0.5",
                "Rprec_mult_avgjg_1.50": "Rprec_mult@1.5"}
    for query in common:
        per_group = []
        for group in sorted({g for q, g, _, _ in rows if q == query}):
            qrels = {query: {d: r for q, g, d, r in rows if q == query and g == group}}
            result = evaluate(qrels, {query: run[query]}, list(measures.values()),
                              relevance_level=level)
            per_group.append({n: float(result.per_query[m][0]) for n, m in measures.items()})
        for name in measures:
            mean = sum(v[name] for v in per_group) / len(per_group)
            assert got[(name, query)] == pytest.approx(mean, abs=5e-5), (name, query)


def test_version_9_scores_beyond_float32_tie_as_c_floats(tmp_path: Path) -> None:
    # trec_eval 9 keeps scores as C floats: 1e300 and 1e301 both become inf and tie,
    # exactly as two equal finite scores do, and a tie fulfils no preference; trec_eval
    # 10 keeps them apart. No overflow warning (filterwarnings=error) on the
    # preferences path either. Query 1.EC.AB prefers FR940303-1-00022 to FBIS4-39881;
    # the C programs (9.0.7 and 10) print prefs_num_prefs_ful 0 and 1 for this run.
    def run(preferred: str, other: str) -> Path:
        path = tmp_path / f"run{preferred}_{other}"
        path.write_text(f"1.EC.AB Q0 FBIS4-39881 1 {other} r\n"
                        f"1.EC.AB Q0 FR940303-1-00022 2 {preferred} r\n")
        return path

    def output(version: int, preferred: str, other: str) -> str:
        options = TrecEvalOptions(measures=("all_prefs",), per_query=True, rel_format="prefs",
                                  version=version)
        return format_trec_eval(V10 / "prefs.test", run(preferred, other), options)

    beyond = output(9, "1e301", "1e300")
    assert beyond == output(9, "3e38", "3e38")
    assert "prefs_num_prefs_ful   \t1.EC.AB\t0\n" in beyond
    assert "prefs_num_prefs_ful   \t1.EC.AB\t1\n" in output(10, "1e301", "1e300")
