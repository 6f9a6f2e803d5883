import os
import sys
import tempfile
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from layer3.exports.files import ExportError, export_file
from layer3.exports.formats import FORMATS
from layer3.selectors import BatchNotFound, batch_get
from layer3.statistics import CORRECTIONS


class Command(BaseCommand):
    help = (
        "Export a batch's Layer3 results: json (results, statistics, optionally every trial's metrics), csv (one "
        "row per trial), markdown or latex (the per-model and statistics tables, ready for a paper)."
    )

    def add_arguments(self, parser):
        parser.add_argument("batch", metavar="BATCH", help="batch name or id")
        parser.add_argument("--format", choices=FORMATS, required=True)
        parser.add_argument("--output", required=True, help='the file to write ("-" for standard output)')
        parser.add_argument("--include-raw", action="store_true", help="json: add every trial's stored metrics")
        parser.add_argument("--model-config", help="only this model configuration")
        parser.add_argument("--correction", choices=CORRECTIONS, default="bonferroni", help="multiple comparisons")

    def handle(self, *args, **opts):
        try:
            batch = batch_get(opts["batch"])
            export = export_file(
                batch,
                fmt=opts["format"],
                include_raw=opts["include_raw"],
                model_config=opts["model_config"],
                correction=opts["correction"],
            )
        except (BatchNotFound, ExportError) as exc:
            raise CommandError(str(exc)) from None
        if opts["format"] != "json" and opts["include_raw"]:
            self.stderr.write("--include-raw applies to json only; ignored")
        if opts["output"] == "-":
            try:
                for chunk in export.chunks:
                    sys.stdout.write(chunk)
                sys.stdout.flush()
            except BrokenPipeError:  # `| head`: the reader has what it wanted
                os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
            return
        target = Path(opts["output"])
        if not target.parent.is_dir():
            raise CommandError(f"--output {target}: the folder {target.parent} does not exist")
        # Written beside the target and renamed at the end: a failed export leaves no half file.
        fd, temporary = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".part")
        try:
            with os.fdopen(fd, "w", encoding="utf-8", newline="") as handle:
                for chunk in export.chunks:
                    handle.write(chunk)
            os.replace(temporary, target)
        except BaseException:
            Path(temporary).unlink(missing_ok=True)
            raise
        self.stdout.write(self.style.SUCCESS(f"wrote {target} ({opts['format']}, batch {batch.name})"))
