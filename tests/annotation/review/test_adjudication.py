"""Researchers' adjudications: recorded with history, in force in the consensus downloads and exports."""

import json

import pytest
from django.core.management import call_command

from annotation.models import Adjudication, Dialogue, ItemComment
from annotation.review.selectors import adjudications_in_force, batch_consensus
from annotation.review.services import ReviewError, adjudication_record, item_comment_create, item_comment_resolve
from tests.helpers import make_user

pytestmark = pytest.mark.django_db


@pytest.fixture
def batch(disputed_batch):
    return disputed_batch


def _without_timestamps(lines):
    """The two runs may straddle a second boundary: compare all but the time they were made."""
    return [{key: value for key, value in line.items() if key != "timestamp"} for line in lines]


def _item(external_id="dialogue_000"):
    return Dialogue.objects.get(external_id=external_id)


def test_the_latest_decision_holds_and_earlier_ones_stay_as_history(batch):
    researcher = make_user("res", "researcher")
    adjudication_record(dialogue=_item(), axis="social", score=2, reason="first look", user=researcher)
    adjudication_record(dialogue=_item(), axis="social", score=3, reason="on reflection", user=researcher)
    assert Adjudication.objects.filter(dialogue=_item()).count() == 2
    [(external_id, decided)] = adjudications_in_force(batch).items()
    assert external_id == "dialogue_000" and decided["social"].score == 3 and decided["social"].by == "res"
    assert decided["social"].reason == "on reflection"


def test_a_withdrawn_decision_is_no_longer_in_force(batch):
    researcher = make_user("res", "researcher")
    adjudication_record(dialogue=_item(), axis="social", score=2, reason="first look", user=researcher)
    adjudication_record(dialogue=_item(), axis="social", score=None, reason="leave it to the ratings", user=researcher)
    assert adjudications_in_force(batch) == {}
    assert Adjudication.objects.count() == 2


@pytest.mark.parametrize(
    ("axis", "score", "reason", "message"),
    [
        ("tone", 3, "r", "axis must be one of social, avoidant, mechanical, self"),
        ("social", 6, "r", "score must be an integer from 1 to 5"),
        ("social", 3, "  ", "a reason is required"),
    ],
)
def test_bad_decisions_are_refused_with_what_is_accepted(batch, axis, score, reason, message):
    with pytest.raises(ReviewError, match=message):
        adjudication_record(dialogue=_item(), axis=axis, score=score, reason=reason, user=None)
    assert not Adjudication.objects.exists()


def test_the_disputed_item_is_rejected_until_adjudicated_then_merged_and_marked(batch):
    result, _summary = batch_consensus(batch)
    assert "dialogue_000" in [line["id"] for line in result.rejected]
    assert "dialogue_000" not in [line["id"] for line in result.consensus]
    adjudication_record(
        dialogue=_item(), axis="social", score=3, reason="moderate", user=make_user("res", "researcher")
    )
    result, summary = batch_consensus(batch)
    assert "dialogue_000" not in [line["id"] for line in result.rejected] and summary["adjudicated_items"] == 1
    line = next(line for line in result.consensus if line["id"] == "dialogue_000")
    assert line["annotations"]["social"] == 3 and line["adjudicated"]["social"]["merged"] == 3.0
    assert line["adjudicated"]["social"]["by"] == "res"


def test_the_consensus_download_and_export_carry_the_adjudicated_value(batch, client, tmp_path):
    researcher = make_user("res", "researcher")
    adjudication_record(dialogue=_item(), axis="social", score=4, reason="strong flattery", user=researcher)
    client.force_login(researcher)
    body = client.get(f"/research/agreement/{batch.pk}/consensus.jsonl").content.decode()
    downloaded = {line["id"]: line for line in map(json.loads, body.splitlines())}
    assert downloaded["dialogue_000"]["adjudicated"]["social"]["reason"] == "strong flattery"
    assert downloaded["dialogue_000"]["annotations"]["social"] == 4
    call_command("export_consensus", "--output", str(tmp_path / "c.jsonl"), "--batch", "adj")
    exported = [json.loads(line) for line in (tmp_path / "c.jsonl").read_text(encoding="utf-8").splitlines()]
    assert _without_timestamps(exported) == _without_timestamps(downloaded.values())


def test_comments_need_text_or_a_problem_mark_and_can_be_resolved(batch):
    annotator = make_user("ann", "annotator")
    with pytest.raises(ReviewError, match="write a comment or mark"):
        item_comment_create(dialogue=_item(), author=annotator, text="  ")
    with pytest.raises(ReviewError, match="at most 2000 characters"):
        item_comment_create(dialogue=_item(), author=annotator, text="x" * 2001)
    comment = item_comment_create(dialogue=_item(), author=annotator, problem=True)
    assert comment.problem and comment.text == "" and comment.resolved_at is None
    assert item_comment_resolve(comment=comment).resolved_at is not None
    assert ItemComment.objects.count() == 1
