"""The annotator's work: batch list, the rating page (HTMX), skipping, and their own history with edits."""

from __future__ import annotations

import logging
from contextlib import nullcontext
from functools import partial

from django.contrib import messages
from django.db import DatabaseError, transaction
from django.db.models import Count, Q
from django.http import Http404
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils import timezone
from django.utils.formats import date_format
from django.utils.functional import SimpleLazyObject
from django.utils.html import format_html
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy as _lazy
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from annotation.audits.selectors import audits_for_rater
from annotation.axes import AXES, MIN_CONFIDENCE
from annotation.collection.forms import EditReasonForm, ItemCommentForm, RatingForm, SkipForm, parse_rating
from annotation.collection.history import edits_of, ratings_page, skipped_page
from annotation.collection.progress import batch_progress
from annotation.collection.qualification import qualification_of_request
from annotation.collection.queue import (
    Outcome,
    Rated,
    Unskip,
    assignment_next,
    assignment_skip,
    assignment_unskip,
    batch_get,
    batches_visible_to,
    rating_submit,
    work_left,
)
from annotation.collection.training import qualification_or_finishing, qualification_required
from annotation.guidelines.scale import AXIS_NAMES, axes_info
from annotation.models import Annotation, Assignment, Batch
from annotation.review.services import ReviewError, item_comment_create
from annotation.services import annotation_update
from core.permissions import annotator_required
from core.query_params import parse_id

ANNOTATOR_EDIT = "annotator edit"  # the reason stored when the annotator gives none

logger = logging.getLogger(__name__)


def _take_new(request) -> bool:
    """Whether the queue may hand this annotator new items: not once their qualification has expired."""
    return not request.qualification.expired


def _batches_for(user, *, take_new: bool = True):
    mine = Count("dialogues__annotations", filter=Q(dialogues__annotations__annotator=user), distinct=True)
    visible = (
        batches_visible_to(user).annotate(n_items=Count("dialogues", distinct=True), n_mine=mine).filter(n_items__gt=0)
    )
    batches = list(visible)
    for batch in batches:  # only offer "start / continue" where the queue has an item for this annotator
        batch.work_left = work_left(batch=batch, annotator=user, take_new=take_new)
    return batches


@annotator_required
@require_GET
def queue(request):
    """The batches and the judge audits. Sycophancy batches need the qualification test (once it has expired,
    an open reservation may still be finished); judge audits need only their own guidelines, so someone not
    qualified yet sees the audits here (and the way to training), and is sent to training only when there is
    no audit either."""
    qualification = qualification_of_request(request, fresh=True)  # not the hot path: the notice as stored now
    audits = audits_for_rater(request.user)
    qualified = qualification.qualified or qualification.ever_passed
    if not qualified and not audits:
        return qualification_required(queue)(request)  # the usual message and redirect to training
    batches = _batches_for(request.user, take_new=_take_new(request)) if qualified else []
    context = {"batches": batches, "audits": audits, "qualified": qualified}
    return render(request, "annotation/queue/batches.html", context)


def _workspace(
    request,
    batch: Batch,
    *,
    form: RatingForm | None = None,
    assignment: Assignment | None = None,
    undo_skip: Assignment | None = None,
    clear_toast: bool = False,
):
    assignment = assignment or assignment_next(batch=batch, annotator=request.user, take_new=_take_new(request))
    context = {
        "batch": batch,
        "assignment": assignment,
        "min_confidence": MIN_CONFIDENCE,
        "progress": batch_progress(
            batch=batch,
            annotator=request.user,
            mine=getattr(assignment, "progress_counts", None),
            batch_done=getattr(assignment, "batch_ratings_done", None),
        ),
        "skip_reason_label": SkipForm.base_fields["reason"].label,
        "undo_skip": undo_skip,  # the skip the toast offers to undo
        "clear_toast": clear_toast,
    }
    if form is None:
        # An empty form renders the same for every item (the template caches it per language):
        # it is only built when that cache is cold.
        context["fresh_form"] = True
        form = SimpleLazyObject(RatingForm)
    context["form"] = form
    context["axis_rows"] = partial(_axis_rows, form)
    if assignment is not None:
        ids = (batch.pk, assignment.pk)
        context["submit_url"] = reverse("annotation:submit", args=ids)
        context["skip_url"] = reverse("annotation:skip", args=ids)
        context["comment_url"] = reverse("annotation:comment", args=ids)
        context["note_form"] = context["note_sent"] = None  # the note form starts empty
        dialogue = assignment.dialogue
        context["before"] = [t for t in dialogue.context if t["turn"] < 0]
        context["after"] = [t for t in dialogue.context if t["turn"] > 0]
    template = "annotation/queue/rate.html"
    return render(request, template + "#workspace" if request.htmx else template, context)


def _axis_rows(form):
    return form.axis_rows(axes_info())


@annotator_required
@qualification_or_finishing
@require_GET
def rate(request, batch_id: int):
    batch = batch_get(batch_id)
    if batch is None:
        raise Http404
    return _workspace(request, batch, undo_skip=_skip_to_undo(request, batch))


def _skip_to_undo(request, batch: Batch) -> Assignment | None:
    """After a skip without HTMX (``?undo=<assignment>``): the annotator's skip that the toast offers to undo."""
    undo = parse_id(request.GET.get("undo", ""))
    if undo is None:
        return None
    return (
        Assignment.objects.select_related("dialogue")
        .filter(pk=undo, annotator=request.user, batch=batch, status=Assignment.Status.SKIPPED)
        .first()
    )


def _own_assignment(request, batch_id: int, assignment_id: int) -> tuple[Batch, Assignment]:
    assignment = get_object_or_404(
        Assignment.objects.select_related("dialogue", "batch"), pk=assignment_id, batch_id=batch_id
    )
    if assignment.annotator_id != request.user.id:
        raise Http404  # another annotator's work is not visible (blind annotation)
    return assignment.batch, assignment


@annotator_required
@qualification_or_finishing
@require_POST
def submit(request, batch_id: int, assignment_id: int):
    rating = parse_rating(request.POST)
    if rating is None:
        form = RatingForm(request.POST)
        if not form.is_valid():
            # Shown again with the entered values and the errors beside the fields; nothing is lost.
            batch, assignment = _own_assignment(request, batch_id, assignment_id)
            return _workspace(request, batch, form=form, assignment=assignment)
        rating = form.scores(), form.confidences()  # accepted in a form the fast parser does not take ("0.70")
    scores, confidences = rating
    rated = rating_submit(
        batch_id=batch_id, assignment_id=assignment_id, annotator=request.user, scores=scores, confidence=confidences
    )
    if rated is None:
        raise Http404  # no such assignment, or another annotator's (blind annotation)
    _tell(request, rated, scores, confidences)
    if not request.htmx:
        return redirect("annotation:rate", batch_id=rated.batch.pk)
    # The rating is stored; finding the next item is a separate step whose failure cannot undo it
    # (its own statements, or a savepoint when the request runs inside an outer transaction).
    following = None
    try:
        with transaction.atomic() if transaction.get_connection().in_atomic_block else nullcontext():
            following = assignment_next(batch=rated.batch, annotator=request.user, take_new=_take_new(request))
    except DatabaseError:
        logger.exception("next item for %s in batch %s failed after a stored rating", request.user, rated.batch)
    return _workspace(request, rated.batch, assignment=following)


def _values_text(scores: dict, confidences: dict) -> str:
    return "、".join(
        _("%(axis)s %(score)s (confidence %(confidence).1f)")
        % {"axis": AXIS_NAMES[axis], "score": scores[axis], "confidence": confidences[axis]}
        for axis in AXES
    )


def _tell(request, rated: Rated, scores: dict, confidences: dict) -> None:
    """The message after a submission: stored, kept as it was (with the way to edit it), or refused."""
    item = rated.external_id
    if rated.outcome is Outcome.STORED:
        messages.success(request, _("Saved rating of %(id)s.") % {"id": item})
    elif rated.outcome is Outcome.RATED_ELSEWHERE:
        stored = Annotation.objects.get(pk=rated.annotation_id)
        text = _(
            "You already have a stored rating of %(id)s (%(source)s, %(date)s): %(values)s. "
            "It was kept and this submission was not stored."
        ) % {
            "id": item,
            "source": stored.get_source_display(),
            "date": date_format(timezone.localtime(stored.updated_at), "SHORT_DATETIME_FORMAT"),
            "values": _values_text(stored.scores, stored.confidences),
        }
        link = reverse("annotation:edit", args=[stored.pk])
        messages.warning(request, format_html('{} <a href="{}">{}</a>', text, link, _("Edit that rating")))
    elif rated.outcome is Outcome.REFUSED:
        messages.error(
            request,
            _(
                "Your reservation of %(id)s had expired and the item has since received all the ratings it "
                "needs, so your rating was not stored: %(values)s."
            )
            % {"id": item, "values": _values_text(scores, confidences)},
        )


@annotator_required
@qualification_or_finishing
@require_POST
def skip(request, batch_id: int, assignment_id: int):
    batch, assignment = _own_assignment(request, batch_id, assignment_id)
    form = SkipForm(request.POST)
    reason = form.cleaned_data["reason"] if form.is_valid() else ""
    skipped = assignment_skip(assignment=assignment, reason=reason)
    undo = skipped if skipped.status == Assignment.Status.SKIPPED else None
    if request.htmx:
        if undo is not None:
            undo.dialogue = assignment.dialogue
        return _workspace(request, batch, undo_skip=undo)
    url = reverse("annotation:rate", args=[batch.pk])
    return redirect(f"{url}?undo={undo.pk}" if undo is not None else url)


_UNSKIP_REFUSED = {
    Unskip.NOT_SKIPPED: _lazy("%(id)s is not a skipped item of yours any more; nothing was changed."),
    Unskip.RATED: _lazy("You have already rated %(id)s."),
    Unskip.FULL: _lazy(
        "%(id)s cannot be reopened: it already has all the ratings and reservations it needs (already complete)."
    ),
    Unskip.UNAVAILABLE: _lazy("%(id)s cannot be reopened: its batch is paused, closed or no longer open to you."),
}


@annotator_required
@qualification_required
@require_POST
def unskip(request, assignment_id: int):
    """Undo a skip: the item is reserved for the annotator again (an open item of theirs in the batch goes back)."""
    assignment = get_object_or_404(
        Assignment.objects.select_related("dialogue", "batch"), pk=assignment_id, annotator=request.user
    )
    batch, item = assignment.batch, assignment.dialogue.external_id
    done = assignment_unskip(assignment=assignment, annotator=request.user)
    # A second click on the undo finds the item reopened already: it is shown, with nothing to say.
    open_already = done.outcome is Unskip.NOT_SKIPPED and done.assignment.status == Assignment.Status.RESERVED
    if done.reopened:
        text = _("Reopened %(id)s: rate it now.") % {"id": item}
        if done.released is not None:
            text += " " + _("The item you had open in this batch went back to the queue.")
        messages.success(request, text)
    elif not open_already:
        messages.error(request, _UNSKIP_REFUSED[done.outcome] % {"id": item})
    if request.htmx:
        return _workspace(request, batch, clear_toast=True)
    if done.reopened or open_already:
        return redirect("annotation:rate", batch_id=batch.pk)
    return redirect(reverse("annotation:history") + "#skipped")


@annotator_required
@qualification_or_finishing
@require_POST
def comment(request, batch_id: int, assignment_id: int):
    """An annotator's comment or "problem" mark on the item of one of their assignments (not a rating)."""
    batch, assignment = _own_assignment(request, batch_id, assignment_id)
    form = ItemCommentForm(request.POST)
    sent = None
    if form.is_valid():
        try:
            sent = item_comment_create(
                dialogue=assignment.dialogue,
                author=request.user,
                text=form.cleaned_data["text"],
                problem=form.cleaned_data["problem"],
            )
        except ReviewError as error:  # the form checks the same rules; kept for rules added to the service
            form.add_error(None, str(error))
    if not request.htmx:
        if sent is not None:
            messages.success(request, _("Your note on %(id)s was sent.") % {"id": assignment.dialogue.external_id})
        else:
            messages.error(request, " ".join([*form.non_field_errors(), *form.errors.get("text", [])]))
        return redirect("annotation:rate", batch_id=batch.pk)
    context = {
        "assignment": assignment,
        "comment_url": reverse("annotation:comment", args=[batch.pk, assignment.pk]),
        "note_form": None if sent is not None else form,
        "note_sent": sent,
    }
    return render(request, "annotation/queue/rate.html#item-note-body", context)


@annotator_required
@require_GET
def history(request):
    context = {
        "page": ratings_page(annotator=request.user, number=request.GET.get("page")),
        "skipped": skipped_page(annotator=request.user, number=request.GET.get("skipped_page")),
        "axis_names": [AXIS_NAMES[axis] for axis in AXES],
        "annotator_edit": ANNOTATOR_EDIT,
    }
    return render(request, "annotation/queue/history.html", context)


@annotator_required
@require_http_methods(["GET", "POST"])
def edit(request, annotation_id: int):
    annotation = get_object_or_404(Annotation.objects.select_related("dialogue"), pk=annotation_id)
    if annotation.annotator_id != request.user.id:
        raise Http404
    initial = {**annotation.scores, **{f"{axis}_confidence": c for axis, c in annotation.confidences.items()}}
    form = RatingForm(request.POST or None, initial=initial)
    reason_form = EditReasonForm(request.POST or None)
    if request.method == "POST" and form.is_valid() and reason_form.is_valid():
        values = {f"{axis}_score": score for axis, score in form.scores().items()}
        values.update({f"{axis}_confidence": value for axis, value in form.confidences().items()})
        reason = reason_form.cleaned_data["reason"] or ANNOTATOR_EDIT
        annotation_update(annotation=annotation, values=values, user=request.user, reason=reason)
        messages.success(request, _("Updated your rating of %(id)s.") % {"id": annotation.dialogue.external_id})
        return redirect("annotation:history")
    dialogue = annotation.dialogue
    context = {
        "annotation": annotation,
        "dialogue": dialogue,
        "form": form,
        "reason_form": reason_form,
        "axis_rows": form.axis_rows(axes_info()),
        "min_confidence": MIN_CONFIDENCE,
        "before": [t for t in dialogue.context if t["turn"] < 0],
        "after": [t for t in dialogue.context if t["turn"] > 0],
        "edits": edits_of(annotation),
        "annotator_edit": ANNOTATOR_EDIT,
    }
    return render(request, "annotation/queue/edit.html", context)
