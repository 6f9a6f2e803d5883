"""The six CI checks of seed A.7 over annotation files: format, range, kappa, completeness, consistency, outliers."""

from collections import Counter

from django.core.management.base import BaseCommand, CommandError

from annotation.aggregation.reports import format_table, kappa_report
from annotation.axes import MIN_CONFIDENCE, MIN_KAPPA
from annotation.io.dataset import rating_set
from annotation.io.records import ProblemLog, load_annotations, load_dialogues, readable_paths
from annotation.management.commands._common import add_float_option, checked_output, write_json
from annotation.quality.consistency import check_consistency
from annotation.quality.outliers import detect_outliers

SHOWN = 5  # problems listed per check in the terminal; the --report file has up to 100


def _check(name: str, blocking: bool, ok: bool, summary: str, items: list | None = None) -> dict:
    status = "PASS" if ok else ("FAIL" if blocking else "WARN")
    return {"check": name, "blocking": blocking, "status": status, "summary": summary, "items": items or []}


class Command(BaseCommand):
    # A file tool of seed A.6/A.7: the site's system checks (URLs, admin, templates) say nothing about its
    # files and cost a tenth of a second of every run (they import every view). `manage.py check` runs them.
    requires_system_checks = []

    help = (
        "Validate annotation files with the six checks of seed A.7 (format, range, kappa >= min, completeness, "
        "logical consistency, outliers). Exits 1 when a blocking check (the first four) fails."
    )

    def add_arguments(self, parser):
        parser.add_argument("--dialogues", required=True, metavar="FILE", help="the dialogues (seed A.3 input JSONL)")
        parser.add_argument("--input", nargs="+", required=True, metavar="FILE", help="ratings (A.3 output JSONL)")
        parser.add_argument("--report", metavar="FILE", help="write every finding as JSON (its folder must exist)")
        parser.add_argument("--min-ratings", type=int, default=2, help="ratings every dialogue needs (default 2)")
        add_float_option(parser, "min_kappa", MIN_KAPPA, "every axis kappa must reach this")
        add_float_option(parser, "min_confidence", MIN_CONFIDENCE, "confidence below this is reported")
        parser.add_argument("--n-boot", type=int, default=200, help="bootstrap replicates for the kappa CI")

    def handle(self, *args, dialogues, input, report, min_ratings, min_kappa, min_confidence, n_boot, **options):
        if report is not None:
            checked_output(report, "--report", example="validation_report.json")
        dialogue_log, rating_log = ProblemLog(), ProblemLog()
        dialogue_records = load_dialogues(readable_paths([dialogues], dialogue_log), log=dialogue_log)
        records = load_annotations(readable_paths(input, rating_log), log=rating_log)
        problems = dialogue_log.problems + rating_log.problems
        counts = Counter(dialogue_log.counts) + Counter(rating_log.counts)
        checks = []

        format_items = [str(p) for p in problems if p.kind == "format"]
        checks.append(_check("format", True, counts["format"] == 0, f"{counts['format']} problem(s)", format_items))
        range_items = [str(p) for p in problems if p.kind == "range"]
        checks.append(
            _check("range", True, counts["range"] == 0, f"{counts['range']} value(s) out of range", range_items)
        )

        ratings = rating_set(records) if records else None
        if ratings is None:
            checks.append(_check("kappa", True, False, "no valid ratings"))
        else:
            agreement = kappa_report(ratings, min_kappa=min_kappa, n_boot=n_boot, sources=input)
            failing = [f"{axis}: {data['reason']}" for axis, data in agreement["axes"].items() if not data["passed"]]
            kappas = ", ".join(
                f"{axis} {'—' if d['kappa'] is None else format(d['kappa'], '.3f')}"
                for axis, d in agreement["axes"].items()
            )
            checks.append(_check("kappa", True, agreement["passed"], f"{kappas} (min {min_kappa})", failing))

        per_dialogue = Counter(r.id for r in records)
        known = {d.id for d in dialogue_records}
        missing = [f"{d.id}: {per_dialogue.get(d.id, 0)} rating(s), needs {min_ratings}" for d in dialogue_records
                   if per_dialogue.get(d.id, 0) < min_ratings]  # fmt: skip
        unknown = sorted(set(per_dialogue) - known)
        complete = not missing and not unknown and bool(dialogue_records)
        summary = (
            f"{len(dialogue_records) - len(missing)}/{len(dialogue_records)} dialogues have >= {min_ratings} ratings"
        )
        if unknown:
            summary += f"; ratings for {len(unknown)} id(s) not in {dialogues}"
        checks.append(
            _check("completeness", True, complete, summary, missing + [f"{i}: not a known dialogue" for i in unknown])
        )

        by_id = {d.id: d.as_json() for d in dialogue_records}
        issues = []
        for record in records:
            if record.id in by_id:
                for issue in check_consistency(record.as_json(), by_id[record.id], min_confidence=min_confidence):
                    where = f"{record.file}:{record.line}: {record.annotator_id}/{record.id}"
                    issues.append(f"{where}: {issue.rule_id} {issue.message}")
        checks.append(_check("consistency", False, not issues, f"{len(issues)} issue(s)", issues))

        flags = detect_outliers(ratings) if ratings is not None else []
        flag_items = [
            f"{f.kind} {f.subject_type} {f.subject}{' ' + f.axis if f.axis else ''}: {f.message}" for f in flags
        ]
        checks.append(_check("outliers", False, not flags, f"{len(flags)} flag(s)", flag_items))

        self.stdout.write(
            format_table([["check", "status", "summary"]] + [[c["check"], c["status"], c["summary"]] for c in checks])
        )
        for check in checks:
            for item in check["items"][:SHOWN]:
                self.stdout.write(f"  {check['check']}: {item}")
            if len(check["items"]) > SHOWN:
                self.stdout.write(f"  {check['check']}: ... {len(check['items']) - SHOWN} more")
        passed = all(c["status"] != "FAIL" for c in checks)
        if report:
            write_json(report, {"passed": passed, "checks": [{**c, "items": c["items"][:100]} for c in checks]})
        if not passed:
            failing = [c["check"] for c in checks if c["status"] == "FAIL"]
            raise CommandError(f"blocking check(s) failed: {', '.join(failing)}", returncode=1)
        self.stdout.write(self.style.SUCCESS("all blocking checks passed"))
