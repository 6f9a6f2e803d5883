"""The researcher's form that draws a judge audit from a judged Layer3 batch."""

from __future__ import annotations

from django import forms
from django.utils.translation import gettext_lazy as _

from annotation.models import JudgeAudit
from core.judge_audits import KINDS

MAX_SIZE = 5_000
MAX_PER_ITEM = 10


class AuditCreateForm(forms.Form):
    batch = forms.CharField(label=_("Layer3 batch"), max_length=100)
    kind = forms.ChoiceField(label=_("What to audit"), choices=JudgeAudit.Kind.choices)
    size = forms.IntegerField(label=_("Sample size"), min_value=1, max_value=MAX_SIZE, initial=200)
    per_item = forms.IntegerField(label=_("Ratings per item"), min_value=1, max_value=MAX_PER_ITEM, initial=3)
    seed = forms.IntegerField(label=_("Seed"), required=False, min_value=0, max_value=2**63 - 1)

    def __init__(self, *args, batch_names: list[str] | None = None, **kwargs):
        super().__init__(*args, **kwargs)
        if batch_names:  # a list to pick from; the source still says why a batch it offers cannot be audited
            self.fields["batch"].widget = forms.Select(choices=[(name, name) for name in batch_names])

    def clean_kind(self) -> str:
        kind = self.cleaned_data["kind"]
        assert kind in KINDS  # the choices are the contract's kinds
        return kind
