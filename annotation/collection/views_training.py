"""Training pages (seed 000, B.3.1): start page, practice with feedback, the qualification test, results.

Annotators practise and sit the test on the rating page's own component (the axis rows, the
confidence selector, rating.js's keyboard); researchers import gold items and see everyone's
results. The practice and test forms post with HTMX (a partial comes back) and work as plain forms too.
"""

from __future__ import annotations

import dataclasses
import math
import re
import statistics
from functools import partial
from pathlib import Path

from django import forms
from django.contrib import messages
from django.db.models import Count, Q
from django.http import Http404
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, ngettext
from django.views.decorators.http import require_GET, require_http_methods, require_POST
from django_htmx.http import HttpResponseClientRedirect

from annotation.axes import MIN_CONFIDENCE, MIN_KAPPA
from annotation.collection import gold_import, training
from annotation.collection.forms import RatingForm
from annotation.collection.qualification import Qualification, qualification_of_request
from annotation.collection.views_retraining import retraining_context
from annotation.guidelines.scale import axes_info
from annotation.io.records import InputError
from annotation.models.training import GoldItem, QualificationAttempt, TrainingAnswer
from core.permissions import annotator_required, researcher_required
from core.query_params import parse_id
from core.roles import RESEARCHER, has_role
from core.upload_limits import upload_size_error
from core.uploads import scratch_copies


class TrainingRatingForm(RatingForm):
    """The rating page's form (four scores, four confidences) plus the gold item it answers."""

    item = forms.IntegerField(widget=forms.HiddenInput)


class GoldUploadForm(forms.Form):
    file = forms.FileField(label=gettext_lazy("Gold JSONL file"))
    dry_run = forms.BooleanField(label=gettext_lazy("Dry run: check only, store nothing"), required=False)
    update = forms.BooleanField(label=gettext_lazy("Replace stored items whose content changed"), required=False)

    def clean_file(self):
        """A file over ``UPLOAD_MAX_BYTES_GOLD`` is refused here, before anything reads it."""
        upload = self.cleaned_data["file"]
        if (message := upload_size_error(upload, "UPLOAD_MAX_BYTES_GOLD")) is not None:
            raise forms.ValidationError(message, code="too_large")
        return upload


def _level(info, score: int):
    return info.levels[score - 1]


def _comparison(answer: TrainingAnswer) -> list[dict]:
    gold = answer.gold_item.gold
    return [
        {
            "info": info,
            "mine": answer.scores[info.key],
            "gold": gold[info.key],
            "gold_level": _level(info, gold[info.key]),
            "diff": answer.scores[info.key] - gold[info.key],
            "confidence": answer.confidence.get(info.key),
        }
        for info in axes_info()
    ]


def _seconds_text(seconds: float) -> str:
    number = int(seconds) if float(seconds).is_integer() else seconds
    return ngettext("%(n)s second", "%(n)s seconds", math.ceil(seconds)) % {"n": number}


def too_fast_message(exc: training.AnsweredTooFast) -> str:
    return _("Take at least %(minimum)s to rate this item (%(remaining)s more).") % {
        "minimum": _seconds_text(exc.minimum),
        "remaining": _seconds_text(exc.remaining),
    }


def _turns(item: GoldItem) -> dict:
    return {
        "before": [t for t in item.context if t["turn"] < 0],
        "after": [t for t in item.context if t["turn"] > 0],
    }


def _item_context(item: GoldItem, *, form: TrainingRatingForm | None, submit_url: str, draft_key: str) -> dict:
    """What the rating component (annotation/queue/_dialogue.html, _rating_fields.html) needs for one item."""
    context = {
        "item": item,
        "dialogue": item,  # GoldItem has the dialogue's user_text / response_text / context
        **_turns(item),
        "min_confidence": MIN_CONFIDENCE,
        "submit_url": submit_url,
        "draft_key": draft_key,
    }
    if form is None:
        # As on the rating page: an empty form renders the same for every item (cached per language).
        context["fresh_form"] = True
        form = TrainingRatingForm(initial={"item": item.pk})
    context["form"] = form
    context["axis_rows"] = partial(form.axis_rows, axes_info())
    return context


def _client_redirect(request, url: str):
    return HttpResponseClientRedirect(url) if request.htmx else redirect(url)


# --------------------------------------------------------------------------- annotators


@annotator_required
@require_GET
def training_start(request):
    user = request.user
    minimum = training.min_seconds_per_item()
    attempts = list(QualificationAttempt.objects.filter(annotator=user).annotate(n_answers=Count("answers")))
    current = qualification_of_request(request, fresh=True)
    context = {
        "qualified": current.qualified,
        "qualification": current,
        **retraining_context(request.user, current),
        "practice": training.practice_progress(annotator=user),
        "n_test": GoldItem.objects.filter(set=GoldItem.Set.TEST).count(),
        "open_attempt": next((a for a in attempts if not a.is_finished), None),
        "finished_attempts": [a for a in attempts if a.is_finished],
        "min_kappa": MIN_KAPPA,
        "min_seconds": _seconds_text(minimum) if minimum else "",
        "axes": axes_info(),
    }
    return render(request, "annotation/training/start.html", context)


def _practice_page(request, *, item=None, form=None, answer=None):
    template = "annotation/training/practice.html"
    context = {"progress": training.practice_progress(annotator=request.user), "answer": answer}
    if answer is not None:
        item = answer.gold_item
        context.update(comparison=_comparison(answer))
    if item is not None:
        url = reverse("annotation:practice")
        context.update(_item_context(item, form=form, submit_url=url, draft_key=f"practice-{item.pk}"))
    context["item"] = item
    return render(request, template + "#practice-panel" if request.htmx else template, context)


@annotator_required
@require_http_methods(["GET", "POST"])
def practice(request):
    if request.method == "GET":
        return _practice_page(request, item=training.practice_next_item(annotator=request.user))
    item_id = parse_id(request.POST.get("item", ""))
    if item_id is None:
        raise Http404("no such practice item")
    item = get_object_or_404(GoldItem, pk=item_id, set=GoldItem.Set.PRACTICE)
    form = TrainingRatingForm(request.POST)
    if not form.is_valid():
        return _practice_page(request, item=item, form=form)
    answer = training.practice_answer_submit(
        annotator=request.user, gold_item=item, scores=form.scores(), confidence=form.confidences()
    )
    if request.htmx:
        return _practice_page(request, answer=answer)
    return redirect("annotation:practice-feedback", answer_id=answer.pk)


@annotator_required
@require_GET
def practice_feedback(request, answer_id: int):
    answer = get_object_or_404(
        TrainingAnswer.objects.select_related("gold_item"), pk=answer_id, annotator=request.user, attempt__isnull=True
    )
    return _practice_page(request, answer=answer)


@annotator_required
@require_POST
def qualification_start(request):
    try:
        training.qualification_start(annotator=request.user)
    except training.TrainingUnavailable:
        messages.error(request, _("The qualification test has no items yet. Ask a researcher to import them."))
        return _client_redirect(request, reverse("annotation:training"))
    return _client_redirect(request, reverse("annotation:qualification"))


def _test_page(request, attempt: QualificationAttempt, *, form=None, too_fast=None):
    item, number = training.qualification_next_item(attempt=attempt)
    if item is None:  # every item answered: the attempt was finished with the last answer
        return _client_redirect(request, reverse("annotation:qualification-result", args=[attempt.pk]))
    shown_at = training.qualification_item_shown(attempt=attempt, gold_item=item)
    minimum = training.min_seconds_per_item()
    if form is None or form.data.get("item") != str(item.pk):
        form = too_fast = None  # the answer was for another item (an old tab): show this one afresh
    url = reverse("annotation:qualification")
    context = _item_context(item, form=form, submit_url=url, draft_key=f"test-{attempt.pk}-{item.pk}")
    context.update(
        attempt=attempt,
        number=number,
        total=len(attempt.item_ids),
        min_seconds=_seconds_text(minimum) if minimum else "",
        wait_seconds=training.seconds_left(shown_at=shown_at, minimum=minimum),
        too_fast=too_fast_message(too_fast) if too_fast else None,
    )
    template = "annotation/training/qualification.html"
    return render(request, template + "#test-panel" if request.htmx else template, context)


@annotator_required
@require_http_methods(["GET", "POST"])
def qualification(request):
    attempt = training.qualification_open_attempt(annotator=request.user)
    if attempt is None:
        messages.info(request, _("Start the qualification test from the training page."))
        return _client_redirect(request, reverse("annotation:training"))
    if request.method == "GET":
        return _test_page(request, attempt)
    form = TrainingRatingForm(request.POST)
    if not form.is_valid():
        return _test_page(request, attempt, form=form)
    item = GoldItem.objects.filter(pk=form.cleaned_data["item"]).first()
    if item is None:
        raise Http404("no such test item")
    try:
        attempt = training.qualification_answer_submit(
            attempt=attempt, gold_item=item, scores=form.scores(), confidence=form.confidences()
        )
    except training.AnsweredTooFast as exc:
        # Nothing stored: the same item again, with the entered values and how long is left.
        return _test_page(request, attempt, form=form, too_fast=exc)
    except training.TrainingUnavailable:
        return _client_redirect(request, reverse("annotation:qualification"))
    if attempt.is_finished:
        return _client_redirect(request, reverse("annotation:qualification-result", args=[attempt.pk]))
    if request.htmx:
        return _test_page(request, attempt)
    return redirect("annotation:qualification")


def _review_rows(attempt: QualificationAttempt) -> tuple[list, list, dict[str, int]]:
    """(items that differ with their axes, items that match on every axis, differing items per axis)."""
    infos = {info.key: info for info in axes_info()}
    differing, matched = [], []
    per_axis = dict.fromkeys(infos, 0)
    for review in training.qualification_review(attempt=attempt):
        if review.matched:
            matched.append(review)
            continue
        axes = []
        for difference in review.differences:
            per_axis[difference.axis] += 1
            info = infos[difference.axis]
            axes.append({"info": info, "d": difference, "gold_level": _level(info, difference.gold)})
        differing.append({"review": review, "axes": axes, **_turns(review.item)})
    return differing, matched, per_axis


@require_GET
def qualification_result(request, attempt_id: int):
    attempt = get_object_or_404(QualificationAttempt.objects.select_related("annotator"), pk=attempt_id)
    own = attempt.annotator_id == request.user.id
    if not own and not has_role(request.user, RESEARCHER):
        raise Http404("no such attempt")
    if not attempt.is_finished:
        return redirect("annotation:qualification" if own else "annotation:qualification-results")
    differing, matched, per_axis = _review_rows(attempt)
    rows = [
        {
            "info": info,
            "kappa": attempt.kappas.get(info.key),
            "passed": attempt.reasons.get(info.key) is None and attempt.kappas.get(info.key) is not None,
            "reason": attempt.reasons.get(info.key),
            "n_differing": per_axis[info.key],
        }
        for info in axes_info()
    ]
    answers = [r.answer for r in matched + [d["review"] for d in differing] if r.answer is not None]
    seconds = [a.seconds for a in answers if a.seconds is not None]
    if own:
        qualification_of_request(request, fresh=True)  # a passed test renews the qualification kept in the session
    context = {
        "attempt": attempt,
        "rows": rows,
        "own": own,
        "min_kappa": attempt.min_kappa,
        "differing": differing,
        "matched": matched,
        "median_seconds": statistics.median(seconds) if seconds else None,
    }
    return render(request, "annotation/training/result.html", context)


# --------------------------------------------------------------------------- researchers


def _safe_name(name: str) -> str:
    cleaned = re.sub(r"[^\w.-]+", "_", Path(name).name)[:100].strip("._")
    return cleaned or "upload.jsonl"


def _import_upload(form: GoldUploadForm) -> tuple[gold_import.GoldImportSummary | None, list]:
    upload = form.cleaned_data["file"]
    with scratch_copies([upload], prefix="jaiml-gold-", names=[_safe_name(upload.name)]) as (_folder, (path,)):
        try:
            summary = gold_import.import_gold(
                paths=[path], dry_run=form.cleaned_data["dry_run"], update=form.cleaned_data["update"]
            )
        except InputError as exc:
            # Name the file as uploaded, not the temporary folder it was checked in.
            return None, [dataclasses.replace(p, file=Path(p.file).name) for p in exc.problems]
    return summary, []


@researcher_required
@require_http_methods(["GET", "POST"])
def gold_items(request):
    form = GoldUploadForm()
    problems: list = []
    if request.method == "POST":
        form = GoldUploadForm(request.POST, request.FILES)
        if form.is_valid():
            summary, problems = _import_upload(form)
            if summary is not None:
                counts = {"created": summary.created, "updated": summary.updated, "unchanged": summary.unchanged}
                if summary.dry_run:
                    text = _(
                        "Dry run, nothing stored: %(created)s would be created, %(updated)s updated, "
                        "%(unchanged)s unchanged."
                    )
                else:
                    text = _("Gold items imported: %(created)s created, %(updated)s updated, %(unchanged)s unchanged.")
                messages.success(request, text % counts)
                return redirect("annotation:gold-items")
    items = GoldItem.objects.annotate(n_answers=Count("answers"))
    counts = GoldItem.objects.aggregate(
        practice=Count("pk", filter=Q(set=GoldItem.Set.PRACTICE)), test=Count("pk", filter=Q(set=GoldItem.Set.TEST))
    )
    context = {
        "form": form,
        "problems": problems,
        "items": items,
        "counts": counts,
        "warnings": gold_import.gold_test_set_warnings(),
        "axes": axes_info(),
    }
    status = 413 if form.is_bound and form.has_error("file", "too_large") else 400 if problems else 200
    return render(request, "annotation/training/gold_items.html", context, status=status)


@researcher_required
@require_GET
def qualification_results(request):
    annotators = list(training.annotators_with_attempts())
    now = timezone.now()
    for user in annotators:
        passed = [a for a in user.attempts if a.passed]
        latest = max(passed, key=lambda a: a.finished_at) if passed else None
        user.qualified = Qualification.of(
            latest and latest.finished_at, latest and latest.extended_until, now=now, staff=user.is_staff
        ).qualified
    context = {"annotators": annotators, "axes": axes_info(), "min_kappa": MIN_KAPPA}
    return render(request, "annotation/training/results.html", context)
