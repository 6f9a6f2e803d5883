import os
import sys
import tempfile
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from core.output_paths import OutputPathError, check_output_path
from layer3.exports.calibration import CALIBRATION_FORMATS
from layer3.exports.calibration_files import calibration_export
from layer3.exports.files import ExportError, export_file
from layer3.exports.formats import FILE_EXTENSIONS, FORMATS
from layer3.selectors import BatchNotFound, batch_get
from layer3.statistics import CORRECTIONS, DEFAULT_FAMILY, parse_family


class Command(BaseCommand):
    help = (
        "Export a batch's Layer3 results: json (results, statistics, optionally every trial's metrics), csv (one "
        "row per trial), markdown or latex (the per-model and statistics tables, ready for a paper). With "
        "--calibration: the batch's judge-calibration reports (judge audits) as json, markdown or latex."
    )

    def add_arguments(self, parser):
        parser.add_argument("batch", metavar="BATCH", help="batch name or id")
        parser.add_argument("--format", choices=FORMATS, required=True)
        parser.add_argument("--output", required=True, help='the file to write ("-" for standard output)')
        parser.add_argument("--include-raw", action="store_true", help="json: add every trial's stored metrics")
        parser.add_argument("--model-config", help="only this model configuration")
        parser.add_argument("--correction", choices=CORRECTIONS, default="bonferroni", help="multiple comparisons")
        parser.add_argument(
            "--family",
            default=DEFAULT_FAMILY,
            help="the multiple-comparison family: seed (default; 11 metrics × the pairs of model configs, 110 for "
            "A–E, seed 002 §7.2), tests-run (the tests performed), or a number (210 across Layer1+4+3)",
        )
        parser.add_argument(
            "--calibration",
            action="store_true",
            help="export the judge calibration (every judge audit of the batch, newest first) instead of the results",
        )
        parser.add_argument("--audit", type=int, help="--calibration: only this audit (its id)")

    def handle(self, *args, **opts):
        try:  # before any work: an export of a large batch takes a while
            example = "results" + FILE_EXTENSIONS[opts["format"]]
            check_output_path(opts["output"], example=example, standard_output=True)
        except OutputPathError as exc:
            raise CommandError(str(exc)) from None
        if opts["calibration"]:
            refused = [flag for flag, given in (("--include-raw", opts["include_raw"]),
                                                 ("--model-config", opts["model_config"])) if given]  # fmt: skip
            if opts["format"] not in CALIBRATION_FORMATS:
                raise CommandError(f"--calibration exports {', '.join(CALIBRATION_FORMATS)}, not {opts['format']}")
            if refused:
                raise CommandError(f"{' and '.join(refused)} do not apply to --calibration (it exports audit reports)")
        elif opts["audit"] is not None:
            raise CommandError("--audit applies to --calibration only")
        try:
            batch = batch_get(opts["batch"])
            if opts["calibration"]:
                export = calibration_export(batch, fmt=opts["format"], audit_id=opts["audit"])
            else:
                export = self._results(batch, opts)
        except (BatchNotFound, ExportError) as exc:
            raise CommandError(str(exc)) from None
        self._write(export, batch, opts)

    def _results(self, batch, opts):
        try:
            family = parse_family(opts["family"])
        except ValueError as exc:
            raise CommandError(f"--family: {exc}") from None
        export = export_file(
            batch,
            fmt=opts["format"],
            include_raw=opts["include_raw"],
            model_config=opts["model_config"],
            correction=opts["correction"],
            family=family,
        )
        if opts["format"] != "json" and opts["include_raw"]:
            self.stderr.write("--include-raw applies to json only; ignored")
        return export

    def _write(self, export, batch, opts):
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
        what = "judge calibration, " if opts["calibration"] else ""
        self.stdout.write(self.style.SUCCESS(f"wrote {target} ({what}{opts['format']}, batch {batch.name})"))
