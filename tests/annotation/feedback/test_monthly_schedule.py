"""Celery beat prepares the month that just ended on the first of each month (FEEDBACK_MONTHLY_CRON), once."""

from __future__ import annotations

import copy
import json
import os
import subprocess
import sys
import time
from datetime import UTC, date, datetime

import pytest
from celery.schedules import crontab
from django.conf import settings as django_settings
from django.db import OperationalError
from django.utils import timezone

from annotation.feedback.services import feedback_month_prepare
from annotation.feedback.tasks import feedback_monthly_task
from annotation.models import MonthlyFeedback

APRIL_FIRST_0500_TOKYO = datetime(2026, 3, 31, 20, 0, tzinfo=UTC)


@pytest.fixture(autouse=True)
def _few_replicates(settings):
    settings.AGREEMENT_MONITOR_N_BOOT = 20


def _beat_entries(**environ) -> list[str]:
    """The beat entries of the settings as a starting process reads them (an empty value: the variable unset)."""
    code = "import json, config.settings as s; print(json.dumps(sorted(s.CELERY_BEAT_SCHEDULE)))"
    env = {k: v for k, v in {**os.environ, **environ}.items() if v}
    started = subprocess.run(
        [sys.executable, "-c", code],
        cwd=django_settings.BASE_DIR,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert started.returncode == 0, started.stderr
    return json.loads(started.stdout)


def test_the_monthly_entry_is_scheduled_by_default_and_off_leaves_it_out():
    assert "feedback-monthly" in _beat_entries(FEEDBACK_MONTHLY_CRON="")
    assert "feedback-monthly" not in _beat_entries(FEEDBACK_MONTHLY_CRON="off")
    assert "weekly-agreement" in _beat_entries(FEEDBACK_MONTHLY_CRON="off")  # the weekly entry is another setting


def test_a_bad_monthly_schedule_stops_start_up_naming_the_variable():
    code = "import config.settings"
    started = subprocess.run(
        [sys.executable, "-c", code],
        cwd=django_settings.BASE_DIR,
        env={**os.environ, "FEEDBACK_MONTHLY_CRON": "0 5 32 * *"},
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert started.returncode != 0
    assert "FEEDBACK_MONTHLY_CRON='0 5 32 * *'" in started.stderr.strip().splitlines()[-1]


def test_beat_sends_the_monthly_task_on_the_first_at_five_site_time(settings):
    from config.celery import app

    app.loader.import_default_modules()  # a worker's start: autodiscovery finds annotation.tasks
    entry = settings.CELERY_BEAT_SCHEDULE["feedback-monthly"]
    assert entry["task"] == feedback_monthly_task.name and entry["task"] in app.tasks
    assert isinstance(entry["schedule"], crontab)
    last_run = datetime(2026, 2, 28, 20, 0, tzinfo=UTC)  # 1 March 05:00 in Tokyo: the previous run
    for now, due in (
        (datetime(2026, 3, 31, 19, 59, tzinfo=UTC), False),  # 1 April 04:59 in Tokyo
        (datetime(2026, 3, 31, 20, 0, 1, tzinfo=UTC), True),  # 1 April 05:00:01 in Tokyo
    ):
        schedule = copy.copy(entry["schedule"])
        schedule.nowfun = lambda now=now: now
        assert schedule.is_due(last_run).is_due is due


def test_the_task_prepares_the_month_that_just_ended_once(feedback_data, monkeypatch):
    monkeypatch.setattr(timezone, "now", lambda: APRIL_FIRST_0500_TOKYO)
    first = feedback_monthly_task.apply().get()
    second = feedback_monthly_task.apply().get()
    row = MonthlyFeedback.objects.get()
    assert first == second == row.pk
    assert row.month == date(2026, 3, 1) and row.trigger == MonthlyFeedback.Trigger.SCHEDULE
    assert row.prepared_by is None and row.prepared_at == APRIL_FIRST_0500_TOKYO
    assert row.content["people"]["ann_a"]["n_ratings"] == len(feedback_data.march.ratings["ann_a"])


def test_preparing_a_month_again_keeps_the_stored_figures_unless_asked_to_recompute(feedback_data):
    row, stored = feedback_month_prepare(month=date(2026, 3, 15))
    assert stored and row.month == date(2026, 3, 1)
    MonthlyFeedback.objects.filter(pk=row.pk).update(content={"marker": True, **row.content})
    again, stored_again = feedback_month_prepare(month=date(2026, 3, 1))
    assert (again.pk, stored_again) == (row.pk, False) and again.content["marker"] is True
    redone, stored_redone = feedback_month_prepare(month=date(2026, 3, 1), recompute=True)
    assert (redone.pk, stored_redone) == (row.pk, True) and "marker" not in redone.content
    assert MonthlyFeedback.objects.count() == 1


def test_a_month_without_ratings_stores_nothing(feedback_data):
    assert feedback_month_prepare(month=date(2025, 6, 1)) == (None, False)
    assert not MonthlyFeedback.objects.exists()


def test_the_task_runs_through_the_real_broker_and_worker(celery_worker, feedback_data, monkeypatch):
    monkeypatch.setattr(timezone, "now", lambda: APRIL_FIRST_0500_TOKYO)
    feedback_monthly_task.delay()
    deadline = time.monotonic() + 60
    while not _stored():
        assert time.monotonic() < deadline, "no prepared month after 60 s"
        time.sleep(0.1)
    assert MonthlyFeedback.objects.get().month == date(2026, 3, 1)


def _stored() -> bool:
    try:
        return MonthlyFeedback.objects.exists()
    except OperationalError:  # SQLite's shared-cache test database refuses a read while the worker writes
        return False
