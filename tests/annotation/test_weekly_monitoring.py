"""Weekly agreement monitoring (seed 000 B.3.2): the service, its schedule, and the task through a real worker."""

import copy
import json
import logging
import os
import subprocess
import sys
import time
from datetime import UTC, datetime, timedelta

import pytest
from celery.schedules import crontab
from django.conf import settings as django_settings
from django.core.management import call_command
from django.db import OperationalError
from django.utils import timezone

from annotation import monitoring
from annotation.models import AgreementReport, Batch, QualityFlag
from annotation.monitoring import WEEKLY, iso_week_bounds, weekly_agreement_reports
from annotation.services import agreement_report_create
from annotation.tasks import weekly_agreement_task
from config.env import ImproperlyConfiguredError, env_crontab, env_int
from tests.annotation.conftest import dialogue, rating

ITEMS = 6


@pytest.fixture
def make_batch(jsonl, db):
    """A batch of six items; when rated, two annotators agree and ann_002 is unsure on the social axis (flag C005)."""
    counter = iter(range(0, 1000, ITEMS))

    def make(name: str, *, status=Batch.Status.OPEN, rated: bool = True) -> Batch:
        first = next(counter)
        items = range(first, first + ITEMS)
        call_command("import_dialogues", str(jsonl([dialogue(i) for i in items])), batch=name)
        if rated:
            rows = [rating(i, "ann_001", scores=(1 + i % 3, 1, 1, 1)) for i in items]
            rows += [rating(i, "ann_002", scores=(1 + i % 3, 1, 1, 1), conf=(0.5, 0.9, 0.9, 0.9)) for i in items]
            call_command("import_annotations", str(jsonl(rows)))
        Batch.objects.filter(name=name).update(status=status)
        return Batch.objects.get(name=name)

    return make


@pytest.fixture
def few_replicates(settings):
    settings.AGREEMENT_MONITOR_N_BOOT = 20


def _weekly(batch: Batch):
    return AgreementReport.objects.filter(batch=batch, parameters__trigger=WEEKLY)


# The service ---------------------------------------------------------------------------------------------


def test_open_and_paused_batches_get_a_weekly_report_with_flags_and_closed_or_unrated_ones_are_skipped(
    make_batch, few_replicates
):
    open_batch, paused = make_batch("open"), make_batch("paused", status=Batch.Status.PAUSED)
    closed, unrated = make_batch("closed", status=Batch.Status.CLOSED), make_batch("unrated", rated=False)

    stored = weekly_agreement_reports()

    assert sorted(report.batch.name for report in stored) == ["open", "paused"]
    report = _weekly(open_batch).get()
    assert report.created_by is None and report.source == "batch open"
    assert report.parameters["n_boot"] == 20 and report.report["bootstrap"]["replicates"] == 20
    assert QualityFlag.objects.filter(report=report, kind="C005", annotator__username="ann_002").count() == ITEMS
    assert _weekly(paused).count() == 1
    assert not AgreementReport.objects.filter(batch__in=[closed, unrated]).exists()


def test_a_second_run_in_the_same_week_stores_nothing(make_batch, few_replicates):
    batch = make_batch("open")
    assert len(weekly_agreement_reports()) == 1
    flags = QualityFlag.objects.count()

    assert weekly_agreement_reports() == []
    assert _weekly(batch).count() == 1 and QualityFlag.objects.count() == flags


def test_a_run_in_the_next_week_stores_a_new_report(make_batch, few_replicates):
    batch = make_batch("open")
    (first,) = weekly_agreement_reports()
    start, _ = iso_week_bounds(timezone.now())
    AgreementReport.objects.filter(pk=first.pk).update(created_at=start - timedelta(minutes=1))  # last week's run

    (second,) = weekly_agreement_reports()

    assert second.pk != first.pk and _weekly(batch).count() == 2
    assert second.flags.exists()  # the findings moved to the newest report, review decisions kept


def test_a_report_a_researcher_made_this_week_does_not_replace_the_weekly_one(make_batch, few_replicates, researcher):
    batch = make_batch("open")
    agreement_report_create(batch=batch, user=researcher, n_boot=0)

    (report,) = weekly_agreement_reports()

    assert report.parameters["trigger"] == WEEKLY
    assert AgreementReport.objects.filter(batch=batch).count() == 2


def test_a_failing_batch_is_logged_and_the_others_still_run(make_batch, few_replicates, monkeypatch, caplog):
    broken, healthy = make_batch("broken"), make_batch("healthy")
    real = monitoring.agreement_report_create

    def fails_for_broken(*, batch, **kwargs):
        if batch.name == "broken":
            raise RuntimeError("the computation fell over")
        return real(batch=batch, **kwargs)

    monkeypatch.setattr(monitoring, "agreement_report_create", fails_for_broken)
    with caplog.at_level(logging.INFO, logger="annotation.monitoring"):
        stored = weekly_agreement_reports()

    assert [report.batch for report in stored] == [healthy]
    (failure,) = [record for record in caplog.records if record.levelno == logging.ERROR]
    assert "'broken'" in failure.getMessage() and failure.exc_info[0] is RuntimeError
    assert "1 report(s) stored" in caplog.text and "1 failed" in caplog.text

    monkeypatch.setattr(monitoring, "agreement_report_create", real)
    assert [report.batch for report in weekly_agreement_reports()] == [broken]  # it is retried, the other is done


def test_the_week_runs_from_monday_midnight_in_the_site_time_zone(settings):
    assert settings.TIME_ZONE == "Asia/Tokyo"
    # Sunday 15:30 UTC is Monday 00:30 in Tokyo: a new week there, still the old one in UTC.
    start, end = iso_week_bounds(datetime(2026, 3, 1, 15, 30, tzinfo=UTC))
    assert start == datetime(2026, 3, 1, 15, 0, tzinfo=UTC)
    assert end - start == timedelta(days=7)
    assert iso_week_bounds(datetime(2026, 3, 1, 14, 59, tzinfo=UTC))[1] == start


# The schedule --------------------------------------------------------------------------------------------


def _fields(schedule: crontab) -> tuple:
    return (schedule.minute, schedule.hour, schedule.day_of_month, schedule.month_of_year, schedule.day_of_week)


def test_the_default_schedule_is_mondays_at_six():
    for environ in ({}, {"AGREEMENT_MONITOR_CRON": "  "}):
        schedule = env_crontab("AGREEMENT_MONITOR_CRON", "0 6 * * 1", environ=environ)
        assert _fields(schedule) == ({0}, {6}, set(range(1, 32)), set(range(1, 13)), {1})


def test_a_custom_schedule_is_read_field_by_field():
    schedule = env_crontab("C", "0 6 * * 1", environ={"C": " 30 7,19 * 1-6 fri "})
    assert _fields(schedule) == ({30}, {7, 19}, set(range(1, 32)), set(range(1, 7)), {5})


def test_off_turns_the_schedule_off():
    for raw in ("off", "OFF", " Off "):
        assert env_crontab("C", "0 6 * * 1", environ={"C": raw}) is None


@pytest.mark.parametrize(
    ("raw", "message"),
    [
        ("0 6 * *", r"AGREEMENT_MONITOR_CRON='0 6 \* \*' has 4 field\(s\), not 5; accepted: 'off', or five"),
        ("weekly", r"has 1 field\(s\), not 5"),
        ("0 25 * * 1", r"the hour field '25' is not valid \(values 0-23\)"),
        ("abc 6 * * 1", r"the minute field 'abc' is not valid \(values 0-59\)"),
        ("0 6 * * 7", r"the day of week field '7' is not valid \(values 0-6 with 0 = Sunday, or sun..sat\)"),
        ("0 6 0 * *", r"the day of month field '0' is not valid"),
        ("0 6 * 1,,2 *", r"the month field '1,,2' is not valid"),
    ],
)
def test_a_bad_schedule_names_the_variable_the_field_and_what_is_accepted(raw, message):
    with pytest.raises(ImproperlyConfiguredError, match=message) as caught:
        env_crontab("AGREEMENT_MONITOR_CRON", "0 6 * * 1", environ={"AGREEMENT_MONITOR_CRON": raw})
    assert "e.g. '0 6 * * 1' = Mondays at 06:00" in str(caught.value)


def test_the_replicates_have_a_ceiling():
    assert env_int("N", 1000, minimum=0, maximum=10_000, environ={"N": "10000"}) == 10_000
    with pytest.raises(ImproperlyConfiguredError, match="N=10001 must be at most 10000"):
        env_int("N", 1000, minimum=0, maximum=10_000, environ={"N": "10001"})


def _settings_in_a_new_process(**environ) -> subprocess.CompletedProcess:
    """Import the settings module as a starting process does, with the given environment."""
    code = (
        "import json, config.settings as s; "
        "print(json.dumps([sorted(s.CELERY_BEAT_SCHEDULE), s.AGREEMENT_MONITOR_N_BOOT]))"
    )
    return subprocess.run(
        [sys.executable, "-c", code],
        cwd=django_settings.BASE_DIR,
        env={**os.environ, **environ},
        capture_output=True,
        text=True,
        timeout=60,
    )


def test_start_up_reads_both_variables_and_off_leaves_the_entry_out():
    started = _settings_in_a_new_process(
        AGREEMENT_MONITOR_CRON="off", AGREEMENT_MONITOR_N_BOOT="200", FEEDBACK_MONTHLY_CRON="off"
    )
    assert started.returncode == 0, started.stderr
    assert json.loads(started.stdout) == [["expire-reservations", "jobs-sweep"], 200]


def test_start_up_fails_on_a_bad_schedule_with_a_message_naming_the_variable():
    started = _settings_in_a_new_process(AGREEMENT_MONITOR_CRON="0 6 * * 8")
    assert started.returncode != 0
    last_line = started.stderr.strip().splitlines()[-1]
    assert last_line.startswith("django.core.exceptions.ImproperlyConfigured: AGREEMENT_MONITOR_CRON='0 6 * * 8'")
    assert "day of week" in last_line


def test_beat_sends_the_weekly_task_on_monday_at_six_site_time(settings):
    from config.celery import app

    app.loader.import_default_modules()  # what a worker does at start: autodiscovery finds annotation.tasks
    entry = settings.CELERY_BEAT_SCHEDULE["weekly-agreement"]
    assert entry["task"] in app.tasks and entry["task"] == weekly_agreement_task.name
    assert isinstance(entry["schedule"], crontab) and str(app.timezone) == settings.TIME_ZONE
    last_run = datetime(2026, 3, 1, 20, 0, tzinfo=UTC)  # Monday 05:00 in Tokyo
    for now, due in (
        (datetime(2026, 3, 1, 20, 59, tzinfo=UTC), False),  # Monday 05:59 in Tokyo
        (datetime(2026, 3, 1, 21, 0, 1, tzinfo=UTC), True),  # Monday 06:00:01 in Tokyo
    ):
        schedule = copy.copy(entry["schedule"])
        schedule.nowfun = lambda now=now: now
        assert schedule.is_due(last_run).is_due is due


# The task through the broker and a worker ----------------------------------------------------------------


def test_the_task_stores_the_weekly_report_through_the_real_broker(celery_worker, make_batch, few_replicates):
    batch = make_batch("open")
    weekly_agreement_task.delay()
    deadline = time.monotonic() + 30
    while not _stored_yet(batch):
        assert time.monotonic() < deadline, "no weekly report after 30 s"
        time.sleep(0.1)
    assert _weekly(batch).get().flags.exists()


def _stored_yet(batch: Batch) -> bool:
    try:
        return _weekly(batch).exists()
    except OperationalError:  # SQLite's shared-cache test database refuses a read while the worker's write is open
        return False
