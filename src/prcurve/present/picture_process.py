"""A report's pictures drawn in a second Python process while this one builds the page.

``prcurve report --out DIR`` writes four pictures (matplotlib) and report.html (Bokeh).
At everyday sizes that drawing is most of the command's time, and the two libraries'
work is independent, so the command draws the pictures in a child process while it
reads the inputs, counts and builds the page itself: on two cores the wall time is
about the longer of the two, not their sum (issue 26, item 3; docs/report.md).

- :func:`start_early` starts the child at the very start of the ``prcurve report``
  program, before NumPy and the command's modules load (``prcurve.cli.main`` calls it
  when the command's words ask for pictures); :meth:`PictureProcess.start` takes that
  child, or starts one before the inputs are read. It imports matplotlib while this
  process loads, reads and counts. The child is a fresh interpreter
  (``sys.executable -c``), not a fork: this process has NumPy's (OpenBLAS's) threads
  by then, after which ``fork`` may deadlock (and warns from Python 3.12), and a fresh
  interpreter works the same on every platform. It runs with this process's
  ``sys.path``, so it imports the same prcurve and matplotlib.
- :meth:`PictureProcess.draw` sends it the finished :class:`~prcurve.present.report.Report`
  (pickled over its standard input); it draws with
  :func:`prcurve.present.report_figures.draw_pictures`, the function this process would
  call, and sends back the PRG figure's SVG (for the page) and then every file's bytes.
  The files are the same bytes either way (tests/test_report_drawing.py).
- Anything that goes wrong in the child (it cannot start, fails to import, raises, is
  killed, sends something unexpected) makes this process draw the pictures itself,
  in-process: the user gets the same files, or the same one-line error that drawing
  here raises. The child's standard error is discarded: it never prints a traceback.
- A child that hangs is given up after :data:`WAIT_SECONDS` (5 minutes, from the moment
  the report is sent; a 10^4-row report takes it about 1 s): it is killed and the
  pictures are drawn here.
- :meth:`PictureProcess.close` (a ``with`` block) always waits for the child; a child
  still working when the command fails is killed first. No process is left behind.

The child is started only when a core is free for it (:func:`free_core`: two cores or
more, and a load average below their number); on a machine whose cores are all busy it
would only add its start-up to the work. The environment variable ``PRCURVE_PICTURES``
overrides that: ``child`` always starts it, ``here`` never does; any other value (not
blank) is an :class:`~prcurve.errors.InvalidInputError` naming the variable.

Reports too large to send cheaply (more than :data:`MAX_SENT_THRESHOLDS` operating
points in all) are drawn here, and the child is told to stop.

Examples
--------
>>> from prcurve.present.report_build import evaluate
>>> from prcurve.present.picture_process import InProcessPictures, PictureProcess
>>> report = evaluate({"a": ([1, 0, 1, 0, 1], [0.9, 0.8, 0.7, 0.6, 0.2])})
>>> with PictureProcess.start() as process:
...     source = process.draw(report)
...     files = source.files()
>>> files == InProcessPictures(report).files()
True
"""

from __future__ import annotations

import contextlib
import os
import pickle
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from types import TracebackType
from typing import TYPE_CHECKING, Any, BinaryIO, Protocol

if TYPE_CHECKING:
    from prcurve.present.report_figures import DrawnPictures

__all__ = ["MAX_SENT_THRESHOLDS", "WAIT_SECONDS", "InProcessPictures", "PictureProcess",
           "PictureSource", "free_core", "picture_writer", "serve", "start_early", "stop_early"]

WAIT_SECONDS = 300.0
"""The longest this process waits for the child's pictures, from the moment it sends the
report: then the child is killed and the pictures are drawn here. The child draws a
10^4-row report in about 1 s on an idle machine and a report of
:data:`MAX_SENT_THRESHOLDS` operating points in a few seconds, so only a child that hangs
(or a machine stopped for minutes) reaches it."""

MAX_SENT_THRESHOLDS = 2_000_000
"""The most operating points (all models together) of a report sent to the child; a larger
report is drawn in-process (pickling its curves would cost more than drawing saves)."""

_CHILD = ("import gc; gc.disable(); "
          "import pickle, sys; sys.path[:] = pickle.load(sys.stdin.buffer); "
          "from prcurve.present.picture_process import serve; serve()")
"""The child's program: no cycle collection (:func:`serve` freezes what its imports made;
it draws one report and exits), this process's module search path, then :func:`serve`."""


def free_core() -> bool:
    """Whether a second process can run beside this one: at least two cores are this
    process's to use (``os.sched_getaffinity`` where there is one) and one of them is
    idle now. "Now" is the count of threads running or ready to run at this instant
    (the fourth field of Linux's ``/proc/loadavg``, this process included): fewer than
    the cores. Without it, the 1-minute load average below the cores (``os.getloadavg``;
    true where there is none). The instant's count, not the minute's average: the average
    trails, and in a loop of reports it counts the previous reports' own work, so that
    a machine idle between them looked busy (docs/benchmarks.md, session 32). On a busy
    machine a second process only adds its start-up (about 0.3 s of CPU: its own
    interpreter, NumPy and prcurve) to the work: there the pictures are drawn in-process."""
    affinity = getattr(os, "sched_getaffinity", None)
    cores = len(affinity(0)) if affinity is not None else (os.cpu_count() or 1)
    if cores < 2:
        return False
    running = _running_now()
    if running is not None:
        return running < cores
    try:
        load = os.getloadavg()[0]
    except (AttributeError, OSError):  # no load average here (Windows)
        return True
    return load < cores


def _running_now() -> int | None:
    """Threads running or runnable at this instant (Linux's ``/proc/loadavg``: ``1.05
    0.70 0.52 2/345 12345``), counting this process as one whatever its own threads do
    (OpenBLAS's, spinning after NumPy's import, are runnable for a while); None where
    it cannot be read."""
    try:
        with open("/proc/loadavg", "rb") as handle:
            field = handle.read().split()[3]
        running = int(field.split(b"/")[0])
        own = 0
        for task in os.listdir("/proc/self/task"):
            with open(f"/proc/self/task/{task}/stat", "rb") as handle:
                # "tid (name) S ...": the state follows the name's closing parenthesis.
                own += handle.read().rpartition(b")")[2].split()[0] == b"R"
    except (OSError, IndexError, ValueError):
        return None
    return max(running - own, 0) + 1


def _wanted() -> bool:
    """``PRCURVE_PICTURES``: ``child`` always starts the child, ``here`` never does;
    unset (or blank): when :func:`free_core`. Any other value is refused
    (:func:`prcurve.validation.paths.check_pictures_setting`)."""
    from prcurve.validation.paths import check_pictures_setting

    setting = check_pictures_setting(os.environ.get("PRCURVE_PICTURES"))
    return setting == "child" or (setting is None and free_core())


_early: subprocess.Popen[bytes] | None = None
"""The drawing process :func:`start_early` started, until :meth:`PictureProcess.start`
takes it (or :func:`stop_early` stops it)."""

_NOT_DRAWING = ("--no-plots", "--stream", "--dask", "--workers")
"""``prcurve report`` options under which the command draws no picture in a second process."""


def _asks_for_pictures(words: Sequence[str]) -> bool:
    """Whether ``prcurve report`` with these words writes pictures read whole: ``--out``
    given, and none of :data:`_NOT_DRAWING` (nor an abbreviation of one, as argparse
    takes them). A guess from the words before they are parsed: a wrong guess costs a
    process started in vain, or started later, never a different result."""
    names = [word.split("=", 1)[0] for word in words if word.startswith("--")]
    if not any(name == "--out" for name in names):
        return False
    return not any(option.startswith(name) for name in names if len(name) >= 4
                   for option in _NOT_DRAWING)


def start_early(words: Sequence[str]) -> None:
    """Start the drawing process at the very start of ``prcurve report`` (``words``: its
    command line), before NumPy and the command's modules load, when the words ask for
    pictures (:func:`_asks_for_pictures`) and one would be started anyway (:func:`_wanted`;
    an invalid ``PRCURVE_PICTURES`` starts none and is reported by the command). It
    imports matplotlib while this process loads its modules, parses and counts:
    started once the command's modules had loaded, it began about 0.15 s later, all of
    it on the critical path (docs/report.md, "Two processes").
    :meth:`PictureProcess.start` takes it; one that is not taken (the command failed
    before, or streams its inputs) is stopped by :func:`stop_early`, at the latest when
    this process exits."""
    global _early
    if _early is not None or not sys.executable or not _asks_for_pictures(words):
        return
    from prcurve.errors import InvalidInputError

    try:
        if not _wanted():
            return
    except InvalidInputError:  # the command reports it, once it has parsed its arguments
        return
    _early = _spawn()
    if _early is not None:
        import atexit

        atexit.register(stop_early)


def stop_early() -> None:
    """Stop the process :func:`start_early` started, unless it was taken: kill it (it has
    no work of ours yet), close its pipes and wait for it (no zombie)."""
    global _early
    child, _early = _early, None
    if child is None:
        return
    child.kill()
    for stream in (child.stdin, child.stdout):
        if stream is not None:
            with contextlib.suppress(OSError):
                stream.close()
    child.wait()


# OpenBLAS reads its thread count when numpy loads it, from the first of these set
# (OpenBLAS's USAGE.md; the same list as prcurve.cli.main's).
_BLAS_THREAD_VARIABLES = ("OPENBLAS_NUM_THREADS", "GOTO_NUM_THREADS", "OMP_NUM_THREADS")


def _child_environment() -> dict[str, str] | None:
    """The child's environment: this process's, with one OpenBLAS thread unless a thread
    count is set (None: inherited as it is). Drawing calls no BLAS routine that threads
    would speed up, and OpenBLAS's threads spin after numpy loads: about 30 ms of CPU on
    a 2-core machine, taken from the parent that counts meanwhile (issue 26)."""
    if any(name in os.environ for name in _BLAS_THREAD_VARIABLES):
        return None
    return {**os.environ, "OPENBLAS_NUM_THREADS": "1"}


def _spawn() -> subprocess.Popen[bytes] | None:
    """A fresh interpreter running :func:`serve`, sent this process's ``sys.path``."""
    try:
        child = subprocess.Popen([sys.executable, "-c", _CHILD], stdin=subprocess.PIPE,
                                 stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                                 env=_child_environment())
    except OSError:
        return None
    try:
        if child.stdin is None:
            raise OSError("no pipe")
        pickle.dump(sys.path, child.stdin, protocol=pickle.HIGHEST_PROTOCOL)
        child.stdin.flush()
    except OSError:  # it died at once: the pictures are drawn here
        child.kill()
        child.wait()
        return None
    return child


class PictureSource(Protocol):
    """Where :meth:`prcurve.present.report.Report.write` takes its pictures from."""

    def prg_svg(self) -> str:
        """The PRG figure's SVG text (report.html shows it inline)."""

    def files(self) -> list[tuple[str, bytes]]:
        """Each picture file's name and bytes, in the order of the report's manifest."""


def picture_writer(source: PictureSource, name: str) -> Callable[[Path], None]:
    """A writer (for :func:`prcurve.present.files.write_files`) of the picture ``name`` of
    ``source``: it waits for the pictures when it runs."""

    def write(path: Path) -> None:
        path.write_bytes(dict(source.files())[name])

    return write


class InProcessPictures:
    """The pictures of ``report`` drawn in this process, once, when first asked for."""

    def __init__(self, report: Any) -> None:
        self._report = report
        self._drawn: DrawnPictures | None = None

    def _get(self) -> DrawnPictures:
        if self._drawn is None:
            from prcurve.present.report_figures import draw_pictures

            self._drawn = draw_pictures(self._report)
        return self._drawn

    def prg_svg(self) -> str:
        return self._get().prg_svg

    def files(self) -> list[tuple[str, bytes]]:
        return self._get().files


class PictureProcess:
    """The child process that draws a report's pictures (module docstring). Use it as a
    context manager: leaving the block waits for the child (killing it first unless its
    pictures were received)."""

    def __init__(self, child: subprocess.Popen[bytes] | None) -> None:
        self._child = child
        self._report: Any = None
        self._prg: str | None = None
        self._files: list[tuple[str, bytes]] | None = None
        self._here: InProcessPictures | None = None
        # The child's messages are read as they come, by a thread: a pipe holds 64 KiB,
        # and a child blocked on writing its PRG SVG would draw nothing more meanwhile.
        self._reader: threading.Thread | None = None
        self._program = False  # this process is the `prcurve` program (not main([...]))
        self._prg_read = threading.Event()
        self._deadline = 0.0  # time.monotonic() after which the child is given up

    @classmethod
    def start(cls) -> PictureProcess:
        """Start the child (it imports matplotlib and waits for a report), or take the one
        :func:`start_early` started. When it cannot be started, or no core is free for it
        (:func:`free_core`), the pictures will be drawn in this process."""
        global _early
        if _early is not None:
            child, _early = _early, None
            taken = cls(child)
            taken._program = True  # start_early runs only in the program's own process
            return taken
        if not sys.executable or not _wanted():  # embedded, or nothing to gain
            return cls(None)
        return cls(_spawn())

    def _send(self, value: Any) -> bool:
        if self._child is None or self._child.stdin is None:
            return False
        try:
            pickle.dump(value, self._child.stdin, protocol=pickle.HIGHEST_PROTOCOL)
            self._child.stdin.flush()
        except (OSError, ValueError, pickle.PicklingError, TypeError, AttributeError):
            return False  # the child is gone, or the report cannot be sent: drawn here
        return True

    def draw(self, report: Any) -> PictureSource:
        """Send ``report`` to the child; returns where to take its pictures from (this
        object, or the report's :class:`InProcessPictures` for a report too large to
        send). The report is sent and the answers read by a thread, so that a child that
        hangs holds this process up for :data:`WAIT_SECONDS` at most."""
        self._report = report
        size = sum(len(m.curve) for m in report.models)
        if size > MAX_SENT_THRESHOLDS:
            self._send(None)  # the child stops
            self._here = InProcessPictures(report)
            return self._here
        if self._child is not None:
            self._deadline = time.monotonic() + WAIT_SECONDS
            self._reader = threading.Thread(target=self._exchange, args=(report,),
                                            name="prcurve-pictures", daemon=True)
            self._reader.start()
            if self._program:
                _load_page_modules()
        return self

    def _exchange(self, report: Any) -> None:
        """Send the report, then read the child's messages as they come (a pipe holds
        64 KiB, and a child blocked on writing its PRG SVG would draw nothing more)."""
        try:
            sent = self._send(report)
            if self._child is not None and self._child.stdin is not None:
                with contextlib.suppress(OSError):
                    self._child.stdin.close()
            if sent:
                svg = self._receive("prg")
                self._prg = svg if isinstance(svg, str) else None
        finally:
            self._prg_read.set()
        if self._prg is None:
            return
        files = self._receive("files")
        if isinstance(files, list) and all(
                isinstance(f, tuple) and len(f) == 2 and isinstance(f[0], str)
                and isinstance(f[1], bytes) for f in files):
            self._files = files

    def _left(self) -> float:
        return max(self._deadline - time.monotonic(), 0.0)

    def _give_up(self) -> None:
        """The child is past :data:`WAIT_SECONDS`: kill it (its pipes then end, and the
        reading thread with them); the pictures are drawn here."""
        child, reader = self._child, self._reader
        if child is not None:
            with contextlib.suppress(OSError):
                child.kill()
        if reader is not None:
            reader.join()
        self._files = None  # whatever came, the fallback draws every file

    def _receive(self, kind: str) -> Any:
        """The child's next message, when it is ``(kind, value)``; else None (it failed)."""
        if self._child is None or self._child.stdout is None:
            return None
        try:
            message = pickle.load(self._child.stdout)
        except Exception:  # EOF, a half-written message: the child failed
            return None
        if isinstance(message, tuple) and len(message) == 2 and message[0] == kind:
            return message[1]
        return None

    def _fallback(self) -> InProcessPictures:
        if self._here is None:
            self._here = InProcessPictures(self._report)
        return self._here

    def prg_svg(self) -> str:
        if self._reader is not None and not self._prg_read.wait(self._left()):
            self._give_up()
        return self._prg if self._prg is not None else self._fallback().prg_svg()

    def files(self) -> list[tuple[str, bytes]]:
        if self._reader is not None:
            self._reader.join(self._left())
            if self._reader.is_alive():
                self._give_up()
        return self._files if self._files is not None else self._fallback().files()

    def close(self) -> None:
        """Wait for the child; kill it first unless its pictures were received (it was
        never given a report, or the command failed before it needed them)."""
        child = self._child
        if child is None:
            return
        if self._files is None:
            child.kill()  # not needed (any more): stop its work now
        if self._reader is not None:
            self._reader.join()  # it reads until the child's output ends
        self._child = None
        for stream in (child.stdin, child.stdout):
            if stream is not None:
                with contextlib.suppress(OSError):
                    stream.close()
        child.wait()

    def __enter__(self) -> PictureProcess:
        return self

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 traceback: TracebackType | None) -> None:
        self.close()


def _load_page_modules() -> None:
    """Import Bokeh (the page's, next) without cycle collection, then set what it made
    aside for good (``gc.freeze``), as ``prcurve.cli.main`` does for the command's own
    imports: only in the program's process, whose modules live as long as it. Its
    thousands of new objects were scanned again by every later collection: about 35 ms
    of the parent's 1.2 s of CPU (docs/benchmarks.md, session 33's second item-3 round)."""
    import gc

    import prcurve.present.html  # noqa: F401  the page's modules, set aside with Bokeh's
    from prcurve.present.html_document import _bokeh  # the page's own import of Bokeh

    was_enabled = gc.isenabled()
    gc.disable()
    try:
        with contextlib.suppress(ImportError):  # no Bokeh: the page reports it
            _bokeh()
    finally:
        gc.freeze()
        if was_enabled:
            gc.enable()


def _send_to(stream: BinaryIO, message: tuple[str, Any]) -> None:
    pickle.dump(message, stream, protocol=pickle.HIGHEST_PROTOCOL)
    stream.flush()


def serve() -> None:
    """The child's main: import matplotlib, read a report from standard input, draw its
    pictures and write ``("prg", svg)`` then ``("files", [(name, bytes), ...])`` to
    standard output (pickled). It stops at once on an empty input or ``None``; on an
    error it writes nothing more and exits (the parent then draws in-process)."""
    import gc
    import importlib

    channel, source = sys.stdout.buffer, sys.stdin.buffer
    sys.stdout = sys.stderr  # nothing else may write into the channel
    received: list[Any] = []

    def receive() -> None:  # while matplotlib is imported: the parent never waits on us
        with contextlib.suppress(EOFError):
            received.append(pickle.load(source))

    reader = threading.Thread(target=receive, daemon=True)
    reader.start()
    from prcurve.present.files import MATPLOTLIB_MODULES

    for name in MATPLOTLIB_MODULES:
        importlib.import_module(name)
    from prcurve.present.report_figures import draw_pictures

    # What the imports made lives as long as the process: set aside for good (as
    # prcurve.cli.main does for the command's imports; about 0.02 s of the child's 1.4 s
    # of CPU at 10^4 rows, docs/benchmarks.md). And no cycle collection at all after: this
    # process draws one report and exits, and its cycles (matplotlib's figures, a few
    # thousand objects) live until then anyway; collecting them cost 25 ms of 0.95 s.
    gc.freeze()
    reader.join()
    report = received[0] if received else None
    if report is None:
        return
    drawn = draw_pictures(report, on_prg_svg=lambda svg: _send_to(channel, ("prg", svg)))
    _send_to(channel, ("files", drawn.files))
