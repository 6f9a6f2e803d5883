from django.core.management.base import BaseCommand, CommandError

from annotation.aggregation.reports import N_BOOT, SEED, format_table, kappa_report, summary_rows
from annotation.axes import MIN_KAPPA, TARGET_KAPPA
from annotation.management.commands._common import add_float_option, checked_output, read_rating_files, write_json
from annotation.models import AgreementReport


class Command(BaseCommand):
    # A file tool of seed A.6/A.7: the site's system checks (URLs, admin, templates) say nothing about its
    # files and cost a tenth of a second of every run (they import every view). `manage.py check` runs them.
    requires_system_checks = []

    help = (
        "Inter-annotator agreement of seed A.3 output JSONL files: quadratic weighted kappa per axis with a "
        "bootstrap 95%% CI, Krippendorff's alpha (ordinal), Gwet's AC2, observed agreement and prevalence (seed A.6)."
    )

    def add_arguments(self, parser):
        parser.add_argument("--input", nargs="+", required=True, metavar="FILE")
        parser.add_argument("--output", required=True, metavar="FILE", help="the JSON report (its folder must exist)")
        add_float_option(parser, "min_kappa", MIN_KAPPA, "an axis passes when its kappa is at least this")
        add_float_option(parser, "target_kappa", TARGET_KAPPA, "the improvement target reported beside it")
        parser.add_argument("--n-boot", type=int, default=N_BOOT, help=f"bootstrap replicates (default {N_BOOT})")
        parser.add_argument("--seed", type=int, default=SEED, help=f"bootstrap seed (default {SEED})")
        parser.add_argument("--fail-under", action="store_true", help="exit with status 1 when not every axis passes")
        parser.add_argument("--save", action="store_true", help="also keep the report in the database (admin, UI)")

    def handle(self, *args, input, output, min_kappa, target_kappa, n_boot, seed, fail_under, save, **options):
        if n_boot < 0:
            raise CommandError("--n-boot must be 0 (no confidence interval) or more")
        checked_output(output, example="kappa_report.json")
        ratings = read_rating_files(input)
        report = kappa_report(
            ratings, min_kappa=min_kappa, target_kappa=target_kappa, n_boot=n_boot, seed=seed, sources=input
        )
        write_json(output, report)
        if save:
            AgreementReport.objects.create(
                source=", ".join(input)[:255],
                parameters={"min_kappa": min_kappa, "target_kappa": target_kappa, "n_boot": n_boot, "seed": seed},
                passed=report["passed"],
                report=report,
            )
        self.stdout.write(format_table(summary_rows(report)))
        for axis, data in report["axes"].items():
            if data["paradox_note"]:
                self.stdout.write(f"note ({axis}): {data['paradox_note']}")
        verdict = "passed" if report["passed"] else "NOT passed"
        self.stdout.write(
            f"{ratings.n_items} items, {ratings.n_raters} annotators: {verdict} (min_kappa {min_kappa}); "
            f"report written to {output}"
        )
        if fail_under and not report["passed"]:
            failing = [axis for axis, data in report["axes"].items() if not data["passed"]]
            raise CommandError(f"agreement below min_kappa {min_kappa} on: {', '.join(failing)}", returncode=1)
