from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError

from annotation.management.commands._common import atomic_output, checked_output
from annotation.models import Batch
from annotation.spreadsheets.services import template_write
from core.roles import ANNOTATOR


class Command(BaseCommand):
    help = (
        "Write an annotator's rating spreadsheet (.xlsx) for a batch: the dialogues they rated (values filled in) "
        "and those the queue would still hand them, with drop-downs, locked texts and a Japanese guide."
    )

    def add_arguments(self, parser):
        parser.add_argument("--batch", required=True, help="the batch's name")
        parser.add_argument("--annotator", required=True, help="the annotator's user name")
        parser.add_argument("--output", "-o", required=True, metavar="FILE.xlsx")
        parser.add_argument("--limit", type=int, help="at most this many dialogues not rated yet")

    def handle(self, *args, batch, annotator, output, limit, **options):
        if not output.lower().endswith(".xlsx"):
            raise CommandError(f"--output: {output!r} must end in .xlsx (the sheet is an Excel workbook)")
        checked_output(output, example=f"{annotator}.xlsx")
        found = Batch.objects.filter(name=batch).first()
        if found is None:
            names = ", ".join(Batch.objects.order_by("name").values_list("name", flat=True)) or "none"
            raise CommandError(f"--batch: no batch named {batch!r}; batches: {names}")
        if found.status == Batch.Status.CLOSED:
            raise CommandError(f"--batch: batch {batch!r} is closed; reopen it in its settings to hand out sheets")
        user = get_user_model().objects.filter(username=annotator).first()
        if user is None or not user.groups.filter(name=ANNOTATOR).exists():
            what = "no user" if user is None else "a user without the annotator role"
            raise CommandError(f"--annotator: {annotator!r} is {what}; give an annotator's user name")
        if found.restricted and not found.annotators.filter(pk=user.pk).exists():
            raise CommandError(
                f"--annotator: batch {batch!r} is open only to its chosen annotators and {annotator!r} is not one "
                "of them; add them in the batch's settings"
            )
        if limit is not None and limit < 0:
            raise CommandError(f"--limit: must be 0 or more, got {limit}")
        with atomic_output(output, mode="wb") as handle:
            rows = template_write(handle, batch=found, annotator=user, limit=limit)
        self.stdout.write(self.style.SUCCESS(f"wrote {rows} rows for {annotator} (batch {batch}) to {output}"))
