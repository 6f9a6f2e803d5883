from django.core.management.base import BaseCommand, CommandError

from core.jsonl import InputError
from layer3.io.imports import trials_import


class Command(BaseCommand):
    help = (
        "Import trial logs from JSONL ({id, modelConfig, stage, inputText, generatedData} per line) into a batch. "
        "Any problem in any file stores nothing; re-importing the same file changes nothing."
    )

    def add_arguments(self, parser):
        parser.add_argument("files", nargs="+", metavar="FILE")
        parser.add_argument("--batch", required=True, help="the batch name (created if new)")
        parser.add_argument("--experiment", help="experiment id of a new batch (checked against an existing one)")
        parser.add_argument(
            "--widget-catalogue",
            metavar="FILE",
            help="the widget types the trials' generator could choose from, a JSON array or one name per line "
            "(default: LAYER3_WIDGET_CATALOGUE, or the 15 default types); it sets |W| of the widget entropy",
        )
        parser.add_argument("--dry-run", action="store_true", help="check only; store nothing")

    def handle(self, *args, files, batch, experiment, dry_run, widget_catalogue, **options):
        try:
            summary = trials_import(
                paths=files,
                batch_name=batch,
                experiment_id=experiment,
                dry_run=dry_run,
                catalogue_path=widget_catalogue,
            )
        except InputError as exc:
            raise CommandError(f"nothing was stored: {exc}") from None
        prefix = "dry run, nothing stored: " if dry_run else ""
        self.stdout.write(self.style.SUCCESS(f"{prefix}trials {summary} (batch {batch})"))
        if summary.recomputed:
            # Figures read before this import (exports, papers) no longer hold: say so apart from the counts.
            if dry_run:
                note = (
                    f"earlier figures would change: importing adds widget types to |W|, so the widget diversity of "
                    f"{summary.recomputed} stored trial(s) and the batch figures would be recomputed"
                )
            else:
                note = (
                    f"earlier figures changed: the widget types added raise |W|, so the widget diversity of "
                    f"{summary.recomputed} stored trial(s) was recomputed and the batch figures were refreshed"
                )
            self.stdout.write(self.style.WARNING(note))
