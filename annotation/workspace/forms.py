"""Forms of the researchers' workspace: a new batch with its file, more dialogues, the batch's settings,
the items table's filters and the adjudication of a disputed item."""

from __future__ import annotations

from django import forms
from django.contrib.auth import get_user_model
from django.db.models import Q
from django.utils.translation import gettext_lazy as _
from django.utils.translation import ngettext

from annotation.axes import SCORES
from annotation.collection.progress import quota_shortfall
from annotation.guidelines.scale import AXIS_NAMES, LEVEL_LABELS
from annotation.io.override_forms import RuleOverridesForm
from annotation.models import Batch
from annotation.review.services import MAX_COMMENT
from annotation.workspace.selectors import RATINGS_FILTERS, SORTS, ItemFilters
from annotation.workspace.status import STATUS_LABELS
from core.query_params import parse_id
from core.roles import ANNOTATOR
from core.upload_limits import upload_size_error

MAX_QUOTA = 50
MAX_SPREAD = max(SCORES) - min(SCORES)

_FILE_HELP = _(
    'JSONL, one dialogue per line: {"id", "user", "response", "context"}. Every line is checked first; '
    "if anything is wrong nothing is stored and every problem is listed."
)


class _NoColon:
    """Labels without the ":" Django adds (it reads oddly after Japanese labels)."""

    def __init__(self, *args, **kwargs):
        kwargs.setdefault("label_suffix", "")
        super().__init__(*args, **kwargs)


class DialogueFileForm(_NoColon, forms.Form):
    file = forms.FileField(label=_("Dialogue file (JSONL)"), help_text=_FILE_HELP)
    ignore_unknown_keys = forms.BooleanField(
        label=_("Ignore unknown fields"),
        required=False,
        help_text=_(
            "Otherwise a key beyond id, user, response and context is a problem of its line. "
            "The keys left out are listed with how many lines had them."
        ),
    )
    OPTIONS = ("ignore_unknown_keys",)

    def option_fields(self) -> list:
        """The upload's options (``annotation/workspace/_upload_options.html`` renders them)."""
        return [self[name] for name in self.OPTIONS]

    def clean_file(self):
        """A file over ``UPLOAD_MAX_BYTES_DIALOGUES`` is refused here, before anything reads it."""
        file = self.cleaned_data["file"]
        if (message := upload_size_error(file, "UPLOAD_MAX_BYTES_DIALOGUES")) is not None:
            raise forms.ValidationError(message, code="too_large")
        return file


class DialogueAddForm(DialogueFileForm):
    """More dialogues for a batch, and whether changed ones (by id) replace the stored ones."""

    update = forms.BooleanField(
        label=_("Replace dialogues whose text changed"),
        required=False,
        help_text=_("Otherwise a stored id with a different text or context is a problem and nothing is stored."),
    )
    force_text_change = forms.BooleanField(
        label=_("… even those already rated"),
        required=False,
        help_text=_("The old text is kept in the dialogue's history and each of its ratings is flagged for review."),
    )
    OPTIONS = ("update", "force_text_change", "ignore_unknown_keys")

    def clean(self):
        data = super().clean()
        if data.get("force_text_change") and not data.get("update"):
            self.add_error("force_text_change", _("Choose “Replace dialogues whose text changed” as well."))
        return data


class RatingsUploadForm(_NoColon, RuleOverridesForm):
    """Ratings of this batch's dialogues (seed A.3 output JSONL), as ``manage.py import_annotations`` reads them,
    with every override of the batch's rules (``RuleOverridesForm``)."""

    file = forms.FileField(
        label=_("Ratings file (JSONL)"),
        help_text=_(
            'JSONL, one rating per line: {"id", "annotator_id", "timestamp", "annotations", "confidence"}. '
            "Every line is checked first; if anything is wrong nothing is stored and every problem is listed."
        ),
    )
    dry_run = forms.BooleanField(
        label=_("Check only (dry run)"),
        required=False,
        help_text=_("Checks every line and tells what would be stored, without storing anything."),
    )
    update = forms.BooleanField(
        label=_("Replace ratings that differ"),
        required=False,
        help_text=_(
            "Otherwise a stored rating with other values is a problem and nothing is stored. "
            "The old values are kept in the rating's edit history."
        ),
    )
    ignore_unknown_keys = forms.BooleanField(
        label=_("Ignore unknown fields"),
        required=False,
        help_text=_(
            "Otherwise a key beyond the format's fields (e.g. a “note”) is a problem of its line. "
            "The keys left out are listed with how many lines had them."
        ),
    )
    replace_web_ratings = forms.BooleanField(
        label=_("Also replace ratings made on the web"),
        required=False,
        help_text=_("With “Replace ratings that differ”: also replace ratings annotators made on the web."),
    )

    OVERRIDES = (*RuleOverridesForm.OVERRIDES, "replace_web_ratings")
    field_order = ("file", "dry_run", "update", "ignore_unknown_keys", *OVERRIDES, "reason")

    def clean_file(self):
        """A file over ``UPLOAD_MAX_BYTES_RATINGS`` is refused here, before anything reads it."""
        file = self.cleaned_data["file"]
        if (message := upload_size_error(file, "UPLOAD_MAX_BYTES_RATINGS")) is not None:
            raise forms.ValidationError(message, code="too_large")
        return file

    def clean(self):
        data = super().clean()
        if data.get("replace_web_ratings") and not data.get("update"):
            self.add_error("replace_web_ratings", _("Choose “Replace ratings that differ” as well."))
        return data

    def basic_fields(self) -> list:
        return [self[name] for name in ("dry_run", "update", "ignore_unknown_keys")]


class BatchCreateForm(DialogueFileForm):
    name = forms.CharField(
        label=_("Name"),
        max_length=Batch._meta.get_field("name").max_length,
        validators=Batch._meta.get_field("name").validators,
    )
    description = forms.CharField(label=_("Description"), required=False, widget=forms.Textarea(attrs={"rows": 3}))
    annotations_per_item = forms.IntegerField(
        label=_("Ratings per item (quota)"), min_value=1, max_value=MAX_QUOTA, initial=3,
        help_text=_("How many annotators rate each item; the queue hands an item out until it has this many."),
    )  # fmt: skip
    guidelines_version = forms.CharField(
        label=_("Guidelines version"),
        required=False,
        max_length=40,
        widget=forms.TextInput(attrs={"placeholder": "v1.0"}),
    )

    field_order = ["name", "description", "annotations_per_item", "guidelines_version", "file", "ignore_unknown_keys"]

    def clean_name(self) -> str:
        name = self.cleaned_data["name"].strip()
        if Batch.objects.filter(name=name).exists():
            raise forms.ValidationError(
                _(
                    "A batch named %(name)s exists already. Choose another name, or add the dialogues "
                    "from that batch's page."
                ),
                params={"name": name},
            )
        return name

    def batch_settings(self) -> dict:
        return {key: self.cleaned_data[key] for key in ("description", "annotations_per_item", "guidelines_version")}


def annotator_accounts(batch: Batch | None = None):
    """Accounts that may be chosen for a batch: active annotators who log in (not accounts made by imports),
    and whoever the batch has chosen already."""
    users = get_user_model().objects
    may_work = Q(is_active=True, groups__name=ANNOTATOR) & ~Q(annotator_profile__imported=True)
    if batch is not None and batch.pk:
        may_work |= Q(chosen_batches=batch)
    return users.filter(pk__in=users.filter(may_work).values("pk")).order_by("username")


class _AccountsField(forms.ModelMultipleChoiceField):
    """Accounts chosen by id: a value that cannot be an id (``abc``, 30 digits) is refused as not a valid choice
    before it reaches the database (whose integer column it would overflow)."""

    def _check_values(self, value):
        for pk in value:
            if parse_id(pk) is None:
                raise forms.ValidationError(
                    self.error_messages["invalid_pk_value"], code="invalid_pk_value", params={"pk": pk}
                )
        return super()._check_values(value)


class BatchSettingsForm(_NoColon, forms.ModelForm):
    restricted = forms.TypedChoiceField(
        label=_("Who may work on it"),
        choices=[(False, _("Every qualified annotator")), (True, _("Only the chosen annotators"))],
        coerce=lambda value: value in (True, "True"),
        widget=forms.RadioSelect,
    )
    annotators = _AccountsField(
        label=_("Chosen annotators"), queryset=annotator_accounts(), required=False, widget=forms.CheckboxSelectMultiple
    )
    annotations_per_item = forms.IntegerField(label=_("Ratings per item (quota)"), min_value=1, max_value=MAX_QUOTA)
    disagreement_spread = forms.IntegerField(
        label=_("Disputed from a spread of"), min_value=1, max_value=MAX_SPREAD,
        help_text=_("An item is disputed when, on some axis, the highest and lowest score differ by at least this."),
    )  # fmt: skip
    # Shown once the quota is over the chosen annotators: saving such settings takes this explicit yes.
    confirm_quota = forms.BooleanField(
        label=_("Save anyway: I will choose more annotators or lower the quota later"), required=False
    )

    class Meta:
        model = Batch
        fields = ["status", "annotations_per_item", "disagreement_spread", "guidelines_version", "description",
                  "restricted", "annotators"]  # fmt: skip
        widgets = {"status": forms.RadioSelect, "description": forms.Textarea(attrs={"rows": 3})}

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["annotators"].queryset = annotator_accounts(self.instance)
        self.fields["status"].label = _("Status")
        self.fields["guidelines_version"].label = _("Guidelines version")
        self.fields["guidelines_version"].help_text = _("Which guidelines the batch is rated under, e.g. v1.2.")
        self.fields["status"].choices = list(STATUS_LABELS.items())

    def clean(self):
        data = super().clean()
        if data.get("restricted") and not data.get("annotators"):
            self.add_error(
                "annotators",
                _("Choose at least one annotator, or let every qualified annotator work on the batch."),
            )
        self.quota_over_annotators = quota_shortfall(
            restricted=data.get("restricted"), quota=data.get("annotations_per_item"), chosen=data.get("annotators")
        )
        if self.quota_over_annotators and not data.get("confirm_quota"):
            quota, chosen = self.quota_over_annotators
            self.add_error(
                "annotations_per_item",
                forms.ValidationError(
                    ngettext(
                        "Each item needs %(quota)d ratings but only %(chosen)d annotator is chosen. Nobody rates an "
                        "item twice, so no item can reach its quota and the batch never completes. Choose more "
                        "annotators or lower the quota, or tick “Save anyway” below.",
                        "Each item needs %(quota)d ratings but only %(chosen)d annotators are chosen. Nobody rates "
                        "an item twice, so no item can reach its quota and the batch never completes. Choose more "
                        "annotators or lower the quota, or tick “Save anyway” below.",
                        chosen,
                    ),
                    code="quota_over_annotators",
                    params={"quota": quota, "chosen": chosen},
                ),
            )
        return data


class ItemFilterForm(forms.Form):
    """The items table's filters; anything unknown in the query string falls back to "no filter"."""

    q = forms.CharField(label=_("Search"), required=False, max_length=200)
    ratings = forms.ChoiceField(
        label=_("Ratings"),
        required=False,
        choices=[
            ("", _("any number")),
            ("none", _("none yet")),
            ("under", _("some, fewer than the quota")),
            ("complete", _("quota reached")),
        ],
    )
    disputed = forms.BooleanField(label=_("Disputed"), required=False)
    flagged = forms.BooleanField(label=_("Open flags or problem reports"), required=False)
    adjudicated = forms.BooleanField(label=_("Adjudicated"), required=False)
    sort = forms.ChoiceField(
        label=_("Order"),
        required=False,
        choices=[
            ("id", _("import order")),
            ("spread", _("largest spread first")),
            ("ratings", _("fewest ratings first")),
        ],
    )

    def filters(self) -> ItemFilters:
        self.is_valid()  # a bad value drops only its own filter: cleaned_data keeps the valid ones
        data = self.cleaned_data
        ratings = data.get("ratings", "")
        sort = data.get("sort") or "id"
        return ItemFilters(
            q=(data.get("q") or "").strip(),
            ratings=ratings if ratings in RATINGS_FILTERS else "",
            disputed=bool(data.get("disputed")),
            flagged=bool(data.get("flagged")),
            adjudicated=bool(data.get("adjudicated")),
            sort=sort if sort in SORTS else "id",
        )


NO_DECISION = ""


class AdjudicationForm(_NoColon, forms.Form):
    """A score (or no decision) per axis open to adjudication, and the reason; ``changes()`` is what differs from
    the decisions in force."""

    reason = forms.CharField(
        label=_("Reason"), max_length=MAX_COMMENT, widget=forms.Textarea(attrs={"rows": 2}),
        error_messages={"required": _("Give a reason: it is kept with the decision.")},
    )  # fmt: skip

    def __init__(self, *args, axes: list[str], in_force: dict[str, int], **kwargs):
        super().__init__(*args, **kwargs)
        self.axes, self.in_force = axes, in_force
        choices = [(NO_DECISION, _("no decision"))] + [(str(s), f"{s} · {LEVEL_LABELS[s]}") for s in SCORES]
        for axis in axes:
            self.fields[axis] = forms.ChoiceField(
                label=AXIS_NAMES[axis],
                choices=choices,
                required=False,
                initial=str(in_force[axis]) if axis in in_force else NO_DECISION,
                error_messages={"invalid_choice": _("Choose a score from 1 to 5, or no decision; got %(value)s.")},
            )
        self.order_fields([*axes, "reason"])

    def score_fields(self):
        return [self[axis] for axis in self.axes]

    def changes(self) -> dict[str, int | None]:
        """``{axis: new score or None (withdraw)}`` for the axes whose choice differs from the decision in force."""
        found = {}
        for axis in self.axes:
            chosen = self.cleaned_data.get(axis) or NO_DECISION
            new = int(chosen) if chosen else None
            if new != self.in_force.get(axis):
                found[axis] = new
        return found

    def clean(self):
        data = super().clean()
        if not self.errors and not self.changes():
            raise forms.ValidationError(
                _(
                    "Nothing changed: choose a score that differs from the decision in force "
                    "(or no decision to withdraw it)."
                )
            )
        return data
