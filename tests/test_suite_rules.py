"""The suite's own rules (the root conftest.py, docs/testing.md), checked on small suites run in
a subprocess with this suite's conftest: a leaked resource fails the test that leaked it,
whatever ran before; under PRCURVE_TESTS_REQUIRE_ALL=1 a skip fails the run."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

CONFTEST = Path(__file__).resolve().parents[1] / "conftest.py"

LEAKY = '''
class Leak:  # a file held in a reference cycle: finalized only by the garbage collector
    def __init__(self):
        self.me = self
        self.file = open(__file__, "rb")


def test_leaks():
    Leak()


def test_after_the_leak():
    pass
'''

OTHER = '''
import gc


def test_in_another_module():
    gc.collect()  # the collection a busy library may trigger at any moment
'''

STYLED = '''
import matplotlib


def test_sets_a_style():  # as seaborn's set() does, inside a library the test calls
    matplotlib.rcParams["axes.edgecolor"] = "0.8"
    matplotlib.rcParams["figure.dpi"] = 150
'''

PLAIN = '''
import matplotlib


def test_sees_matplotlibs_own_settings():
    for key in ("axes.edgecolor", "figure.dpi"):
        assert matplotlib.rcParams[key] == matplotlib.rcParamsOrig[key], key
'''

SKIPS = '''
import pytest


def test_runs():
    pass


def test_needs_a_system_part():
    pytest.skip("needs X: apt-get install x")


@pytest.mark.xfail(strict=True, reason="a known failure is not a skip")
def test_known_failure():
    raise AssertionError
'''


def _suite(tmp_path: Path, **modules: str) -> Path:
    shutil.copy(CONFTEST, tmp_path / "conftest.py")
    for name, text in modules.items():
        (tmp_path / f"{name}.py").write_text(text)
    return tmp_path


def _pytest(folder: Path, *args: str, require_all: bool = False) -> tuple[int, str]:
    env = {k: v for k, v in os.environ.items() if k != "PRCURVE_TESTS_REQUIRE_ALL"}
    if require_all:
        env["PRCURVE_TESTS_REQUIRE_ALL"] = "1"
    result = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-rA", "-p", "no:cacheprovider", "-W", "error",
         "--rootdir", str(folder), "-c", os.devnull, *args],
        cwd=folder, env=env, capture_output=True, text=True, check=False, timeout=300)
    return result.returncode, result.stdout + result.stderr


def _outcomes(output: str) -> dict[str, set[str]]:
    """The short summary's lines (-rA): outcome -> test names."""
    found: dict[str, set[str]] = {}
    for line in output.splitlines():
        words = line.split(" ")
        if words[0] in ("PASSED", "FAILED", "ERROR", "SKIPPED", "XFAIL") and len(words) > 1:
            found.setdefault(words[0], set()).add(words[1].split("::")[-1])
    return found


def test_a_leak_fails_the_test_that_leaked_it_in_any_order(tmp_path: Path) -> None:
    folder = _suite(tmp_path, test_a=LEAKY, test_b=OTHER)
    orders = [
        ["test_a.py", "test_b.py"],
        ["test_b.py", "test_a.py"],
        ["test_a.py::test_leaks", "test_b.py", "test_a.py::test_after_the_leak"],
    ]
    for order in orders:
        code, output = _pytest(folder, *order)
        outcomes = _outcomes(output)
        assert code == 1, output
        assert outcomes.get("ERROR") == {"test_leaks"}, (order, output)  # its teardown
        assert outcomes.get("PASSED") == {"test_leaks", "test_after_the_leak",
                                          "test_in_another_module"}, (order, output)
        assert "ResourceWarning" in output or "unclosed file" in output or "Leak" in output


def test_skips_pass_by_default_and_fail_under_require_all(tmp_path: Path) -> None:
    folder = _suite(tmp_path, test_skips=SKIPS)
    code, output = _pytest(folder)
    assert code == 0, output
    assert "1 passed, 1 skipped, 1 xfailed" in output
    assert "SKIPPED [1] test_skips.py:10: needs X: apt-get install x" in output
    code, output = _pytest(folder, require_all=True)
    assert code == 1, output
    outcomes = _outcomes(output)
    assert outcomes["FAILED"] == {"test_needs_a_system_part"}
    assert outcomes["XFAIL"] == {"test_known_failure"}  # an expected failure is no skip
    assert "PRCURVE_TESTS_REQUIRE_ALL=1, which forbids skips: needs X: apt-get install x" in output


def test_a_module_skipped_at_import_fails_under_require_all(tmp_path: Path) -> None:
    folder = _suite(tmp_path, test_other=OTHER,
                    test_missing='import pytest\n\npytest.importorskip("no_such_module")\n')
    code, output = _pytest(folder)
    assert code == 0, output
    assert "1 passed, 1 skipped" in output
    code, output = _pytest(folder, require_all=True)
    assert code != 0
    assert "forbids skips" in output
    assert "no_such_module" in output


def test_matplotlib_settings_do_not_leak_into_later_tests(tmp_path: Path) -> None:
    folder = _suite(tmp_path, test_a=STYLED, test_b=PLAIN)
    code, output = _pytest(folder, "test_a.py", "test_b.py")
    assert code == 0, output
    assert _outcomes(output).get("PASSED") == {"test_sets_a_style",
                                               "test_sees_matplotlibs_own_settings"}, output
