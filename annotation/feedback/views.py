"""Monthly feedback pages: each annotator's month (their own; researchers see everyone's), the researchers'
overview for the meeting (page, printable page, CSV), and storing a month by hand."""

from __future__ import annotations

from datetime import date
from types import SimpleNamespace

from django.contrib import messages
from django.core.exceptions import PermissionDenied
from django.http import Http404, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_POST

from annotation.axes import AXES, MIN_KAPPA, TARGET_KAPPA
from annotation.dashboard.selectors import heat_map
from annotation.feedback import selectors
from annotation.feedback.export import overview_csv
from annotation.feedback.rows import axis_rows, month_axes, overview_rows, pair_rows
from annotation.feedback.services import feedback_month_prepare
from annotation.guidelines.scale import AXIS_NAMES
from annotation.models import MonthlyFeedback
from core.permissions import researcher_required
from core.redirects import redirect_back
from core.refusals import bad_request
from core.roles import ANNOTATOR, RESEARCHER, has_role


def _month(year: int, month: int) -> date:
    if not 1 <= month <= 12 or not 2000 <= year <= 2999:
        raise Http404("no such month")
    return date(year, month, 1)


def _url(name: str, month: date, *args) -> str:
    return reverse(f"annotation:{name}", args=[month.year, month.month, *args])


def _month_nav(name: str, month: date, *args) -> dict:
    before, after = selectors.shift_month(month, -1), selectors.shift_month(month, 1)
    return {
        "previous_url": _url(name, before, *args),
        "previous_label": f"{before:%Y-%m}",
        "next_url": _url(name, after, *args) if after <= selectors.this_month() else None,
        "next_label": f"{after:%Y-%m}",
        "value": f"{month:%Y-%m}",
    }


def _common(figures: selectors.Month) -> dict:
    return {
        "figures": figures,
        "content": figures.content,
        "month_label": figures.label,
        "axes": [{"axis": axis, "label": AXIS_NAMES[axis]} for axis in AXES],
        "min_kappa": MIN_KAPPA,
        "target_kappa": TARGET_KAPPA,
        "ci_method": selectors.month_ci_method(figures.content),
        "month_ended": figures.month < selectors.this_month(),  # only then may it be stored
        "storable_from": selectors.shift_month(figures.month, 1),
    }


@require_GET
def feedback_index(request):
    """``/feedback/`` (and the month picker, ``?month=YYYY-MM``): the overview for researchers, one's own page else.

    Login is required by ``core.middleware.LoginRequiredMiddleware`` (anonymous users go to the login page)."""
    researcher = has_role(request.user, RESEARCHER)
    if not researcher and not has_role(request.user, ANNOTATOR):
        raise PermissionDenied(_("This page is for annotators and researchers."))
    month = None
    raw = request.GET.get("month", "")
    if len(raw) == 7 and raw[4] == "-" and raw[:4].isdigit() and raw[5:].isdigit():
        month = _month(int(raw[:4]), int(raw[5:]))
    username = request.GET.get("annotator", "") if researcher else ""
    if researcher and not username:
        return redirect(_url("feedback-overview", month or selectors.default_month()))
    if researcher and selectors.feedback_person(username) is None:
        raise Http404("no such annotator")
    username = username or request.user.get_username()
    user = request.user if username == request.user.get_username() else None
    return redirect(_url("feedback-annotator", month or selectors.default_month(user), username))


@require_GET
def annotator_page(request, year: int, month: int, username: str):
    researcher = has_role(request.user, RESEARCHER)
    own = username == request.user.get_username()
    if not researcher and not (own and has_role(request.user, ANNOTATOR)):
        raise Http404("no such feedback page")  # another annotator's page does not exist for you
    if selectors.feedback_person(username) is None:  # a name of no account, or of one that never rates
        raise Http404("no such annotator")
    figures = selectors.month_figures(_month(year, month))
    person = (figures.content or {}).get("people", {}).get(username)
    flags = selectors.flags_received(figures.month, [username]).get(username, [])
    differences = person["differences"] if person else []
    texts = selectors.item_texts(d["item"] for d in differences)
    context = _common(figures) | {
        "username": username,
        "own": own,
        "researcher": researcher,
        "person": person,
        "axis_rows": axis_rows(person) if person else [],
        "pair_rows": pair_rows(person) if person else [],
        "flags": flags,
        "differences": [
            {**d, "dialogue": texts.get(d["item"]), "axes": [(a, d["own"][a], d["consensus"][a]) for a in AXES]}
            for d in differences
        ],
        "trend": (figures.content or {}).get("trend", {}).get(username, []),
        "nav": _month_nav("feedback-annotator", figures.month, username),
        "overview_url": _url("feedback-overview", figures.month) if researcher else None,
        "prepare_url": _url("feedback-prepare", figures.month) if researcher else None,
    }
    return render(request, "annotation/feedback/annotator.html", context)


def _overview_context(request, figures: selectors.Month) -> dict:
    content = figures.content
    names = content["annotators"] if content else []
    flags = selectors.flags_received(figures.month, names) if content else {}
    report = SimpleNamespace(report=content or {})
    return _common(figures) | {
        "rows": [
            row | {"url": _url("feedback-annotator", figures.month, row["name"])}
            for row in (overview_rows(content, flags) if content else [])
        ],
        "heat_maps": [
            {"axis": axis, "axis_label": AXIS_NAMES[axis], "heat_map": heat_map(report, axis)}
            for axis in AXES
            if content
        ],
        "axis_summary": month_axes(content) if content else [],
        "nav": _month_nav("feedback-overview", figures.month),
        "csv_url": _url("feedback-csv", figures.month),
        "print_url": _url("feedback-print", figures.month),
        "overview_url": _url("feedback-overview", figures.month),
        "prepare_url": _url("feedback-prepare", figures.month),
    }


@researcher_required
@require_GET
def overview(request, year: int, month: int):
    figures = selectors.month_figures(_month(year, month))
    return render(request, "annotation/feedback/overview.html", _overview_context(request, figures))


@researcher_required
@require_GET
def overview_print(request, year: int, month: int):
    figures = selectors.month_figures(_month(year, month))
    return render(request, "annotation/feedback/overview_print.html", _overview_context(request, figures))


@researcher_required
@require_GET
def overview_download(request, year: int, month: int):
    figures = selectors.month_figures(_month(year, month))
    content = figures.content
    flags = selectors.flags_received(figures.month, content["annotators"]) if content else {}
    body = overview_csv(figures.label, content, flags, selectors.month_ci_method(content))
    response = HttpResponse(body, content_type="text/csv; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="feedback-{figures.label}.csv"'
    return response


def _prepare_refusal(month: date) -> str | None:
    """Why ``month``'s figures cannot be stored, with the months that can; None when they can."""
    first, label = selectors.first_rating_month(), f"{month:%Y-%m}"
    if month >= selectors.this_month():
        reason = _(
            "The figures of %(month)s cannot be stored yet: the month has not ended "
            "(it can be stored from %(from)s, and the schedule stores it then)."
        ) % {"month": label, "from": f"{selectors.shift_month(month, 1):%Y-%m-%d}"}
    elif first is None:
        reason = _("The figures of %(month)s cannot be stored: nobody has rated an item yet.") % {"month": label}
    elif month < first:
        reason = _("The figures of %(month)s cannot be stored: the first ratings are from %(first)s.") % {
            "month": label,
            "first": f"{first:%Y-%m}",
        }
    else:
        return None
    span = selectors.preparable_months()
    if span is None:
        accepted = _("No month with ratings has ended yet.")
    else:
        accepted = _("Months that can be stored: %(first)s to %(last)s.") % {
            "first": f"{span[0]:%Y-%m}",
            "last": f"{span[1]:%Y-%m}",
        }
    # Translators: two sentences in a row (the reason, then the months accepted)
    return _("%(reason)s %(accepted)s") % {"reason": reason, "accepted": accepted}


@researcher_required
@require_POST
def prepare(request, year: int, month: int):
    """Store (or recompute and store again) the month's figures now, as beat does on the first of the month."""
    first = _month(year, month)
    refusal = _prepare_refusal(first)
    if refusal:
        return bad_request(request, refusal)
    row, stored = feedback_month_prepare(
        month=first, user=request.user, trigger=MonthlyFeedback.Trigger.MANUAL, recompute=True
    )
    if row is None:
        messages.warning(
            request, _("Nothing was stored: nobody rated an item in %(month)s.") % {"month": f"{first:%Y-%m}"}
        )
    elif stored:
        messages.success(request, _("The figures of %(month)s are stored.") % {"month": f"{first:%Y-%m}"})
    return redirect_back(request, _url("feedback-overview", first))
