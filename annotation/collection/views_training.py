"""Training pages (seed 000, B.3.1): start page, practice with feedback, the qualification test, results.

Annotators practise and sit the test; researchers import gold items and see everyone's results.
The practice and test forms post with HTMX (a partial comes back) and work as plain forms too.
"""

from __future__ import annotations

import dataclasses
import re
import tempfile
from pathlib import Path

from django import forms
from django.contrib import messages
from django.db.models import Count, Q
from django.http import Http404
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from django.views.decorators.http import require_GET, require_http_methods, require_POST
from django_htmx.http import HttpResponseClientRedirect

from annotation.axes import AXES, MIN_KAPPA, SCORES
from annotation.collection import training
from annotation.guidelines.scale import axes_info
from annotation.io.records import InputError
from annotation.models.training import GoldItem, QualificationAttempt, TrainingAnswer
from core.permissions import annotator_required, researcher_required
from core.roles import RESEARCHER, has_role

MAX_UPLOAD_BYTES = 20 * 1024 * 1024


class ScoresForm(forms.Form):
    """The four scores (1-5) for one gold item."""

    item = forms.IntegerField(widget=forms.HiddenInput)

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        for axis in AXES:
            self.fields[axis] = forms.TypedChoiceField(
                choices=[(s, str(s)) for s in SCORES],
                coerce=int,
                widget=forms.RadioSelect,
                error_messages={"required": gettext_lazy("Choose a score from 1 to 5.")},
            )

    def scores(self) -> dict[str, int]:
        return {axis: self.cleaned_data[axis] for axis in AXES}

    def axes(self) -> list[dict]:
        """Per axis: its name, definition and levels with the chosen one marked, and the field errors."""
        rows = []
        for info in axes_info():
            field = self[info.key]
            chosen = str(field.value() or "")
            levels = [{"level": level, "checked": chosen == str(level.score)} for level in info.levels]
            rows.append({"info": info, "name": field.html_name, "levels": levels, "errors": field.errors})
        return rows


class GoldUploadForm(forms.Form):
    file = forms.FileField(label=gettext_lazy("Gold JSONL file"))
    dry_run = forms.BooleanField(label=gettext_lazy("Dry run: check only, store nothing"), required=False)
    update = forms.BooleanField(label=gettext_lazy("Replace stored items whose content changed"), required=False)

    def clean_file(self):
        upload = self.cleaned_data["file"]
        if upload.size > MAX_UPLOAD_BYTES:
            raise forms.ValidationError(
                gettext_lazy("The file is larger than %(limit)s MB.") % {"limit": MAX_UPLOAD_BYTES // (1024 * 1024)}
            )
        return upload


def _comparison(answer: TrainingAnswer) -> list[dict]:
    gold = answer.gold_item.gold
    return [
        {
            "info": info,
            "mine": answer.scores[info.key],
            "gold": gold[info.key],
            "diff": answer.scores[info.key] - gold[info.key],
        }
        for info in axes_info()
    ]


def _turns(item: GoldItem) -> dict:
    return {
        "before": [t for t in item.context if t["turn"] < 0],
        "after": [t for t in item.context if t["turn"] > 0],
    }


def _client_redirect(request, url: str):
    return HttpResponseClientRedirect(url) if request.htmx else redirect(url)


# --------------------------------------------------------------------------- annotators


@annotator_required
@require_GET
def training_start(request):
    user = request.user
    attempts = list(QualificationAttempt.objects.filter(annotator=user).annotate(n_answers=Count("answers")))
    context = {
        "qualified": training.is_qualified(user),
        "practice": training.practice_progress(annotator=user),
        "n_test": GoldItem.objects.filter(set=GoldItem.Set.TEST).count(),
        "open_attempt": next((a for a in attempts if not a.is_finished), None),
        "finished_attempts": [a for a in attempts if a.is_finished],
        "min_kappa": MIN_KAPPA,
        "axes": axes_info(),
    }
    return render(request, "annotation/training/start.html", context)


def _practice_page(request, *, item=None, form=None, answer=None):
    template = "annotation/training/practice.html"
    context = {"progress": training.practice_progress(annotator=request.user), "item": item, "answer": answer}
    if answer is not None:
        context.update(item=answer.gold_item, comparison=_comparison(answer))
    if context["item"] is not None:
        context.update(_turns(context["item"]))
        context["form"] = form or ScoresForm(initial={"item": context["item"].pk})
    return render(request, template + "#practice-panel" if request.htmx else template, context)


@annotator_required
@require_http_methods(["GET", "POST"])
def practice(request):
    if request.method == "GET":
        return _practice_page(request, item=training.practice_next_item(annotator=request.user))
    item_id = request.POST.get("item", "")
    if not item_id.isdigit():
        raise Http404("no such practice item")
    item = get_object_or_404(GoldItem, pk=int(item_id), set=GoldItem.Set.PRACTICE)
    form = ScoresForm(request.POST)
    if not form.is_valid():
        return _practice_page(request, item=item, form=form)
    answer = training.practice_answer_submit(annotator=request.user, gold_item=item, scores=form.scores())
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


def _test_page(request, attempt: QualificationAttempt, *, form=None):
    item, number = training.qualification_next_item(attempt=attempt)
    if item is None:  # every item answered: the attempt was finished with the last answer
        return _client_redirect(request, reverse("annotation:qualification-result", args=[attempt.pk]))
    template = "annotation/training/qualification.html"
    context = {"attempt": attempt, "item": item, "number": number, "total": len(attempt.item_ids), **_turns(item)}
    context["form"] = (
        form if form is not None and form.data.get("item") == str(item.pk) else ScoresForm(initial={"item": item.pk})
    )
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
    form = ScoresForm(request.POST)
    if not form.is_valid():
        return _test_page(request, attempt, form=form)
    item = GoldItem.objects.filter(pk=form.cleaned_data["item"]).first()
    if item is None:
        raise Http404("no such test item")
    try:
        attempt = training.qualification_answer_submit(attempt=attempt, gold_item=item, scores=form.scores())
    except training.TrainingUnavailable:
        return _client_redirect(request, reverse("annotation:qualification"))
    if attempt.is_finished:
        return _client_redirect(request, reverse("annotation:qualification-result", args=[attempt.pk]))
    if request.htmx:
        return _test_page(request, attempt)
    return redirect("annotation:qualification")


@require_GET
def qualification_result(request, attempt_id: int):
    attempt = get_object_or_404(QualificationAttempt.objects.select_related("annotator"), pk=attempt_id)
    own = attempt.annotator_id == request.user.id
    if not own and not has_role(request.user, RESEARCHER):
        raise Http404("no such attempt")
    if not attempt.is_finished:
        return redirect("annotation:qualification" if own else "annotation:qualification-results")
    rows = [
        {
            "info": info,
            "kappa": attempt.kappas.get(info.key),
            "passed": attempt.reasons.get(info.key) is None and attempt.kappas.get(info.key) is not None,
            "reason": attempt.reasons.get(info.key),
        }
        for info in axes_info()
    ]
    context = {"attempt": attempt, "rows": rows, "own": own, "min_kappa": MIN_KAPPA}
    return render(request, "annotation/training/result.html", context)


# --------------------------------------------------------------------------- researchers


def _safe_name(name: str) -> str:
    cleaned = re.sub(r"[^\w.-]+", "_", Path(name).name)[:100].strip("._")
    return cleaned or "upload.jsonl"


def _import_upload(form: GoldUploadForm) -> tuple[training.GoldImportSummary | None, list]:
    upload = form.cleaned_data["file"]
    with tempfile.TemporaryDirectory(prefix="jaiml-gold-") as folder:
        path = Path(folder) / _safe_name(upload.name)
        with path.open("wb") as handle:
            for chunk in upload.chunks():
                handle.write(chunk)
        try:
            summary = training.import_gold(
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
        "warnings": training.gold_test_set_warnings(),
        "axes": axes_info(),
    }
    return render(request, "annotation/training/gold_items.html", context, status=400 if problems else 200)


@researcher_required
@require_GET
def qualification_results(request):
    annotators = list(training.annotators_with_attempts())
    for user in annotators:
        user.qualified = user.is_staff or any(a.passed for a in user.attempts)
    context = {"annotators": annotators, "axes": axes_info(), "min_kappa": MIN_KAPPA}
    return render(request, "annotation/training/results.html", context)
