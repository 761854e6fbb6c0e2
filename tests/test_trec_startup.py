"""What `prcurve trec` loads on a small run (issue 26): prcurve.ranking's lazy public
names, and no module that trec_eval's output does not need (the comparison of systems,
PR-space intervals, tables, preferences, judgment groups, threads, pyarrow)."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

# Loaded by none of `prcurve trec QRELS RUN` on a small file's modules (each with its
# reason): a test failing here names a module a change made the command import.
NOT_LOADED = {
    "prcurve.ranking.compare": "--compare only",
    "prcurve.cli.trec_compare": None,  # loaded: its options are part of the parser
    "prcurve.space.significance": "--compare only",
    "prcurve.space.intervals": "--compare only",
    "prcurve.core.table": "to_table() only",
    "prcurve.core.curve": "no PR curve",
    "prcurve.ranking.prefs": "-R prefs, qrels_prefs only",
    "prcurve.ranking.judgment_groups": "-R qrels_jg only",
    "prcurve.ranking.dicts": "dict input only",
    "prcurve.ranking.arrow_ids": "pyarrow input only",
    "prcurve.ranking.single": "one ranking from arrays only",
    "concurrent.futures": "threads start for large inputs only",
    "pyarrow": "files of 4 MiB or more only",
    "json": "--format json only",
}


def test_trec_on_a_small_run_loads_only_what_it_needs(tmp_path: Path) -> None:
    (tmp_path / "qrels").write_text("301 0 d1 1\n301 0 d2 0\n302 0 d1 2\n")
    (tmp_path / "run").write_text("301 Q0 d1 1 2.5 r\n301 Q0 d3 2 1.25 r\n302 Q0 d2 1 -1 r\n")
    code = (
        "import sys\n"
        "from prcurve.cli.main import main\n"
        "code = main(['trec', '-q', '-m', 'all_trec', sys.argv[1], sys.argv[2]])\n"
        "print(sorted(sys.modules), file=sys.stderr)\n"
        "sys.exit(code)"
    )
    done = subprocess.run([sys.executable, "-c", code, str(tmp_path / "qrels"),
                           str(tmp_path / "run")], capture_output=True, text=True, check=True)
    assert "map                   \t301\t1.0000" in done.stdout
    loaded = set(ast.literal_eval(done.stderr.strip().splitlines()[-1]))
    for module, why in NOT_LOADED.items():
        if why is None:
            assert module in loaded
        else:
            assert module not in loaded, f"{module} loaded; needed for {why}"
