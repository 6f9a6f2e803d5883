"""``{% batch_sheet_forms batch as sheet %}``: the forms of a batch page's "Spreadsheets" card (an annotator's
template to download, a filled sheet to upload), with the upload limits its text states."""

from django import template

from annotation.spreadsheets.forms import BatchSheetUploadForm, TemplateForm
from annotation.spreadsheets.uploads import upload_limits

register = template.Library()


@register.simple_tag
def batch_sheet_forms(batch) -> dict:
    return {"template_form": TemplateForm(batch=batch), "upload_form": BatchSheetUploadForm(batch=batch),
            **upload_limits()}  # fmt: skip
