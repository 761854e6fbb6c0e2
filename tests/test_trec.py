"""TREC files and trec_eval parity (prcurve.trec).

Every line that trec_eval 10 and trec_eval 9 print for a measure prcurve
supports must come out byte for byte (tests/fixtures, trec_eval's own test
data; see tests/fixtures/README.md), and per-query values must agree with
pytrec_eval (trec_eval 9 inside) on random runs to 1e-9.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest
import pytrec_eval

from prcurve import InvalidInputError
from prcurve.ranking import evaluate
from prcurve.ranking.tables import parse_qrels, parse_run, read_qrels, read_run
from prcurve.ranking.trec_eval import (
    TREC_MEASURES,
    TrecEvalOptions,
    format_trec_eval,
)

FIXTURES = Path(__file__).parent / "fixtures"
V10 = FIXTURES / "trec_eval_v10"

# (expected output, qrels, run, options) for trec_eval's own tests (its Makefile's quicktest).
CASES = [
    ("out.test", "qrels.test", "results.test", {}),
    ("out.test", "qrels.test.with-comments", "results.test", {}),
    ("out.test.a", "qrels.test", "results.test", {"measures": ("all_trec",)}),
    ("out.test.aq", "qrels.test", "results.test", {"measures": ("all_trec",), "per_query": True}),
    ("out.test.aql", "qrels.rel_level", "results.test",
     {"measures": ("all_trec",), "per_query": True, "relevance_level": 2}),
    ("out.test.aqc", "qrels.test", "results.trunc",
     {"measures": ("all_trec",), "per_query": True, "complete": True}),
    ("out.test.aqcM", "qrels.test", "results.trunc",
     {"measures": ("all_trec",), "per_query": True, "complete": True, "depth": 100}),
    ("out.comment.test", "qrels.comment.test", "results.comment.test", {}),
]
PARAMS = [pytest.param(v, *case, id=f"v{v}-{case[0]}-{case[1]}") for v in (10, 9)
          for case in CASES if (FIXTURES / f"trec_eval_v{v}" / case[0]).exists()]


def supported_names(text: str) -> set[str]:
    """The output names in ``text`` that prcurve computes (trec_eval prints more)."""
    plain = {m.name for m in TREC_MEASURES if m.kind not in ("cut_k", "cut_r")}
    prefixes = tuple(f"{m.name}_" for m in TREC_MEASURES
                     if m.kind in ("cut_k", "cut_r", "mean_r", "param_x"))
    names = {line.split("\t", 1)[0].rstrip() for line in text.splitlines()}
    return {n for n in names if n in plain or n.startswith(prefixes)}


def restricted(text: str, names: set[str]) -> str:
    keep = [line for line in text.splitlines(keepends=True)
            if line.split("\t", 1)[0].rstrip() in names]
    return "".join(keep)


@pytest.mark.parametrize(("version", "expected", "qrels", "run", "options"), PARAMS)
def test_trec_eval_fixture_parity(
    version: int, expected: str, qrels: str, run: str, options: dict[str, Any]
) -> None:
    want = (FIXTURES / f"trec_eval_v{version}" / expected).read_text()
    got = format_trec_eval(V10 / qrels, V10 / run, TrecEvalOptions(version=version, **options))
    names = supported_names(want)
    assert restricted(want, names) == got  # every supported line, in order, byte for byte
    assert supported_names(got) == names
    if options.get("measures") == ("all_trec",):  # all 18 supported measures are covered
        assert len(names) == (1 + 1 + 3 + 1 + 1 + 1 + 1 + 1 + 11 + 9 + 9 + 1 + 9 + 1 + 1 + 1)


def test_trec_eval_measure_parameters() -> None:
    # trec_eval's own meas_params test, restricted to the measures prcurve computes.
    want = (V10 / "out.test.meas_params").read_text()
    options = TrecEvalOptions(
        measures=("iprec_at_recall..10,.20,.25,.75,.50", "P.5,7,3", "recall.20,2000",
                  "11pt_avg..25,.5,.75"),
        per_query=True,
    )
    got = format_trec_eval(V10 / "qrels.test", V10 / "results.test", options)
    assert restricted(want, supported_names(got)) == got
    assert "11pt_avg_.25,.5,.75   \t302\t0.4444\n" in got


def test_versions_differ_only_where_documented() -> None:
    options = {"measures": ("all_trec",), "per_query": True}
    v10 = format_trec_eval(V10 / "qrels.test", V10 / "results.test", TrecEvalOptions(**options))
    v9 = format_trec_eval(V10 / "qrels.test", V10 / "results.test",
                          TrecEvalOptions(version=9, **options))
    changed = {a.split("\t")[0].rstrip() for a, b in zip(v10.splitlines(), v9.splitlines(),
                                                          strict=True) if a != b}
    assert changed
    assert all(n.startswith(("iprec_at_recall", "11pt_avg")) for n in changed)


def test_set_f_parameter_and_set_nickname() -> None:
    got = format_trec_eval(V10 / "qrels.test", V10 / "results.test",
                           TrecEvalOptions(measures=("set", "set_F.0.5")))
    names = [line.split("\t")[0].rstrip() for line in got.splitlines()]
    assert names == ["runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "set_P",
                     "set_recall", "set_F_0.5"]
    # One query, 2 of 4 retrieved relevant, R = 3: P = 1/2, R = 2/3;
    # set_F.x = (x + 1) P R / (x P + R).
    qrels = {"1": {"a": 1, "b": 1, "c": 1}}
    run = {"1": {"a": 4.0, "x": 3.0, "b": 2.0, "y": 1.0}}
    for x, text in ((0.5, "set_F.0.5"), (2.0, "set_F.2"), (1.0, "set_F")):
        line = format_trec_eval(qrels, run, TrecEvalOptions(measures=(text,)))
        value = (x + 1) * 0.5 * (2 / 3) / (x * 0.5 + 2 / 3)
        assert line.endswith(f"\tall\t{value:6.4f}\n")


@pytest.mark.parametrize(
    ("measures", "match"),
    [
        (("ndcg",), "'ndcg' is not computed by prcurve"),
        (("nonsense",), "unknown trec_eval measure 'nonsense'"),
        (("P.0",), "cutoff >= 1"),
        (("P.5,5",), "duplicate cutoffs"),
        (("map.5",), "map takes no parameters"),
        (("iprec_at_recall.2",), r"\[0, 1\]"),
        (("set_F.1,2",), "expected one number"),
    ],
)
def test_bad_trec_measures(measures: tuple[str, ...], match: str) -> None:
    with pytest.raises(InvalidInputError, match=match):
        format_trec_eval(V10 / "qrels.test", V10 / "results.test",
                         TrecEvalOptions(measures=measures))


# -- reading ------------------------------------------------------------------------


def test_read_fixture_files() -> None:
    qrels = read_qrels(V10 / "qrels.test")
    assert len(qrels) == 3681
    assert int((qrels.relevance > 0).sum()) == 561
    with_comments = read_qrels(V10 / "qrels.test.with-comments")
    assert b"CR#93E-1860" in with_comments.doc_id.tolist()
    run = read_run(V10 / "results.trunc")
    assert run.run_id == "STANDARD"
    assert run.score.dtype == np.float64
    assert run.line is not None
    assert run.line[0] == 1


def test_parsing_rules() -> None:
    run = parse_run(
        b"# a comment\n\n  \t\n1 Q0 d#1 9 1.5 r1 extra words\r\n"
        b"   # indented comment\n1\tQ0\td2\t1\t-2e-1\tr2\n2 Q0 d3 1 3 last",
        "mem",
    )
    assert run.query_id.tolist() == [b"1", b"1", b"2"]
    assert run.doc_id.tolist() == [b"d#1", b"d2", b"d3"]
    assert run.score.tolist() == [1.5, -0.2, 3.0]
    assert run.run_id == "last"
    assert run.line is not None
    assert run.line.tolist() == [4, 6, 7]
    qrels = parse_qrels(b"1 0 d#1 2\n1 0 d2 -1\n", "mem")
    assert qrels.relevance.tolist() == [2, -1]


@pytest.mark.parametrize(
    ("qrels", "run", "argument", "match"),
    [
        (b"1 0 a 1\n", b"1 Q0 a 1 0.5 r\n1 Q0 b 2 0.4 r\n1 Q0 a 3 0.3 r\n", "run",
         r"document 'a' appears twice for query '1' \(.*run.txt, line 3\)"),
        (b"1 0 a 1\n# c\n1 0 a 0\n", b"1 Q0 a 1 0.5 r\n", "qrels",
         r"document 'a' appears twice for query '1' \(.*qrels.txt, line 3\)"),
        (b"1 0 a 1\n", b"1 Q0 a 1 0.5\n", "run", r"run.txt, line 1: expected at least 6 fields"),
        (b"1 0 a 1 extra\n", b"1 Q0 a 1 0.5 r\n", "qrels", r"qrels.txt, line 1: expected 4"),
        (b"1 0 a 1\n", b"1 Q0 a 1 0.5 r\n1 Q0 b 2 x r\n", "run",
         r"run.txt, line 2: score 'x' is not a finite number"),
        (b"1 0 a 1\n", b"1 Q0 a 1 nan r\n", "run", r"line 1: score 'nan' is not a finite"),
        (b"1 0 a yes\n", b"1 Q0 a 1 0.5 r\n", "qrels",
         r"qrels.txt, line 1: relevance 'yes' is not an integer"),
        (b"", b"1 Q0 a 1 0.5 r\n", "run", "no query has both results and relevance"),
    ],
)
def test_bad_files(tmp_path: Path, qrels: bytes, run: bytes, argument: str, match: str) -> None:
    (tmp_path / "qrels.txt").write_bytes(qrels)
    (tmp_path / "run.txt").write_bytes(run)
    with pytest.raises(InvalidInputError, match=match) as error:
        evaluate(tmp_path / "qrels.txt", tmp_path / "run.txt", "AP")
    assert error.value.argument == argument


def test_missing_file_is_named(tmp_path: Path) -> None:
    with pytest.raises(InvalidInputError, match=r"cannot read '.*nope'") as error:
        read_run(tmp_path / "nope")
    assert error.value.argument == "run"


# -- pytrec_eval (trec_eval 9 inside) as a differential reference ----------------------------

PYTREC_MEASURES = {"map": "AP", "Rprec": "R-prec", "recip_rank": "RR", "bpref": "bpref",
                   "11pt_avg": "11pt", "set_P": "set_P", "set_recall": "set_R",
                   "set_F": "set_F", "num_ret": "num_ret", "num_rel": "num_rel",
                   "num_rel_ret": "num_rel_ret"}
CUTOFFS = (5, 10, 15, 20, 30, 100)


def random_collection(rng: np.random.Generator) -> tuple[dict[str, Any], dict[str, Any]]:
    qrels: dict[str, dict[str, int]] = {}
    run: dict[str, dict[str, float]] = {}
    for q in range(int(rng.integers(5, 40))):
        docs = list(dict.fromkeys(f"d{rng.integers(0, 80)}" for _ in range(rng.integers(0, 60))))
        if rng.random() < 0.5:  # heavy ties
            scores = rng.integers(0, 5, len(docs)) / 4.0
        else:  # float64 scores, some equal as float32 only
            scores = 1.0 + rng.integers(0, 3, len(docs)) * 2.0**-30 + rng.normal(size=len(docs))
        if docs and rng.random() < 0.9:
            run[f"q{q}"] = {d: float(s) for d, s in zip(docs, scores, strict=True)}
        judged = {f"d{rng.integers(0, 80)}": int(rng.integers(-1, 4))
                  for _ in range(rng.integers(1, 40))}
        if rng.random() < 0.9:
            qrels[f"q{q}"] = judged
    qrels.setdefault("q0", {"d1": 1})
    run.setdefault("q0", {"d1": 0.5})
    return qrels, run


@pytest.mark.parametrize("seed", range(8))
@pytest.mark.parametrize("level", [1, 2])
def test_pytrec_eval_agrees(seed: int, level: int) -> None:
    qrels, run = random_collection(np.random.default_rng(seed))
    wanted = set(PYTREC_MEASURES) | {"P", "recall", "map_cut", "iprec_at_recall"}
    reference = pytrec_eval.RelevanceEvaluator(qrels, wanted, relevance_level=level).evaluate(run)
    ours_measures = [*PYTREC_MEASURES.values(), *(f"{m}@{k}" for m in ("P", "R", "AP")
                                                  for k in CUTOFFS),
                     *(f"iprec@{i / 10!r}" for i in range(11))]
    result = evaluate(qrels, run, ours_measures, relevance_level=level,
                      convention="trec_eval_9", score_precision="float32")
    assert sorted(reference) == result.query_ids.tolist()
    pairs = dict(PYTREC_MEASURES)
    pairs.update({f"P_{k}": f"P@{k}" for k in CUTOFFS})
    pairs.update({f"recall_{k}": f"R@{k}" for k in CUTOFFS})
    pairs.update({f"map_cut_{k}": f"AP@{k}" for k in CUTOFFS})
    pairs.update({f"iprec_at_recall_{i / 10:.2f}": f"iprec@{i / 10!r}" for i in range(11)})
    for theirs, ours in pairs.items():
        want = np.array([reference[q][theirs] for q in result.query_ids.tolist()])
        np.testing.assert_allclose(result.per_query[ours], want, rtol=0, atol=1e-9,
                                   err_msg=theirs)


def random_cases() -> list[dict[str, Any]]:
    import json

    path = FIXTURES / "trec_eval_random" / "cases.jsonl"
    return [json.loads(line) for line in path.read_text().splitlines()]


@pytest.mark.parametrize("case", random_cases(), ids=lambda c: " ".join(c["args"][2:]))
def test_real_trec_eval_10_on_random_collections(case: dict[str, Any], tmp_path: Path) -> None:
    # Outputs of the trec_eval 10 binary on random collections (tests/fixtures/README.md).
    (tmp_path / "qrels").write_text(case["qrels"])
    (tmp_path / "run").write_text(case["run"])
    args = case["args"]
    level = next(int(a[2:]) for a in args if a.startswith("-l"))
    depth = next((int(a[2:]) for a in args if a.startswith("-M")), None)
    options = TrecEvalOptions(measures=("all_trec",), per_query=True, complete="-c" in args,
                              relevance_level=level, depth=depth)
    assert format_trec_eval(tmp_path / "qrels", tmp_path / "run", options) == case["expected"]
