"""Jobs are told in people's words: the kind's translated name and the result as a sentence with a link."""

import pytest
from django.template.loader import render_to_string
from django.utils import translation

import annotation.job_handlers  # noqa: F401  (registers the kinds)
import director.sessions.job_handlers  # noqa: F401
import layer3.runs.job_handlers  # noqa: F401
from core.job_display import job_label, job_summary
from core.models import Job

pytestmark = pytest.mark.django_db


def job(kind, result, status="succeeded"):
    return Job.objects.create(kind=kind, status=status, result=result)


def test_an_agreement_report_is_a_sentence_with_a_link_in_japanese():
    done = job("annotation.agreement_report", {"report_id": 2, "batch_id": 5, "passed": True})
    with translation.override("ja"):
        text, url = job_summary(done)
        html = render_to_string("core/job_status.html", {"job": done})
        assert job_label(done.kind) == "一致率レポート"
    assert text == "一致率レポート #2 を保存しました（合格）。" and url.endswith("?batch=5")
    assert "data-job-summary" in html and "{" not in html.split("data-job-summary", 1)[1]


@pytest.mark.parametrize(
    ("kind", "result", "words"),
    [
        (
            "layer3.evaluate",
            {
                "run_id": 1,
                "batch": "b",
                "batch_id": 3,
                "status": "succeeded",
                "evaluated": 9,
                "skipped": 1,
                "errors": 2,
                "left_for_later": 0,
            },
            "9",
        ),
        ("director.turns", {"session_id": 4, "turns": [{"turn": 1, "accepted": True}]}, "4"),
        ("core.worker_ping", {"hostname": "h1", "pid": 7, "python": "3.11"}, "h1"),
    ],
)
def test_every_kind_is_summarised(kind, result, words):
    with translation.override("en"):
        text, _url = job_summary(job(kind, result))
        assert words in text and job_label(kind) != kind


def test_no_summary_for_an_unknown_kind_a_bad_result_or_an_unfinished_job():
    assert job_summary(job("core.unknown", {"a": 1})) is None
    assert job_summary(job("annotation.agreement_report", {"unexpected": 1})) is None
    assert job_summary(job("annotation.agreement_report", {"report_id": 1, "batch_id": 1, "passed": True},
                           status="running")) is None  # fmt: skip
    html = render_to_string("core/job_status.html", {"job": job("core.unknown", {"rows": 7})})
    assert "<dt>rows</dt><dd>7</dd>" in html and "{" not in html  # a kind without words: its fields, not a dict
