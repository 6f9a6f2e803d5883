from django.core.management.base import BaseCommand, CommandError

from annotation.io.import_rules import RULE_OPTIONS, WEB_NEEDS_UPDATE
from annotation.io.imports import annotations_import
from annotation.management.commands._common import input_errors_as_command_error
from annotation.management.commands._overrides import add_reason_arguments, command_overrides
from core.jsonl import fill


class Command(BaseCommand):
    help = (
        "Import ratings from seed A.3 output JSONL files ({id, annotator_id, timestamp, annotations, confidence}, "
        "optionally seconds_spent). Unknown annotator ids become annotator accounts flagged as imported. The "
        "ratings obey their batches' rules as the web queue does: a closed batch takes no new or changed rating, "
        "at most the batch's quota of ratings per item "
        "(stored and reserved ones counted), only the chosen annotators in a batch for chosen annotators, only "
        "annotators with a valid qualification (accounts made by imports excepted: they cannot take the test), "
        "and --update never replaces a rating made on the web. Each rule has an override below; any override "
        "needs --reason and is recorded (admin: import overrides) with who and why. Any error stores nothing."
    )

    def add_arguments(self, parser):
        parser.add_argument("files", nargs="+", metavar="FILE")
        parser.add_argument("--dry-run", action="store_true", help="validate only; store nothing")
        parser.add_argument(
            "--update", action="store_true", help="replace stored ratings that differ (old values kept in history)"
        )
        parser.add_argument(
            "--ignore-unknown-keys",
            action="store_true",
            help="leave out top-level keys beyond the format's fields (and count them) instead of refusing their lines",
        )
        rules = parser.add_argument_group(
            "overrides of the batch's rules", "each needs --reason; what it lets in is recorded with who and why"
        )
        rules.add_argument(
            "--allow-closed-batch",
            action="store_true",
            help="store ratings (new ones, and changed ones with --update) of a closed batch",
        )
        rules.add_argument(
            "--allow-over-quota",
            action="store_true",
            help="store ratings that take an item past its batch's quota (annotations per item)",
        )
        rules.add_argument(
            "--allow-unchosen-annotators",
            action="store_true",
            help="store ratings by annotators not chosen for a batch that is for chosen annotators only",
        )
        rules.add_argument(
            "--allow-unqualified-annotators",
            action="store_true",
            help="store ratings by annotators (people who log in) without a valid qualification",
        )
        rules.add_argument(
            "--replace-web-ratings",
            action="store_true",
            help="with --update: also replace ratings that annotators made on the web",
        )
        add_reason_arguments(rules)

    def handle(self, *args, files, dry_run, update, ignore_unknown_keys, reason, by, **options):
        overrides = command_overrides(options, RULE_OPTIONS.values(), reason=reason, by=by)
        if overrides.replace_web_ratings and not update:
            raise CommandError(fill(WEB_NEEDS_UPDATE, {"option_text": "--replace-web-ratings",
                                                       "update_text": "--update"}))  # fmt: skip
        with input_errors_as_command_error():
            summary = annotations_import(
                paths=files, dry_run=dry_run, update=update, overrides=overrides,
                ignore_unknown_keys=ignore_unknown_keys,
            )  # fmt: skip
        prefix = "dry run, nothing stored: " if dry_run else ""
        self.stdout.write(self.style.SUCCESS(f"{prefix}annotations {summary}"))
