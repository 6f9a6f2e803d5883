"""The Director's pages (researcher role): live check, sessions and their turns, verdict statistics."""

from __future__ import annotations

import csv
import io
import re

from django.http import HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from core.permissions import researcher_required
from core.spreadsheet_cells import neutralise_formula
from director.models import DirectorSession
from director.pages import compare, reads
from director.pages.highlight import segments
from director.pages.labels import ASPECT_LABELS, intervention_rows
from director.rules import UnknownCharacter
from director.rules.ruleset import default_rule_set
from director.sessions.services import check_line
from llm import services as gateway

MAX_TEXT = 2000
_HISTORY_LINE = re.compile(r"^\s*([^:：]{1,20})\s*[:：]\s*(.+?)\s*$")


def _speakers():
    rules = default_rule_set()
    return [rules.cast[key] for key in sorted(rules.cast, key=lambda k: 0 if k == "yana" else 1)]


@researcher_required
@require_GET
def check_page(request):
    context = {"speakers": _speakers(), "llm_available": gateway.configured()}
    return render(request, "director/pages/check.html", context)


def parse_history(text: str, rules) -> tuple[list[tuple[str, str]], str]:
    """``[(speaker id, text)]`` from lines ``やな: …``; the error names the first bad line."""
    lines = []
    for number, raw in enumerate(text.splitlines(), start=1):
        if not raw.strip():
            continue
        match = _HISTORY_LINE.match(raw)
        if not match:
            return [], _("History line %(n)s: write it as “やな: text”.") % {"n": number}
        try:
            speaker = rules.character(match.group(1).strip()).id
        except UnknownCharacter:
            return [], _("History line %(n)s: unknown speaker %(name)s (やな or あゆ).") % {
                "n": number, "name": match.group(1).strip()}  # fmt: skip
        lines.append((speaker, match.group(2)))
    return lines, ""


@researcher_required
@require_POST
def check_verdict(request):
    """The verdict panel for the line as typed (HTMX, debounced); nothing is stored."""
    rules = default_rule_set()
    text = request.POST.get("text", "")
    context: dict = {"text": text}
    if not text.strip():
        return render(request, "director/pages/_verdict.html", {**context, "empty": True})
    if len(text) > MAX_TEXT:
        return render(request, "director/pages/_verdict.html", {**context, "error": _("At most 2,000 characters.")})
    try:
        speaker = rules.character(request.POST.get("speaker", "")).id
    except UnknownCharacter:
        return render(request, "director/pages/_verdict.html", {**context, "error": _("Choose a speaker.")})
    history, problem = parse_history(request.POST.get("history", ""), rules)
    if problem:
        return render(request, "director/pages/_verdict.html", {**context, "error": problem})
    llm = bool(request.POST.get("llm")) or not gateway.configured()  # offline: the stage is shown as skipped
    language = "en" if (request.LANGUAGE_CODE or "ja").startswith("en") else "ja"
    evaluation = check_line(
        text=text, speaker=speaker, history=history, scene=request.POST.get("scene", "")[:500], llm=llm,
        language=language, rules=rules,
    )  # fmt: skip
    context |= {
        "evaluation": evaluation,
        "segments": segments(text, evaluation.findings),
        "review": evaluation.review.to_dict(),
        "aspects": _aspects(evaluation.review.to_dict()),
        "interventions": intervention_rows(evaluation.interventions),
    }
    return render(request, "director/pages/_verdict.html", context)


def _aspects(review: dict | None) -> list[dict]:
    if not review:
        return []
    return [{"key": k, "label": label, "score": review["scores"][k], "reason": review["reasons"].get(k, "")}
            for k, label in ASPECT_LABELS.items()]  # fmt: skip


@researcher_required
@require_GET
def sessions_page(request):
    return render(request, "director/pages/sessions.html", {"rows": reads.session_rows()})


@researcher_required
@require_GET
def session_page(request, pk: int):
    session = get_object_or_404(DirectorSession, pk=pk)
    names = [default_rule_set().character(s).name for s in session.speakers]
    return render(request, "director/pages/session.html",
                  {"session": session, "turns": reads.session_turns(session), "names": names})  # fmt: skip


@researcher_required
@require_GET
def stats_page(request):
    return render(request, "director/pages/stats.html", {"stats": reads.verdict_statistics()})


@researcher_required
@require_http_methods(["GET", "POST"])
def stats_compare(request):
    """The shipped rule set against an uploaded candidate on the stored lines; ``?download=1``: the Markdown report.

    The comparison (or its refusal) leaves this address in the address bar: a GET of it (a reload, a shared link)
    goes to the statistics page's comparison form.
    """
    if request.method == "GET":
        return redirect(f"{reverse('director:stats')}#compare")
    context = {"stats": reads.verdict_statistics()}
    try:
        candidate, name = compare.load_candidate(request.FILES.get("rules"))
        base, base_name = (None, "shipped default.yaml")
        if request.FILES.get("baseline"):
            base, base_name = compare.load_candidate(request.FILES["baseline"])
    except compare.CompareError as exc:
        return render(request, "director/pages/stats.html", {**context, "compare_error": str(exc)}, status=exc.status)
    lines, baseline, new, skipped = compare.replay_stored(candidate, name, base, base_name)
    settings_changes = compare.settings_changes(base or default_rule_set(), candidate)
    if request.POST.get("download"):
        response = HttpResponse(
            compare.report_markdown(lines, baseline, new, settings_changes), content_type="text/markdown; charset=utf-8"
        )
        response["Content-Disposition"] = 'attachment; filename="director-replay.md"'
        return response
    context |= {"comparison": compare.summary(lines), "sides": (baseline, new), "skipped": skipped,
                "settings_changes": settings_changes}  # fmt: skip
    return render(request, "director/pages/stats.html", context)


@researcher_required
@require_GET
def stats_csv(request):
    buffer = io.StringIO()
    writer = csv.writer(buffer)
    for row in reads.statistics_rows(reads.verdict_statistics()):
        writer.writerow([neutralise_formula(cell) for cell in row])
    response = HttpResponse("\ufeff" + buffer.getvalue(), content_type="text/csv; charset=utf-8")
    response["Content-Disposition"] = 'attachment; filename="director-verdict-statistics.csv"'
    return response
