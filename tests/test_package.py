"""Packaging: a light import, the public names, the README's commands and CI agree."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path
from typing import TYPE_CHECKING

import prcurve

if TYPE_CHECKING:
    from tests.conftest import DemoRun

ROOT = Path(__file__).resolve().parents[1]


def test_import_is_light() -> None:
    code = (
        "import sys, prcurve\n"
        "heavy = {'matplotlib', 'pyarrow', 'pandas', 'dask', 'scipy', 'sklearn', 'rich',\n"
        "         'polars'}\n"
        "print(sorted({m.split('.')[0] for m in sys.modules} & heavy))\n"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                            check=True)
    assert result.stdout.strip() == "[]"


def test_all_lists_the_public_names() -> None:
    # dir() lists the lazy names (PEP 562) before their first use, and the subpackages
    # loaded so far.
    public = {name for name in dir(prcurve) if not name.startswith("_")}
    modules = {name for name in public if type(getattr(prcurve, name)).__name__ == "module"}
    assert set(prcurve.__all__) == (public - modules) | {"__version__"}
    assert len(prcurve.__all__) == len(set(prcurve.__all__))
    for name in prcurve.__all__:
        assert hasattr(prcurve, name)


def test_promised_names_are_importable() -> None:
    # The names issue 2 promises to later issues and to users.
    from prcurve import (  # noqa: F401
        BinnedCounts,
        ConfusionMatrix,
        PRCurve,
        ThresholdCounts,
        average_precision,
        confusion_matrix,
        f1,
        f_beta,
        pr_curve,
        precision,
        recall,
    )

    assert set(prcurve.AP_METHODS) == {
        "step", "trapezoid", "interpolated", "11point", "101point", "davis_goadrich"}


def quickstart_commands() -> list[str]:
    readme = (ROOT / "README.md").read_text()
    section = readme.split("## Quickstart", 1)[1].split("\n## ", 1)[0]
    return re.findall(r"```bash\n(.+?)\n```", section)


def test_readme_quickstart_has_two_commands() -> None:
    commands = quickstart_commands()
    assert len(commands) == 2
    assert "pytest" in commands[1]


def test_ci_runs_the_readme_test_command() -> None:
    ci = (ROOT / ".ci" / "run").read_text().splitlines()
    assert quickstart_commands()[1] in ci
    assert any(line.startswith(".venv/bin/ruff check") for line in ci)
    assert ".venv/bin/mypy --strict src" in ci


def test_ci_runs_the_bare_machine_test_beside_the_main_run() -> None:
    # Started before the README's test command, which leaves it out (conftest.py, rule 4),
    # and waited for: its failure fails CI.
    ci = (ROOT / ".ci" / "run").read_text()
    readme_run = ci.index(quickstart_commands()[1])
    started = ci.index("tests/test_bare_machine.py >")
    assert started < ci.index("export PRCURVE_BARE_MACHINE_BESIDE=1") < readme_run
    assert readme_run < ci.index('if ! wait "$bare"; then')


def test_main_job_command_runs(demo_run: DemoRun) -> None:
    # The README's main job after its setup: `.venv/bin/prcurve demo`, run with the
    # entry point installed beside this interpreter, in a fresh folder (tests/conftest.py's
    # demo_run, which tests/test_cli_report.py reads too).
    command = quickstart_commands()[0]
    assert command.endswith("&& .venv/bin/prcurve demo")
    result = demo_run
    assert result.returncode == 0, result.stderr
    assert "Traceback" not in result.stderr
    out = demo_run.cwd / "prcurve-demo"
    for name in ("report.json", "pr_curve.png", "pr_curve.svg", "threshold.png", "report.html"):
        assert (out / name).stat().st_size > 0
        assert f"prcurve-demo/{name}" in result.stdout


def test_readme_python_example_runs() -> None:
    readme = (ROOT / "README.md").read_text()
    blocks = re.findall(r"```python\n(.+?)\n```", readme, flags=re.DOTALL)
    assert blocks
    for block in blocks:
        exec(compile(block, "README.md", "exec"), {})
