from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from annotation.aggregation.consensus import METHODS, merge_with_exclusions
from annotation.aggregation.reports import N_BOOT, SEED, kappa_report
from annotation.axes import MIN_CONFIDENCE, MIN_KAPPA
from annotation.management.commands._common import (
    add_float_option,
    check_default_rejected_path,
    checked_output,
    checked_output_folder,
    default_rejected_path,
    make_rejected_folder,
    merge_report_lines,
    read_rating_files,
    write_json,
    write_jsonl,
)
from annotation.quality.outliers import outlier_report
from annotation.review.selectors import accepted_flag_exclusions

REPORTS = ("kappa_report.json", "outlier_report.json")  # what --reports holds


class Command(BaseCommand):
    # A file tool of seed A.6/A.7: the site's system checks (URLs, admin, templates) say nothing about its
    # files and cost a tenth of a second of every run (they import every view). `manage.py check` runs them.
    requires_system_checks = []

    help = (
        "Merge several annotators' ratings (seed A.3 output JSONL) into one consensus line per item (seed A.6). "
        "Low-confidence ratings and annotators with low leave-one-out kappa on an axis are left out; items with "
        "too few usable ratings or too wide a spread go to the rejected file. Quality flags accepted in the "
        "database leave out what they flag (matched by annotator and dialogue id) unless --ignore-flags is given."
    )

    def add_arguments(self, parser):
        parser.add_argument("--input", nargs="+", required=True, metavar="FILE")
        parser.add_argument("--output", required=True, metavar="FILE", help="consensus JSONL (its folder must exist)")
        parser.add_argument("--method", choices=METHODS, default="weighted_average")
        add_float_option(parser, "min_kappa", MIN_KAPPA, "leave out an annotator on an axis below this kappa")
        add_float_option(parser, "min_confidence", MIN_CONFIDENCE, "leave out ratings below this confidence")
        parser.add_argument(
            "--rejected",
            metavar="FILE",
            help="where rejected items go (default: rejected/low_agreement.jsonl in the output's folder, "
            "whose rejected/ folder is created when missing)",
        )
        parser.add_argument(
            "--reports",
            metavar="DIR",
            help="also write kappa_report.json and outlier_report.json into this existing folder",
        )
        parser.add_argument("--n-boot", type=int, default=N_BOOT, help="bootstrap replicates for the kappa report")
        parser.add_argument("--seed", type=int, default=SEED)
        parser.add_argument(
            "--ignore-flags",
            action="store_true",
            help="do not apply the quality flags accepted in the database (merge the files as they are)",
        )

    def handle(
        self,
        *args,
        input,
        output,
        method,
        min_kappa,
        min_confidence,
        rejected,
        reports,
        n_boot,
        seed,
        ignore_flags,
        **options,
    ):
        if not 0 <= min_confidence <= 1:
            raise CommandError(f"--min_confidence must be from 0 to 1, got {min_confidence}")
        checked_output(output, example="consensus.jsonl")
        if rejected:
            checked_output(rejected, "--rejected", example="low_agreement.jsonl")
        else:
            check_default_rejected_path(output)
        if reports:
            checked_output_folder(reports, "--reports", files=REPORTS)
        ratings = read_rating_files(input)
        result, merge_summary = merge_with_exclusions(
            ratings,
            method=method,
            min_kappa=min_kappa,
            min_confidence=min_confidence,
            flag_exclusions=() if ignore_flags else accepted_flag_exclusions(),
        )
        rejected_path = Path(rejected) if rejected else default_rejected_path(output)
        if not rejected:
            make_rejected_folder(rejected_path)
        n_consensus = write_jsonl(output, result.consensus)
        n_rejected = write_jsonl(rejected_path, result.rejected)
        if reports:
            report = kappa_report(ratings, min_kappa=min_kappa, n_boot=n_boot, seed=seed, sources=input)
            report["merge"] = merge_summary
            write_json(Path(reports) / "kappa_report.json", report)
            write_json(Path(reports) / "outlier_report.json", outlier_report(ratings))
        for line in merge_report_lines(merge_summary):
            self.stdout.write(line)
        self.stdout.write(
            self.style.SUCCESS(
                f"{n_consensus} consensus items ({method}) written to {output}; "
                f"{n_rejected} rejected items written to {rejected_path}"
                + (f"; reports in {reports}" if reports else "")
            )
        )
