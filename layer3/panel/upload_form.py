"""The Layer3 upload page's form: a trial log, its batch, experiment and widget catalogue, and "dry run".

The form checks only what the page must (a file is there, within ``UPLOAD_MAX_BYTES_TRIALS`` with its
catalogue); the batch name, the experiment id and every line are checked by the import itself
(``layer3.io.imports.trials_import``), as for the API and ``manage.py import_trials``.
"""

from __future__ import annotations

from django import forms
from django.utils.translation import gettext_lazy as _

from core.upload_limits import UploadTooLarge, limit_bytes, upload_size_error

LIMIT_SETTING = "UPLOAD_MAX_BYTES_TRIALS"


class TrialsUploadForm(forms.Form):
    # Plain file inputs: a "clear" checkbox means nothing on a form that stores no file.
    file = forms.FileField(
        label=_("Trial log (JSONL)"),
        widget=forms.FileInput,
        help_text=_(
            'JSONL, one trial per line: {"id", "modelConfig", "stage", "inputText", "generatedData"}. Every line '
            "is checked first; if anything is wrong nothing is stored and every problem is listed."
        ),
    )
    # Not stripped: the import's rule judges the name as given (a name with spaces around it is refused, not changed).
    name = forms.CharField(
        label=_("Batch name"),
        strip=False,
        help_text=_("A new batch is created; trials added to an existing batch must come from the same run."),
    )
    experiment_id = forms.CharField(label=_("Experiment id"), required=False, strip=False)
    widget_catalogue = forms.FileField(
        label=_("Widget catalogue (optional)"),
        required=False,
        widget=forms.FileInput,
        help_text=_(
            "The widget types the generator could choose from (a JSON list, or one type per line): the "
            "denominator |W| of widget diversity. Without one, the server's catalogue is used."
        ),
    )
    dry_run = forms.BooleanField(
        label=_("Check only (dry run)"),
        required=False,
        help_text=_("Checks every line and tells what would be stored, without storing anything."),
    )

    def __init__(self, *args, **kwargs):
        kwargs.setdefault("label_suffix", "")
        super().__init__(*args, **kwargs)

    def clean_file(self):
        file = self.cleaned_data["file"]
        if (message := upload_size_error(file, LIMIT_SETTING)) is not None:
            raise forms.ValidationError(message, code="too_large")
        return file

    def clean_widget_catalogue(self):
        file = self.cleaned_data["widget_catalogue"]
        if (message := upload_size_error(file, LIMIT_SETTING)) is not None:
            raise forms.ValidationError(message, code="too_large")
        return file

    def clean(self):
        data = super().clean()
        files = [data.get("file"), data.get("widget_catalogue")]
        files = [f for f in files if f is not None]
        size = sum(f.size or 0 for f in files)
        if len(files) > 1 and size > limit_bytes(LIMIT_SETTING):  # the two files count together, as in the API
            refusal = UploadTooLarge(setting=LIMIT_SETTING, size=size, names=[f.name for f in files])
            self.add_error("file", forms.ValidationError(refusal.message, code="too_large"))
        return data

    @property
    def too_large(self) -> bool:
        return self.is_bound and (
            self.has_error("file", "too_large") or self.has_error("widget_catalogue", "too_large")
        )
