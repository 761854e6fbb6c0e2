"""Every command of trec_eval's own quicktest, through ``prcurve trec``, byte for byte.

tests/fixtures/trec_eval_v10/quicktest.txt is trec_eval 10.0's list of test
commands (``./trec_eval ARGS | diff - test/EXPECTED``); each runs here through
prcurve's command line in-process, and its standard output must equal the
expected file exactly. No command is skipped.
"""

from __future__ import annotations

import shlex
from pathlib import Path

import pytest

from prcurve.cli import main

V10 = Path(__file__).parent / "fixtures" / "trec_eval_v10"


def _commands() -> list[tuple[list[str], Path]]:
    commands = []
    for line in (V10 / "quicktest.txt").read_text().splitlines():
        if not line.strip():
            continue
        words = shlex.split(line)
        bar = words.index("|")
        program, args, diff = words[0], words[1:bar], words[bar + 1:]
        if program != "./trec_eval" or diff[:2] != ["diff", "-"] or len(diff) != 3:
            raise ValueError(f"quicktest.txt: unexpected command {line!r}")
        local = [str(V10 / a[len("test/"):]) if a.startswith("test/") else a for a in args]
        commands.append((local, V10 / diff[2][len("test/"):]))
    return commands


COMMANDS = _commands()


def test_quicktest_is_read_whole() -> None:
    # trec_eval 10.0's quicktest has 15 commands; all of them are parametrized below.
    assert len(COMMANDS) == 15
    assert {expected.name for _, expected in COMMANDS} == {
        "out.test", "out.comment.test", "out.test.a", "out.test.aq", "out.test.aqc",
        "out.test.aqcM", "out.test.aql", "out.test.prefs", "out.test.qrels_prefs",
        "out.test.qrels_jg", "out.test.meas_params", "out.test.aqZ",
    }


@pytest.mark.parametrize(("argv", "expected"), COMMANDS,
                         ids=[" ".join(Path(a).name for a in c[0]) for c in COMMANDS])
def test_quicktest_command(
    argv: list[str], expected: Path, capsysbinary: pytest.CaptureFixture[bytes]
) -> None:
    assert main(["trec", *argv]) == 0
    out = capsysbinary.readouterr().out
    assert out == expected.read_bytes()
