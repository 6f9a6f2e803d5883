from pathlib import Path

from django.core.management.base import BaseCommand

from annotation.io.imports import dialogues_import
from annotation.management.commands._common import input_errors_as_command_error
from annotation.models import Batch


class Command(BaseCommand):
    help = (
        "Import dialogues from seed A.3 input JSONL files ({id, user, response, context}). "
        "Any error in any file stores nothing; re-importing the same file changes nothing. An unknown top-level "
        "key, or an id that begins with = + - @ or holds a control character, is an error."
    )

    def add_arguments(self, parser):
        parser.add_argument("files", nargs="+", metavar="FILE")
        parser.add_argument("--batch", help="batch name (default: the first file's name without extension)")
        parser.add_argument("--dry-run", action="store_true", help="validate only; store nothing")
        parser.add_argument("--update", action="store_true", help="replace stored dialogues whose text changed")
        parser.add_argument(
            "--force-text-change",
            action="store_true",
            help="with --update: also change dialogues that have ratings (the old text is kept, the ratings flagged)",
        )
        parser.add_argument(
            "--ignore-unknown-keys",
            action="store_true",
            help="leave out top-level keys beyond id, user, response and context (and count them) instead of "
            "refusing their lines",
        )

    def handle(self, *args, files, batch, dry_run, update, force_text_change, ignore_unknown_keys, **options):
        batch_name = batch or Path(files[0]).stem
        with input_errors_as_command_error():
            summary = dialogues_import(
                paths=files, batch_name=batch_name, dry_run=dry_run, update=update,
                force_text_change=force_text_change, ignore_unknown_keys=ignore_unknown_keys,
            )  # fmt: skip
        prefix = "dry run, nothing stored: " if dry_run else ""
        stored_nothing = not (dry_run or summary.created or summary.updated)
        if stored_nothing and not Batch.objects.filter(name=batch_name).exists():
            self.stdout.write(f"nothing new to store: dialogues {summary}; batch {batch_name} was not created")
            return
        self.stdout.write(self.style.SUCCESS(f"{prefix}dialogues {summary} (batch {batch_name})"))
