"""The suite's rules, for every test (docs/testing.md).

1. No test's outcome depends on which tests ran before it. A resource that a test
   leaks in a reference cycle (a pipe of a child process that failed to start, an
   unclosed file) is finalized at some later garbage collection; its
   ``ResourceWarning`` (an error under ``filterwarnings = error``) then failed
   whichever test happened to be running, in another module. Here the cyclic garbage
   is collected at the end of every test's teardown, before pytest's unraisable-
   exception check of that phase, so such a warning fails the test that left the
   garbage, whatever ran before. The objects alive once collection has imported
   every module (modules, classes, functions) are frozen out of the collector
   (``gc.freeze``), so each collection scans only what the tests made; at the end
   of each test module, once its fixtures are finalized, what it made is collected
   and what outlives it is frozen too. At the session's end everything is unfrozen
   for pytest's last collection.
   The same for matplotlib's global settings: a library a test calls may change them
   (tidecv's ``TIDE()`` runs seaborn's ``set(style="whitegrid")``, light grey axes),
   and every later figure of that process was drawn with them. After each test, any
   ``rcParams`` entry that differs from matplotlib's own start-up value is put back.
2. ``PRCURVE_TESTS_REQUIRE_ALL=1`` (set by .ci/run): any skip fails the run, so CI,
   which installs every system part, runs every test. Without it, a test that
   needs a system part the machine lacks skips with one line naming what to install.
3. No test's outcome depends on how busy the machine is: Hypothesis's timing checks
   (its 200 ms deadline per example and the too-slow health check of data generation)
   are off, so a loaded machine or a second test worker (pytest-xdist) cannot fail a
   property whose every example holds. The examples themselves are unchanged.
4. ``PRCURVE_BARE_MACHINE_BESIDE=1`` (set by .ci/run, which runs the bare-machine test
   beside the main run): the main run leaves that test out (deselected, not skipped).
"""

from __future__ import annotations

import gc
import os
import sys
import warnings
from collections.abc import Generator
from typing import Any

import pytest
from hypothesis import HealthCheck, settings

REQUIRE_ALL = "PRCURVE_TESTS_REQUIRE_ALL"


def _require_all() -> bool:
    return os.environ.get(REQUIRE_ALL, "") not in ("", "0")


# -- 1. garbage collected within the test that made it --------------------------------


def pytest_collection_finish(session: pytest.Session) -> None:
    gc.collect()
    gc.freeze()


# Autouse fixtures of the widest scope are set up first and finalized last, after the
# test's own fixtures, still within the teardown phase that pytest then checks for
# unraisable exceptions (a finalizer's warning included).


@pytest.fixture(autouse=True, scope="module")
def _collect_module_garbage() -> Generator[None, None, None]:
    yield
    gc.collect()  # the module's fixtures are gone (all made since the last freeze)
    gc.freeze()  # what outlives the module (its globals, caches) is not scanned again


def pytest_sessionfinish(session: pytest.Session) -> None:
    gc.unfreeze()  # pytest's last collection, at exit, scans everything


@pytest.fixture(autouse=True)
def _collect_test_garbage() -> Generator[None, None, None]:
    yield
    _restore_matplotlib_settings()
    gc.collect()


def _restore_matplotlib_settings() -> None:
    matplotlib = sys.modules.get("matplotlib")
    if matplotlib is None:  # not imported yet: nothing can have changed
        return
    current, start = matplotlib.rcParams, matplotlib.rcParamsOrig
    changed = {key: value for key, value in start.items()
               if key != "backend" and current.get(key) != value}
    if changed:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # a deprecated key's warning, when restored
            current.update(changed)


# -- 2. no skip under PRCURVE_TESTS_REQUIRE_ALL ---------------------------------------


def _refuse_skip(report: pytest.TestReport | pytest.CollectReport) -> None:
    if not report.skipped or hasattr(report, "wasxfail"):
        return
    reason = report.longrepr[2] if isinstance(report.longrepr, tuple) else report.longrepr
    reason = str(reason).removeprefix("Skipped: ")
    report.outcome = "failed"
    report.longrepr = f"skipped under {REQUIRE_ALL}=1, which forbids skips: {reason}"


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item,
                              call: pytest.CallInfo[Any]) -> Generator[None, Any, Any]:
    report = yield
    if _require_all():
        _refuse_skip(report)
    return report


@pytest.hookimpl(wrapper=True)
def pytest_make_collect_report(collector: pytest.Collector) -> Generator[None, Any, Any]:
    report = yield
    if _require_all():
        _refuse_skip(report)
    return report


# -- 3. Hypothesis without timing checks ---------------------------------------------

settings.register_profile("prcurve", deadline=None,
                          suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("prcurve")


# -- 4. the bare-machine test run beside, not inside ---------------------------------

BESIDE = "PRCURVE_BARE_MACHINE_BESIDE"
BARE_MACHINE_TEST = "test_bare_machine.py::test_readme_commands_pass_on_a_bare_machine"


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if os.environ.get(BESIDE, "") in ("", "0"):
        return
    beside = [item for item in items if item.nodeid.endswith(BARE_MACHINE_TEST)]
    if beside:
        config.hook.pytest_deselected(items=beside)
        items[:] = [item for item in items if item not in beside]
