from django.core.management.base import BaseCommand

from annotation.collection.gold_import import import_gold
from annotation.management.commands._common import input_errors_as_command_error


class Command(BaseCommand):
    help = (
        "Import gold items for annotator training from JSONL files: the dialogue ({id, user, response, context}) "
        'plus "gold" scores per axis, an "explanation" and "set" ("practice" or "test"). '
        "Any error in any file stores nothing; re-importing the same file changes nothing."
    )

    def add_arguments(self, parser):
        parser.add_argument("files", nargs="+", metavar="FILE")
        parser.add_argument("--dry-run", action="store_true", help="validate only; store nothing")
        parser.add_argument("--update", action="store_true", help="replace stored gold items whose content changed")

    def handle(self, *args, files, dry_run, update, **options):
        with input_errors_as_command_error():
            summary = import_gold(paths=files, dry_run=dry_run, update=update)
        prefix = "dry run, nothing stored: " if dry_run else ""
        self.stdout.write(self.style.SUCCESS(f"{prefix}gold items {summary}"))
