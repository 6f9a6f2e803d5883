from pathlib import Path

from django.core.management.base import BaseCommand

from annotation.imports import dialogues_import
from annotation.management.commands._common import input_errors_as_command_error


class Command(BaseCommand):
    help = (
        "Import dialogues from seed A.3 input JSONL files ({id, user, response, context}). "
        "Any error in any file stores nothing; re-importing the same file changes nothing."
    )

    def add_arguments(self, parser):
        parser.add_argument("files", nargs="+", metavar="FILE")
        parser.add_argument("--batch", help="batch name (default: the first file's name without extension)")
        parser.add_argument("--dry-run", action="store_true", help="validate only; store nothing")
        parser.add_argument("--update", action="store_true", help="replace stored dialogues whose text changed")

    def handle(self, *args, files, batch, dry_run, update, **options):
        batch_name = batch or Path(files[0]).stem
        with input_errors_as_command_error():
            summary = dialogues_import(paths=files, batch_name=batch_name, dry_run=dry_run, update=update)
        prefix = "dry run, nothing stored: " if dry_run else ""
        self.stdout.write(self.style.SUCCESS(f"{prefix}dialogues {summary} (batch {batch_name})"))
