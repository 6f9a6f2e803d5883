"""Quarterly re-training: the qualification's expiry in the queue, its notice, and researchers' extensions.

Time is frozen through ``annotation.collection.qualification.clock``; the qualification was passed
``PASSED_DAYS_AGO`` days before the frozen "now" of each test. Runs on SQLite and, with
DATABASE_URL, on PostgreSQL (the single-statement queue).
"""

import re
from datetime import timedelta

import pytest
from django.test import Client
from django.utils import timezone, translation
from django.utils.formats import date_format

from annotation.collection import qualification
from annotation.collection.queue import assignment_next
from annotation.models import Annotation, Assignment, Batch, Dialogue, QualificationAttempt, QualificationExtension
from tests.helpers import make_user

pytestmark = pytest.mark.django_db
HTMX = {"HX-Request": "true"}
AXES = ("social", "avoidant", "mechanical", "self")


def _rating():
    data = {"social": "2", "avoidant": "1", "mechanical": "3", "self": "1"}
    data.update({f"{axis}_confidence": "1.0" for axis in AXES})
    return data


def _assignment_id(html: str) -> int | None:
    found = re.search(r'data-assignment="(\d+)"', html)
    return int(found.group(1)) if found else None


@pytest.fixture
def passed_at():
    return timezone.now().replace(microsecond=0) - timedelta(days=30)


@pytest.fixture
def freeze(monkeypatch):
    """Freeze the expiry rule's clock at a given time."""

    def at(moment):
        monkeypatch.setattr(qualification, "clock", lambda: moment)
        return moment

    return at


@pytest.fixture
def annotator(client, passed_at, settings):
    settings.QUALIFICATION_VALID_DAYS = 92
    user = make_user("ann", "annotator")
    QualificationAttempt.objects.create(
        annotator=user, started_at=passed_at - timedelta(hours=1), finished_at=passed_at, passed=True
    )
    client.force_login(user)
    return user


@pytest.fixture
def batch():
    batch = Batch.objects.create(name="b", annotations_per_item=2)
    for i in range(3):
        Dialogue.objects.create(external_id=f"d{i}", user_text=f"u{i}", response_text=f"r{i}", batch=batch)
    return batch


def test_a_qualification_expires_the_set_number_of_days_after_it_was_passed(passed_at, settings):
    settings.QUALIFICATION_VALID_DAYS = 92
    expiry = passed_at + timedelta(days=92)
    of = qualification.Qualification.of
    assert of(passed_at, None, now=expiry - timedelta(days=14, seconds=1)).state == "valid"
    assert of(passed_at, None, now=expiry - timedelta(days=14)).state == "expiring"
    assert of(passed_at, None, now=expiry - timedelta(seconds=1)).state == "expiring"
    assert of(passed_at, None, now=expiry).state == "expired"
    assert of(passed_at, None, now=expiry).expires == expiry
    assert of(None, None, now=expiry).state == "none"
    assert of(passed_at, expiry + timedelta(days=5), now=expiry).state == "expiring"  # extended


def test_with_zero_valid_days_a_qualification_never_expires(client, annotator, batch, passed_at, freeze, settings):
    settings.QUALIFICATION_VALID_DAYS = 0
    freeze(passed_at + timedelta(days=5 * 365))
    html = client.get(f"/annotate/{batch.pk}/").content.decode()
    assert _assignment_id(html) is not None
    assert "data-qualification-notice" not in html
    assert qualification.qualification_of(annotator).state == "valid"


def test_an_expired_annotator_is_handed_nothing_new_by_the_queue(annotator, batch, passed_at, freeze):
    freeze(passed_at + timedelta(days=93))
    assert assignment_next(batch=batch, annotator=annotator, take_new=False) is None
    assert not Assignment.objects.exists()
    assert assignment_next(batch=batch, annotator=annotator) is not None  # the rule is the caller's flag


def test_the_rating_page_of_an_expired_annotator_explains_and_links_to_re_training(
    client, annotator, batch, passed_at, freeze
):
    freeze(passed_at + timedelta(days=92, minutes=1))
    response = client.get(f"/annotate/{batch.pk}/")
    html = response.content.decode()
    assert response.status_code == 200
    assert _assignment_id(html) is None and not Assignment.objects.exists()
    assert 'data-qualification-notice="expired"' in html and 'data-batch-state="qualification-expired"' in html
    assert "認定の有効期限が切れました" in html and 'href="/training/#retraining"' in html
    batches = client.get("/annotate/").content.decode()
    assert 'data-batch-expired="b"' in batches and 'data-batch="b"' not in batches


def test_an_open_reservation_is_finished_and_submitted_after_the_expiry_then_nothing_new(
    client, annotator, batch, passed_at, freeze
):
    freeze(passed_at + timedelta(days=80))
    first = _assignment_id(client.get(f"/annotate/{batch.pk}/").content.decode())
    assert first is not None
    freeze(passed_at + timedelta(days=93))  # expired while the item was open
    html = client.get(f"/annotate/{batch.pk}/").content.decode()
    assert _assignment_id(html) == first  # the open reservation is still shown
    response = client.post(f"/annotate/{batch.pk}/{first}/submit/", _rating(), headers=HTMX)
    assert response.status_code == 200
    assert Annotation.objects.filter(annotator=annotator).count() == 1
    assert _assignment_id(response.content.decode()) is None  # nothing new after it
    assert Assignment.objects.filter(annotator=annotator).count() == 1


def test_undoing_a_skip_and_the_spreadsheet_need_a_valid_qualification(client, annotator, batch, passed_at, freeze):
    freeze(passed_at + timedelta(days=93))
    response = client.get(f"/annotate/{batch.pk}/sheet/")
    assert response.status_code == 302 and response["Location"] == "/training/"


def test_the_expiry_notice_shows_the_date_from_14_days_ahead_and_not_before(
    client, annotator, batch, passed_at, freeze
):
    expiry = passed_at + timedelta(days=92)
    freeze(expiry - timedelta(days=14, minutes=1))
    for url in (f"/annotate/{batch.pk}/", "/annotate/", "/training/"):
        assert "data-qualification-notice" not in client.get(url).content.decode(), url
    freeze(expiry - timedelta(days=14) + timedelta(minutes=1))
    local = timezone.localtime(expiry)
    for url in (f"/annotate/{batch.pk}/", "/annotate/"):
        html = client.get(url).content.decode()
        assert f'data-qualification-notice="expiring" data-expires="{local:%Y-%m-%d}"' in html, url
        with translation.override("ja"):
            assert f"{date_format(local, 'DATE_FORMAT')} に有効期限が切れます" in html, url
        assert f"{local.year}年{local.month}月{local.day}日" in html, url
    training_page = client.get("/training/").content.decode()
    assert 'data-qualification-state="expiring"' in training_page and 'id="retraining"' in training_page
    client.cookies["django_language"] = "en"
    english = client.get(f"/annotate/{batch.pk}/").content.decode()
    notice = re.search(r"Your qualification expires on [^<]*", english).group(0)
    with translation.override("en"):
        assert f"Your qualification expires on {date_format(local, 'DATE_FORMAT')}." in notice, notice
    assert _assignment_id(english) is not None  # still handed items until the expiry


def _extend(client, user, **data):
    return client.post(f"/research/qualifications/{user.pk}/extend/", data)


def _days_after(now, days: int) -> str:
    """The site-time date ``days`` after ``now`` (an extension within the bound: one validity period)."""
    return (timezone.localtime(now) + timedelta(days=days)).date().isoformat()


def test_a_researcher_extends_a_qualification_with_a_reason_and_it_is_recorded(
    client, annotator, batch, passed_at, freeze
):
    now = freeze(passed_at + timedelta(days=93))
    until = _days_after(now, 30)
    researcher = make_user("res", "researcher")
    other = Client()
    other.force_login(researcher)
    activity = f"/research/batches/{batch.pk}/activity/"
    response = _extend(other, annotator, until=until, reason="病欠のため延長", next=activity)
    assert response.status_code == 302 and response["Location"] == activity
    record = QualificationExtension.objects.get()
    assert record.annotator == annotator and record.extended_by == researcher and record.reason == "病欠のため延長"
    assert record.old_expires_at == passed_at + timedelta(days=92)
    assert timezone.localtime(record.new_expires_at).date().isoformat() == until
    page = other.get(activity).content.decode()
    assert 'data-expiry-annotator="ann" data-state="valid"' in page and "病欠のため延長" in page
    assert until in page
    # the annotator gets items again (the session's expired state is read afresh)
    assert _assignment_id(client.get(f"/annotate/{batch.pk}/").content.decode()) is not None


def test_an_extension_needs_a_reason_a_researcher_and_a_csrf_token(client, annotator, passed_at, freeze):
    until = _days_after(freeze(passed_at + timedelta(days=93)), 30)
    researcher = make_user("res", "researcher")
    other = Client()
    other.force_login(researcher)
    _extend(other, annotator, until=until, reason="   ")
    assert not QualificationExtension.objects.exists()
    _extend(client, annotator, until=until, reason="self-service")  # the annotator themself
    assert not QualificationExtension.objects.exists()
    strict = Client(enforce_csrf_checks=True)
    strict.force_login(researcher)
    assert _extend(strict, annotator, until=until, reason="r").status_code == 403
    assert not QualificationExtension.objects.exists()
    assert QualificationAttempt.objects.get().extended_until is None


def test_an_extension_must_move_the_expiry_later(annotator, passed_at):
    researcher = make_user("res", "researcher")
    with pytest.raises(qualification.ExtensionRefused) as refused:
        qualification.qualification_extend(
            annotator=annotator, until=passed_at + timedelta(days=50), reason="r", by=researcher
        )
    assert refused.value.template == qualification.NOT_LATER
    with pytest.raises(qualification.ExtensionRefused) as refused:
        qualification.qualification_extend(
            annotator=make_user("new", "annotator"), until=passed_at + timedelta(days=100), reason="r", by=researcher
        )
    assert refused.value.template == qualification.NEVER_PASSED
    assert not QualificationExtension.objects.exists()


def test_an_extension_reaches_at_most_one_validity_period_from_today(client, annotator, batch, passed_at, freeze):
    """Issue #41: an expiry could be moved to 9999-12-31. The latest is the end of the day QUALIFICATION_VALID_DAYS
    after today (what passing the re-qualification test today would give); the page says so and bounds its input."""
    now = freeze(passed_at + timedelta(days=80))
    researcher = make_user("res", "researcher")
    other = Client()
    other.force_login(researcher)
    other.cookies["django_language"] = "en"
    activity = f"/research/batches/{batch.pk}/activity/"
    latest = _days_after(now, 92)
    for until in ("9999-12-31", _days_after(now, 93)):
        response = _extend(other, annotator, until=until, reason="r", next=activity)
        assert response.status_code == 302 and response["Location"] == activity
        page = other.get(activity).content.decode()
        assert (
            f"The qualification was not extended. The new expiry date can be at most 92 days from today "
            f"(QUALIFICATION_VALID_DAYS, the validity of a passed test): {latest} at the latest, not {until}."
        ) in page
    assert not QualificationExtension.objects.exists()
    assert f'min="{_days_after(now, 0)}" max="{latest}"' in page
    assert f"A new expiry date can be at most one validity period from today: {latest} at the latest." in page
    other.cookies["django_language"] = "ja"
    _extend(other, annotator, until="9999-12-31", reason="r", next=activity)
    page = other.get(activity).content.decode()
    assert (
        "新しい有効期限は今日から最長 92 日後まで（QUALIFICATION_VALID_DAYS、合格したテストの有効期間）です。" in page
    )
    assert f"9999-12-31 ではなく、{latest} 以前の日付にしてください。" in page
    response = _extend(other, annotator, until=latest, reason="r", next=activity)
    record = QualificationExtension.objects.get()
    assert timezone.localtime(record.new_expires_at).date().isoformat() == latest


def test_a_date_in_the_past_is_refused(annotator, passed_at, freeze):
    now = freeze(passed_at + timedelta(days=93))
    with pytest.raises(qualification.ExtensionRefused) as refused:
        qualification.qualification_extend(
            annotator=annotator, until=now - timedelta(days=1), reason="r", by=make_user("res", "researcher")
        )
    assert refused.value.template == qualification.NOT_IN_FUTURE


def test_with_qualifications_that_never_expire_there_is_nothing_to_extend(annotator, passed_at, settings):
    settings.QUALIFICATION_VALID_DAYS = 0
    with pytest.raises(qualification.ExtensionRefused) as refused:
        qualification.qualification_extend(
            annotator=annotator, until=passed_at + timedelta(days=60), reason="r", by=make_user("res", "researcher")
        )
    assert refused.value.template == qualification.NEVER_EXPIRES
    assert qualification.latest_extension() is None
    assert not QualificationExtension.objects.exists()


def test_the_api_refuses_an_expired_annotator_new_items_and_says_why(annotator, batch, passed_at, freeze):
    from tests.annotation.api.support import API, logged_in, post

    api = logged_in(annotator)
    freeze(passed_at + timedelta(days=93))
    response = post(api, API + f"batches/{batch.pk}/next/")
    assert response.status_code == 403 and "再認定テスト" in response.json()["error"]
    assert not Assignment.objects.exists()
    freeze(passed_at + timedelta(days=91))
    assert post(api, API + f"batches/{batch.pk}/next/").status_code == 200


def test_through_the_api_an_expired_annotator_finishes_their_open_reservation_then_gets_nothing_new(
    annotator, batch, passed_at, freeze
):
    from tests.annotation.api.support import API, logged_in, post

    api = logged_in(annotator)
    freeze(passed_at + timedelta(days=91))
    reserved = post(api, API + f"batches/{batch.pk}/next/").json()["assignment_id"]
    freeze(passed_at + timedelta(days=93))  # expired with the reservation open: as on the web pages
    assert post(api, API + f"batches/{batch.pk}/next/").json()["assignment_id"] == reserved
    body = {"assignment_id": reserved, "scores": dict.fromkeys(AXES, 3), "confidence": dict.fromkeys(AXES, 1.0)}
    assert post(api, API + "annotations/", body).status_code == 201
    response = post(api, API + f"batches/{batch.pk}/next/")
    assert response.status_code == 403 and "再認定テスト" in response.json()["error"]
    assert Assignment.objects.filter(annotator=annotator).count() == 1
