"""The qualification's expiry adds no query to the rating page's hot path (GET next item, POST submit).

The counts below are those of the rating page before the expiry existed (measured on the commit
before it: SQLite 5 / 21 / 9, PostgreSQL with its statements unprepared 4 / 6 / 3); the expiry is
read from the session that every request loads anyway. A qualification in its notice window is
checked against the database once a day, not per request.
"""

import re
from datetime import timedelta

import pytest
from django.db import connection
from django.utils import timezone

from annotation.collection import qualification
from annotation.models import Batch, Dialogue, QualificationAttempt
from tests.helpers import make_user

pytestmark = pytest.mark.django_db
HTMX = {"HX-Request": "true"}
AXES = ("social", "avoidant", "mechanical", "self")
# (GET rating page, HTMX submit answering with the next item, plain-form submit answering with a redirect)
BEFORE = {"sqlite": (5, 21, 9), "postgresql": (4, 6, 3)}


def _rating():
    data = {"social": "2", "avoidant": "1", "mechanical": "3", "self": "1"}
    data.update({f"{axis}_confidence": "1.0" for axis in AXES})
    return data


def _assignment_id(html: str) -> int:
    return int(re.search(r'data-assignment="(\d+)"', html).group(1))


@pytest.fixture
def rating_page(client, settings):
    settings.DB_PREPARED_STATEMENTS = False  # prepared statements run outside Django's cursor: uncounted
    settings.QUALIFICATION_VALID_DAYS = 92
    batch = Batch.objects.create(name="b", annotations_per_item=2)
    for i in range(4):
        Dialogue.objects.create(external_id=f"d{i}", user_text="u", response_text="r", batch=batch)
    user = make_user("rater", "annotator")
    client.force_login(user)
    return batch, user


def _qualify(user, *, days_ago: int):
    passed = timezone.now() - timedelta(days=days_ago)
    QualificationAttempt.objects.create(annotator=user, started_at=passed, finished_at=passed, passed=True)


def _hot_path(client, batch, django_assert_num_queries):
    get, htmx_post, page_post = BEFORE[connection.vendor]
    client.get(f"/annotate/{batch.pk}/")  # the first page of the session: the reservation, the session's state
    with django_assert_num_queries(get):
        html = client.get(f"/annotate/{batch.pk}/").content.decode()
    with django_assert_num_queries(htmx_post):
        html = client.post(f"/annotate/{batch.pk}/{_assignment_id(html)}/submit/", _rating(), headers=HTMX)
    with django_assert_num_queries(page_post):
        client.post(f"/annotate/{batch.pk}/{_assignment_id(html.content.decode())}/submit/", _rating())


def test_a_valid_qualification_costs_the_rating_page_no_query(client, rating_page, django_assert_num_queries):
    batch, user = rating_page
    _qualify(user, days_ago=10)
    _hot_path(client, batch, django_assert_num_queries)


def test_a_qualification_in_its_notice_costs_no_query_after_the_days_first_check(
    client, rating_page, django_assert_num_queries
):
    batch, user = rating_page
    _qualify(user, days_ago=85)  # expires in 7 days: the notice is shown
    assert qualification.qualification_of(user).expiring
    _hot_path(client, batch, django_assert_num_queries)
    assert 'data-qualification-notice="expiring"' in client.get(f"/annotate/{batch.pk}/").content.decode()


def test_without_expiry_the_counts_are_the_same(client, rating_page, settings, django_assert_num_queries):
    settings.QUALIFICATION_VALID_DAYS = 0
    batch, user = rating_page
    _qualify(user, days_ago=1000)
    _hot_path(client, batch, django_assert_num_queries)
