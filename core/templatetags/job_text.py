"""``{{ job.kind|job_label }}``, ``{{ job.message|job_message }}`` and ``{% job_summary job as summary %}``
(core.job_display)."""

from django import template

from core import job_display

register = template.Library()


@register.filter
def job_label(kind: str) -> str:
    return job_display.job_label(kind)


@register.simple_tag
def job_summary(job):
    return job_display.job_summary(job)


@register.simple_tag
def job_failure_kept(job):
    return job_display.job_failure_kept(job)


@register.filter
def job_message(message: str) -> str:
    return job_display.job_message(message)
