"""Shared by the Director's commands: reading utterance files, loading rule sets, writing output safely."""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from collections.abc import Iterable
from functools import partial
from pathlib import Path

from django.core.management.base import CommandError
from django.utils.translation import gettext_noop

from core.jsonl import (
    InputError,
    ProblemLog,
    load_records_with_unique_ids,
    readable_paths,
    report_files_without_records,
)
from core.output_paths import OutputPathError, check_output_path
from director.io.utterances import Utterance, parse_line
from director.rules import RuleSetError, load_rule_set


def add_jobs_argument(parser) -> None:
    parser.add_argument(
        "--jobs",
        type=_jobs,
        default=1,
        metavar="N",
        help="processes judging the utterances (default 1; more than the machine's cores gains nothing); "
        "the output is the same, in input order",
    )


def _jobs(value: str) -> int:
    try:
        jobs = int(value)
    except ValueError:
        jobs = 0
    if jobs < 1:
        raise argparse.ArgumentTypeError(f"expected a number of processes, 1 or more, got {value!r}")
    return jobs


def checked_output(output: str, *, example: str) -> None:
    """Before any work: a file the command can write, or "-" (standard output); else a CommandError."""
    try:
        check_output_path(output, example=example, standard_output=True)
    except OutputPathError as exc:
        raise CommandError(str(exc)) from None


def rules_or_error(path: str | None, option: str):
    try:
        return load_rule_set(path) if path else load_rule_set()
    except (RuleSetError, OSError) as exc:
        raise CommandError(f"{option}: {exc}") from None


def read_utterances(path: str, *, verdicts: bool) -> list[Utterance]:
    """Every line checked; any problem stops the command before anything is written."""
    log = ProblemLog()
    readable = readable_paths([path], log)
    records = load_records_with_unique_ids(readable, partial(parse_line, verdicts=verdicts), log=log)
    report_files_without_records(
        readable, records, log, empty=gettext_noop("no utterances in this file (it is empty or has only blank lines)")
    )
    try:
        log.raise_if_any()
    except InputError as exc:
        raise CommandError(f"nothing was written: {exc}") from None
    return records


def write_text(output: str, chunks: Iterable[str]) -> None:
    """To standard output for "-", else to a file replaced only when everything was written."""
    if output == "-":
        for chunk in chunks:
            sys.stdout.write(chunk)
        sys.stdout.flush()
        return
    target = Path(output)
    if not target.parent.is_dir():
        raise CommandError(f"--output {target}: the folder {target.parent} does not exist")
    fd, temporary = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".part")
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as handle:
            for chunk in chunks:
                handle.write(chunk)
        os.replace(temporary, target)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
