from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from annotation.aggregation.consensus import METHODS, merge_with_exclusions
from annotation.axes import MIN_CONFIDENCE, MIN_KAPPA
from annotation.io.dataset import rating_set
from annotation.io.sheets import REJECTED_SHEET, write_consensus_csv, write_consensus_xlsx, write_rejected_csv
from annotation.management.commands._common import (
    add_float_option,
    atomic_output,
    check_default_rejected_path,
    checked_output,
    default_rejected_path,
    make_rejected_folder,
    merge_report_lines,
    write_jsonl,
)
from annotation.management.commands._formats import add_format_option, check_file_name
from annotation.models import Batch
from annotation.review.selectors import accepted_flag_exclusions, batch_consensus
from annotation.selectors import annotation_records


class Command(BaseCommand):
    help = (
        "Merge the stored ratings into consensus JSONL (the merge_annotations rules, read from the database "
        "instead of files); rejected items go to a second file. With --batch, researchers' adjudications "
        'replace the merged score of the axes they decided (marked under "adjudicated"). '
        "--format xlsx writes one workbook with a consensus and a rejected sheet; --format csv writes the "
        "consensus to --output and the rejected items to --rejected (default rejected/low_agreement.csv)."
    )

    def add_arguments(self, parser):
        parser.add_argument("--output", "-o", required=True, metavar="FILE", help="its folder must exist")
        parser.add_argument("--batch", help="only dialogues of this batch")
        parser.add_argument("--method", choices=METHODS, default="weighted_average")
        add_float_option(parser, "min_kappa", MIN_KAPPA, "leave out an annotator on an axis below this kappa")
        add_float_option(parser, "min_confidence", MIN_CONFIDENCE, "leave out ratings below this confidence")
        parser.add_argument(
            "--rejected",
            metavar="FILE",
            help="default: rejected/low_agreement.jsonl (.csv with --format csv) beside --output, whose "
            "rejected/ folder is created when missing; "
            "not with --format xlsx (the workbook's rejected sheet)",
        )
        add_format_option(parser, "jsonl (default), xlsx (both sheets in one workbook) or csv (two files)")
        parser.add_argument(
            "--include-llm",
            action="store_true",
            help="count the ratings of LLM raters (llm_rate) in the consensus; left out by default",
        )

    def handle(
        self, *args, output, batch, method, min_kappa, min_confidence, rejected, file_format, include_llm, **options
    ):
        self._check_names(output, rejected, file_format)
        checked_output(output, example=f"consensus.{file_format}")
        if rejected:
            checked_output(rejected, "--rejected", example=f"low_agreement.{file_format}")
        elif file_format != "xlsx":
            check_default_rejected_path(output, file_format)
        stored = Batch.objects.filter(name=batch).first() if batch else None
        if batch and stored is None:
            raise CommandError(f"no batch named {batch!r}")
        if stored is not None:  # one batch: its adjudications apply
            merged = batch_consensus(
                stored, method=method, min_kappa=min_kappa, min_confidence=min_confidence, include_llm=include_llm
            )
        else:
            records = annotation_records(include_llm=include_llm)
            merged = records and merge_with_exclusions(
                rating_set(records),
                method=method,
                min_kappa=min_kappa,
                min_confidence=min_confidence,
                flag_exclusions=accepted_flag_exclusions(),
            )
        if not merged:
            raise CommandError("no ratings stored" + (f" in batch {batch}" if batch else ""))
        result, summary = merged
        if file_format == "xlsx":
            with atomic_output(output, mode="wb") as handle:
                write_consensus_xlsx(result.consensus, result.rejected, handle)
            n_consensus, n_rejected = len(result.consensus), len(result.rejected)
            rejected_path = f"{output} (sheet {REJECTED_SHEET})"
        else:
            rejected_path = Path(rejected) if rejected else default_rejected_path(output, file_format)
            if not rejected:
                make_rejected_folder(rejected_path)
            if file_format == "csv":
                with atomic_output(output) as handle:
                    n_consensus = write_consensus_csv(result.consensus, handle)
                with atomic_output(rejected_path) as handle:
                    n_rejected = write_rejected_csv(result.rejected, handle)
            else:
                n_consensus = write_jsonl(output, result.consensus)
                n_rejected = write_jsonl(rejected_path, result.rejected)
        for line in merge_report_lines(summary):
            self.stdout.write(line)
        adjudicated = summary["adjudicated_items"]
        self.stdout.write(
            self.style.SUCCESS(
                f"{n_consensus} consensus items ({method}) written to {output}; "
                f"{n_rejected} rejected to {rejected_path}"
                + (f"; {adjudicated} items with adjudicated axes" if adjudicated else "")
                + ("; LLM raters included" if include_llm else "")
            )
        )

    @staticmethod
    def _check_names(output: str, rejected: str | None, file_format: str) -> None:
        if file_format != "jsonl" and output == "-":
            raise CommandError(f"--format {file_format} needs --output to be a file, not standard output")
        check_file_name(output, file_format)
        if rejected and file_format == "xlsx":
            raise CommandError("--rejected is not used with --format xlsx: the workbook holds a rejected sheet")
        if rejected:
            check_file_name(rejected, file_format, "--rejected")
