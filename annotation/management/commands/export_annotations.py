import sys

from django.core.management.base import BaseCommand, CommandError

from annotation.io.exports import annotation_lines, write_lines
from annotation.io.sheets import write_ratings_csv, write_ratings_xlsx
from annotation.management.commands._common import atomic_output, checked_output
from annotation.management.commands._formats import add_format_option, check_file_name
from annotation.models import Batch
from annotation.selectors import annotation_sheet_rows


class Command(BaseCommand):
    help = (
        "Export stored ratings as seed A.3 output JSONL (streamed; '-' writes to standard output), "
        "or as an .xlsx workbook or a CSV file (one row per rating, with its source)."
    )

    def add_arguments(self, parser):
        parser.add_argument("--output", "-o", required=True, metavar="FILE")
        parser.add_argument("--batch", help="only dialogues of this batch")
        add_format_option(parser, "jsonl (default), xlsx or csv (UTF-8 with BOM); the file name must match")

    def handle(self, *args, output, batch, file_format, **options):
        check_file_name(output, file_format)
        checked_output(output, example=f"ratings.{file_format}", standard_output=True)
        if batch and not Batch.objects.filter(name=batch).exists():
            raise CommandError(
                f"no batch named {batch!r}; batches: {', '.join(Batch.objects.values_list('name', flat=True))}"
            )
        if file_format == "xlsx":
            with atomic_output(output, mode="wb") as handle:
                count = write_ratings_xlsx(annotation_sheet_rows(batch_name=batch), handle)
        elif file_format == "csv" and output == "-":
            count = write_ratings_csv(annotation_sheet_rows(batch_name=batch), sys.stdout)
        elif file_format == "csv":
            with atomic_output(output) as handle:
                count = write_ratings_csv(annotation_sheet_rows(batch_name=batch), handle)
        elif output == "-":
            count = write_lines(annotation_lines(batch_name=batch), sys.stdout)
        else:
            with atomic_output(output) as handle:
                count = write_lines(annotation_lines(batch_name=batch), handle)
        if output != "-":
            self.stdout.write(self.style.SUCCESS(f"exported {count} annotations to {output}"))
