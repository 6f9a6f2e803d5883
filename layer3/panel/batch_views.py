"""Renaming and deleting a Layer3 batch from its page. Researchers only; POST with CSRF.

Deleting asks first, on a page that says what goes (trials, runs, judged results) and what stays (the LLM
cost ledger, judge audits). Neither happens while a run of the batch is queued or running (409).
"""

from __future__ import annotations

from django.contrib import messages
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.views.decorators.http import require_http_methods

from core.permissions import researcher_required
from layer3.batch_services import (
    BatchBusy,
    BatchNameRefused,
    batch_delete,
    batch_deletion_counts,
    batch_rename,
)
from layer3.models import Batch
from layer3.runs.services import runs_in_flight

RENAME_PAGE = "layer3/panel/batch_rename.html"
DELETE_PAGE = "layer3/panel/batch_delete.html"


def _busy_text(busy: BatchBusy | None = None) -> str:
    if busy is not None and busy.job is not None:
        return _("An upload into this batch is queued or running. Wait for it to end, then try again.")
    return _(
        "An evaluation of this batch is queued or running. Wait for it to end, or cancel it on the batch page, "
        "then try again."
    )


def _refusal_text(exc: BatchNameRefused, name: str) -> str:
    if exc.code == "taken":
        return _("Another batch is already named %(name)s; choose another name.") % {"name": name}
    if exc.code == "audited":
        return _(
            "Judge audits were drawn from this batch and name it; it keeps its name so that their calibration "
            "reports stay with it."
        )
    return exc.message


@researcher_required
@require_http_methods(["GET", "POST"])
def batch_rename_view(request, pk: int):
    batch = get_object_or_404(Batch, pk=pk)
    name = batch.name
    error, status = None, 200
    if request.method == "POST":
        name = request.POST.get("name", "")
        old = batch.name
        try:
            batch = batch_rename(batch=batch, name=name)
        except BatchBusy as exc:
            error, status = _busy_text(exc), 409
        except BatchNameRefused as exc:
            error, status = _refusal_text(exc, name), 409 if exc.code == "audited" else 400
        else:
            if batch.name != old:
                messages.success(request, _("Batch %(old)s renamed to %(new)s.") % {"old": old, "new": batch.name})
            return redirect(reverse("layer3:batch", args=[batch.pk]))
    context = {"batch": batch, "name": name, "error": error, "busy": runs_in_flight(batch).exists()}
    return render(request, RENAME_PAGE, context, status=status)


@researcher_required
@require_http_methods(["GET", "POST"])
def batch_delete_view(request, pk: int):
    batch = get_object_or_404(Batch, pk=pk)
    error, status = None, 200
    if request.method == "POST":
        try:
            counts = batch_delete(batch=batch)
        except BatchBusy as exc:
            error, status = _busy_text(exc), 409
        else:
            values = {"name": batch.name, "trials": f"{counts.trials:,}", "runs": f"{counts.runs:,}"}
            messages.success(
                request, _("Batch %(name)s deleted with its %(trials)s trials and %(runs)s runs.") % values
            )
            return redirect(reverse("layer3:batches"))
    context = {
        "batch": batch,
        "counts": batch_deletion_counts(batch),
        "busy": runs_in_flight(batch).exists(),
        "error": error,
    }
    return render(request, DELETE_PAGE, context, status=status)
