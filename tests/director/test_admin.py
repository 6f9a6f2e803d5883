"""The Director in Django admin: staff look at sessions, attempts and verdicts; text is escaped; nothing is editable."""

import pytest

from director.models import DirectorSession, RetryVerdict, UtteranceAttempt
from director.sessions.services import session_create, turn_run

pytestmark = pytest.mark.django_db

SCRIPT = "<script>alert('line')</script>"
MODELS = ["directorsession", "utteranceattempt", "retryverdict"]


@pytest.fixture
def recorded():
    session = session_create(scene=f"場面 {SCRIPT}", title=f"題 {SCRIPT}", llm_review=False)
    turn_run(session_id=session.pk, speaker="yana", texts=[f"{SCRIPT} えー、ほんと？ 行ってみたいかも！"])
    return session


@pytest.mark.parametrize("model", MODELS)
def test_staff_see_the_lists_with_the_text_escaped(client, staff_user, recorded, model):
    client.force_login(staff_user)
    response = client.get(f"/admin/director/{model}/")
    assert response.status_code == 200
    assert b"<script>alert" not in response.content
    assert b"&lt;script&gt;alert" in response.content


def test_the_lists_show_their_columns_search_and_filter(client, staff_user, recorded):
    client.force_login(staff_user)
    sessions = client.get("/admin/director/directorsession/", {"q": "場面"}).content.decode()
    assert "yana, ayu" in sessions and recorded.rules_version in sessions
    assert f"/admin/director/directorsession/{recorded.pk}/" in sessions
    verdict = RetryVerdict.objects.get()
    assert verdict.status == "PASS"
    found = client.get("/admin/director/retryverdict/", {"q": "ほんと", "status__exact": "PASS"})
    assert found.status_code == 200 and f"/admin/director/retryverdict/{verdict.pk}/change/" in found.content.decode()
    missed = client.get("/admin/director/retryverdict/", {"q": "ほんと", "status__exact": "RETRY"})
    assert f"/admin/director/retryverdict/{verdict.pk}/change/" not in missed.content.decode()
    attempts = client.get("/admin/director/utteranceattempt/", {"shown__exact": "1", "source__exact": "given"})
    assert attempts.status_code == 200 and "ほんと" in attempts.content.decode()


def test_a_verdict_page_escapes_its_text_and_nothing_can_be_added_changed_or_deleted(client, staff_user, recorded):
    client.force_login(staff_user)
    verdict = RetryVerdict.objects.get()
    response = client.get(f"/admin/director/retryverdict/{verdict.pk}/change/")
    assert response.status_code == 200
    assert b"<script>alert" not in response.content and b"&lt;script&gt;alert" in response.content
    assert b'name="_save"' not in response.content
    assert client.post(f"/admin/director/retryverdict/{verdict.pk}/change/", {"status": "RETRY"}).status_code == 403
    assert client.get("/admin/director/directorsession/add/").status_code == 403
    attempt = UtteranceAttempt.objects.get()
    assert client.post(f"/admin/director/utteranceattempt/{attempt.pk}/delete/", {"post": "yes"}).status_code == 403
    assert client.post(f"/admin/director/directorsession/{recorded.pk}/delete/", {"post": "yes"}).status_code == 403
    assert DirectorSession.objects.count() == UtteranceAttempt.objects.count() == RetryVerdict.objects.count() == 1
    assert RetryVerdict.objects.get().status == verdict.status


def test_researchers_and_annotators_do_not_get_into_admin(client, researcher, annotator, recorded):
    for user in (researcher, annotator):
        client.force_login(user)
        for model in MODELS:
            response = client.get(f"/admin/director/{model}/")
            assert response.status_code == 302 and "/login/" in response["Location"]
