"""Where a command may write a file, checked before any work (pure Python, no Django; every app's commands).

A command that writes a file checks the path given to it here before it reads or computes anything, so
that a mistake ends in one message naming the option, the path and what would be accepted:

- a folder (``--output /tmp``): give a file name inside it;
- a file in a folder that does not exist: create the folder first. Nothing here creates a folder, nor do the
  commands (a missing folder is more often a typo than a wish), but for the one their help announces: the
  consensus commands' default ``rejected/`` beside the consensus file;
- a "folder" that is a file, or a path that exists and is not a regular file (a named pipe, a device):
  the writers replace the file by renaming a finished copy onto it, which must not happen to ``/dev/null``;
- a folder the command cannot write in (the finished copy is made there), or a read-only file.

Permissions are those of whoever runs the command (``os.access``): root may write almost anywhere.
``"-"`` is standard output, for the commands that can write there.

Messages are in English: only the commands show them.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterable
from pathlib import Path

STANDARD_OUTPUT = "-"


class OutputPathError(ValueError):
    """A path a command cannot write to; the message names the option, the path and what is accepted."""

    def __init__(self, option: str, path: str, problem: str) -> None:
        self.option = option
        self.path = path
        self.problem = problem
        super().__init__(f"{option} {path or repr(path)}: {problem}")


def check_output_path(
    value: str, *, option: str = "--output", example: str = "results.json", standard_output: bool = False
) -> Path | None:
    """The file ``value`` as a path a command can write, or ``None`` for standard output ("-", only where
    ``standard_output`` is allowed). ``example`` is the file name suggested when a folder is given."""
    if value == STANDARD_OUTPUT:
        if standard_output:
            return None
        raise OutputPathError(option, value, f"cannot write to standard output; give a file name, e.g. {example}")
    if not value:
        raise OutputPathError(option, value, f"the path is empty; give a file name, e.g. {example}")
    path = Path(value)
    try:
        found = _stat(path)
        if value.endswith(("/", os.sep)) or (found is not None and stat.S_ISDIR(found.st_mode)):
            raise OutputPathError(option, value, f"is a folder; give a file name inside it, e.g. {path / example}")
        if found is not None and not stat.S_ISREG(found.st_mode):
            raise OutputPathError(
                option, value, "exists and is not a regular file (a named pipe, a device or a socket); give a file name"
            )
        _check_folder(path.parent, option=option, value=value)
    except PermissionError as exc:
        raise OutputPathError(option, value, f"cannot be reached: {exc.strerror or 'permission denied'}") from None
    if found is not None and not os.access(path, os.W_OK):
        raise OutputPathError(option, value, "the file is read-only; make it writable or give another file name")
    return path


def check_output_folder(value: str, *, option: str, files: Iterable[str] = ()) -> Path:
    """The existing folder ``value`` a command writes ``files`` into (each checked as by ``check_output_path``)."""
    if not value:
        raise OutputPathError(option, value, "the path is empty; give a folder")
    folder = Path(value)
    try:
        found = _stat(folder)
        if found is None:
            raise OutputPathError(
                option, value, "the folder does not exist; create it first (it is not created for you)"
            )
        if not stat.S_ISDIR(found.st_mode):
            raise OutputPathError(option, value, "is a file; give a folder")
    except PermissionError as exc:
        raise OutputPathError(option, value, f"cannot be reached: {exc.strerror or 'permission denied'}") from None
    for name in files:
        check_output_path(str(folder / name), option=option)
    return folder


def _check_folder(folder: Path, *, option: str, value: str) -> None:
    """The folder a file goes into exists, is a folder, and the command may create files in it."""
    found = _stat(folder)
    if found is None:
        blocker = _first_file_on_the_way(folder)
        if blocker is not None:
            raise OutputPathError(option, value, f"{blocker} is a file, not a folder; give a file name in a folder")
        raise OutputPathError(
            option, value, f"the folder {folder} does not exist; create it first (it is not created for you)"
        )
    if not stat.S_ISDIR(found.st_mode):
        raise OutputPathError(option, value, f"{folder} is a file, not a folder; give a file name in a folder")
    if not os.access(folder, os.W_OK | os.X_OK):
        raise OutputPathError(
            option, value, f"cannot write in the folder {folder} (permission denied); give a folder you can write in"
        )


def _stat(path: Path) -> os.stat_result | None:
    """What is at ``path`` (links followed), ``None`` when nothing is; other errors (permission) propagate."""
    try:
        return path.stat()
    except (FileNotFoundError, NotADirectoryError):
        return None


def _first_file_on_the_way(folder: Path) -> Path | None:
    """The nearest existing ancestor of a missing ``folder`` when it is not a folder (``notes.txt/out/``)."""
    for ancestor in folder.parents:
        found = _stat(ancestor)
        if found is not None:
            return None if stat.S_ISDIR(found.st_mode) else ancestor
    return None
