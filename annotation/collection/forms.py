from django import forms
from django.utils.translation import gettext_lazy as _

from annotation.axes import AXES, SCORES
from annotation.guidelines.scale import AXIS_NAMES, CONFIDENCE_CHOICES
from annotation.review.services import MAX_COMMENT

_SCORE_VALUES = {str(s): s for s in SCORES}
_CONFIDENCE_VALUES = {str(c): c for c in CONFIDENCE_CHOICES}


def parse_rating(data) -> tuple[dict[str, int], dict[str, float]] | None:
    """Scores and confidences from posted data when ``RatingForm`` would accept it, else None.

    The rating page's fast path: the same rules as the form (exactly the choices' string values,
    every field required) without building a form; invalid data goes through ``RatingForm`` for
    its error messages.
    """
    scores, confidences = {}, {}
    for axis in AXES:
        score = _SCORE_VALUES.get(data.get(axis))
        confidence = _CONFIDENCE_VALUES.get(data.get(f"{axis}_confidence"))
        if score is None or confidence is None:
            return None
        scores[axis], confidences[axis] = score, confidence
    return scores, confidences


class ConfidenceField(forms.TypedChoiceField):
    """0.0 to 1.0 in steps of 0.1; "0.70" is 0.7, while 1.5, NaN or nothing get a message beside the field."""

    def __init__(self, **kwargs):
        super().__init__(
            label=_("confidence"),
            choices=[(c, f"{c:.1f}") for c in CONFIDENCE_CHOICES],
            coerce=float,
            initial=1.0,
            error_messages={
                "required": _("Choose a confidence from 0.0 to 1.0."),
                "invalid_choice": _("Confidence must be one of 0.0, 0.1, …, 1.0; got %(value)s."),
            },
            **kwargs,
        )

    def to_python(self, value):
        text = super().to_python(value)
        try:
            number = float(text)
        except ValueError:
            return text
        for choice in CONFIDENCE_CHOICES:
            if abs(number - choice) < 1e-9:
                return str(choice)
        return text


class RatingForm(forms.Form):
    """Four scores (1-5, required) and four confidences (0-1, default 1.0)."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        for axis in AXES:
            self.fields[axis] = forms.TypedChoiceField(
                label=AXIS_NAMES[axis],
                choices=[(s, str(s)) for s in SCORES],
                coerce=int,
                widget=forms.RadioSelect,
                error_messages={"required": _("Choose a score from 1 to 5.")},
            )
            self.fields[f"{axis}_confidence"] = ConfidenceField()

    def scores(self) -> dict[str, int]:
        return {axis: self.cleaned_data[axis] for axis in AXES}

    def confidences(self) -> dict[str, float]:
        return {axis: self.cleaned_data[f"{axis}_confidence"] for axis in AXES}

    def axis_rows(self, axes_info):
        """(axis info, score field, confidence field) per axis, in the order of ``axes_info``."""
        return [(info, self[info.key], self[f"{info.key}_confidence"]) for info in axes_info]


class SkipForm(forms.Form):
    reason = forms.CharField(label=_("Reason for skipping (optional)"), max_length=300, required=False)


class ItemCommentForm(forms.Form):
    """An annotator's note on the item being rated: a "problem" mark, a comment, or both."""

    problem = forms.BooleanField(label=_("Problem with this item"), required=False)
    text = forms.CharField(
        label=_("Comment"),
        required=False,
        max_length=MAX_COMMENT,
        widget=forms.Textarea(attrs={"rows": 3}),
        error_messages={
            "max_length": _("A comment holds at most %(limit_value)d characters; this one has %(show_value)d.")
        },
    )

    def clean(self):
        cleaned = super().clean()
        if not self.errors and not cleaned.get("problem") and not (cleaned.get("text") or "").strip():
            raise forms.ValidationError(_("Write a comment or mark the item as having a problem."))
        return cleaned


class EditReasonForm(forms.Form):
    """Why a stored rating is changed (kept in the edit history)."""

    reason = forms.CharField(label=_("Reason for the change (optional)"), max_length=200, required=False, strip=True)
