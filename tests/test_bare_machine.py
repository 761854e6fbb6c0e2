"""The README's two commands on a bare machine: python3 and nothing else (docs/testing.md).

A fresh clone of this repository runs both Quickstart commands verbatim with a PATH
that hides java, chromium and chromedriver, outside CI's require-all mode: both must
pass, the Spark tests must run (Java comes from the test extra), and the only skips
allowed are the browser tests' (each saying what to install) and this test's own copy
(CI only, so the inner run does not recurse into it). It takes minutes: CI only.
.ci/run starts it beside the main run (on its own, ``-n 0``) and the main run leaves it
out (conftest.py, rule 4), so that it does not hold one of the main run's workers.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from tests.test_package import quickstart_commands

ROOT = Path(__file__).resolve().parents[1]
HIDDEN = ("java", "chromium", "chromium-browser", "chromedriver")
CI_ONLY = ("CI only (minutes): the README's commands in a fresh clone without java or "
           "chromium; CI=true runs it")
BROWSER_SKIP = "apt-get install chromium chromium-driver"
# Variables of this run that the bare machine does not have.
NOT_ON_A_BARE_MACHINE = ("CI", "PRCURVE_TESTS_REQUIRE_ALL", "JAVA_HOME", "VIRTUAL_ENV",
                         "PYTHONPATH", "PYTHONHOME", "PYSPARK_PYTHON", "SPARK_HOME",
                         "PYTEST_ADDOPTS", "PYTEST_CURRENT_TEST", "PRCURVE_BARE_MACHINE_BESIDE")


def hidden_path(path: str, folder: Path) -> str:
    """``path`` without the ``HIDDEN`` programs: each folder holding one is replaced by a
    folder in ``folder`` of links to everything else in it; this interpreter's virtual
    environment is left out (the bare machine has none)."""
    venv = Path(sys.prefix) / "bin" if sys.prefix != sys.base_prefix else None
    out = []
    for i, entry in enumerate(path.split(os.pathsep)):
        where = Path(entry)
        if not entry or not where.is_dir() or (venv is not None and where == venv):
            continue
        names = {p.name for p in where.iterdir()}
        if not names & set(HIDDEN):
            out.append(entry)
            continue
        shadow = folder / f"path{i}"
        shadow.mkdir(parents=True)
        for name in sorted(names - set(HIDDEN)):
            (shadow / name).symlink_to(where / name)
        out.append(str(shadow))
    return os.pathsep.join(out)


def test_hidden_path_hides_the_system_parts(tmp_path: Path) -> None:
    # The small-scale check of the fresh-clone test's PATH, run everywhere.
    fake = tmp_path / "bin"
    fake.mkdir()
    for name in (*HIDDEN, "python3", "git"):
        (fake / name).write_text("#!/bin/sh\n")
        (fake / name).chmod(0o755)
    path = hidden_path(os.pathsep.join([str(fake), os.environ.get("PATH", "")]),
                       tmp_path / "shadow")
    for name in HIDDEN:
        assert shutil.which(name, path=path) is None
    assert shutil.which("python3", path=path) == str(tmp_path / "shadow" / "path0" / "python3")
    assert shutil.which("git", path=path) is not None


def _summary(output: str) -> tuple[dict[str, int], list[str]]:
    """pytest's closing counts and the reasons of its SKIPPED lines (-ra)."""
    last = [line for line in output.splitlines() if re.search(r"\d+ passed", line)][-1]
    counts = {word: int(n) for n, word in re.findall(r"(\d+) (\w+)", last)}
    skips = re.findall(r"^SKIPPED \[\d+\] (.+)$", output, flags=re.MULTILINE)
    return counts, skips


@pytest.mark.skipif(os.environ.get("CI") != "true", reason=CI_ONLY)
def test_readme_commands_pass_on_a_bare_machine(tmp_path: Path) -> None:
    clone = tmp_path / "clone"
    subprocess.run(["git", "clone", "--quiet", str(ROOT), str(clone)], check=True)
    env = {k: v for k, v in os.environ.items() if k not in NOT_ON_A_BARE_MACHINE}
    env["PATH"] = hidden_path(os.environ.get("PATH", ""), tmp_path / "bin")
    for name in HIDDEN:
        assert shutil.which(name, path=env["PATH"]) is None
    demo, tests = quickstart_commands()
    for command in (demo, tests):
        result = subprocess.run(["bash", "-c", command], cwd=clone, env=env,
                                capture_output=True, text=True, check=False, timeout=45 * 60)
        # The test run's own summary (stdout) first; pip's notices on stderr can be many.
        errors = "\n".join(line for line in result.stderr.splitlines()
                           if not line.startswith("WARNING: Location"))
        assert result.returncode == 0, (
            f"{command}\n{result.stdout[-6000:]}\n--- stderr ---\n{errors[-3000:]}")
    assert (clone / "prcurve-demo" / "report.html").stat().st_size > 0
    counts, skips = _summary(result.stdout)
    assert counts.get("failed", 0) == 0
    assert counts.get("errors", counts.get("error", 0)) == 0
    assert counts["passed"] > 1000
    # The Spark tests ran (Java from the test extra); the browser tests skipped, saying what
    # to install; this test's inner copy skipped as not CI.
    assert "test_spark.py" not in "\n".join(skips)
    for reason in skips:
        assert BROWSER_SKIP in reason or CI_ONLY in reason, reason
    assert any(BROWSER_SKIP in reason for reason in skips)
