"""Quarterly re-training pages (seed 000, B.3.2): start a re-qualification test; researchers extend an expiry.

The re-training itself is shown on the training page (``views_training.training_start``, with
``retraining_context``): the refresher runs on the practice page, the re-qualification test on the
qualification test's page. Researchers see the expiries on the activity page
(``annotation/activity/_qualification_expiries.html``) and extend one there, with a reason.
"""

from __future__ import annotations

from datetime import datetime, time

from django import forms
from django.conf import settings
from django.contrib import messages
from django.contrib.auth import get_user_model
from django.shortcuts import get_object_or_404, redirect
from django.urls import reverse
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from django.views.decorators.http import require_POST
from django_htmx.http import HttpResponseClientRedirect

from annotation.axes import MIN_KAPPA
from annotation.collection import training
from annotation.collection.qualification import (
    NOTICE_DAYS,
    ExtensionRefused,
    Qualification,
    qualification_extend,
    refresher_progress,
)
from core.permissions import annotator_required, researcher_required
from core.redirects import posted_next


def retraining_context(user, qualification: Qualification) -> dict:
    """What the training page shows of the re-training: only once the expiry is in notice or past."""
    if not (qualification.expiring or qualification.expired):
        return {"retraining": False}
    return {
        "retraining": True,
        "refresher": refresher_progress(annotator=user, qualification=qualification),
        "requalification_items": int(getattr(settings, "REQUALIFICATION_ITEMS", 10)),
        "requalification_min_kappa": float(getattr(settings, "REQUALIFICATION_MIN_KAPPA", MIN_KAPPA)),
        "notice_days": NOTICE_DAYS,
    }


@annotator_required
@require_POST
def requalification_start(request):
    try:
        training.requalification_start(annotator=request.user)
    except training.TrainingUnavailable:
        messages.error(request, _("The re-qualification test cannot start: there are no test items for it yet."))
        url = reverse("annotation:training")
    else:
        url = reverse("annotation:qualification")
    return HttpResponseClientRedirect(url) if request.htmx else redirect(url)


class ExtensionForm(forms.Form):
    until = forms.DateField(label=gettext_lazy("New expiry date"), widget=forms.DateInput(attrs={"type": "date"}))
    reason = forms.CharField(label=gettext_lazy("Reason"), max_length=500, strip=True)


def _back(request) -> str:
    return posted_next(request, "annotation:qualification-results")


def _refused(request, problems: str):
    messages.error(request, _("The qualification was not extended. %(problems)s") % {"problems": problems})
    return redirect(_back(request))


@researcher_required
@require_POST
def qualification_extension(request, user_id: int):
    annotator = get_object_or_404(get_user_model(), pk=user_id)
    form = ExtensionForm(request.POST)
    if not form.is_valid():
        problems = [f"{form.fields[name].label}: {' '.join(errors)}" for name, errors in form.errors.items()]
        return _refused(request, " ".join(problems))
    until = timezone.make_aware(datetime.combine(form.cleaned_data["until"], time(23, 59, 59)))
    try:
        qualification_extend(annotator=annotator, until=until, reason=form.cleaned_data["reason"], by=request.user)
    except ExtensionRefused as refused:
        return _refused(request, refused.translated(_))
    messages.success(
        request,
        _("The qualification of %(name)s now expires on %(date)s.")
        % {"name": annotator.get_username(), "date": form.cleaned_data["until"].isoformat()},
    )
    return redirect(_back(request))
