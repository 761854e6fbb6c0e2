"""The lazy packages (prcurve._lazy, PEP 562; issue 26, items 1-2): ``prcurve.ranking``
and ``prcurve.detection`` load a public name or a submodule on first use. Their lazy
table must be exactly their TYPE_CHECKING imports (the names the type checker sees)."""

from __future__ import annotations

import ast
import importlib
import inspect
import subprocess
import sys

import pytest

# (package, a submodule to load, a module that loading it must not load)
PACKAGES = [("prcurve.ranking", "trec_eval", "prcurve.ranking.compare"),
            ("prcurve.detection", "masks", "prcurve.detection.bootstrap")]


@pytest.mark.parametrize("package", [p for p, _, _ in PACKAGES])
def test_lazy_names_are_the_type_checking_imports(package: str) -> None:
    module = importlib.import_module(package)
    source = inspect.getsource(module)
    block = next(node for node in ast.parse(source).body
                 if isinstance(node, ast.If) and ast.unparse(node.test) == "TYPE_CHECKING")
    seen: dict[str, str] = {}
    for node in block.body:
        assert isinstance(node, ast.ImportFrom)
        assert node.module
        for alias in node.names:
            seen[alias.asname or alias.name] = node.module
    assert seen == module._LAZY
    assert set(module.__all__) == set(seen)
    for name, source_module in seen.items():
        assert getattr(module, name) is getattr(sys.modules[source_module], name)
    assert set(module.__all__) <= set(dir(module))


@pytest.mark.parametrize(("package", "submodule", "not_loaded"), PACKAGES)
def test_submodules_load_on_use_and_unknown_names_fail(package: str, submodule: str,
                                                      not_loaded: str) -> None:
    code = (f"import {package} as p, sys\n"
            f"print(p.{submodule}.__name__, {not_loaded!r} in sys.modules)\n"
            "try:\n    p.no_such_thing\nexcept AttributeError as e:\n    print('AttributeError')")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout.split()
    assert out == [f"{package}.{submodule}", "False", "AttributeError"]
