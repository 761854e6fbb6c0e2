"""TREC files and trec_eval parity (prcurve.ranking.trec_eval, trec_format, trec_reader, tables).

References, each independent of prcurve:

- trec_eval's own test data (tests/fixtures/trec_eval_v10 and _v9; see
  tests/fixtures/README.md): every line of every expected output, byte for byte;
- outputs of the real trec_eval 10 and 9 binaries on random collections with
  every option (tests/fixtures/trec_eval_random/cases.jsonl, written by
  generate.py beside it, which says how);
- pytrec_eval (trec_eval 9 inside), live, for every measure it computes, to
  1e-9 on random runs with ties and graded judgments;
- ranx's nDCG on runs without ties.
"""

from __future__ import annotations

import bz2
import gzip
import json
import lzma
import math
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import pytrec_eval
from hypothesis import given, settings
from hypothesis import strategies as st

from prcurve import InvalidInputError
from prcurve.cli import main
from prcurve.ranking import evaluate
from prcurve.ranking.kernels import geometric_terms
from prcurve.ranking.tables import parse_qrels, parse_run, read_qrels, read_run
from prcurve.ranking.trec_eval import TREC_MEASURES, TrecEvalOptions, format_trec_eval

FIXTURES = Path(__file__).parent / "fixtures"
V10 = FIXTURES / "trec_eval_v10"

MEAS_PARAMS = ("iprec_at_recall..10,.20,.25,.75,.50", "P.5,7,3", "recall.20,2000",
               "Rprec_mult.5.0,0.2,0.35", "utility.2,-1,0,0", "11pt_avg..25,.5,.75",
               "ndcg.1=3,2=9,4=4.5", "ndcg_cut.10,20,23.4", "success.2,5,20")

# (expected output, qrels, run, options): trec_eval's own tests (its Makefile's quicktest).
CASES = [
    ("out.test", "qrels.test", "results.test", {}),
    ("out.test", "qrels.test.with-comments", "results.test", {}),
    ("out.test.a", "qrels.test", "results.test", {"measures": ("all_trec",)}),
    ("out.test.aq", "qrels.test", "results.test", {"measures": ("all_trec",), "per_query": True}),
    ("out.test.aql", "qrels.rel_level", "results.test",
     {"measures": ("all_trec", "relstring.20"), "per_query": True, "relevance_level": 2}),
    ("out.test.aqc", "qrels.test", "results.trunc",
     {"measures": ("all_trec",), "per_query": True, "complete": True}),
    ("out.test.aqcM", "qrels.test", "results.trunc",
     {"measures": ("all_trec",), "per_query": True, "complete": True, "depth": 100}),
    ("out.comment.test", "qrels.comment.test", "results.comment.test", {}),
    ("out.test.meas_params", "qrels.test", "results.test",
     {"measures": MEAS_PARAMS, "per_query": True}),
]
PARAMS = [pytest.param(v, *case, id=f"v{v}-{case[0]}-{case[1]}") for v in (10, 9)
          for case in CASES if (FIXTURES / f"trec_eval_v{v}" / case[0]).exists()]


@pytest.mark.parametrize(("version", "expected", "qrels", "run", "options"), PARAMS)
def test_trec_eval_fixture_parity(
    version: int, expected: str, qrels: str, run: str, options: dict[str, Any]
) -> None:
    want = (FIXTURES / f"trec_eval_v{version}" / expected).read_text()
    got = format_trec_eval(V10 / qrels, V10 / run, TrecEvalOptions(version=version, **options))
    assert got == want  # every line, every measure, byte for byte


def test_all_trec_prints_every_measure_of_trec_eval() -> None:
    # trec_eval 10's all_trec: 37 measures, 188 more lines than the official ones.
    got = format_trec_eval(V10 / "qrels.test", V10 / "results.test",
                           TrecEvalOptions(measures=("all_trec",)))
    names = {line.split("\t")[0].rstrip() for line in got.splitlines()}
    roots = {m.name for m in TREC_MEASURES if m.rel_format != "prefs"
             and m.rel_format != "qrels_jg"} - {"dcg", "ideal_dcg", "yaap", "relstring"}
    assert all(any(n == r or n.startswith(r + "_") for n in names) for r in roots)
    assert len(got.splitlines()) == len((V10 / "out.test.a").read_text().splitlines())


def random_cases() -> list[dict[str, Any]]:
    path = FIXTURES / "trec_eval_random" / "cases.jsonl"
    return [json.loads(line) for line in path.read_text().splitlines()]


def _kept(text: bytes, ignore: list[str]) -> bytes:
    def keep(line: bytes) -> bool:
        name = line.split(b"\t", 1)[0].rstrip().decode()
        return not any(name == m or (name.startswith(m + "_") and m == "rbp"
                                     and not name.startswith("rbp_resid")) for m in ignore)
    return b"".join(line for line in text.splitlines(keepends=True) if keep(line))


@pytest.mark.parametrize("case", random_cases(),
                         ids=lambda c: f"v{c['version']} " + " ".join(c["args"]))
def test_real_trec_eval_on_random_collections(
    case: dict[str, Any], tmp_path: Path, capsysbinary: pytest.CaptureFixture[bytes]
) -> None:
    # The output of the C trec_eval (10 or 9) on random collections, every option
    # (tests/fixtures/trec_eval_random/generate.py wrote them); through the CLI.
    assert_c_output(case, tmp_path, capsysbinary)


def assert_c_output(case: dict[str, Any], tmp_path: Path,
                    capsysbinary: pytest.CaptureFixture[bytes],
                    qrels: Callable[[bytes], bytes] = lambda text: text) -> None:
    """``prcurve trec`` on one random collection prints what the C program printed
    (the lines of measures it ignores left out); ``qrels`` rewrites the qrels file
    first (the same judgments in another order)."""
    for name in ("qrels", "run", "zscores"):
        text = case[name].encode("utf-8", "surrogateescape")
        (tmp_path / name).write_bytes(qrels(text) if name == "qrels" else text)
    args = [str(tmp_path / "zscores") if a == "ZSCORES" else a for a in case["args"]]
    code = main(["trec", "--trec-eval-version", str(case["version"]), *args,
                 str(tmp_path / "qrels"), str(tmp_path / "run")])
    captured = capsysbinary.readouterr()
    assert code == 0, captured.err
    expected = case["expected"].encode("utf-8", "surrogateescape")
    assert _kept(captured.out, case["ignore"]) == _kept(expected, case["ignore"])


def test_versions_differ_only_where_documented() -> None:
    options = {"measures": ("all_trec",), "per_query": True}
    v10 = format_trec_eval(V10 / "qrels.test", V10 / "results.test", TrecEvalOptions(**options))
    v9 = format_trec_eval(V10 / "qrels.test", V10 / "results.test",
                          TrecEvalOptions(version=9, **options))
    only_10 = ("rbp", "unj")  # measures trec_eval 9 does not have
    common = [line for line in v10.splitlines() if not line.startswith(only_10)]
    changed = {a.split("\t")[0].rstrip() for a, b in zip(common, v9.splitlines(), strict=True)
               if a != b}
    assert changed
    assert all(n.startswith(("iprec_at_recall", "11pt_avg")) for n in changed)


def test_set_f_parameter_and_set_nickname() -> None:
    got = format_trec_eval(V10 / "qrels.test", V10 / "results.test",
                           TrecEvalOptions(measures=("set", "set_F.0.5")))
    names = [line.split("\t")[0].rstrip() for line in got.splitlines()]
    assert names == ["runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "utility", "set_P",
                     "set_relative_P", "set_recall", "set_map", "set_F_0.5"]
    # One query, 2 of 4 retrieved relevant, R = 3: P = 1/2, R = 2/3;
    # set_F.x = (x + 1) P R / (x P + R).
    qrels = {"1": {"a": 1, "b": 1, "c": 1}}
    run = {"1": {"a": 4.0, "x": 3.0, "b": 2.0, "y": 1.0}}
    for x, text in ((0.5, "set_F.0.5"), (2.0, "set_F.2"), (1.0, "set_F")):
        line = format_trec_eval(qrels, run, TrecEvalOptions(measures=(text,)))
        value = (x + 1) * 0.5 * (2 / 3) / (x * 0.5 + 2 / 3)
        assert line.endswith(f"\tall\t{value:6.4f}\n")


def test_parameters_are_read_as_trec_eval_reads_them() -> None:
    # atol/atof: "23.4" is the cutoff 23, ".5" the level 0.5; names keep the text.
    got = format_trec_eval({"1": {"a": 2, "b": 1}}, {"1": {"a": 0.5, "b": 0.9}},
                           TrecEvalOptions(measures=("ndcg_cut.23.4,1", "ndcg.1=3,2=1",
                                                     "rbp.p=0.5", "relstring.1")))
    assert [line.split("\t")[0].rstrip() for line in got.splitlines()] == [
        "ndcg_1=3,2=1", "ndcg_cut_1", "ndcg_cut_23", "rbp_p=0.5"]
    # ndcg.1=3,2=1: b (gain 3) then a (gain 1), the ideal order: 1.
    assert f"{'ndcg_1=3,2=1':<22}\tall\t1.0000" in got
    # rbp, p = 0.5: gains 0..2 rescaled to [0, 1]: (1 - p) (0.5 + 1 * 0.5) = 0.5.
    assert f"{'rbp_p=0.5':<22}\tall\t0.5000" in got


def test_dcg_ideal_dcg_and_ndcg_share_parameters() -> None:
    # trec_eval 10's three share one parameter structure (m_ndcg.c): ndcg without
    # parameters of its own takes those of ideal_dcg, initialised before it.
    got = format_trec_eval({"1": {"a": 2, "b": 1}}, {"1": {"a": 0.5, "b": 0.9}},
                           TrecEvalOptions(measures=("ideal_dcg.1=5", "ndcg")))
    assert [line.split("\t")[0].rstrip() for line in got.splitlines()] == [
        "ideal_dcg_1=5", "ndcg_1=5"]



def test_dcg_before_gains_of_ndcg_keeps_the_default_gains() -> None:
    # trec_eval 10 segfaults on -m dcg -m ndcg.1=2,2=5 (docs/ranking.md); prcurve
    # prints each line as trec_eval prints it for that measure alone.
    qrels, run = {"1": {"a": 2, "b": 1}}, {"1": {"a": 0.5, "b": 0.9}}
    both = format_trec_eval(qrels, run, TrecEvalOptions(measures=("dcg", "ndcg.1=2,2=5")))
    alone = [format_trec_eval(qrels, run, TrecEvalOptions(measures=(m,)))
             for m in ("dcg", "ndcg.1=2,2=5")]
    assert both == "".join(alone)
    # dcg, default gains (the grades): b (1) at rank 1, a (2) at rank 2.
    assert f"{'dcg':<22}\tall\t{1 + 2 / np.log2(3):6.4f}" in both


def test_summary_and_zscores() -> None:
    qrels = {"1": {"a": 1}, "2": {"b": 1}}
    run = {"1": {"a": 0.5, "x": 0.9}, "2": {"b": 0.5}}
    quiet = format_trec_eval(qrels, run, TrecEvalOptions(measures=("map",), per_query=True,
                                                         summary=False))
    assert quiet == "map                   \t1\t0.5000\nmap                   \t2\t1.0000\n"
    # z = (value - mean) / stddev; stddev 0 and value = mean: 0; missing: -1000000.
    z = format_trec_eval(qrels, run, TrecEvalOptions(
        measures=("map", "num_ret"), per_query=True,
        zscores={("1", "map"): (0.25, 0.5), ("2", "map"): (1.0, 0.0), ("1", "num_ret"): (1, 2)}))
    assert z.splitlines() == [
        "Znum_ret               \t1\t0.5000",
        "Zmap                   \t1\t0.5000",
        "Znum_ret               \t2\t-1000000.0000",
        "Zmap                   \t2\t0.0000",
        "Znum_ret               \tall\t-999999.5000",
        "Zmap                   \tall\t0.2500",
    ]


@pytest.mark.parametrize(
    ("options", "argument", "match"),
    [
        ({"measures": ("prefs_simp",)}, "measures",
         r"'prefs_simp' needs -R prefs or qrels_prefs input \(found -R qrels\)"),
        ({"measures": ("map",), "rel_format": "prefs"}, "measures",
         r"'map' needs -R qrels input \(found -R prefs\)"),
        ({"measures": ("P_avgjg",), "rel_format": "qrels_prefs"}, "measures",
         r"'P_avgjg' needs -R qrels_jg input"),
        ({"measures": ("nonsense",)}, "measures", "unknown trec_eval measure 'nonsense'"),
        ({"measures": ("rbp",), "version": 9}, "measures", "trec_eval 9 has no measure 'rbp'"),
        ({"measures": ("P.0",)}, "measures", "not a positive integer"),
        ({"measures": ("P.5,5",)}, "measures", "duplicate cutoffs"),
        ({"measures": ("map.5",)}, "measures", "map takes no parameters"),
        ({"measures": ("P.",)}, "measures", "empty parameters"),
        ({"measures": ("iprec_at_recall.2",)}, "measures", r"\[0, 1\]"),
        ({"measures": ("set_F.1,2",)}, "measures", "expected one number"),
        ({"measures": ("utility.1,2",)}, "measures", "expected 4 coefficients"),
        ({"measures": ("ndcg.p=2",)}, "measures", "ndcg has no parameter 'p'"),
        ({"measures": ("ndcg.1=2,1=3",)}, "measures", "grade 1 is given twice"),
        ({"measures": ("rbp.p=1.5",)}, "measures", r"p=1.5 is not in \(0, 1\)"),
        ({"measures": ("G.x",)}, "measures", "'x' is not name=value"),
        ({"rel_format": "prefs"}, "measures", "With -R prefs or qrels_prefs use -m all_prefs"),
        ({"rel_format": "xml"}, "-R", "one of qrels, prefs, qrels_prefs, qrels_jg"),
        ({"results_format": "xml"}, "-T", "trec_results format only"),
        ({"collection_size": -1}, "-N", "integer >= 0"),
        ({"judged_only": 1}, "judged_only", "True or False"),
    ],
)
def test_bad_trec_options(options: dict[str, Any], argument: str, match: str) -> None:
    with pytest.raises(InvalidInputError, match=match) as error:
        format_trec_eval(V10 / "qrels.test", V10 / "results.test", TrecEvalOptions(**options))
    assert error.value.argument == argument


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


PLAIN_RUN = b"q1 Q0 d1 1 1.5 run\nq1 Q0 d2 2 0.5 run\nq2 Q0 d1 1 2 last\n"
PLAIN_QRELS = b"q1 0 d1 1\nq1 0 d2 0\nq2 0 d1 2\n"


@pytest.mark.parametrize(
    ("name", "transform"),
    [
        ("bom", lambda b: b"\xef\xbb\xbf" + b),
        ("gzip", gzip.compress),
        ("gzip named .txt", gzip.compress),
        ("bzip2", bz2.compress),
        ("xz", lzma.compress),
        ("crlf", lambda b: b.replace(b"\n", b"\r\n")),
        ("tabs", lambda b: b.replace(b" ", b"\t")),
        ("no final newline", lambda b: b.rstrip(b"\n")),
    ],
)
def test_file_forms_read_the_same(name: str, transform: Any, tmp_path: Path) -> None:
    # Regression (issue 10): a byte-order mark stuck to the first query id, and a
    # gzipped file failed with "expected 4 fields, found 10".
    suffix = ".gz" if name == "gzip" else ""
    (tmp_path / f"q{suffix}").write_bytes(transform(PLAIN_QRELS))
    (tmp_path / f"r{suffix}").write_bytes(transform(PLAIN_RUN))
    qrels, run = read_qrels(tmp_path / f"q{suffix}"), read_run(tmp_path / f"r{suffix}")
    assert qrels.query_id.tolist() == [b"q1", b"q1", b"q2"]
    assert run.query_id.tolist() == [b"q1", b"q1", b"q2"]
    assert run.doc_id.tolist() == [b"d1", b"d2", b"d1"]
    assert run.run_id == "last"
    assert evaluate(qrels, run, "AP").per_query["AP"].tolist() == [1.0, 1.0]


def test_ids_that_are_not_utf8_stay_bytes(
    tmp_path: Path, capsysbinary: pytest.CaptureFixture[bytes]
) -> None:
    (tmp_path / "q").write_bytes(b"caf\xe9 0 d\xff 1\n")
    (tmp_path / "r").write_bytes(b"caf\xe9 Q0 d\xff 1 1.0 r\n")
    assert read_qrels(tmp_path / "q").doc_id.tolist() == [b"d\xff"]
    assert main(["trec", "-q", "-m", "map", str(tmp_path / "q"), str(tmp_path / "r")]) == 0
    assert capsysbinary.readouterr().out == (
        b"map                   \tcaf\xe9\t1.0000\nmap                   \tall\t1.0000\n")


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
        (b"1 0 a 1\n", b"1 Q0 a 1 1_0 r\n", "run", r"line 1: score '1_0' is not a number"),
        (b"1 0 a yes\n", b"1 Q0 a 1 0.5 r\n", "qrels",
         r"qrels.txt, line 1: relevance 'yes' is not an integer"),
        # Regression (issue 10): an OverflowError, reported as an internal error.
        (b"1 0 a 1\n1 0 b 99999999999999999999\n", b"1 Q0 a 1 0.5 r\n", "qrels",
         r"qrels.txt, line 2: relevance '99999999999999999999' is out of range "
         r"\(grades are 64-bit integers\)\. Write a grade between -9223372036854775808 and"),
        (b"", b"1 Q0 a 1 0.5 r\n", "qrels", r"qrels.txt: the file is empty"),
        (b"# only\n\n", b"1 Q0 a 1 0.5 r\n", "qrels", "no data lines"),
        (b"1 0 a 1\n", b"", "run", r"run.txt: the file is empty"),
        (b"1 0 a 1\n", b"\xff\xfe1\x00", "run", "UTF-16"),
        (b"1 0 a\x00 1\n", b"1 Q0 a 1 0.5 r\n", "qrels", "a NUL byte at offset 5"),
        (b"\x28\xb5\x2f\xfd....", b"1 Q0 a 1 0.5 r\n", "qrels", "zstd-compressed"),
        (b"\x1f\x8b\x08garbage", b"1 Q0 a 1 0.5 r\n", "qrels", "a damaged compressed file"),
        (b"1 0 a 1\n", b"2 Q0 a 1 0.5 r\n", "run", "no query has both results and relevance"),
    ],
)
def test_bad_files(tmp_path: Path, qrels: bytes, run: bytes, argument: str, match: str) -> None:
    (tmp_path / "qrels.txt").write_bytes(qrels)
    (tmp_path / "run.txt").write_bytes(run)
    with pytest.raises(InvalidInputError, match=match) as error:
        evaluate(tmp_path / "qrels.txt", tmp_path / "run.txt", "AP")
    assert error.value.argument == argument


def test_missing_file_and_directory_are_named(tmp_path: Path) -> None:
    with pytest.raises(InvalidInputError, match=r"cannot read '.*nope'") as error:
        read_run(tmp_path / "nope")
    assert error.value.argument == "run"
    with pytest.raises(InvalidInputError, match="it is a directory"):
        read_qrels(tmp_path)


# -- the two readers (pyarrow's and the exact one) give the same tables ---------------

LINE_IDS = st.text(alphabet=st.sampled_from("abQ019#-_é"), min_size=1, max_size=6)


@settings(max_examples=60, deadline=None)
@given(
    rows=st.lists(st.tuples(LINE_IDS, LINE_IDS, st.floats(-1e6, 1e6, allow_nan=False),
                            st.integers(-2, 300)), min_size=1, max_size=30),
    delimiter=st.sampled_from([" ", "\t", "  ", " \t"]),
    crlf=st.booleans(),
)
def test_arrow_and_exact_readers_agree(
    rows: list[tuple[str, str, float, int]], delimiter: str, crlf: bool,
) -> None:
    import prcurve.ranking.trec_reader as trec_reader

    rows = list({(q, d): (q, d, s, g) for q, d, s, g in rows}.values())  # one row per pair
    end = "\r\n" if crlf else "\n"
    run = "".join(delimiter.join([q, "Q0", d, "1", repr(s), "r"]) + end for q, d, s, _ in rows)
    qrels = "".join(delimiter.join([q, "0", d, str(g)]) + end for q, d, _, g in rows)
    results = []
    original, small = trec_reader._arrow_columns, trec_reader.SMALL_FILE_BYTES
    for arrow in (True, False):
        trec_reader._arrow_columns = original if arrow else (lambda *args: None)
        trec_reader.SMALL_FILE_BYTES = 0  # small files reach pyarrow's reader too
        try:
            r = parse_run(run.encode(), "r")
            q = parse_qrels(qrels.encode(), "q")
            results.append((r.query_id.tolist(), r.doc_id.tolist(), r.score.tolist(), r.run_id,
                            r.line.tolist() if r.line is not None else None,
                            q.query_id.tolist(), q.doc_id.tolist(), q.relevance.tolist()))
        except InvalidInputError as error:  # e.g. a query id "#...": a comment line
            results.append(str(error))
        finally:
            trec_reader._arrow_columns, trec_reader.SMALL_FILE_BYTES = original, small
    assert results[0] == results[1]


def test_arrow_reader_across_batches_matches_the_exact_reader(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # pyarrow's reader hands over batches of about 1 MiB: queries in blocks of every
    # length (some longer than a batch, some one row), ids of 1 to 20 bytes (one to
    # three words), a query coming back after others; the same rows as the exact reader.
    import prcurve.ranking.trec_reader as trec_reader

    rng = np.random.default_rng(7)
    # (40,000 one-line queries: a batch there starts with a new query)
    lengths = np.concatenate((np.ones(40_000, dtype=np.int64), [60_000],
                              rng.integers(1, 3000, 40)))
    names = [f"q{'x' * int(rng.integers(0, 18))}{i}" for i in range(lengths.shape[0])]
    names[-1] = names[0]  # a query listed again after others (other documents)
    lines = []
    for k, (name, length) in enumerate(zip(names, lengths.tolist(), strict=True)):
        lines += [f"{name} Q0 d{j}{'y' * (j % 13)}{'z' if k else ''} {j} {j % 11}.25 r\n"
                  for j in range(length)]
    data = "".join(lines).encode()
    assert len(data) > 3 << 20
    monkeypatch.setattr(trec_reader, "SMALL_FILE_BYTES", 0)  # below it: the exact reader
    original = trec_reader._arrow_columns
    assert original(data, "run", trec_reader._sniff(data), "r") is not None  # the fast path
    fast = parse_run(data, "r")
    trec_reader._arrow_columns = lambda *args: None
    try:
        exact = parse_run(data, "r")
    finally:
        trec_reader._arrow_columns = original
    assert fast.query_id.tolist() == exact.query_id.tolist()
    assert fast.doc_id.tolist() == exact.doc_id.tolist()
    assert fast.score.tolist() == exact.score.tolist()


def test_arrow_reader_takes_plain_files_and_leaves_others(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import prcurve.ranking.trec_reader as trec_reader

    read = []
    original = trec_reader._arrow_columns

    def spy(*args: Any) -> Any:
        found = original(*args)
        read.append(found is not None)
        return found

    monkeypatch.setattr(trec_reader, "_arrow_columns", spy)
    monkeypatch.setattr(trec_reader, "SMALL_FILE_BYTES", 0)  # below it: the exact reader
    plain = (PLAIN_RUN, PLAIN_RUN.replace(b"\n", b"\r\n"), PLAIN_RUN.replace(b" ", b"\t"))
    others = (b"# c\n" + PLAIN_RUN, PLAIN_RUN.replace(b" Q0", b"  Q0"), PLAIN_RUN + b"\n",
              PLAIN_RUN.replace(b"run\n", b"run\r"), PLAIN_RUN.replace(b"d2", b"d\x0b2"),
              PLAIN_RUN.replace(b"run\n", b"run x\n"), PLAIN_RUN.replace(b" Q0", b"\tQ0"))
    for i, data in enumerate(plain + others):
        (tmp_path / f"r{i}").write_bytes(data)
        read.clear()
        run = read_run(tmp_path / f"r{i}")
        assert (bool(read) and read[-1]) == (data in plain), data
        if data in plain:
            assert run.doc_id.tolist() == [b"d1", b"d2", b"d1"]


# -- pytrec_eval (trec_eval 9 inside) as a differential reference ----------------------------

# pytrec_eval name -> prcurve measure; pytrec_eval keeps gm_* per query as the log.
PYTREC_MEASURES = {
    "map": "AP", "Rprec": "R-prec", "recip_rank": "RR", "bpref": "bpref", "11pt_avg": "11pt",
    "set_P": "set_P", "set_recall": "set_R", "set_F": "set_F", "num_ret": "num_ret",
    "num_rel": "num_rel", "num_rel_ret": "num_rel_ret", "infAP": "infAP", "binG": "binG",
    "G": "G", "ndcg": "ndcg", "ndcg_rel": "ndcg_rel", "Rndcg": "Rndcg", "utility": "utility",
    "set_map": "set_map", "set_relative_P": "set_relative_P",
    "num_nonrel_judged_ret": "num_nonrel_judged_ret", "gm_map": "gm_AP", "gm_bpref": "gm_bpref",
}
CUTOFF_MEASURES = {"P": "P", "recall": "R", "map_cut": "AP", "ndcg_cut": "ndcg_cut",
                   "relative_P": "relative_P"}
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
        judged = {f"d{rng.integers(0, 80)}": int(rng.integers(-1, 5))
                  for _ in range(rng.integers(1, 40))}
        if rng.random() < 0.9 and any(g >= 0 for g in judged.values()):
            qrels[f"q{q}"] = judged
    qrels.setdefault("q0", {"d1": 1})
    run.setdefault("q0", {"d1": 0.5})
    return qrels, run


@pytest.mark.parametrize("seed", range(8))
@pytest.mark.parametrize(("level", "judged_only"), [(1, False), (2, False), (3, False), (1, True)])
def test_pytrec_eval_agrees(seed: int, level: int, judged_only: bool) -> None:
    qrels, run = random_collection(np.random.default_rng(seed))
    wanted = (set(PYTREC_MEASURES) | set(CUTOFF_MEASURES)
              | {"iprec_at_recall", "Rprec_mult", "success"})
    reference = pytrec_eval.RelevanceEvaluator(
        qrels, wanted, relevance_level=level, judged_docs_only_flag=judged_only).evaluate(run)
    pairs = dict(PYTREC_MEASURES)
    pairs.update({f"{theirs}_{k}": f"{ours}@{k}" for theirs, ours in CUTOFF_MEASURES.items()
                  for k in CUTOFFS})
    pairs.update({f"iprec_at_recall_{i / 10:.2f}": f"iprec@{i / 10!r}" for i in range(11)})
    pairs.update({f"Rprec_mult_{m / 10:.2f}": f"Rprec_mult@{m / 10!r}" for m in range(2, 22, 2)})
    pairs.update({f"success_{k}": f"success@{k}" for k in (1, 5, 10)})
    result = evaluate(qrels, run, list(dict.fromkeys(pairs.values())), relevance_level=level,
                      convention="trec_eval_9", score_precision="float32", judged_only=judged_only)
    assert sorted(reference) == result.query_ids.tolist()
    for theirs, ours in pairs.items():
        want = np.array([reference[q][theirs] for q in result.query_ids.tolist()])
        got = result.per_query[ours]
        if ours.startswith("gm_"):
            got = geometric_terms(got)
        undefined = np.isnan(want)  # -J left nothing: iprec is 0/0 in trec_eval
        if undefined.any():
            assert judged_only
            assert theirs.startswith(("iprec", "11pt")), theirs
            assert (got[undefined] == 0).all()  # the policy's value (zero_division=0)
            want, got = want[~undefined], got[~undefined]
        np.testing.assert_allclose(got, want, rtol=0, atol=1e-9, err_msg=theirs)


# -- ranx's nDCG (runs without ties) ------------------------------------------------------


@pytest.mark.parametrize("seed", range(4))
def test_ranx_ndcg_agrees(seed: int) -> None:
    with warnings.catch_warnings():  # ranx warns (numba, its imports) on import and first use
        warnings.simplefilter("ignore")
        import ranx

        rng = np.random.default_rng(seed)
        qrels, run = random_collection(rng)
        qrels = {q: {d: g for d, g in docs.items() if g > 0} for q, docs in qrels.items()}
        qrels = {q: docs for q, docs in qrels.items() if docs}
        run = {q: {d: float(rng.random()) + i for i, d in enumerate(docs)}  # no ties
               for q, docs in run.items() if q in qrels}
        qrels = {q: docs for q, docs in qrels.items() if q in run}
        measures = ["ndcg", "ndcg@5", "ndcg@10"]
        theirs = ranx.evaluate(ranx.Qrels(qrels), ranx.Run(run), measures, return_mean=False,
                               make_comparable=True)
    ours = evaluate(qrels, run, ["ndcg", "ndcg_cut@5", "ndcg_cut@10"])
    for name, mine in zip(measures, ["ndcg", "ndcg_cut@5", "ndcg_cut@10"], strict=True):
        np.testing.assert_allclose(ours.per_query[mine], np.asarray(theirs[name]), rtol=0,
                                   atol=1e-9, err_msg=name)
    assert math.isclose(ours["ndcg"], float(np.mean(theirs["ndcg"])), abs_tol=1e-12)


@pytest.mark.parametrize("chunk", [5, 8, 13, 64])
def test_sniffer_sees_across_chunks(chunk: int, monkeypatch: pytest.MonkeyPatch) -> None:
    # The plain-file check runs chunk by chunk with buffers kept between chunks: an
    # empty field (two delimiters, one at a line's start or end, a blank line)
    # anywhere, a chunk boundary included, sends the file to the exact reader.
    import prcurve.ranking.trec_reader as trec_reader

    monkeypatch.setattr(trec_reader, "_CHUNK", chunk)
    text = b"q1 Q0 d1 1 1.5 r\nq1 Q0 d22 2 0.5 r\nq2 Q0 d1 1 2 r\n"
    sniffer = trec_reader._sniff(text)
    assert sniffer.delimiter() == " "
    assert sniffer.rows() == 3
    for at in range(len(text)):
        for insert in (b" ", b"\n"):
            broken = text[:at] + insert + text[at:]
            lines = broken.split(b"\n")
            fields_ok = all(line and line.split(b" ") == [f for f in line.split(b" ") if f]
                            for line in lines[:-1]) and b" " in lines[0]
            assert (trec_reader._sniff(broken).delimiter() is not None) == fields_ok, broken


def test_control_bytes_in_ids_are_read_as_trec_eval_reads_them() -> None:
    # The plain-file check counts every byte below 33 as a gap: a control byte (not
    # white space for trec_eval) beside a delimiter, a line end or another one sends
    # the file to the exact reader, which keeps it in the id.
    import prcurve.ranking.trec_reader as trec_reader
    from prcurve.ranking import parse_run

    text = b"q1 Q0 d\x01 1 1.5 r\nq1 Q0 \x02d\x03 2 0.5 r\nq2 Q0 d\x01\x02x 1 2 r\n"
    assert trec_reader._sniff(text).delimiter() is None
    assert trec_reader._sniff(b"q1 Q0 d\x01x 1 1.5 r\n").delimiter() == " "
    assert parse_run(text).doc_id.tolist() == [b"d\x01", b"\x02d\x03", b"d\x01\x02x"]
    assert parse_run(b"q1 Q0 d\x01x 1 1.5 r\n").doc_id.tolist() == [b"d\x01x"]


def test_reading_large_files_does_not_import_pandas(tmp_path: Path) -> None:
    # pyarrow's pa.array(numpy array) imports pandas (0.3-0.6 s of a `prcurve trec`
    # run): the readers hand numpy buffers to pyarrow without it.
    import subprocess
    import sys

    rows = 70_000  # more than hashing.ARROW_ROWS: pyarrow's hash tables are used
    (tmp_path / "run").write_text("".join(f"{i // 100} Q0 d{i} 1 {i % 7}.5 r\n"
                                          for i in range(rows)))
    (tmp_path / "qrels").write_text("".join(f"{i // 100} 0 d{i} {i % 2}\n"
                                            for i in range(rows)))
    code = ("import sys; from prcurve.ranking import evaluate, read_qrels, read_run; "
            "import prcurve.ranking.trec_reader as t; t.SMALL_FILE_BYTES = 0; "
            f"r = evaluate(read_qrels({str(tmp_path / 'qrels')!r}), "
            f"read_run({str(tmp_path / 'run')!r}), ['AP']); "
            "print(r.n_queries, 'pandas' in sys.modules)")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          check=True)
    assert done.stdout.split() == ["700", "False"]


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("even", [True, False])
def test_rbp_residual_sums_in_trec_eval_order(seed: int, even: bool) -> None:
    # m_rbp_resid.c adds p^(i-1) rank by rank for each unjudged document: a plain
    # loop per query is the oracle, equal to the last bit, for the matrix path
    # (lengths even enough) and the rank-by-rank path (one long query).
    from prcurve.ranking import judge
    from prcurve.ranking.kernels import _powers, _rbp_residual
    from prcurve.ranking.state import JUDGED

    rng = np.random.default_rng(seed)
    qrels, run = random_collection(rng)
    if not even:
        run["q0"] = {f"x{i}": float(i) for i in range(3000)}
    rankings = judge(qrels, run)._prepared.rankings
    p = 0.8
    got = _rbp_residual(rankings, p)
    powers = _powers(p, int(rankings.lengths.max()))
    for q in range(rankings.n_queries):
        start, n = int(rankings.starts[q]), int(rankings.lengths[q])
        total, missing = 0.0, 0
        for i in range(n):
            if rankings.code[start + i] < JUDGED:
                total += float(powers[i])
                missing += 1
        want = 0.0 if missing == 0 or not rankings.has_results[q] else (
            float(powers[n]) + (1.0 - p) * total)
        assert got[q] == want, q
