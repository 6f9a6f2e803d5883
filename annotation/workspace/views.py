"""Researchers' batch workspace (pages)."""

from django.shortcuts import render

from core.permissions import researcher_required


@researcher_required
def batch_list(request):
    return render(request, "annotation/workspace/batches.html", {})
