"""Shared bits of the annotation commands: input errors become CommandError with every problem."""

from __future__ import annotations

import argparse
import json
import math
import os
import tempfile
from contextlib import contextmanager
from pathlib import Path

from django.core.management.base import CommandError

from annotation.io.dataset import RatingSet, rating_set
from annotation.io.records import InputError, ProblemLog, load_annotations, readable_paths
from core.output_paths import OutputPathError, check_output_folder, check_output_path


@contextmanager
def input_errors_as_command_error():
    try:
        yield
    except InputError as exc:
        raise CommandError(f"nothing was stored or written: {exc}") from None


def checked_output(value: str, option: str = "--output", *, example: str, standard_output: bool = False) -> None:
    """``core.output_paths.check_output_path`` for a command: a path it cannot write is a CommandError."""
    try:
        check_output_path(value, option=option, example=example, standard_output=standard_output)
    except OutputPathError as exc:
        raise CommandError(str(exc)) from None


def checked_output_folder(value: str, option: str, *, files: tuple[str, ...]) -> None:
    try:
        check_output_folder(value, option=option, files=files)
    except OutputPathError as exc:
        raise CommandError(str(exc)) from None


def default_rejected_path(output: str, file_format: str = "jsonl") -> Path:
    """``rejected/low_agreement.<format>`` in the output's folder, the documented default of ``--rejected``."""
    return Path(output).parent / "rejected" / f"low_agreement.{file_format}"


def check_default_rejected_path(output: str, file_format: str = "jsonl") -> None:
    """The default rejected file is writable; its rejected/ folder may still be missing (``make_rejected_folder``)."""
    path = default_rejected_path(output, file_format)
    if path.parent.exists() or path.parent.is_symlink():
        checked_output(str(path), "--rejected", example=path.name)


def make_rejected_folder(path: Path) -> None:
    """The one folder a command creates, as the help of ``--rejected`` says: rejected/ beside the output, once
    the output's folder was checked (never its parents)."""
    try:
        path.parent.mkdir(exist_ok=True)
    except OSError as exc:
        problem = exc.strerror or exc
        raise CommandError(f"--rejected {path}: cannot create the folder {path.parent}: {problem}") from None


@contextmanager
def atomic_output(path: str | Path, *, mode: str = "w"):
    """Write to a temporary file next to ``path`` and move it into place only when complete (``mode="wb"``:
    bytes). The folder must exist: the command checked the path before any work (``checked_output``)."""
    target = Path(path)
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", dir=target.parent)
    except OSError as exc:
        raise CommandError(f"cannot write {str(target)!r}: {exc.strerror or exc}") from None
    try:
        text = {} if "b" in mode else {"encoding": "utf-8", "newline": "\n"}
        with os.fdopen(fd, mode, **text) as handle:
            yield handle
        os.replace(tmp, target)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def write_json(path: str | Path, data) -> None:
    """Strict JSON (no NaN/Infinity), UTF-8, written atomically."""
    with atomic_output(path) as handle:
        json.dump(data, handle, ensure_ascii=False, indent=2, allow_nan=False)
        handle.write("\n")


def write_jsonl(path: str | Path, rows) -> int:
    encode = json.JSONEncoder(ensure_ascii=False, allow_nan=False).encode
    count = 0
    with atomic_output(path) as handle:
        for row in rows:
            handle.write(encode(row) + "\n")
            count += 1
    return count


def bounded_float(low: float, high: float):
    """An argparse type: a finite number from ``low`` to ``high``, else a message naming the range."""

    def parse(text: str) -> float:
        try:
            value = float(text)
        except ValueError:
            value = math.nan
        if not (math.isfinite(value) and low <= value <= high):
            raise argparse.ArgumentTypeError(f"must be a number from {low:g} to {high:g}, got {text!r}")
        return value

    return parse


# kappa-like options run from -1 to 1; confidences from 0 to 1
RANGES = {"min_kappa": (-1.0, 1.0), "target_kappa": (-1.0, 1.0), "min_confidence": (0.0, 1.0)}


def add_float_option(parser, name: str, default: float, help: str) -> None:
    """``--min_kappa`` as in the seed, and ``--min-kappa`` as is usual; both set the same value."""
    dashed = name.replace("_", "-")
    flags = [f"--{name}"] + ([f"--{dashed}"] if dashed != name else [])
    low, high = RANGES.get(name, (-math.inf, math.inf))
    parser.add_argument(
        *flags, dest=name, type=bounded_float(low, high), default=default, help=f"{help} (default {default})"
    )


def read_rating_files(paths: list[str]) -> RatingSet:
    """Ratings of seed A.3 output files as arrays; any problem in any file stops the command."""
    with input_errors_as_command_error():
        log = ProblemLog()
        records = load_annotations(readable_paths(paths, log), log=log)
        log.raise_if_any()
    if not records:
        raise CommandError(f"no ratings in {', '.join(paths)}")
    return rating_set(records)


def merge_report_lines(summary: dict) -> list[str]:
    """What a merge left out and why, one line each: low-agreement annotators and accepted quality flags."""
    lines = [
        f"left out of {axis}: {entry['annotator']} (kappa with the others {entry['kappa_vs_rest']:.3f})"
        for axis, listing in summary["annotators"].items()
        for entry in listing["excluded"]
    ]
    for entry in summary.get("flag_exclusions", ()):
        axes = ", ".join(entry["axes"])
        review = f"accepted by {entry['reviewer'] or 'unknown'} at {entry['reviewed_at']}"
        if entry["note"]:
            review += f": {entry['note']}"
        if entry["annotator"] is None:
            lines.append(
                f"flag #{entry['flag']} ({entry['kind']}, {review}) rejects {entry['items_rejected']} item(s) on {axes}"
            )
        else:
            lines.append(
                f"flag #{entry['flag']} ({entry['kind']}, {review}) leaves out {entry['annotator']} on {axes}: "
                f"{entry['ratings_excluded']} rating(s)"
            )
    return lines
