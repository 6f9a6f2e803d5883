import sys

from django.core.management.base import BaseCommand, CommandError

from annotation.io.exports import annotation_lines, write_lines
from annotation.management.commands._common import atomic_output, output_file
from annotation.models import Batch


class Command(BaseCommand):
    help = "Export stored ratings as seed A.3 output JSONL (streamed; '-' writes to standard output)."

    def add_arguments(self, parser):
        parser.add_argument("--output", "-o", required=True, metavar="FILE", type=output_file)
        parser.add_argument("--batch", help="only dialogues of this batch")

    def handle(self, *args, output, batch, **options):
        if batch and not Batch.objects.filter(name=batch).exists():
            raise CommandError(
                f"no batch named {batch!r}; batches: {', '.join(Batch.objects.values_list('name', flat=True))}"
            )
        lines = annotation_lines(batch_name=batch)
        if output == "-":
            count = write_lines(lines, sys.stdout)
        else:
            with atomic_output(output) as handle:
                count = write_lines(lines, handle)
            self.stdout.write(self.style.SUCCESS(f"exported {count} annotations to {output}"))
