"""What the import commands share about overrides of the batch's rules: the ``--reason`` and ``--by`` options, and
the ``RatingOverrides`` they make of the options given (``annotation.io.import_rules``)."""

from __future__ import annotations

import getpass
import socket

from django.contrib.auth import get_user_model
from django.core.management.base import CommandError

from annotation.io.import_rules import MAX_REASON, RatingOverrides, reason_problem
from annotation.io.imports import COMMAND_OPTIONS
from core.jsonl import fill


def system_user() -> str:
    """Who runs the command, as the record of an override names them when no ``--by`` account is given."""
    try:
        name = getpass.getuser()
    except (KeyError, OSError):
        name = "?"
    return f"{name}@{socket.gethostname()} (command line)"


def add_reason_arguments(group) -> None:
    """``--reason`` and ``--by`` in the command's group of overrides."""
    group.add_argument(
        "--reason", default="", help=f"why the override is right (required with one; at most {MAX_REASON} "
        "characters)",
    )  # fmt: skip
    group.add_argument(
        "--by",
        metavar="USERNAME",
        help="the account that decides the override (default: the system user running the command)",
    )


def command_overrides(options: dict, names, *, reason: str, by: str | None) -> RatingOverrides:
    """The overrides ``names`` (service option names) chosen in ``options``, with their reason and who decides them;
    a missing reason or an unknown ``--by`` account is a ``CommandError``."""
    chosen = {name: bool(options.get(name)) for name in names}
    named = [COMMAND_OPTIONS[name] for name, on in chosen.items() if on]
    if (problem := reason_problem(reason, named)) is not None:
        raise CommandError("--reason: " + fill(*problem))
    account = None
    if by:
        account = get_user_model().objects.filter(username=by).first()
        if account is None:
            raise CommandError(f"--by: no account named {by!r}")
    return RatingOverrides(**chosen, reason=reason, by=account, by_name="" if account else system_user())
