"""Jobs are told in people's words: the kind's translated name and the result as a sentence with a link."""

import re

import pytest
from django.template.loader import render_to_string
from django.utils import translation

import annotation.job_handlers
import annotation.spreadsheets.upload_jobs
import annotation.workspace.upload_jobs  # noqa: F401
import director.sessions.job_handlers  # noqa: F401
import layer3.runs.job_handlers  # noqa: F401
from core.job_display import job_label, job_message, job_summary
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


# Every progress message a handler writes (issue 30 point 6: "stored agreement report 2" on a Japanese page).
WORKER_MESSAGES = [
    "computing agreement of batch 春の対話 (1000 bootstrap replicates)",
    "stored agreement report 2",
    "batch b-1: rating with the default model",
    "batch b-1: rating with gpt-x",
    "batch b-1: 40 dialogues to rate",
    "12 dialogues rated by the LLM",
    "batch demo-layer3: 120 trials to evaluate",
    "trial A-00012",
    "checking and storing 300 lines of dialogues.jsonl",
    "checking and storing ratings.xlsx",
    "checking ratings.xlsx",
    "session 4",
    "turn 3: attempt 2 PASS after 1 RETRY",
    "turn 3: attempt 1 WARN",
    "turn 3: every attempt was RETRY; attempt 2 had the fewest problems; the state did not advance",
    "cancelled before it started",
    "cancelled",
    "pong",
]
NAMES = re.compile(r"春の対話|b-1|gpt-x|demo-layer3|A-00012|dialogues\.jsonl|ratings\.xlsx|PASS|WARN|RETRY|LLM")


@pytest.mark.parametrize("message", WORKER_MESSAGES)
def test_a_worker_s_progress_message_is_shown_in_japanese_with_no_english_left(message):
    running = Job.objects.create(kind="annotation.agreement_report", status="running", message=message)
    with translation.override("ja"):
        html = render_to_string("core/job_status.html", {"job": running})
    shown = re.search(r"<span class=\"muted\" data-job-message>(.*?)</span>", html, re.S).group(1)
    assert not re.search(r"[A-Za-z]{2,}", NAMES.sub("", shown)), shown
    with translation.override("en"):
        assert job_message(message)[0].isupper() or job_message(message)[0].isdigit()


def test_stored_agreement_report_reads_as_a_sentence():
    with translation.override("ja"):
        assert job_message("stored agreement report 2") == "一致率レポート #2 を保存しました。"
    assert job_message("something no handler writes") == "something no handler writes"


def test_the_admin_names_every_model_in_japanese(admin_client):
    """Issue 30 point 6: the admin's index listed "Demo loads" in English."""
    from django.contrib import admin

    html = admin_client.get("/admin/").content.decode()
    assert "Demo loads" not in html and "デモデータの読み込み" in html
    japanese = re.compile(r"[\u3040-\u30ff\u4e00-\u9fff]")
    with translation.override("ja"):
        english = [str(m._meta.verbose_name_plural) for m in admin.site._registry
                   if not japanese.search(str(m._meta.verbose_name_plural))]  # fmt: skip
    assert english == []
