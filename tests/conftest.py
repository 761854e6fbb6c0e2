"""Fixtures shared by several test modules (the suite's rules are in the root conftest.py).

A session-scoped fixture here runs once per process (once per pytest-xdist worker that
runs a test asking for it): costly set-up that several files check, made once."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import NamedTuple

import pytest


class DemoRun(NamedTuple):
    """``prcurve demo`` as a user runs it: its exit status, its output and its folder."""

    returncode: int
    stdout: str
    stderr: str
    cwd: Path


@pytest.fixture(scope="session")
def demo_run(tmp_path_factory: pytest.TempPathFactory) -> DemoRun:
    """``prcurve demo`` run once in a fresh folder by the entry point installed beside this
    interpreter (the README's main job), without ``MPLBACKEND`` (no backend is needed).
    Read by tests/test_package.py (the README's command runs) and tests/test_cli_report.py
    (what the demo writes and prints): one run instead of two, about 5 s of CPU each."""
    cwd = tmp_path_factory.mktemp("demo")
    env = {k: v for k, v in os.environ.items() if k != "MPLBACKEND"}
    entry_point = Path(sys.executable).parent / "prcurve"
    result = subprocess.run([str(entry_point), "demo"], capture_output=True, text=True,
                            cwd=cwd, env=env, check=False, timeout=600)
    return DemoRun(result.returncode, result.stdout, result.stderr, cwd)
