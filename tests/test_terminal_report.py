"""``prcurve report`` printed to a terminal (issue 26, item 6): its console
(prcurve.present.terminal) prints the same bytes as rich's default console for the
report's own strings, at several widths, and the terminal path loads no more modules
than an allowed list (rich's console and table, nothing of rich's emoji table, progress
display, pretty-printer or syntax highlighter when standard error is not a terminal)."""

from __future__ import annotations

import os
import pty
import subprocess
import sys
import threading
from pathlib import Path

import numpy as np
import pytest

from prcurve.present.terminal import report_console

# Run as the program runs (prcurve.cli.run), with the console of the first argument
# ("ours" or rich's "default"), writing sys.modules at exit to the file descriptor DUMP_FD.
CHILD = r"""
import atexit, os, sys
which = sys.argv.pop(1)
if which == "default":
    from prcurve.present import terminal
    def default(stream):
        from rich.console import Console
        return Console(file=stream)
    terminal.report_console = default
def dump():
    os.write(int(os.environ["DUMP_FD"]), " ".join(sorted(sys.modules)).encode())
atexit.register(dump)
sys.argv[0] = "prcurve"
from prcurve.cli import run
run()
"""

# Beyond what the same report loads with its output on a pipe: rich's console and table
# and what they import (rich 13-15), and this module.
ALLOWED = {
    "prcurve.present.terminal", "_bisect", "_decimal", "_random", "_sha512", "bisect",
    "colorsys", "decimal", "fractions", "random", "copy", "dataclasses", "__future__",
    "threading", "typing_extensions",
}
FORBIDDEN = {"rich._emoji_codes", "rich.progress", "rich.live", "rich.pretty",
             "rich.syntax", "rich.markdown", "pygments", "rich.traceback"}


def _run(which: str, argv: list[str], *, terminal: bool, columns: int = 100,
         ) -> tuple[bytes, set[str]]:
    """Standard output's bytes (a pseudo-terminal or a pipe; standard error a pipe) and
    the modules loaded at exit."""
    read_modules, write_modules = os.pipe()
    env = {**os.environ, "COLUMNS": str(columns), "LINES": "40", "TERM": "xterm-256color",
           "DUMP_FD": str(write_modules)}
    env.pop("NO_COLOR", None)
    env.pop("FORCE_COLOR", None)
    chunks: list[bytes] = []
    if terminal:
        master, slave = pty.openpty()
        out: int = slave
    else:
        out = subprocess.PIPE
    process = subprocess.Popen([sys.executable, "-c", CHILD, which, *argv],
                               stdin=subprocess.DEVNULL, stdout=out, stderr=subprocess.PIPE,
                               env=env, pass_fds=(write_modules,))
    os.close(write_modules)
    reader = None
    if terminal:
        os.close(slave)

        def read() -> None:
            while True:
                try:
                    chunk = os.read(master, 1 << 16)
                except OSError:  # EIO: the child closed its end
                    return
                if not chunk:
                    return
                chunks.append(chunk)

        reader = threading.Thread(target=read, daemon=True)
        reader.start()
    modules = b""
    while chunk := os.read(read_modules, 1 << 16):
        modules += chunk
    os.close(read_modules)
    stdout, stderr = process.communicate()
    if reader is not None:
        reader.join(10)
        os.close(master)
    assert process.returncode == 0, stderr.decode()
    return (b"".join(chunks) if terminal else stdout), set(modules.decode().split())


@pytest.fixture(scope="module")
def scores(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Two models (two score columns): the side-by-side table too."""
    rng = np.random.default_rng(0)
    labels = rng.random(400) < 0.3
    a = rng.normal(labels * 1.0)
    b = rng.normal(labels * 0.5)
    path = tmp_path_factory.mktemp("terminal") / "s.csv"
    path.write_text("label,model_a,model b 2\n" + "".join(
        f"{int(y)},{x:.4f},{z:.4f}\n" for y, x, z in zip(labels, a, b, strict=True)))
    return path


@pytest.mark.parametrize("columns", [60, 100, 180])
def test_terminal_bytes_are_rich_defaults(scores: Path, columns: int) -> None:
    argv = ["report", str(scores), "--ci", "none"]
    ours, _ = _run("ours", argv, terminal=True, columns=columns)
    default, _ = _run("default", argv, terminal=True, columns=columns)
    assert b"\x1b[" in ours  # styled: the terminal path ran
    assert "┏".encode() in ours
    assert ours == default


def test_terminal_path_loads_only_the_allowed_modules(scores: Path) -> None:
    argv = ["report", str(scores), "--ci", "none"]
    _, piped = _run("ours", argv, terminal=False)
    _, terminal = _run("ours", argv, terminal=True)
    extra = terminal - piped
    assert "rich.console" in extra
    assert "rich.table" in extra
    assert not extra & FORBIDDEN
    unexpected = {m for m in extra if m not in ALLOWED and not m.startswith("rich.")
                  and m != "rich"}
    assert not unexpected
    rich_modules = {m for m in extra if m == "rich" or m.startswith("rich.")}
    assert rich_modules <= _rich_console_and_table()


def _rich_console_and_table() -> set[str]:
    """rich's modules that ``import rich.console, rich.table`` and a first styled print
    of a table (rich's cell widths) load, whichever version is installed."""
    code = ("import io, sys\nfrom rich.console import Console\nfrom rich.table import Table\n"
            "t = Table(title='x')\nt.add_column('a')\nt.add_row('1')\n"
            "Console(file=io.StringIO(), force_terminal=True, markup=False, emoji=False,"
            " highlight=False).print(t)\n"
            "print(' '.join(m for m in sys.modules if m.split('.')[0] == 'rich'))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          check=True)
    return set(done.stdout.split())


def test_report_console_prints_names_as_written() -> None:
    """No markup, no emoji codes, no highlighting: the report's strings as they are."""
    import io

    stream = io.StringIO()
    console = report_console(stream)
    console.print("model [bold]x[/bold] :smile: 0.5 'quoted' [0.1, 0.2]")
    assert stream.getvalue() == "model [bold]x[/bold] :smile: 0.5 'quoted' [0.1, 0.2]\n"


def test_report_console_reads_the_size_once(monkeypatch: pytest.MonkeyPatch) -> None:
    import io

    calls = []
    real = os.get_terminal_size

    def counting(fd: int = 1) -> os.terminal_size:
        calls.append(fd)
        return real(fd)

    monkeypatch.delenv("COLUMNS", raising=False)
    monkeypatch.delenv("LINES", raising=False)
    monkeypatch.setattr(os, "get_terminal_size", counting)
    console = report_console(io.StringIO())
    probes = len(calls)
    for _ in range(5):
        console.print("x")
    assert len(calls) == probes  # printing probes nothing more
