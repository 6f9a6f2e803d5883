"""Issue #41, point 8: a month is stored only once it has ended and if ratings exist by then; a feedback page
names an annotator who exists.

The data (conftest): ratings in February and March 2026 (Tokyo). "Now" is frozen by replacing
``django.utils.timezone.now``.
"""

from __future__ import annotations

from datetime import UTC, date, datetime

import pytest
from django.contrib.auth.models import Group
from django.urls import reverse
from django.utils import timezone

from annotation.feedback.services import MonthNotEnded, feedback_month_prepare
from annotation.models import Annotation, MonthlyFeedback
from tests.helpers import make_user

MARCH_20_TOKYO = datetime(2026, 3, 20, 3, 0, tzinfo=UTC)
APRIL_1_0001_TOKYO = datetime(2026, 3, 31, 15, 1, tzinfo=UTC)


@pytest.fixture(autouse=True)
def _few_replicates(settings):
    settings.AGREEMENT_MONITOR_N_BOOT = 20


@pytest.fixture
def frozen(monkeypatch):
    def at(moment: datetime) -> datetime:
        monkeypatch.setattr(timezone, "now", lambda: moment)
        return moment

    return at


@pytest.fixture
def researcher_client(client, feedback_data):
    client.force_login(feedback_data.researcher)
    client.cookies["django_language"] = "en"
    return client


def prepare(year: int, month: int) -> str:
    return reverse("annotation:feedback-prepare", args=[year, month])


def overview(year: int, month: int) -> str:
    return reverse("annotation:feedback-overview", args=[year, month])


def annotator_page(name: str, year: int = 2026, month: int = 3) -> str:
    return reverse("annotation:feedback-annotator", args=[year, month, name])


# --- which months may be stored ------------------------------------------------------------------------------------


def test_a_month_that_has_not_ended_is_refused_naming_the_months_that_can_be_stored(researcher_client, frozen):
    frozen(MARCH_20_TOKYO)
    for year, month in ((2026, 3), (2026, 4), (2999, 12)):
        response = researcher_client.post(prepare(year, month), {"next": overview(2026, 3)})
        html = response.content.decode()
        assert response.status_code == 400, (year, month)
        assert f"The figures of {year}-{month:02d} cannot be stored yet: the month has not ended" in html
        assert "Months that can be stored: 2026-02 to 2026-02." in html
    assert "it can be stored from 2026-04-01" in researcher_client.post(prepare(2026, 3)).content.decode()
    assert not MonthlyFeedback.objects.exists()


def test_a_month_before_the_first_rating_is_refused_and_a_month_that_has_ended_is_stored(researcher_client, frozen):
    frozen(MARCH_20_TOKYO)
    response = researcher_client.post(prepare(2026, 1))
    html = response.content.decode()
    assert response.status_code == 400
    assert "The figures of 2026-01 cannot be stored: the first ratings are from 2026-02." in html
    assert "Months that can be stored: 2026-02 to 2026-02." in html
    assert researcher_client.post(prepare(2000, 1)).status_code == 400
    assert not MonthlyFeedback.objects.exists()
    response = researcher_client.post(prepare(2026, 2))
    assert response.status_code == 302 and response["Location"] == overview(2026, 2)
    assert list(MonthlyFeedback.objects.values_list("month", flat=True)) == [date(2026, 2, 1)]


def test_march_may_be_stored_from_the_first_minute_of_april_site_time(researcher_client, frozen):
    frozen(datetime(2026, 3, 31, 14, 59, tzinfo=UTC))  # 23:59 on 31 March in Tokyo
    assert researcher_client.post(prepare(2026, 3)).status_code == 400
    frozen(APRIL_1_0001_TOKYO)
    assert researcher_client.post(prepare(2026, 3)).status_code == 302
    assert MonthlyFeedback.objects.get().month == date(2026, 3, 1)


def test_without_any_month_with_ratings_ended_every_month_is_refused(researcher_client, frozen):
    Annotation.objects.update(created_at=datetime(2026, 3, 5, tzinfo=UTC))  # every rating in March
    frozen(MARCH_20_TOKYO)
    html = researcher_client.post(prepare(2026, 2)).content.decode()
    assert "the first ratings are from 2026-03. No month with ratings has ended yet." in html


def test_the_service_refuses_a_month_that_has_not_ended(feedback_data):
    with pytest.raises(MonthNotEnded):
        feedback_month_prepare(month=date(2026, 3, 1), now=MARCH_20_TOKYO)
    with pytest.raises(MonthNotEnded):
        feedback_month_prepare(month=date(2999, 12, 1))
    assert not MonthlyFeedback.objects.exists()


def test_the_page_of_a_month_not_ended_offers_no_store_button_but_says_when(researcher_client, frozen):
    frozen(MARCH_20_TOKYO)
    html = researcher_client.get(overview(2026, 3)).content.decode()
    assert 'data-action="prepare"' not in html and 'data-prepare="later"' in html
    assert "This month can be stored once it has ended: from 2026-04-01" in html
    html = researcher_client.get(overview(2026, 2)).content.decode()
    assert 'data-action="prepare"' in html and 'data-prepare="later"' not in html


def test_the_refusal_is_in_japanese_for_a_japanese_reader(researcher_client, frozen):
    frozen(MARCH_20_TOKYO)
    researcher_client.cookies["django_language"] = "ja"
    html = researcher_client.post(prepare(2999, 12)).content.decode()
    assert "2999-12 の集計はまだ保存できません。この月は終わっていません（3000-01-01 から保存でき" in html
    assert "その日に定期実行が保存します）。保存できる月：2026-02 から 2026-02 まで。" in html


# --- feedback pages name an annotator who exists -------------------------------------------------------------


def test_a_name_of_no_account_is_a_404_on_the_page_and_through_the_month_picker(researcher_client):
    for name in ("nobody_at_all", "ANN_A", "ann_a ", "%00"):
        assert researcher_client.get(annotator_page(name)).status_code == 404, name
    assert researcher_client.get("/feedback/2026-03/annotators/a%00b/").status_code == 404  # PostgreSQL: no NUL
    picker = reverse("annotation:feedback")
    for name in ("nobody", "a\x00b"):
        assert researcher_client.get(picker, {"month": "2026-03", "annotator": name}).status_code == 404
    assert researcher_client.get(picker, {"month": "2026-03", "annotator": "ann_a"}).status_code == 302


def test_an_account_that_is_not_an_annotator_has_no_feedback_page(researcher_client, feedback_data):
    make_user("res_002", "researcher")
    make_user("no_role")
    for name in ("res_001", "res_002", "no_role"):
        assert researcher_client.get(annotator_page(name)).status_code == 404, name
    llm = make_user("llm_rater")
    Annotation.objects.filter(annotator=feedback_data.users["ann_a"]).update(source=Annotation.Source.LLM)
    Annotation.objects.filter(annotator=feedback_data.users["ann_a"]).update(annotator=llm)
    assert researcher_client.get(annotator_page("llm_rater")).status_code == 404  # an LLM's ratings only


def test_a_former_annotator_with_ratings_keeps_their_page(researcher_client, feedback_data):
    user = feedback_data.users["ann_b"]
    user.groups.remove(Group.objects.get(name="annotator"))
    assert researcher_client.get(annotator_page("ann_b")).status_code == 200
    assert researcher_client.get(annotator_page("ann_a")).status_code == 200


def test_before_any_rating_every_month_is_refused(researcher_client, frozen):
    Annotation.objects.all().delete()
    frozen(MARCH_20_TOKYO)
    html = researcher_client.post(prepare(2026, 2)).content.decode()
    assert "cannot be stored: nobody has rated an item yet. No month with ratings has ended yet." in html
