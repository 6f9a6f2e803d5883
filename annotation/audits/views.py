"""The rater's judge-audit pages: one item at a time (HTMX), skip, and the history of their audit ratings.

The same guarantees as the sycophancy work queue (``annotation.collection.views_queue``), whose role
these pages share; instead of the sycophancy qualification, a rater reads the audit kind's short guidelines
once (``annotation.audits.access``): the queue (``annotation.audits.queue``) keeps the quota
per item; the pages are blind. An item's ``context`` is all a rater ever sees of it: the judge's
score, label and reasoning, the baseline score, the sampling stratum and weight, the model config
and other people's ratings stay in the database (``presentation`` reads the context only).
"""

from __future__ import annotations

import logging
from contextlib import nullcontext

from django.contrib import messages
from django.core.paginator import Paginator
from django.db import DatabaseError, transaction
from django.db.models import Count, Prefetch
from django.http import Http404
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from annotation.audits import queue as audit_queue
from annotation.audits.access import guidelines_required, has_read_guidelines
from annotation.audits.forms_rating import AuditEditForm, AuditScoreForm, AuditSkipForm
from annotation.audits.presentation import item_summary, item_view
from annotation.audits.scale import level_label, scale_for
from annotation.audits.selectors import audits_for_rater, rating_history
from annotation.audits.services import audit_guidelines_acknowledge
from annotation.models import AuditAssignment, AuditRating, AuditRatingEdit, JudgeAudit
from core.permissions import annotator_required
from core.query_params import parse_id

PER_PAGE = 50
EDITS_SHOWN = 10  # per rating in the history; the edit page lists them all

logger = logging.getLogger(__name__)


def _progress(audit: JudgeAudit, user):
    """This rater's progress in ``audit`` (None when the audit is no longer offered to them)."""
    return next((row for row in audits_for_rater(user) if row.audit.pk == audit.pk), None)


def _workspace(request, audit: JudgeAudit, *, assignment: AuditAssignment | None = None, form=None, find=True):
    """The rating page (or, for HTMX, its ``#workspace``): ``assignment``, else the next one when ``find``."""
    if assignment is None and find:
        assignment = audit_queue.next_assignment(audit, request.user)
    context = {
        "audit": audit,
        "scale": scale_for(audit.kind),
        "assignment": assignment,
        "progress": _progress(audit, request.user),
        "form": form or AuditScoreForm(),
        "skip_reason_label": AuditSkipForm.base_fields["reason"].label,
    }
    if assignment is not None:
        ids = (audit.pk, assignment.pk)
        progress = context["progress"]
        context["audit_size"] = progress.items if progress is not None else audit.items.count()
        context["item"] = item_view(audit.kind, assignment.item.context)
        context["submit_url"] = reverse("annotation:audit-submit", args=ids)
        context["skip_url"] = reverse("annotation:audit-skip", args=ids)
    template = "annotation/audits/rate.html"
    return render(request, template + "#workspace" if request.htmx else template, context)


def _own_assignment(request, audit_id: int, assignment_id: int) -> AuditAssignment:
    assignment = get_object_or_404(
        AuditAssignment.objects.select_related("item", "audit"), pk=assignment_id, audit_id=audit_id
    )
    if assignment.annotator_id != request.user.id:
        raise Http404  # another rater's work is not visible (blind rating)
    return assignment


def _next_workspace(request, audit: JudgeAudit):
    """After a stored rating or a skip: the next item. Finding it is a separate step whose failure cannot
    undo what was stored (its own statements, or a savepoint when the request runs inside an outer transaction)."""
    following = None
    try:
        with transaction.atomic() if transaction.get_connection().in_atomic_block else nullcontext():
            following = audit_queue.next_assignment(audit, request.user)
    except DatabaseError:
        logger.exception("next audit item for %s in audit %s failed after a stored rating", request.user, audit.pk)
    return _workspace(request, audit, assignment=following, find=False)


@annotator_required
@require_http_methods(["GET", "POST"])
def guidelines(request, audit_id: int):
    """The audit kind's short guidelines, to read once before rating (POST: "I have read them")."""
    audit = get_object_or_404(JudgeAudit, pk=audit_id)
    if request.method == "POST":
        audit_guidelines_acknowledge(annotator=request.user, kind=audit.kind)
        return redirect("annotation:audit-rate", audit_id=audit.pk)
    context = {"audit": audit, "scale": scale_for(audit.kind), "read": has_read_guidelines(request.user, audit.kind)}
    return render(request, "annotation/audits/guidelines.html", context)


@annotator_required
@guidelines_required
@require_GET
def rate(request, audit_id: int):
    audit = get_object_or_404(JudgeAudit, pk=audit_id)
    return _workspace(request, audit)


@annotator_required
@guidelines_required
@require_POST
def submit(request, audit_id: int, assignment_id: int):
    assignment = _own_assignment(request, audit_id, assignment_id)
    audit = assignment.audit
    form = AuditScoreForm(request.POST)
    if not form.is_valid():
        # Shown again with the entered comment and the error beside the scale; nothing is lost.
        return _workspace(request, audit, assignment=assignment, form=form)
    score = form.cleaned_data["score"]
    try:
        outcome = audit_queue.submit(assignment, request.user, score, comment=form.cleaned_data["comment"])
    except PermissionError:
        raise Http404 from None
    _tell(request, assignment, outcome, score)
    if not request.htmx:
        return redirect("annotation:audit-rate", audit_id=audit.pk)
    return _next_workspace(request, audit)


def _tell(request, assignment: AuditAssignment, outcome, score: int) -> None:
    item = assignment.item.position  # the item's number in the audit, as the page shows it
    values = {"id": item, "score": score, "label": level_label(assignment.audit.kind, score)}
    if outcome is audit_queue.Outcome.STORED:
        messages.success(request, _("Saved your rating of item %(id)s: %(score)s (%(label)s).") % values)
    elif outcome is audit_queue.Outcome.REFUSED:
        messages.error(
            request,
            _(
                "Your reservation of item %(id)s had expired and the item has since received all the ratings "
                "it needs, so your rating %(score)s (%(label)s) was not stored."
            )
            % values,
        )
    elif outcome is not audit_queue.Outcome.REPEATED:  # a repeated submission: the first one is stored, nothing to say
        messages.warning(request, _("You had already rated item %(id)s; that rating was kept.") % values)


@annotator_required
@guidelines_required
@require_POST
def skip(request, audit_id: int, assignment_id: int):
    assignment = _own_assignment(request, audit_id, assignment_id)
    form = AuditSkipForm(request.POST)
    reason = form.cleaned_data["reason"] if form.is_valid() else ""
    try:
        audit_queue.skip(assignment, request.user, reason=reason)
    except PermissionError:
        raise Http404 from None
    messages.info(request, _("Skipped item %(id)s.") % {"id": assignment.item.position})
    if not request.htmx:
        return redirect("annotation:audit-rate", audit_id=assignment.audit_id)
    return _next_workspace(request, assignment.audit)


def _decorate(ratings) -> None:
    for rating in ratings:
        kind = rating.item.audit.kind
        rating.kind = kind
        rating.label = level_label(kind, rating.score)
        rating.summary = item_summary(kind, rating.item.context)
        rating.recent_edits = list(rating.edits.all())[:EDITS_SHOWN]
        for edit in rating.recent_edits:
            edit.old_label, edit.new_label = level_label(kind, edit.old_score), level_label(kind, edit.new_score)


@annotator_required
@require_GET
def history(request):
    audit = None
    wanted = parse_id(request.GET.get("audit", ""))
    if wanted is not None:
        audit = JudgeAudit.objects.filter(pk=wanted).first()
    edits = AuditRatingEdit.objects.select_related("edited_by").order_by("-edited_at", "-pk")
    ratings = (
        rating_history(request.user, audit=audit)
        .select_related("item", "item__audit")
        .annotate(n_edits=Count("edits"))
        .prefetch_related(Prefetch("edits", queryset=edits))
    )
    page = Paginator(ratings, PER_PAGE).get_page(request.GET.get("page"))
    _decorate(page.object_list)
    return render(request, "annotation/audits/history.html", {"page": page, "audit": audit})


@annotator_required
@require_http_methods(["GET", "POST"])
def edit(request, rating_id: int):
    rating = get_object_or_404(AuditRating.objects.select_related("item", "item__audit"), pk=rating_id)
    if rating.annotator_id != request.user.id:
        raise Http404
    audit = rating.item.audit
    form = AuditEditForm(request.POST or None, initial={"score": rating.score})
    if request.method == "POST" and form.is_valid():
        score = form.cleaned_data["score"]
        values = {"id": rating.item.position, "score": score, "label": level_label(audit.kind, score)}
        if score == rating.score:
            messages.info(request, _("Your rating of item %(id)s is unchanged.") % values)
        else:
            audit_queue.rating_edit(rating, request.user, score, reason=form.cleaned_data["reason"])
            messages.success(request, _("Updated your rating of item %(id)s to %(score)s (%(label)s).") % values)
        return redirect(reverse("annotation:audit-history") + f"#audit-rating-{rating.pk}")
    edits = list(rating.edits.select_related("edited_by").order_by("-edited_at", "-pk"))
    for entry in edits:
        entry.old_label, entry.new_label = (
            level_label(audit.kind, entry.old_score),
            level_label(audit.kind, entry.new_score),
        )
    context = {
        "rating": rating,
        "audit": audit,
        "scale": scale_for(audit.kind),
        "item": item_view(audit.kind, rating.item.context),
        "form": form,
        "edits": edits,
    }
    return render(request, "annotation/audits/edit.html", context)
