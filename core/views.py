from __future__ import annotations

import platform

import django
from django.conf import settings
from django.contrib.auth.decorators import login_not_required
from django.http import Http404, HttpResponse, JsonResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET, require_POST

from core.endpoints import endpoint_label
from core.health import check_broker, check_database, health_report, llm_limits
from core.models import Job
from core.nav import visible_items
from core.permissions import researcher_required
from core.roles import RESEARCHER, has_role
from core.services import job_cancel, job_enqueue


@require_GET
def home(request):
    cards = [item for item in visible_items(request.user) if item.on_home]
    return render(request, "core/home.html", {"cards": cards})


@login_not_required
@never_cache
@require_GET
def healthz(request):
    healthy, report = health_report()
    return JsonResponse(report, status=200 if healthy else 503)


@login_not_required
@require_GET
def favicon(request):
    """No icon, said once: an empty answer the browser caches instead of a 404 on every admin page."""
    response = HttpResponse(b"", content_type="image/x-icon", status=200)
    response["Cache-Control"] = "public, max-age=86400"
    return response


@researcher_required
@require_GET
def system(request):
    db = settings.DATABASES["default"]
    context = {
        "database": {
            "engine": db["ENGINE"].rsplit(".", 1)[-1],
            "name": db["NAME"] if db["ENGINE"].endswith("sqlite3") else f"{db.get('HOST') or 'localhost'}/{db['NAME']}",
            "check": check_database(),
        },
        "broker": {
            "endpoint": endpoint_label(settings.CELERY_BROKER_URL),
            "check": check_broker(),
            "waiting": Job.objects.filter(
                status=Job.Status.QUEUED, dispatched_at__isnull=True, dispatch_attempts__gt=0
            ).count(),
        },
        "llm": {
            "endpoint": endpoint_label(settings.LLM_BASE_URL),
            "model": settings.LLM_MODEL,
            "key_configured": bool(settings.LLM_API_KEY),
            "limits": llm_limits(),
            "limits_store": endpoint_label(settings.LLM_LIMITS_REDIS_URL) if settings.LLM_LIMITS == "redis" else "",
        },
        "versions": {"python": platform.python_version(), "django": django.get_version()},
        "debug": settings.DEBUG,
        "jobs": Job.objects.select_related("created_by")[:20],
    }
    return render(request, "core/system.html", context)


@researcher_required
@require_POST
def worker_check(request):
    job = job_enqueue(kind="core.worker_ping", user=request.user)
    if request.htmx:
        return render(request, "core/job_status.html", {"job": job})
    return redirect("job-detail", job_id=job.id)


def _job_for(request, job_id) -> Job:
    job = get_object_or_404(Job.objects.select_related("created_by"), pk=job_id)
    if job.created_by_id != request.user.id and not has_role(request.user, RESEARCHER):
        raise Http404  # do not reveal other users' jobs
    return job


@require_GET
def job_detail(request, job_id):
    job = _job_for(request, job_id)
    template = "core/job_status.html" if request.htmx else "core/job_detail.html"
    return render(request, template, {"job": job})


@require_POST
def job_cancel_view(request, job_id):
    job = _job_for(request, job_id)
    job_cancel(job=job)
    job.refresh_from_db()
    if request.htmx:
        return render(request, "core/job_status.html", {"job": job})
    return redirect("job-detail", job_id=job.id)
