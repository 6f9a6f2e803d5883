from django.core.management.base import BaseCommand

from annotation.io.imports import annotations_import
from annotation.management.commands._common import input_errors_as_command_error


class Command(BaseCommand):
    help = (
        "Import ratings from seed A.3 output JSONL files ({id, annotator_id, timestamp, annotations, confidence}). "
        "Unknown annotator ids become annotator accounts flagged as imported. Any error stores nothing."
    )

    def add_arguments(self, parser):
        parser.add_argument("files", nargs="+", metavar="FILE")
        parser.add_argument("--dry-run", action="store_true", help="validate only; store nothing")
        parser.add_argument(
            "--update", action="store_true", help="replace stored ratings that differ (old values kept in history)"
        )

    def handle(self, *args, files, dry_run, update, **options):
        with input_errors_as_command_error():
            summary = annotations_import(paths=files, dry_run=dry_run, update=update)
        prefix = "dry run, nothing stored: " if dry_run else ""
        self.stdout.write(self.style.SUCCESS(f"{prefix}annotations {summary}"))
