"""Researchers' view of a batch's items: the filtered table, the item page with every annotator's ratings,
the adjudication of disputed axes and the resolution of annotators' comments. Researchers only; they
are not blind, so every annotator's scores are shown."""

from __future__ import annotations

from urllib.parse import urlencode

from django.contrib import messages
from django.core.paginator import Paginator
from django.db import transaction
from django.http import QueryDict
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils.cache import patch_vary_headers
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_POST

from annotation.guidelines.scale import AXIS_NAMES
from annotation.models import Batch, Dialogue, ItemComment
from annotation.review.services import ReviewError, adjudication_record, item_comment_resolve
from annotation.workspace import selectors, selectors_item
from annotation.workspace.forms import AdjudicationForm, ItemFilterForm
from core.permissions import researcher_required

ITEMS_PAGE = "annotation/workspace/items.html"
ITEM_PAGE = "annotation/workspace/item.html"


def _filters_from(query: QueryDict) -> selectors.ItemFilters:
    return ItemFilterForm(query).filters()


def _vary(response):
    patch_vary_headers(response, ("HX-Request",))  # one URL, two bodies: keep caches apart
    return response


def _item_rows(batch: Batch, items: list[Dialogue]) -> list[dict]:
    marks = selectors.page_marks([item.pk for item in items])
    rows = []
    for item in items:
        axis = selectors.spread_axis(item)
        rows.append(
            {
                "item": item,
                "complete": item.n_ratings >= batch.annotations_per_item,
                "disputed": item.max_spread >= batch.disagreement_spread,
                "spread_axis": AXIS_NAMES[axis] if axis else "",
                **marks[item.pk],
                "adjudicated_labels": [AXIS_NAMES[a] for a in marks[item.pk]["adjudicated"]],
            }
        )
    return rows


@researcher_required
@require_GET
def items(request, pk: int):
    batch = get_object_or_404(Batch, pk=pk)
    form = ItemFilterForm(request.GET)
    filters = form.filters()
    listing = selectors.items_filtered(batch, filters).defer("context")  # the table shows no context turns
    page = Paginator(listing, selectors.PAGE_SIZE).get_page(request.GET.get("page"))
    query = urlencode(filters.as_query())
    context = {
        "batch": batch,
        "form": form,
        "filters": filters,
        "page": page,
        "rows": _item_rows(batch, list(page.object_list)),
        "query": query,
        "item_query": f"?{query}" if query else "",
    }
    if request.htmx and not request.htmx.history_restore_request:
        return _vary(render(request, f"{ITEMS_PAGE}#results", context))
    return _vary(render(request, ITEMS_PAGE, context))


def _item_of(pk: int, dialogue_pk: int) -> tuple[Batch, Dialogue]:
    dialogue = get_object_or_404(Dialogue.objects.select_related("batch"), pk=dialogue_pk, batch_id=pk)
    return dialogue.batch, dialogue


def _review_context(batch: Batch, dialogue: Dialogue, *, form: AdjudicationForm | None = None) -> dict:
    """What the review section shows: ratings, consensus, spreads, and the adjudication form and history."""
    rows = selectors_item.rating_rows(dialogue)
    spreads = selectors_item.axis_spreads(rows, batch)
    history, in_force = selectors_item.adjudication_history(dialogue)
    # Disputed axes, and any axis with a decision in force (so that it can be changed or withdrawn).
    axes = [s["axis"] for s in spreads if s["disputed"] or s["axis"] in in_force]
    if form is None:
        form = AdjudicationForm(axes=axes, in_force={axis: d.score for axis, d in in_force.items()})
    return {
        "batch": batch,
        "dialogue": dialogue,
        "rows": rows,
        "spreads": spreads,
        "disputed_axes": [s["axis"] for s in spreads if s["disputed"]],
        "consensus": selectors_item.item_consensus(batch, dialogue, in_force),
        "history": history,
        "in_force": [{"axis": axis, "label": AXIS_NAMES[axis], "decision": d} for axis, d in in_force.items()],
        "adjudication_form": form,
    }


def _item_page_context(batch: Batch, dialogue: Dialogue, filters: selectors.ItemFilters, **review) -> dict:
    query = urlencode(filters.as_query())
    return _review_context(batch, dialogue, **review) | {
        "before": [t for t in dialogue.context if t["turn"] < 0],
        "after": [t for t in dialogue.context if t["turn"] > 0],
        "flags": selectors_item.item_flags(dialogue),
        "comments": selectors_item.item_comments(dialogue),
        "neighbours": selectors_item.neighbours(batch, filters, dialogue.pk),
        "filters": filters,
        "query": query,
        "item_query": f"?{query}" if query else "",
    }


@researcher_required
@require_GET
def item(request, pk: int, dialogue_pk: int):
    batch, dialogue = _item_of(pk, dialogue_pk)
    return render(request, ITEM_PAGE, _item_page_context(batch, dialogue, _filters_from(request.GET)))


def _item_url(batch: Batch, dialogue_pk: int, query: str) -> str:
    url = reverse("annotation:item", args=[batch.pk, dialogue_pk])
    filters = urlencode(_filters_from(QueryDict(query)).as_query())  # only the filters, whatever was posted
    return f"{url}?{filters}" if filters else url


@researcher_required
@require_POST
def adjudicate(request, pk: int, dialogue_pk: int):
    """Record a decision for every axis whose choice changed (one Adjudication each), with the one reason."""
    batch, dialogue = _item_of(pk, dialogue_pk)
    current = _review_context(batch, dialogue)
    form = AdjudicationForm(request.POST, axes=current["adjudication_form"].axes,
                            in_force=current["adjudication_form"].in_force)  # fmt: skip
    stored = False
    if form.is_valid():
        try:
            with transaction.atomic():
                for axis, score in form.changes().items():
                    adjudication_record(
                        dialogue=dialogue, axis=axis, score=score, reason=form.cleaned_data["reason"], user=request.user
                    )
        except ReviewError as exc:
            form.add_error(None, str(exc))
        else:
            stored = True
    if request.htmx:
        context = _review_context(batch, dialogue, form=None if stored else form)
        filters = _filters_from(QueryDict(request.POST.get("query", "")))
        context |= {"stored": stored, "query": urlencode(filters.as_query())}
        return render(request, f"{ITEM_PAGE}#review", context)  # 200 either way: htmx swaps no 4xx body
    if stored:
        messages.success(request, _("The decision was recorded."))
        return redirect(_item_url(batch, dialogue.pk, request.POST.get("query", "")))
    # Without htmx: the whole item page again, with the form's errors.
    filters = _filters_from(QueryDict(request.POST.get("query", "")))
    return render(request, ITEM_PAGE, _item_page_context(batch, dialogue, filters, form=form), status=400)


@researcher_required
@require_POST
def comment_resolve(request, pk: int, comment_pk: int):
    comment = get_object_or_404(ItemComment.objects.select_related("dialogue", "author"), pk=comment_pk,
                                dialogue__batch_id=pk)  # fmt: skip
    item_comment_resolve(comment=comment)
    if request.htmx:
        return render(request, f"{ITEM_PAGE}#comment", {"comment": comment, "batch": comment.dialogue.batch})
    messages.success(request, _("The comment was marked resolved."))
    return redirect(_item_url(comment.dialogue.batch, comment.dialogue_id, request.POST.get("query", "")))
