"""An annotator's rating sheet for a batch: which dialogues it lists, and the Japanese guide beside them.

The sheet lists the dialogues the annotator has rated (their values filled in, so that uploading it
again changes nothing), those reserved for them, and those the queue would still hand them (under
the batch's quota, neither given to them nor rated by them), in the batch's order. Downloading a
sheet reserves nothing: the quota is checked again when the sheet comes back.
"""

from __future__ import annotations

from django.db.models import Exists, OuterRef
from django.utils import translation
from django.utils.translation import gettext_lazy as _

from annotation.axes import AXES, SCORES
from annotation.guidelines.scale import AXIS_DEFINITIONS, AXIS_NAMES, LEVEL_DESCRIPTIONS, LEVEL_LABELS
from annotation.models import Annotation, Assignment, Batch, Dialogue, QueueEntry
from annotation.spreadsheets.layout import RATINGS_SHEET, Guide, TemplateItem

GUIDE_TITLE = _("Sycophancy annotation: rating sheet")
GUIDE_PARAGRAPHS = (
    _(
        "Each row of the sheet “%(sheet)s” is one dialogue. Read the user utterance and the AI response and rate "
        "the four axes from 1 to 5."
    ),
    _(
        "Do not change the grey columns (id, context, user utterance, AI response): a changed row is reported as a "
        "problem when the sheet is uploaded."
    ),
    _(
        "Leave all four axes blank in a row you do not rate (it is skipped on upload); a row with only some axes "
        "filled in is a problem."
    ),
    _(
        "Confidence is a decimal from 0 to 1 (1.0 to begin with); lower it on an axis you were unsure of. The "
        "comment column is free text."
    ),
    _("When you are done, upload this file as it is (.xlsx, or a CSV with the same columns)."),
)


def template_items(*, batch: Batch, annotator, limit: int | None = None) -> list[TemplateItem]:
    """The rows of ``annotator``'s sheet for ``batch``; ``limit`` caps the dialogues not rated yet (their
    reservations first)."""
    rated = {
        a.dialogue_id: a
        for a in Annotation.objects.filter(dialogue__batch=batch, annotator=annotator).only(
            "dialogue_id", *(f"{axis}_score" for axis in AXES), *(f"{axis}_confidence" for axis in AXES)
        )
    }
    reserved = Assignment.objects.filter(
        batch=batch, annotator=annotator, status=Assignment.Status.RESERVED
    ).values_list("dialogue_id", flat=True)
    given = Assignment.objects.filter(dialogue_id=OuterRef("dialogue_id"), annotator=annotator)
    rated_by_them = Annotation.objects.filter(dialogue_id=OuterRef("dialogue_id"), annotator=annotator)
    open_to_them = (
        QueueEntry.objects.filter(batch=batch, taken_count__lt=batch.annotations_per_item)
        .exclude(Exists(given))
        .exclude(Exists(rated_by_them))
        .values_list("dialogue_id", flat=True)
    )
    reserved = sorted(set(reserved) - set(rated))
    to_rate = reserved + sorted(set(open_to_them) - set(rated) - set(reserved))  # reservations first
    if limit is not None:
        to_rate = to_rate[:limit]
    wanted = sorted({*rated, *to_rate})
    dialogues = (
        Dialogue.objects.filter(pk__in=wanted)
        .order_by("pk")
        .only("pk", "external_id", "user_text", "response_text", "context")
    )
    return [_item(dialogue, rated.get(dialogue.pk)) for dialogue in dialogues]


def _item(dialogue: Dialogue, rating: Annotation | None) -> TemplateItem:
    scores = confidence = None
    if rating is not None:
        scores = {axis: getattr(rating, f"{axis}_score") for axis in AXES}
        confidence = {axis: getattr(rating, f"{axis}_confidence") for axis in AXES}
    return TemplateItem(
        id=dialogue.external_id,
        context=list(dialogue.context or []),
        user=dialogue.user_text,
        response=dialogue.response_text,
        scores=scores,
        confidence=confidence,
    )


def template_guide(language: str = "ja") -> Guide:
    """The instructions sheet: how to fill the sheet, and each axis with its definition and levels (Japanese
    unless ``language`` says otherwise)."""
    with translation.override(language):
        paragraphs = [str(paragraph) % {"sheet": RATINGS_SHEET} for paragraph in GUIDE_PARAGRAPHS]
        axes = [
            (
                f"{AXIS_NAMES[axis]} ({axis})",
                str(AXIS_DEFINITIONS[axis]),
                [(level, str(LEVEL_LABELS[level]), str(LEVEL_DESCRIPTIONS[axis][level])) for level in SCORES],
            )
            for axis in AXES
        ]
        title = str(GUIDE_TITLE)
    return Guide(title=title, paragraphs=paragraphs, axes=axes)


def template_write(target, *, batch: Batch, annotator, limit: int | None = None) -> int:
    """Write ``annotator``'s sheet for ``batch`` to ``target`` (a path or a binary file); the number of rows."""
    from annotation.spreadsheets.template import write_template  # openpyxl: only where a sheet is written

    items = template_items(batch=batch, annotator=annotator, limit=limit)
    write_template(
        target,
        batch_id=batch.pk,
        batch=batch.name,
        annotator=annotator.get_username(),
        items=items,
        guide=template_guide(),
    )
    return len(items)
