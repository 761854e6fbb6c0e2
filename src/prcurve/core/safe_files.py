"""The one safe writer: every file prcurve writes goes through it.

:func:`replace_file` writes one file through a new file beside it, renamed onto
it, so that an existing file or link is replaced and never written into (a
link's target, an input perhaps, is untouched). :func:`write_files` writes a
set of files into a folder as one step: each is written to a temporary file
beside its target, and only when every one has been written are they renamed
into place; on any failure the temporaries are removed, as is any folder it
created, so a failed run leaves the folder as it was (no half-written set, no
empty output folder). :func:`check_writable_folder` checks early that files can
be written in a folder, leaving nothing behind.

It lives in ``core`` so that every layer that writes uses it: the
:meth:`~prcurve.core.table.Table.write_csv` of a table, the demo's data
(:mod:`prcurve.io.demo`), the report (:mod:`prcurve.present.files` re-exports it)
and the ``coco``/``voc`` outputs (docs/report.md, "Files").
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from pathlib import Path

from prcurve.validation.files import check_not_an_input, unwritable_output
from prcurve.validation.paths import output_is_folder, output_not_a_folder

__all__ = ["check_writable_folder", "replace_file", "write_files", "write_text"]

Writer = Callable[[Path], object]
"""Writes a file at the path it is given (a temporary beside the target)."""


def _temporary(path: Path) -> Path:
    import uuid  # here: a text report writes no file (issue 26)

    return path.with_name(f".{path.name}.{uuid.uuid4().hex}.prcurve-tmp")


def _check_target(path: Path, argument: str) -> None:
    # A link is replaced, not followed (even a link to a folder); a real folder never is.
    if path.is_dir() and not path.is_symlink():
        raise output_is_folder(str(path), argument)


def _make_folder(folder: Path, argument: str) -> list[Path]:
    """Create ``folder`` and its missing parents; returns those created, outermost first."""
    missing = []
    probe = folder
    while not (probe.exists() or probe.is_symlink()):
        missing.append(probe)
        if probe.parent == probe:
            break
        probe = probe.parent
    if not probe.is_dir():
        raise output_not_a_folder(str(probe), argument)
    created = []
    try:
        for path in reversed(missing):
            path.mkdir()
            created.append(path)
    except OSError as error:
        _remove_folders(created)
        raise unwritable_output(str(folder), error.strerror or type(error).__name__,
                                argument) from None
    return created


def _remove_folders(created: Sequence[Path]) -> None:
    """Remove the folders this run created, innermost first, if they are still empty."""
    for path in reversed(created):
        try:
            path.rmdir()
        except OSError:  # not empty (someone else wrote there): left as it is
            return


def replace_file(path: Path, write: Writer, *, argument: str = "--out") -> None:
    """Write ``path`` through a new file beside it, renamed onto it.

    An existing file or link at ``path`` is replaced, never written into (a
    link's target is untouched); a failed write leaves ``path`` as it was.

    Raises
    ------
    InvalidInputError
        ``path`` is a folder (``argument`` names the option or argument).

    Examples
    --------
    >>> import os, tempfile
    >>> from pathlib import Path
    >>> from prcurve.core.safe_files import replace_file
    >>> folder = Path(tempfile.mkdtemp())
    >>> (folder / "input.csv").write_text("kept")
    4
    >>> os.symlink(folder / "input.csv", folder / "out.csv")
    >>> replace_file(folder / "out.csv", lambda temp: temp.write_text("new"))
    >>> (folder / "input.csv").read_text(), (folder / "out.csv").read_text()
    ('kept', 'new')
    """
    _check_target(path, argument)
    temp = _temporary(path)
    try:
        write(temp)  # created by the writer, with the usual permissions
        os.replace(temp, path)
    except BaseException:
        temp.unlink(missing_ok=True)
        raise


def write_text(path: Path, text: str) -> Path:
    """Write ``text`` (UTF-8) to ``path`` through :func:`replace_file`; returns ``path``."""
    replace_file(path, lambda temp: temp.write_text(text, encoding="utf-8"))
    return path


def write_files(folder: str | Path, files: Sequence[tuple[str, Writer]], *,
                inputs: Sequence[str | Path] = (), argument: str = "--out") -> list[Path]:
    """Write ``files`` (file name, writer) into ``folder``, all or none.

    Before anything is written, each target is checked: none may be a folder or
    an input (or a link to one, compared as
    :func:`prcurve.validation.files.check_not_an_input` compares). The folder
    and its missing parents are created; every file is written to a temporary
    beside its target; only when all are written are they renamed into place.
    On any failure the temporaries and the folders created are removed and the
    error is raised (an ``OSError`` as :class:`~prcurve.errors.InvalidInputError`
    naming the file), so the folder is as it was.

    Returns the paths written, in the order given.

    Examples
    --------
    >>> import tempfile
    >>> from pathlib import Path
    >>> from prcurve.core.safe_files import write_files
    >>> folder = Path(tempfile.mkdtemp()) / "new"
    >>> paths = write_files(folder, [("a.txt", lambda p: p.write_text("a")),
    ...                              ("b.txt", lambda p: p.write_text("b"))])
    >>> [p.name for p in paths], sorted(p.name for p in folder.iterdir())
    (['a.txt', 'b.txt'], ['a.txt', 'b.txt'])
    >>> def fails(path):
    ...     raise ValueError("broken")
    >>> try:
    ...     write_files(folder / "sub", [("c.txt", lambda p: p.write_text("c")),
    ...                                  ("d.txt", fails)])
    ... except ValueError:
    ...     pass
    >>> sorted(p.name for p in folder.iterdir())  # nothing half-written, no empty folder
    ['a.txt', 'b.txt']
    """
    folder = Path(folder)
    targets = [folder / name for name, _ in files]
    for target in targets:
        _check_target(target, argument)
        check_not_an_input(target, inputs)
    if folder.exists() and not folder.is_dir():
        raise output_not_a_folder(str(folder), argument)
    created = _make_folder(folder, argument)
    temps: list[Path] = []
    current = folder
    try:
        for target, (_, write) in zip(targets, files, strict=True):
            current = target
            temps.append(_temporary(target))
            write(temps[-1])
        for temp, target in zip(temps, targets, strict=True):
            current = target
            os.replace(temp, target)
    except BaseException as error:
        for temp in temps:
            temp.unlink(missing_ok=True)
        _remove_folders(created)
        if isinstance(error, OSError):
            raise unwritable_output(str(current), error.strerror or type(error).__name__,
                                    argument) from None
        raise
    return targets


def check_writable_folder(folder: str | Path, *, argument: str = "--out") -> None:
    """Check that files can be written in ``folder`` (created if missing), leaving the
    disk as it was: a folder created for the check is removed again.

    Raises
    ------
    InvalidInputError
        ``folder`` (or a parent) is a file, or cannot be written.
    """
    path = Path(folder)
    if (path.exists() or path.is_symlink()) and not path.is_dir():
        raise output_not_a_folder(str(path), argument)
    created = _make_folder(path, argument)
    probe = _temporary(path / "write-test")
    try:
        probe.open("x").close()
        probe.unlink()
    except OSError as error:
        raise unwritable_output(str(path), error.strerror or type(error).__name__,
                                argument) from None
    finally:
        _remove_folders(created)
