"""Researchers draw judge audits from the list page or a Layer3 batch page, and close or reopen them."""

import pytest
from django.test import Client

from annotation.models import AuditItem, JudgeAudit
from core import judge_audits
from core.judge_audits import AuditSourceError, JudgedPopulation, JudgedUnit
from tests.helpers import make_user

pytestmark = pytest.mark.django_db

LIST = "/research/audits/"
CREATE = "/research/audits/new/"
EVIL = "<script>alert(1)</script>"


def _population(batch: str, kind: str) -> JudgedPopulation:
    if batch != "judged":
        raise AuditSourceError(f"no Layer3 batch named {batch!r}")
    units = tuple(
        JudgedUnit(
            key=f"t{i:02d}:g{j}",
            trial_id=f"t{i:02d}",
            model_config="AB"[i % 2],
            judge_model="judge-model",
            judge_prompt="layer3.gv_relevance@1",
            score=(i + j) % 3,
            label=("not_relevant", "generic", "useful")[(i + j) % 3],
            reasoning=EVIL,
            baseline_score=j % 3,
            context={"concern": "締め切りが不安", "text": EVIL},
        )
        for i in range(10)
        for j in range(3)
    )
    return JudgedPopulation(batch, kind, units, {"judge-model@layer3.gv_relevance@1": 0.33})


@pytest.fixture(autouse=True)
def source():
    saved = dict(judge_audits._registry)
    judge_audits.register_judged_units(_population)
    judge_audits.register_batch_page(lambda name: f"/research/layer3/by-name/{name}/" if name == "judged" else None)
    judge_audits.register_batch_names(lambda: ["judged", "other"])
    yield
    judge_audits._registry.clear()
    judge_audits._registry.update(saved)


@pytest.fixture
def researcher_client():
    client = Client(enforce_csrf_checks=False)
    client.force_login(make_user("res", "researcher"))
    client.cookies["django_language"] = "en"
    return client


def test_a_researcher_draws_an_audit_and_goes_back_to_the_page_they_came_from(researcher_client):
    data = {"batch": "judged", "kind": "gv", "size": 12, "per_item": 2, "seed": 5, "next": "/research/layer3/1/"}
    response = researcher_client.post(CREATE, data, follow=False)
    assert response.status_code == 302 and response["Location"] == "/research/layer3/1/"
    audit = JudgeAudit.objects.get()
    assert (audit.source_batch, audit.kind, audit.per_item, audit.seed) == ("judged", "gv", 2, 5)
    assert AuditItem.objects.filter(audit=audit).count() == 12
    page = researcher_client.get(LIST).content.decode()
    assert audit.name in page and 'href="/research/layer3/by-name/judged/"' in page
    assert "0 of 12 items complete" in page


def test_an_outside_next_is_not_followed(researcher_client):
    data = {"batch": "judged", "kind": "gv", "size": 12, "per_item": 2, "next": "https://example.com/"}
    response = researcher_client.post(CREATE, data)
    assert response["Location"] == LIST


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ({"batch": "nope", "kind": "gv", "size": 12, "per_item": 2}, "no Layer3 batch named"),
        ({"batch": "judged", "kind": "xx", "size": 12, "per_item": 2}, "What to audit"),
        ({"batch": "judged", "kind": "gv", "size": 0, "per_item": 2}, "Sample size"),
        ({"batch": "judged", "kind": "gv", "size": 12, "per_item": 0}, "Ratings per item"),
        ({"batch": "judged", "kind": "gv", "size": 3, "per_item": 2}, "not created"),
    ],
)
def test_bad_input_creates_nothing_and_says_why(researcher_client, data, message):
    response = researcher_client.post(CREATE, data, follow=True)
    assert JudgeAudit.objects.count() == 0
    assert message in response.content.decode()


def test_closing_stops_the_queue_and_reopening_restarts_it(researcher_client):
    researcher_client.post(CREATE, {"batch": "judged", "kind": "gv", "size": 12, "per_item": 2})
    audit = JudgeAudit.objects.get()
    researcher_client.post(f"/research/audits/{audit.pk}/close/")
    audit.refresh_from_db()
    assert audit.status == "closed"
    researcher_client.post(f"/research/audits/{audit.pk}/reopen/")
    audit.refresh_from_db()
    assert audit.status == "open"


def test_only_researchers_may_open_or_post():
    annotator = Client()
    annotator.force_login(make_user("ann", "annotator"))
    assert annotator.get(LIST).status_code == 403
    assert annotator.post(CREATE, {"batch": "judged", "kind": "gv", "size": 12, "per_item": 2}).status_code == 403
    anonymous = Client()
    assert anonymous.get(LIST).status_code == 302
    assert JudgeAudit.objects.count() == 0


def test_the_form_needs_the_csrf_token():
    client = Client(enforce_csrf_checks=True)
    client.force_login(make_user("res", "researcher"))
    response = client.post(CREATE, {"batch": "judged", "kind": "gv", "size": 12, "per_item": 2})
    assert response.status_code == 403 and JudgeAudit.objects.count() == 0


def test_the_list_page_escapes_names_and_speaks_japanese_by_default(researcher_client):
    researcher_client.post(CREATE, {"batch": "judged", "kind": "gv", "size": 12, "per_item": 2})
    JudgeAudit.objects.update(name=EVIL)
    english = researcher_client.get(LIST).content.decode()
    assert EVIL not in english and "&lt;script&gt;" in english
    japanese = Client()
    japanese.force_login(make_user("res2", "researcher"))
    assert "判定監査" in japanese.get(LIST).content.decode()


def test_the_form_offers_the_evaluated_layer3_batches(researcher_client):
    page = researcher_client.get(LIST).content.decode()
    assert '<select name="batch"' in page
    assert '<option value="judged">judged</option>' in page and '<option value="other">other</option>' in page
