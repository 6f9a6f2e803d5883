from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError

from annotation.io.import_rules import overridden_text
from annotation.io.imports import COMMAND_OPTIONS
from annotation.management.commands._overrides import add_reason_arguments, command_overrides
from annotation.models import ImportOverride
from annotation.spreadsheets.imports import SHEET_OPTIONS, SheetRejected, sheet_import


class Command(BaseCommand):
    help = (
        "Store the ratings of a filled rating sheet (.xlsx from export_template, or a CSV with the same columns). "
        "Every row is checked first; with any problem nothing is stored and every problem is listed. The sheet's "
        "new ratings obey the batch's quota and the qualification as the web queue does, unless an override below "
        "says otherwise: it needs --reason and is recorded (admin: import overrides) with who and why."
    )

    def add_arguments(self, parser):
        parser.add_argument("file", metavar="FILE", help="the .xlsx or .csv file")
        parser.add_argument("--annotator", help="whose ratings (required for a CSV; an .xlsx names its annotator)")
        parser.add_argument("--dry-run", action="store_true", help="check everything, store nothing")
        rules = parser.add_argument_group(
            "overrides of the batch's rules", "each needs --reason; what it lets in is recorded with who and why"
        )
        rules.add_argument(
            "--allow-over-quota",
            action="store_true",
            help="store ratings that take an item past its batch's quota (annotations per item)",
        )
        rules.add_argument(
            "--allow-unqualified-annotators",
            action="store_true",
            help="store the ratings of an annotator (a person who logs in) without a valid qualification",
        )
        add_reason_arguments(rules)

    def handle(self, *args, file, annotator, dry_run, reason, by, **options):
        user = None
        if annotator:
            user = get_user_model().objects.filter(username=annotator).first()
            if user is None:
                raise CommandError(f"--annotator: no user named {annotator!r}")
        overrides = command_overrides(options, SHEET_OPTIONS, reason=reason, by=by)
        names = {name: COMMAND_OPTIONS[name] for name in SHEET_OPTIONS}
        try:
            summary = sheet_import(
                path=file, annotator=user, dry_run=dry_run, overrides=overrides, option_names=names,
                surface=ImportOverride.Surface.SHEET_COMMAND,
            )  # fmt: skip
        except FileNotFoundError:
            raise CommandError(f"{file}: no such file") from None
        except SheetRejected as exc:
            raise CommandError(f"nothing was stored: {exc}") from None
        verb = "would store" if dry_run else "stored"
        text = (
            f"{verb} {summary.created} new and {summary.updated} changed ratings by {summary.annotator} "
            f"(batch {summary.batch}); {summary.unchanged} unchanged, {summary.skipped} rows left blank, "
            f"{summary.comments} comments"
        )
        text += overridden_text(
            summary.overridden, override_id=summary.override_id, by=summary.override_by,
            reason=summary.override_reason,
        )  # fmt: skip
        self.stdout.write(self.style.SUCCESS(text))
