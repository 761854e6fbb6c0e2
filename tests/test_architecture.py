"""The architecture of docs/architecture.md, checked: layers, no circles, modules that say
what they are, and a documentation page that lists every module."""

from __future__ import annotations

import ast
import re
import textwrap
from pathlib import Path

import pytest
from importlinter.cli import lint_imports

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "src" / "prcurve"

# Modules over ~600 lines, each one cohesive thing (docs/architecture.md says why).
LONG_MODULES = {
    "detection/coco.py": "COCOeval's accumulate and summarize: one array, its views",
    "core/curve.py": "PRCurve, one class: every view of one count state",
    "space/bounds.py": "the theorems of the unachievable region, one per function",
    "space/intervals.py": "one resampling engine behind every interval",
}
LINE_LIMIT = 600


def modules() -> list[Path]:
    return sorted(p for p in PACKAGE.rglob("*.py") if "__pycache__" not in p.parts)


def test_import_contracts_hold() -> None:
    # pyproject.toml's [tool.importlinter]: imports point downward between layers, and no
    # package's modules import each other in a circle (the lazy convenience imports it
    # lists are the only exceptions).
    code = lint_imports(config_filename=str(ROOT / "pyproject.toml"), no_cache=True,
                        no_logo=True)
    assert code == 0, "an import points upward or closes a circle: run lint-imports"


def test_import_contracts_catch_an_upward_import_and_a_circle(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
) -> None:
    # The same kinds of contract on a small package that breaks both: the check can fail.
    package = tmp_path / "layered_demo"
    (package / "low").mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (package / "high.py").write_text("from layered_demo.low import a\n")
    (package / "low" / "__init__.py").write_text("")
    (package / "low" / "a.py").write_text(
        "from layered_demo import high\nfrom layered_demo.low import b\n")
    (package / "low" / "b.py").write_text("from layered_demo.low import a\n")
    config = tmp_path / "contracts.toml"
    config.write_text(textwrap.dedent("""
        [tool.importlinter]
        root_package = "layered_demo"

        [[tool.importlinter.contracts]]
        name = "layers"
        type = "layers"
        layers = ["layered_demo.high", "layered_demo.low"]

        [[tool.importlinter.contracts]]
        name = "no circles"
        type = "acyclic_siblings"
        ancestors = ["layered_demo"]
    """))
    monkeypatch.syspath_prepend(str(tmp_path))
    assert lint_imports(config_filename=str(config), no_cache=True, no_logo=True) == 1
    out = capsys.readouterr().out
    assert "layers BROKEN" in out
    assert "no circles BROKEN" in out


@pytest.mark.parametrize("path", modules(), ids=lambda p: str(p.relative_to(PACKAGE)))
def test_every_module_says_what_it_is_and_stays_small(path: Path) -> None:
    text = path.read_text()
    docstring = ast.get_docstring(ast.parse(text))
    assert docstring, f"{path.name}: the first thing in a module is a docstring saying what it is"
    relative = str(path.relative_to(PACKAGE))
    lines = text.count("\n")
    if relative not in LONG_MODULES:
        assert lines <= LINE_LIMIT, (
            f"{relative} has {lines} lines: split it, or say in LONG_MODULES and "
            "docs/architecture.md why it is one cohesive thing")


def test_architecture_page_lists_every_module() -> None:
    page = (ROOT / "docs" / "architecture.md").read_text()
    listed = set(re.findall(r"`(prcurve(?:\.[a-z_]+)*)`", page))
    missing = []
    for path in modules():
        parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        if parts[-1] == "__main__":
            continue
        name = ".".join(parts)
        if name not in listed:
            missing.append(name)
    assert not missing, f"docs/architecture.md does not list: {missing}"
