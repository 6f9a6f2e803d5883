"""Per-annotator activity of a batch (page): ratings per day, time per item, skip rate, agreement with the rest."""

from urllib.parse import urlencode

from django.conf import settings
from django.shortcuts import get_object_or_404, render
from django.urls import reverse
from django.utils import timezone
from django.views.decorators.http import require_GET

from annotation.activity.compute import WINDOW_DAYS
from annotation.activity.plot import activity_plot
from annotation.activity.selectors import batch_activity
from annotation.axes import AXES, MIN_KAPPA, TARGET_KAPPA
from annotation.collection import qualification
from annotation.collection.qualification import latest_extension, qualification_expiries, valid_days
from annotation.guidelines.scale import AXIS_NAMES
from annotation.models import Batch
from core.permissions import researcher_required


def _dashboard_url(batch: Batch) -> str:
    return f"{reverse('annotation:dashboard')}?{urlencode({'batch': batch.pk})}"


@researcher_required
@require_GET
def activity(request, pk: int):
    batch = get_object_or_404(Batch, pk=pk)
    data = batch_activity(batch=batch)
    plot = activity_plot(data)  # drawn from the same object as the tables
    context = {
        "batch": batch,
        "activity": data,
        "plot": plot,
        "rows": list(zip(data.annotators, plot["rows"], strict=True)) if plot else [],
        "axes": [{"axis": axis, "label": AXIS_NAMES[axis]} for axis in AXES],
        "window_days": WINDOW_DAYS,
        "min_kappa": MIN_KAPPA,
        "target_kappa": TARGET_KAPPA,
        "time_zone": settings.TIME_ZONE,
        "batch_url": reverse("annotation:batch", args=[batch.pk]),
        "dashboard_url": _dashboard_url(batch),
        "expiries": qualification_expiries(),  # _qualification_expiries.html (quarterly re-training)
        "valid_days": valid_days(),
        "extension_earliest": timezone.localtime(qualification.clock()).date(),  # the date input's bounds
        "extension_latest": latest_extension(),
    }
    return render(request, "annotation/activity/page.html", context)
