"""The rater's forms in a judge audit: a 0–2 score (with an optional comment), a skip, an edit with its reason."""

from __future__ import annotations

from django import forms
from django.utils.translation import gettext_lazy as _

from annotation.models.audit import JUDGE_SCORES

MAX_COMMENT = 2_000
CHOOSE_SCORE = _("Choose a score: 0, 1 or 2.")


def _score_field() -> forms.TypedChoiceField:
    return forms.TypedChoiceField(
        label=_("Score"),
        choices=[(score, str(score)) for score in JUDGE_SCORES],
        coerce=int,
        error_messages={"required": CHOOSE_SCORE, "invalid_choice": CHOOSE_SCORE},
    )


class AuditScoreForm(forms.Form):
    score = _score_field()
    comment = forms.CharField(label=_("Comment (optional)"), max_length=MAX_COMMENT, required=False, strip=True)


class AuditSkipForm(forms.Form):
    reason = forms.CharField(label=_("Reason for skipping (optional)"), max_length=300, required=False, strip=True)


class AuditEditForm(forms.Form):
    """A changed score and why (kept in the rating's edit history)."""

    score = _score_field()
    reason = forms.CharField(label=_("Reason for the change (optional)"), max_length=200, required=False, strip=True)
