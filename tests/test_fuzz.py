"""Fuzzing the command line: random and near-valid files, random options (issue 10).

Each example writes a file (random bytes, or a CSV, TSV, JSON Lines, Parquet,
.npz or TREC file close to a valid one: missing values, stray words, bytes
that are not UTF-8, duplicate columns, lists, huge numbers, ragged rows, a
byte-order mark, compression) and runs ``prcurve.cli.main`` in process with
random options. Whatever the input, the command must end with exit status 0,
1 (a ``--fail-under`` gate) or 2 (bad input); with 2, standard output is empty
and standard error ends with one ``prcurve: error:`` line; never an exception,
never ``internal error``, never a traceback, never a warning (pytest turns
warnings into errors, which the command would report as internal errors).

The suite runs a few dozen examples per file kind (a few seconds, the same
examples every run). Before a release, run many more with random examples::

    PRCURVE_FUZZ_EXAMPLES=3000 python -m pytest tests/test_fuzz.py -q

(docs/reliability.md; about ten minutes on one core).
"""

from __future__ import annotations

import contextlib
import gzip
import io
import json
import math
import os
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from prcurve.cli import main

pa = pytest.importorskip("pyarrow")
pq = pytest.importorskip("pyarrow.parquet")

LONG = int(os.environ.get("PRCURVE_FUZZ_EXAMPLES", "0"))
LAST = os.environ.get("PRCURVE_FUZZ_LAST")  # a folder: each input and argv is copied there


def fuzz_settings(examples: int) -> Any:
    """``examples`` per test in the suite, the same ones every run; PRCURVE_FUZZ_EXAMPLES
    random ones per test for a long run."""
    return settings(
        max_examples=LONG or examples, deadline=None, derandomize=not LONG,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                               HealthCheck.filter_too_much],
    )


# -- running the command ---------------------------------------------------------------------


@contextlib.contextmanager
def folder() -> Iterator[Path]:
    with tempfile.TemporaryDirectory(prefix="prcurve-fuzz-") as name:
        yield Path(name)


def run(argv: list[str]) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(argv)
    return code, out.getvalue(), err.getvalue()


def keep(argv: list[str]) -> None:
    """With PRCURVE_FUZZ_LAST, copy the inputs and argv first: a crash of the process
    itself (not an exception) leaves its input there."""
    if not LAST:
        return
    target = Path(LAST)
    target.mkdir(parents=True, exist_ok=True)
    for arg in argv:
        if Path(arg).is_file():
            (target / Path(arg).name).write_bytes(Path(arg).read_bytes())
    (target / "argv.json").write_text(json.dumps(argv))


def check(argv: list[str]) -> int:
    """Run ``argv`` and check the command's contract; returns the exit status."""
    keep(argv)
    code, out, err = run(argv)
    context = f"argv={argv}\nstdout={out[-2000:]!r}\nstderr={err[-2000:]!r}"
    assert isinstance(code, int), context
    assert code in (0, 1, 2), context
    assert "internal error" not in err, context
    assert "Traceback" not in err, context
    lines = err.splitlines()
    if code == 2:
        assert out == "", context
        assert lines, context
        assert lines[-1].startswith("prcurve: error: "), context
        assert sum(line.startswith("prcurve: error:") for line in lines) == 1, context
    else:
        assert not any(line.startswith("prcurve: error:") for line in lines), context
        if "--format" in argv and argv[argv.index("--format") + 1] == "json":
            json.loads(out)  # strict JSON: no NaN
    return code


# -- options ---------------------------------------------------------------------------------

NAMES = ["label", "y", "score", "s", "w", "a", "Label", "", "é", "label "]

REPORT_OPTIONS = st.lists(st.one_of(
    st.tuples(st.just("--label"), st.sampled_from(NAMES)),
    st.tuples(st.just("--score"), st.sampled_from(NAMES)),
    st.tuples(st.just("--weight"), st.sampled_from(NAMES)),
    st.tuples(st.just("--positive"), st.sampled_from(["1", "0", "a", "true", "-1", "x", "1.0",
                                                      "", "NA", "2"])),
    st.tuples(st.just("--drop-invalid")),
    st.tuples(st.just("--stream")),
    st.tuples(st.just("--bins"), st.sampled_from(["1", "3", "ten", "0", "-2"])),
    st.tuples(st.just("--format"), st.sampled_from(["text", "json", "csv"])),
    st.tuples(st.just("--fail-under"), st.sampled_from(["ap=0.5", "best_f=1.5", "x", "ap=nan",
                                                        "aucnpr=0.1", "ap_11point=0"])),
    st.tuples(st.just("--ap-method"), st.sampled_from(["step", "11point", "davis_goadrich",
                                                       "nope"])),
    st.tuples(st.just("--max-distinct"), st.sampled_from(["1", "2", "none", "x"])),
    st.tuples(st.just("--switch-bins"), st.sampled_from(["1", "4"])),
    st.tuples(st.just("--recall-level"), st.sampled_from(["0", "1", "0.5", "2"])),
    st.tuples(st.just("--beta"), st.sampled_from(["1", "0", "0.5", "inf"])),
    st.tuples(st.just("--out"), st.just("OUT"), st.just("--no-plots")),
), max_size=5).map(lambda parts: [a for part in parts for a in part])


def report_argv(path: Path, options: list[str], extra: list[str] = ()) -> list[str]:  # type: ignore[assignment]
    options = [str(path.parent / "out") if a == "OUT" else a for a in options]
    return ["report", str(path), *extra, *options]


# -- cells and files ---------------------------------------------------------------------------

WORDS = ["", "NA", "nan", "NaN", "null", "inf", "-inf", "1e400", "-0", "0", "1", "-1", "2",
         "true", "false", "a", "b", " ", "x y", '"q"', "0.5", "1.0", "9" * 25, "é", "\u00a0"]

TEXT_CELL = st.one_of(
    st.sampled_from(WORDS),
    st.floats(allow_nan=True, allow_infinity=True).map(repr),
    st.integers(-3, 3).map(str),
    st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=4),
)
CELL = st.one_of(TEXT_CELL.map(lambda t: t.encode("utf-8")),
                 st.sampled_from([b"\xff", b"\xe9t\xe9", b"0.\xff5", b"\x00"]))


@st.composite
def delimited(draw: Any) -> tuple[bytes, str]:
    """CSV or TSV bytes near a valid file, and the file name's suffix."""
    sep = draw(st.sampled_from([b",", b"\t"]))
    width = draw(st.integers(1, 4))
    header = draw(st.lists(st.sampled_from(NAMES), min_size=width, max_size=width))
    rows = draw(st.lists(st.lists(CELL, min_size=max(width - 1, 0), max_size=width + 1),
                         max_size=7))
    newline = draw(st.sampled_from([b"\n", b"\r\n"]))
    lines = [sep.join(h.encode() for h in header)] + [sep.join(row) for row in rows]
    data = newline.join(lines) + draw(st.sampled_from([newline, b""]))
    if draw(st.booleans()):
        data = b"\xef\xbb\xbf" + data
    suffix = ".csv" if sep == b"," else ".tsv"
    if draw(st.integers(0, 4)) == 0:
        data, suffix = gzip.compress(data), suffix + ".gz"
    return data, suffix


JSON_VALUE = st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(-2, 2), st.integers(),
              st.floats(allow_nan=True, allow_infinity=True), st.sampled_from(WORDS)),
    lambda inner: st.one_of(st.lists(inner, max_size=2),
                            st.dictionaries(st.sampled_from(NAMES), inner, max_size=2)),
    max_leaves=4,
)


@st.composite
def json_lines(draw: Any) -> bytes:
    records = draw(st.lists(st.dictionaries(st.sampled_from(NAMES), JSON_VALUE, max_size=4),
                            max_size=6))
    lines = [json.dumps(r).encode() for r in records]
    for _ in range(draw(st.integers(0, 2))):
        broken = draw(st.sampled_from([
            b'{"label": 1, "score":', b"[1, 2]", b"not json", b"", b"   ",
            b'{"label": 1, "score": 0.5, "score": 0.2}', b'{"label": "\xff", "score": 1}',
            b"null", b'{"label": 1e999, "score": -1e999}', b"[" * 3000,
        ]))
        lines.insert(draw(st.integers(0, len(lines))), broken)
    data = b"\n".join(lines) + b"\n"
    if draw(st.booleans()):
        data = b"\xef\xbb\xbf" + data
    return data


def _arrow_column(kind: str, n: int, draw: Any) -> Any:
    pick = lambda values: draw(st.lists(st.sampled_from(values), min_size=n, max_size=n))  # noqa: E731
    if kind == "int":
        return pa.array(pick([0, 1, -1, 2, None]), pa.int64())
    if kind == "float":
        return pa.array(pick([0.0, 1.0, 0.5, -2.5, math.nan, math.inf, None]), pa.float64())
    if kind == "float32":
        return pa.array(pick([0.0, 1.0, 0.25, None]), pa.float32())
    if kind == "string":
        return pa.array(pick(["a", "b", "", "0", "1", None, " "]), pa.string())
    if kind == "bool":
        return pa.array(pick([True, False, None]), pa.bool_())
    if kind == "dictionary":
        return pa.array(pick(["a", "b", None]), pa.string()).dictionary_encode()
    if kind == "list":
        return pa.array(pick([[1], [0, 1], None, []]), pa.list_(pa.int64()))
    if kind == "binary":
        return pa.array(pick([b"\xff", b"a", b"1", None]), pa.binary())
    if kind == "uint64":
        return pa.array(pick([0, 1, 2**64 - 1, None]), pa.uint64())
    if kind == "timestamp":
        return pa.array(pick([0, 10**12, None]), pa.timestamp("s"))
    if kind == "struct":
        return pa.array(pick([{"x": 1}, None]), pa.struct([("x", pa.int64())]))
    return pa.nulls(n)


ARROW_KINDS = ["int", "float", "float32", "string", "bool", "dictionary", "list", "binary",
               "uint64", "timestamp", "struct", "null"]


@st.composite
def parquet_table(draw: Any) -> tuple[Any, int]:
    n = draw(st.integers(0, 6))
    width = draw(st.integers(1, 4))
    names = draw(st.lists(st.sampled_from(NAMES), min_size=width, max_size=width))
    kinds = draw(st.lists(st.sampled_from(ARROW_KINDS), min_size=width, max_size=width))
    arrays = [_arrow_column(kind, n, draw) for kind in kinds]
    return pa.Table.from_arrays(arrays, names=names), draw(st.integers(1, 4))


@st.composite
def npz_arrays(draw: Any) -> dict[str, Any]:
    out = {}
    for name in draw(st.lists(st.sampled_from(NAMES), max_size=4, unique=True)):
        n = draw(st.integers(0, 5))
        kind = draw(st.sampled_from(["int", "float", "bool", "U", "S", "complex", "datetime",
                                     "2d", "0d", "object", "uint64", "float16"]))
        values = draw(st.lists(st.sampled_from([0, 1, -1, 2]), min_size=n, max_size=n))
        if kind == "float":
            array: Any = np.array(values + [math.nan, math.inf][:draw(st.integers(0, 2))],
                                  dtype=float)
        elif kind == "bool":
            array = np.array(values, dtype=bool)
        elif kind == "U":
            array = np.array([str(v) if v != 2 else "" for v in values], dtype=str)
        elif kind == "S":
            array = np.array([b"\xff" if v == 2 else str(v).encode() for v in values], dtype="S")
        elif kind == "complex":
            array = np.array(values, dtype=complex)
        elif kind == "datetime":
            array = np.array(values, dtype="datetime64[s]")
        elif kind == "2d":
            array = np.zeros((n, 2))
        elif kind == "0d":
            array = np.array(1.0)
        elif kind == "object":
            array = np.array(values, dtype=object)
        elif kind == "uint64":
            array = np.array([2**64 - 1 if v == 2 else abs(v) for v in values], dtype=np.uint64)
        elif kind == "float16":
            array = np.array(values, dtype=np.float16)
        else:
            array = np.array(values, dtype=np.int64)
        out[name or "x"] = array
    return out


# -- the tests ----------------------------------------------------------------------------------


@fuzz_settings(30)
@given(data=st.binary(max_size=300),
       suffix=st.sampled_from([".csv", ".tsv", ".jsonl", ".parquet", ".npz", ".csv.gz",
                               ".jsonl.gz", ".txt"]),
       options=REPORT_OPTIONS)
def test_random_bytes(data: bytes, suffix: str, options: list[str]) -> None:
    with folder() as where:
        path = where / f"f{suffix}"
        path.write_bytes(data)
        check(report_argv(path, options))


@fuzz_settings(40)
@given(file=delimited(), options=REPORT_OPTIONS)
def test_near_valid_csv_and_tsv(file: tuple[bytes, str], options: list[str]) -> None:
    data, suffix = file
    with folder() as where:
        path = where / f"f{suffix}"
        path.write_bytes(data)
        check(report_argv(path, options))


@fuzz_settings(35)
@given(data=json_lines(), options=REPORT_OPTIONS)
def test_near_valid_json_lines(data: bytes, options: list[str]) -> None:
    with folder() as where:
        path = where / "f.jsonl"
        path.write_bytes(data)
        check(report_argv(path, options))


@fuzz_settings(30)
@given(table=parquet_table(), options=REPORT_OPTIONS)
def test_near_valid_parquet(table: tuple[Any, int], options: list[str]) -> None:
    frame, group = table
    with folder() as where:
        path = where / "f.parquet"
        try:
            pq.write_table(frame, path, row_group_size=group)
        except (pa.ArrowException, ValueError):  # pyarrow cannot write it: nothing to read
            return
        check(report_argv(path, options))


@fuzz_settings(25)
@given(arrays=npz_arrays(), options=REPORT_OPTIONS)
def test_near_valid_npz(arrays: dict[str, Any], options: list[str]) -> None:
    with folder() as where:
        path = where / "f.npz"
        np.savez(path, **arrays)
        check(report_argv(path, [o for o in options if o != "--stream"]))


TREC_TOKENS = ["q1", "q2", "0", "1", "2", "-1", "Q0", "d1", "d2", "run", "0.5", "nan", "inf",
               "1e400", "é", "", "x"]
# Not yet: "99999999999999999999" (a relevance beyond int64 is an internal error until the
# TREC reader's part of issue 10 is merged; add it back then), a byte-order mark, gzip.


@st.composite
def trec_file(draw: Any, fields: int) -> bytes:
    lines = []
    for _ in range(draw(st.integers(0, 6))):
        width = draw(st.sampled_from([fields, fields, fields, fields - 1, fields + 1, 1]))
        tokens = draw(st.lists(st.sampled_from(TREC_TOKENS), min_size=width, max_size=width))
        lines.append(" ".join(tokens).encode())
    data = b"\n".join(lines) + b"\n"
    if draw(st.integers(0, 5)) == 0:
        data = data.replace(b"d1", b"d\xff", 1)
    return data


@fuzz_settings(30)
@given(qrels=trec_file(4), run_file=trec_file(6),
       options=st.lists(st.sampled_from([["-q"], ["-c"], ["-m", "map"], ["-m", "P.5,10"],
                                         ["-m", "ndcg_cut.10"], ["-m", "bogus"], ["-l", "2"],
                                         ["-M", "1"], ["--trec-eval-version", "9"]]),
                        max_size=3))
def test_near_valid_trec_files(qrels: bytes, run_file: bytes, options: list[list[str]]) -> None:
    with folder() as where:
        (where / "qrels").write_bytes(qrels)
        (where / "run").write_bytes(run_file)
        check(["trec", str(where / "qrels"), str(where / "run"),
               *[a for option in options for a in option]])
