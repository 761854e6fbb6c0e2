"""What `prcurve coco` loads on a small run (issue 26, item 2): prcurve.detection's lazy
public names, and no module that the printed summary does not need (the bootstrap and
its intervals, VOC, LVIS, the report's command line, the presentation layer; for the
summary alone, the count state, the PR curve and the table)."""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from pathlib import Path

import pytest

# Loaded by none of `prcurve coco GT DT` on a small file's modules (each with its reason):
# a test failing here names a module a change made the command import.
NOT_LOADED = {
    "prcurve.detection.bootstrap": "--bootstrap and several DT.json only",
    "prcurve.space.intervals": "--bootstrap and several DT.json only",
    "prcurve.detection.voc": "prcurve voc only",
    "prcurve.detection.lvis": "prcurve lvis only",
    "prcurve.detection.tide": "--errors only",
    "prcurve.detection.confusion": "--confusion only",
    "prcurve.cli.report": "--out only (prepare_out)",
    "prcurve.present": "--out only (plots, the safe writer's report side)",
    # Since session 35 core's sorts load it where their threads start: a small run's
    # curves (--per-class, --json) count on one thread.
    "concurrent.futures": "threads of core's large sorts only",
}

# Loaded by none of the plain summary's modules (`prcurve coco GT DT`, no option): the
# views that --per-class, --json and --out show load them.
NOT_LOADED_BY_THE_SUMMARY = {
    "prcurve.core.counts": "a category's count state (curves, best F) only",
    "prcurve.core.curve": "a category's PR curve (best F) only",
    "prcurve.core.table": "per_category() and best_f() tables only",
}


def _files(tmp_path: Path) -> tuple[Path, Path]:
    gt = {"images": [{"id": 1, "width": 64, "height": 48}, {"id": 2, "width": 64, "height": 48}],
          "categories": [{"id": 1, "name": "a"}, {"id": 2, "name": "b"}],
          "annotations": [
              {"id": 1, "image_id": 1, "category_id": 1, "bbox": [1, 1, 10, 10], "area": 100,
               "iscrowd": 0},
              {"id": 2, "image_id": 2, "category_id": 2, "bbox": [5, 5, 20, 10], "area": 200,
               "iscrowd": 0}]}
    dt = [{"image_id": 1, "category_id": 1, "bbox": [1, 1, 10, 9], "score": 0.9},
          {"image_id": 2, "category_id": 2, "bbox": [30, 30, 5, 5], "score": 0.8},
          {"image_id": 2, "category_id": 2, "bbox": [5, 5, 20, 11], "score": 0.5}]
    (tmp_path / "gt.json").write_text(json.dumps(gt))
    (tmp_path / "dt.json").write_text(json.dumps(dt))
    return tmp_path / "gt.json", tmp_path / "dt.json"


@pytest.mark.parametrize("options", [[], ["--per-class"], ["--json"]])
def test_coco_on_a_small_run_loads_only_what_it_needs(tmp_path: Path,
                                                      options: list[str]) -> None:
    gt, dt = _files(tmp_path)
    code = (
        "import sys\n"
        "from prcurve.cli.main import main\n"
        "code = main(['coco', *sys.argv[3:], sys.argv[1], sys.argv[2]])\n"
        "print(sorted(sys.modules), file=sys.stderr)\n"
        "sys.exit(code)"
    )
    done = subprocess.run([sys.executable, "-c", code, str(gt), str(dt), *options],
                          capture_output=True, text=True, check=True)
    assert "Average Precision" in done.stdout
    loaded = set(ast.literal_eval(done.stderr.strip().splitlines()[-1]))
    for module, why in NOT_LOADED.items():
        assert module not in loaded, f"{module} loaded; needed for {why}"
    for module, why in NOT_LOADED_BY_THE_SUMMARY.items():
        assert (module in loaded) == bool(options), f"{module}: needed for {why}"


def test_the_bootstrap_still_runs_from_the_command_line(tmp_path: Path) -> None:
    # The lazy imports moved: --bootstrap and --interval still reach the bootstrap.
    from prcurve.cli import main

    gt, dt = _files(tmp_path)
    assert main(["coco", str(gt), str(dt), "--bootstrap", "20", "--interval", "basic"]) == 0
    assert main(["coco", str(gt), str(dt), "--interval", "no-such"]) == 2
