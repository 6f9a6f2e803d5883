"""Forms of the spreadsheet pages: a filled sheet to upload (the researchers' with whose ratings it holds, and
the overrides of the batch's quota and qualification), and whose template a researcher downloads."""

from __future__ import annotations

from django import forms
from django.contrib.auth import get_user_model
from django.template.defaultfilters import filesizeformat
from django.utils.translation import gettext_lazy as _

from annotation.io.override_forms import RuleOverridesForm
from annotation.models import Batch
from annotation.spreadsheets.imports import SHEET_OPTIONS
from annotation.spreadsheets.uploads import max_upload_bytes
from core.roles import ANNOTATOR

_NOT_THEIRS = _(
    "Choose an annotator of this batch: a user with the annotator role (and, when the batch is open only to "
    "its chosen annotators, one of them)."
)


def sheet_annotators(batch: Batch):
    """The users whose sheet of ``batch`` a researcher may download or upload: active annotators, and only
    the chosen ones when the batch is restricted."""
    users = get_user_model().objects.filter(is_active=True, groups__name=ANNOTATOR)
    if batch.restricted:
        users = users.filter(pk__in=batch.annotators.values("pk"))
    return users.distinct().order_by("username")


class _NoColon:
    """Labels without the ":" Django adds (it reads oddly after Japanese labels)."""

    def __init__(self, *args, **kwargs):
        kwargs.setdefault("label_suffix", "")
        super().__init__(*args, **kwargs)


class _AnnotatorChoice(forms.ModelChoiceField):
    def label_from_instance(self, user) -> str:
        return user.get_username()


class SheetUploadForm(_NoColon, forms.Form):
    file = forms.FileField(
        label=_("Filled sheet (.xlsx or CSV)"),
        help_text=_("The downloaded template with your ratings, as it is; or a UTF-8 CSV with the same columns."),
    )
    dry_run = forms.BooleanField(
        label=_("Check only"),
        required=False,
        help_text=_("Lists the problems, or what would be stored, and stores nothing."),
    )

    def clean_file(self):
        file = self.cleaned_data["file"]
        limit = max_upload_bytes()
        if file.size > limit:
            raise forms.ValidationError(
                _(
                    "This file is %(size)s; uploads are limited to %(max)s. "
                    "Split it into smaller files (a CSV by rows)."
                ),
                params={"size": filesizeformat(file.size), "max": filesizeformat(limit)},
                code="too_large",
            )
        return file


class BatchSheetUploadForm(SheetUploadForm, RuleOverridesForm):
    """A researcher's upload: anyone's sheet of the batch; the annotator is needed for a CSV. The sheet's new
    ratings may pass the batch's quota and the qualification by an override, with a reason (the batch and the
    chosen annotators are the whole sheet's, and have none)."""

    allow_closed_batch = None
    allow_unchosen_annotators = None
    OVERRIDES = SHEET_OPTIONS  # allow_over_quota, allow_unqualified_annotators

    annotator = _AnnotatorChoice(
        queryset=get_user_model().objects.none(),
        label=_("Annotator"),
        required=False,
        empty_label=_("— as the sheet says —"),
        help_text=_(
            "Needed for a CSV, which names nobody. A workbook names its annotator; a different choice here is a "
            "problem."
        ),
        error_messages={"invalid_choice": _NOT_THEIRS},
    )
    field_order = ("file", "annotator", "dry_run", *SHEET_OPTIONS, "reason")

    def __init__(self, *args, batch: Batch, **kwargs):
        kwargs.setdefault("auto_id", "sheet-up-%s")  # apart from the ids of the batch page's other forms
        super().__init__(*args, **kwargs)
        self.fields["annotator"].queryset = sheet_annotators(batch)


class TemplateForm(_NoColon, forms.Form):
    """Whose template of the batch a researcher downloads."""

    annotator = _AnnotatorChoice(
        queryset=get_user_model().objects.none(),
        label=_("Annotator"),
        empty_label=_("— choose —"),
        error_messages={"invalid_choice": _NOT_THEIRS, "required": _NOT_THEIRS},
    )

    def __init__(self, *args, batch: Batch, **kwargs):
        kwargs.setdefault("auto_id", "sheet-%s")
        super().__init__(*args, **kwargs)
        self.fields["annotator"].queryset = sheet_annotators(batch)
