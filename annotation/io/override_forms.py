"""The overrides of the batch's rules as an upload form offers them: a checkbox per rule and the reason.

Shared by the batch page's ratings upload (``annotation.workspace.forms``) and a researcher's upload of a rating
sheet (``annotation.spreadsheets.forms``); a form offers the rules it names in ``OVERRIDES`` (a subclass drops
the others: ``allow_closed_batch = None``). The labels are those the problems' hints name
(``rating_uploads.OPTION_NAMES["page"]``), so that a refused upload points at the box to tick.
"""

from __future__ import annotations

from django import forms
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from annotation.io.import_rules import MAX_REASON, RULE_OPTIONS, reason_problem
from annotation.io.rating_uploads import OPTION_NAMES, RuleOptions


class RuleOverridesForm(forms.Form):
    """Overrides of the batch's rules (``annotation.io.import_rules``): each needs the reason below."""

    allow_closed_batch = forms.BooleanField(
        label=_("Allow ratings in a closed batch"),
        required=False,
        help_text=_(
            "A closed batch takes no more ratings (the queue hands none of its items out); otherwise every new or "
            "changed rating of it is a problem."
        ),
    )
    allow_over_quota = forms.BooleanField(
        label=_("Allow more ratings than the quota"),
        required=False,
        help_text=_(
            "The queue never gives an item more ratings than the batch's quota (stored ratings and open "
            "reservations count); otherwise a rating past it is a problem."
        ),
    )
    allow_unchosen_annotators = forms.BooleanField(
        label=_("Allow annotators not chosen for the batch"),
        required=False,
        help_text=_("In a batch for chosen annotators only, the ratings of anyone else are otherwise a problem."),
    )
    allow_unqualified_annotators = forms.BooleanField(
        label=_("Allow annotators without a valid qualification"),
        required=False,
        help_text=_(
            "Otherwise the ratings of an annotator who logs in and has not passed the test (or whose "
            "qualification expired) are a problem. Accounts made by imports are not checked: they cannot log "
            "in to take the test."
        ),
    )
    reason = forms.CharField(
        label=_("Reason for the override"),
        required=False,
        max_length=MAX_REASON,
        widget=forms.Textarea(attrs={"rows": 2}),
        help_text=_("Required with any option above that lets ratings past the batch's rules; kept with your name."),
    )

    # The overrides offered, in the order shown (the reason follows them).
    OVERRIDES: tuple[str, ...] = (
        "allow_closed_batch",
        "allow_over_quota",
        "allow_unchosen_annotators",
        "allow_unqualified_annotators",
    )

    def clean(self):
        data = super().clean()
        chosen = [gettext(OPTION_NAMES["page"][name]) for name in RULE_OPTIONS.values()
                  if name in self.fields and data.get(name)]  # fmt: skip
        if (found := reason_problem(data.get("reason") or "", chosen)) is not None:
            template, params = found
            self.add_error("reason", forms.ValidationError(gettext(template) % params, code="reason"))
        return data

    def override_fields(self) -> list:
        return [self[name] for name in (*self.OVERRIDES, "reason")]

    @property
    def overrides_open(self) -> bool:
        """Whether the overrides are shown open: one is chosen, or has an error."""
        return any(self[name].value() or self[name].errors for name in (*self.OVERRIDES, "reason"))

    def rule_options(self) -> RuleOptions:
        """The overrides chosen (and ``ignore_unknown_keys`` when the form has it), with the reason."""
        data = self.cleaned_data
        flags = {name: bool(data.get(name)) for name in (*RULE_OPTIONS.values(), "ignore_unknown_keys")
                 if name in self.fields}  # fmt: skip
        return RuleOptions(**flags, reason=data.get("reason") or "")
