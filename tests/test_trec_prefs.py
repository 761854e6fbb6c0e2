"""trec_eval's preference (-R prefs, qrels_prefs) and judgment-group (-R qrels_jg)
measures: against the real trec_eval 10 on random files, a slow readable oracle,
invariants, and the errors (prcurve.ranking.prefs, prcurve.ranking.judgment_groups)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from prcurve.cli import main

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


@pytest.mark.parametrize("case", CASES, ids=lambda c: " ".join(c["args"]))
def test_real_trec_eval_on_random_preferences(
    case: dict[str, Any], tmp_path: Path, capsysbinary: pytest.CaptureFixture[bytes]
) -> None:
    # The C trec_eval 10's output (tests/fixtures/trec_eval_prefs_random/generate.py).
    (tmp_path / "rel").write_text(case["rel"])
    (tmp_path / "run").write_text(case["run"])
    code = main(["trec", *case["args"], str(tmp_path / "rel"), str(tmp_path / "run")])
    captured = capsysbinary.readouterr()
    assert code == 0, captured.err
    assert captured.out == case["expected"].encode()
