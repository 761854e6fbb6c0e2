"""Start-up: what ``import prcurve`` and ``prcurve --help`` / ``--version`` load (issue 26).

Each check runs a fresh interpreter and compares its ``sys.modules`` after the import
with that of an interpreter that imported nothing: a module outside the allowed list
(numpy, pyarrow, a subcommand, an eager submodule) fails the test with its name.
"""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from pathlib import Path

import pytest

import prcurve
from prcurve.cli.main import COMMANDS, register

ROOT = Path(__file__).resolve().parents[1]

# What `import prcurve` may add to a bare interpreter: the package, its version and error
# classes, and the standard library modules these three files import.
IMPORT_ALLOWED = {"prcurve", "prcurve._version", "prcurve.errors", "__future__", "importlib",
                  "importlib._bootstrap", "importlib._bootstrap_external", "types", "typing",
                  "typing.io", "typing.re", "_typing", "collections.abc", "contextlib",
                  "warnings"}

# `prcurve --help` and `--version` may add, beyond that: the CLI's parser modules and
# argparse with what argparse imports (shutil imports the compression modules).
CLI_ALLOWED = IMPORT_ALLOWED | {
    "prcurve.cli", "prcurve.cli.main", "prcurve.cli.common", "argparse",
    "gettext", "locale", "_locale", "shutil", "fnmatch", "errno", "bz2", "_bz2", "lzma",
    "_lzma", "_compression", "zlib", "collections", "enum",
    "functools", "_functools", "itertools", "keyword", "operator", "_operator", "reprlib",
    "copyreg", "re", "re._casefix", "re._compiler", "re._constants", "re._parser", "_sre",
    "_collections", "textwrap",
    "gc",  # built in (no file to load): the CLI pauses collection while modules load
}


def loaded_by(code: str) -> set[str]:
    """The modules a fresh interpreter holds after running ``code``, less those of a bare
    interpreter (``-I``-free: site and the environment as a user's)."""
    probe = "import sys, json\n{}\nprint(json.dumps(sorted(sys.modules)))"
    def run(body: str) -> set[str]:
        result = subprocess.run([sys.executable, "-c", probe.format(body)], capture_output=True,
                                text=True, check=True)
        return set(json.loads(result.stdout.strip().splitlines()[-1]))
    return run(code) - run("pass")


def test_import_loads_only_the_allowed_modules() -> None:
    extra = loaded_by("import prcurve") - IMPORT_ALLOWED
    assert not extra, f"`import prcurve` loads modules outside the allowed list: {sorted(extra)}"


@pytest.mark.parametrize("argv", [["--version"], ["--help"], []])
def test_cli_help_and_version_load_no_subcommand(argv: list[str]) -> None:
    code = ("import contextlib, io\nfrom prcurve.cli import main\n"
            "with contextlib.redirect_stdout(io.StringIO()), "
            "contextlib.redirect_stderr(io.StringIO()):\n"
            f"    main({argv!r})")
    extra = loaded_by(code) - CLI_ALLOWED
    assert not extra, f"`prcurve {' '.join(argv)}` loads {sorted(extra)}"


def test_the_check_can_fail() -> None:
    # The same comparison sees an eager import: a public name used loads numpy.
    extra = loaded_by("import prcurve; prcurve.average_precision") - IMPORT_ALLOWED
    assert "numpy" in extra
    assert "prcurve.space.multiclass" in extra


def test_a_subcommand_loads_its_own_module_only() -> None:
    code = ("import contextlib, io\nfrom prcurve.cli import main\n"
            "with contextlib.redirect_stderr(io.StringIO()):\n"
            "    main(['trec', 'no-such-qrels', 'no-such-run'])")
    loaded = loaded_by(code)
    assert "prcurve.cli.trec" in loaded
    assert not {"prcurve.cli.report", "prcurve.cli.detection", "prcurve.cli.demo"} & loaded


def test_lazy_names_are_the_modules_own_and_match_the_type_checkers_imports() -> None:
    # Each lazy name is the object its module defines, and the TYPE_CHECKING imports
    # (what mypy sees) name the same module and object.
    tree = ast.parse((ROOT / "src" / "prcurve" / "__init__.py").read_text())
    block = next(node for node in tree.body if isinstance(node, ast.If))
    seen: dict[str, tuple[str, str]] = {}
    for node in block.body:
        assert isinstance(node, ast.ImportFrom)
        assert node.module
        for alias in node.names:
            seen[alias.asname or alias.name] = (node.module, alias.name)
    assert seen == prcurve._LAZY
    eager = {"__version__", "InvalidInputError", "UndefinedMetricError",
             "UndefinedMetricWarning"}
    assert set(prcurve.__all__) == set(seen) | eager
    for name, (module, attribute) in seen.items():
        assert getattr(prcurve, name) is getattr(sys.modules[module], attribute)


def test_dir_lists_lazy_names_and_unknown_names_fail() -> None:
    assert set(prcurve.__all__) <= set(dir(prcurve))
    with pytest.raises(AttributeError, match="no_such_name"):
        prcurve.no_such_name  # noqa: B018
    code = "import prcurve\nfrom prcurve import Qrels, evaluate_ranking\nprint(Qrels.__name__)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout
    assert out.strip() == "Qrels"


def test_subpackages_are_attributes_loaded_on_use() -> None:
    # prcurve.ranking's names and submodules load on use too (its own PEP 562 table):
    # importing one ranking module no longer imports them all (issue 26).
    code = ("import prcurve\nprint(prcurve.ranking.Qrels.__name__, prcurve.core.__name__, "
            "prcurve.ranking.trec_eval.__name__)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout
    assert out.split() == ["Qrels", "prcurve.core", "prcurve.ranking.trec_eval"]


def test_the_help_table_is_each_modules_own_help() -> None:
    # COMMANDS (what `prcurve --help` shows without importing the subcommands) says what
    # each subcommand's own register says, in the same order.
    import argparse

    parser = argparse.ArgumentParser()
    subparsers = parser.add_subparsers()
    register(subparsers)
    own = {action.dest: action.help for action in subparsers._choices_actions}
    assert list(own) == list(COMMANDS)
    assert own == {name: help_line for name, (_, help_line) in COMMANDS.items()}
