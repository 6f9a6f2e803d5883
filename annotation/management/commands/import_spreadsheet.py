from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError

from annotation.spreadsheets.imports import SheetRejected, sheet_import


class Command(BaseCommand):
    help = (
        "Store the ratings of a filled rating sheet (.xlsx from export_template, or a CSV with the same columns). "
        "Every row is checked first; with any problem nothing is stored and every problem is listed."
    )

    def add_arguments(self, parser):
        parser.add_argument("file", metavar="FILE", help="the .xlsx or .csv file")
        parser.add_argument("--annotator", help="whose ratings (required for a CSV; an .xlsx names its annotator)")
        parser.add_argument("--dry-run", action="store_true", help="check everything, store nothing")

    def handle(self, *args, file, annotator, dry_run, **options):
        user = None
        if annotator:
            user = get_user_model().objects.filter(username=annotator).first()
            if user is None:
                raise CommandError(f"--annotator: no user named {annotator!r}")
        try:
            summary = sheet_import(path=file, annotator=user, dry_run=dry_run)
        except FileNotFoundError:
            raise CommandError(f"{file}: no such file") from None
        except SheetRejected as exc:
            raise CommandError(f"nothing was stored: {exc}") from None
        verb = "would store" if dry_run else "stored"
        self.stdout.write(
            self.style.SUCCESS(
                f"{verb} {summary.created} new and {summary.updated} changed ratings by {summary.annotator} "
                f"(batch {summary.batch}); {summary.unchanged} unchanged, {summary.skipped} rows left blank, "
                f"{summary.comments} comments"
            )
        )
