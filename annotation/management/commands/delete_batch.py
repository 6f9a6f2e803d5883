import sys

from django.core.management.base import BaseCommand, CommandError

from annotation.io.batch_delete import batch_contents, batch_delete
from annotation.models import Batch


class Command(BaseCommand):
    help = (
        "Delete a batch with its dialogues and every rating, rating edit, assignment and quality flag under it. "
        "Agreement reports are kept. Cannot be undone: export the ratings first."
    )

    def add_arguments(self, parser):
        parser.add_argument("batch", metavar="BATCH", help="the batch's name")
        parser.add_argument("--yes", action="store_true", help="delete without asking (for scripts)")

    def handle(self, *args, batch, yes, **options):
        try:
            found = Batch.objects.get(name=batch)
        except Batch.DoesNotExist:
            names = ", ".join(Batch.objects.order_by("name").values_list("name", flat=True)[:20]) or "none"
            raise CommandError(f"no batch named {batch!r} (batches: {names})") from None
        contents = batch_contents(found)
        self.stdout.write(f"batch {found.name}: {contents}")
        if not yes:
            if sys.stdin is None or not sys.stdin.isatty():
                raise CommandError("nothing deleted: confirm with --yes (no terminal to ask on)")
            answer = input(f"Type the batch name ({found.name}) to delete it: ")
            if answer.strip() != found.name:
                raise CommandError("nothing deleted: the name typed did not match")
        deleted = batch_delete(found)
        self.stdout.write(self.style.SUCCESS(f"deleted batch {found.name}: {deleted}"))
