"""Adjudicating a disputed item: one decision per changed axis, history kept, errors beside the form."""

import re

import pytest

from annotation.models import Adjudication
from annotation.review.selectors import batch_consensus
from tests.annotation.workspace.conftest import HTMX, item

pytestmark = pytest.mark.django_db


def _url(batch, external_id="dialogue_000") -> str:
    return f"/research/batches/{batch.pk}/items/{item(external_id).pk}/adjudicate/"


def _consensus_line(batch, external_id="dialogue_000") -> dict:
    result, _summary = batch_consensus(batch)
    return next(line for line in result.consensus if line["id"] == external_id)


def test_the_form_offers_the_disputed_axes_only(researcher_client, batch):
    html = researcher_client.get(f"/research/batches/{batch.pk}/items/{item('dialogue_000').pk}/").content.decode()
    form = html[html.index('class="ws-adjudication-form"') : html.index("</form>", html.index("ws-adjudication-form"))]
    assert 'name="social"' in form and 'name="avoidant"' not in form and 'name="reason"' in form
    assert '<option value="" selected>no decision</option>' in form
    html = researcher_client.get(f"/research/batches/{batch.pk}/items/{item('dialogue_001').pk}/").content.decode()
    assert "ws-adjudication-form" not in html and "nothing to adjudicate" in html


def test_a_decision_is_stored_and_the_consensus_carries_it(researcher_client, agreed_batch, researcher):
    batch = agreed_batch
    url = _url(batch, "dialogue_120")
    response = researcher_client.post(url, {"social": "3", "reason": "二人の中間", "query": "disputed=1"})
    assert response.status_code == 302
    assert response["Location"] == f"/research/batches/{batch.pk}/items/{item('dialogue_120').pk}/?disputed=1"
    decision = Adjudication.objects.get()
    assert (decision.axis, decision.score, decision.reason, decision.decided_by) == (
        "social",
        3,
        "二人の中間",
        researcher,
    )
    line = _consensus_line(batch, "dialogue_120")
    assert line["annotations"]["social"] == 3 and line["adjudicated"]["social"]["reason"] == "二人の中間"
    html = researcher_client.get(response["Location"]).content.decode()
    assert 'data-consensus="merged"' in html and 'data-adjudicated="social"' in html
    assert "merged 3.00" in html  # the merged value the decision replaced
    assert 'data-in-force="social"' in html and '<option value="3" selected>' in html


def test_a_change_and_a_withdrawal_keep_the_history(researcher_client, agreed_batch):
    batch = agreed_batch
    url = _url(batch, "dialogue_120")
    researcher_client.post(url, {"social": "3", "reason": "first"})
    researcher_client.post(url, {"social": "4", "reason": "second look"})
    assert _consensus_line(batch, "dialogue_120")["adjudicated"]["social"]["score"] == 4
    researcher_client.post(url, {"social": "", "reason": "leave it to the ratings"})
    assert list(Adjudication.objects.order_by("decided_at", "pk").values_list("score", flat=True)) == [3, 4, None]
    result, _summary = batch_consensus(batch)
    assert "dialogue_120" in [entry["id"] for entry in result.rejected]  # back to the ratings: spread too wide
    html = researcher_client.get(f"/research/batches/{batch.pk}/items/{item('dialogue_120').pk}/").content.decode()
    history = html[html.index('class="table ws-history') :]
    assert history.count('data-history="social"') == 3
    changes = re.findall(
        r'<td class="ws-nowrap">([^<]*(?:<(?:strong|span)[^>]*>[^<]*</(?:strong|span)>)?)</td>', history
    )
    assert [re.sub(r"<[^>]+>", "", change) for change in changes[1::2]] == ["4 → withdrawn", "3 → 4", "— → 3"]
    assert "leave it to the ratings" in history and 'data-in-force="social"' not in html


def test_a_missing_reason_is_refused_beside_the_field(researcher_client, batch):
    response = researcher_client.post(_url(batch), {"social": "3", "reason": "  "})
    assert response.status_code == 400
    html = response.content.decode()
    reason = html[html.index('data-field="reason"') :]
    assert "Give a reason: it is kept with the decision." in reason[: reason.index("</div>")]
    assert not Adjudication.objects.exists()


@pytest.mark.parametrize("score", ["7", "0", "three", "2.5"])
def test_a_bad_score_is_refused_beside_the_axis(researcher_client, batch, score):
    response = researcher_client.post(_url(batch), {"social": score, "reason": "r"})
    html = response.content.decode()
    field = html[html.index('data-field="social"') :]
    assert f"Choose a score from 1 to 5, or no decision; got {score}." in field[: field.index("</div>")]
    assert not Adjudication.objects.exists()


def test_nothing_changed_is_said_and_an_undisputed_axis_is_ignored(researcher_client, batch):
    response = researcher_client.post(_url(batch), {"avoidant": "5", "reason": "not disputed"})
    assert "Nothing changed" in response.content.decode()
    assert not Adjudication.objects.exists()


def test_htmx_gets_the_updated_review_section(researcher_client, batch):
    response = researcher_client.post(_url(batch), {"social": "2", "reason": "closest to the guideline"}, headers=HTMX)
    html = response.content.decode()
    assert response.status_code == 200 and html.lstrip().startswith('<div id="ws-review"')
    assert "The decision was recorded." in html and 'data-adjudicated="social"' in html
    assert "closest to the guideline" in html and Adjudication.objects.get().score == 2
    error = researcher_client.post(_url(batch), {"social": "4"}, headers=HTMX).content.decode()
    assert "Give a reason" in error and error.lstrip().startswith('<div id="ws-review"')


def test_adjudicating_needs_a_post(researcher_client, batch):
    assert researcher_client.get(_url(batch)).status_code == 405


def test_the_reason_is_escaped(researcher_client, batch):
    researcher_client.post(_url(batch), {"social": "2", "reason": "<script>alert(1)</script>"})
    html = researcher_client.get(f"/research/batches/{batch.pk}/items/{item('dialogue_000').pk}/").content.decode()
    assert "<script>alert" not in html and "&lt;script&gt;alert(1)&lt;/script&gt;" in html
