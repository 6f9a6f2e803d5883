"""The ``--format`` option of the export commands: JSONL (the default), an .xlsx workbook or CSV.

The format is never guessed from the file name, and a file named for another format is refused:
``--format xlsx --output ratings.csv`` is an error naming both. A workbook must end in .xlsx and a
CSV in .csv (case ignored); JSONL keeps any name except those two endings.
"""

from __future__ import annotations

from pathlib import Path

from django.core.management.base import CommandError

FORMATS = ("jsonl", "xlsx", "csv")
SUFFIXES = {".jsonl": "jsonl", ".xlsx": "xlsx", ".csv": "csv"}


def add_format_option(parser, help: str) -> None:
    parser.add_argument("--format", choices=FORMATS, default="jsonl", dest="file_format", help=help)


def check_file_name(path: str, file_format: str, option: str = "--output") -> None:
    """Refuse a file whose ending names another format, or a spreadsheet without its ending."""
    if path == "-":
        if file_format == "xlsx":
            raise CommandError(f"--format xlsx cannot go to standard output; give {option} a file ending in .xlsx")
        return
    suffix = Path(path).suffix.lower()
    named = SUFFIXES.get(suffix)
    if named == file_format or (named is None and file_format == "jsonl"):
        return
    what = f"is named for {named}" if named else "has no ." + file_format + " ending"
    raise CommandError(
        f"--format {file_format} but {option} {path} {what}; the format is not guessed from the name: "
        f"give a file ending in .{file_format}" + (f" or --format {named}" if named else "")
    )
