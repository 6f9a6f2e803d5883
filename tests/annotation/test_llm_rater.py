"""The LLM as one more sycophancy rater (issue 18), against the fake OpenAI server: what it is shown, what is
stored and under which account, and that it stays out of consensus and human agreement unless included."""

import json
import re

import pytest
from django.contrib.auth.validators import UnicodeUsernameValidator
from django.core.management import CommandError, call_command

from annotation.guidelines import loader as guidelines
from annotation.job_handlers import LLM_RATE
from annotation.llm_rater import (
    PROMPT_REF,
    LLMRaterUnavailable,
    dialogue_variables,
    guidelines_text,
    llm_rate,
    llm_rate_estimate,
    llm_rater_account,
    llm_rater_label,
    llm_rater_username,
)
from annotation.models import Annotation, AnnotationEdit, Batch, Dialogue
from annotation.review.selectors import batch_consensus
from annotation.services import agreement_report_create
from core.job_runner import job_run
from core.models import Job
from core.services import job_enqueue
from llm.prompts import get as get_prompt
from llm.services import Budget
from tests.annotation.conftest import dialogue, rating
from tests.fakes.openai_server import Reply
from tests.helpers import PASSWORD
from tests.llm.conftest import fake_llm  # noqa: F401 - the fake OpenAI endpoint

pytestmark = pytest.mark.django_db

AXES = ("social", "avoidant", "mechanical", "self")
HUMAN_CONFIDENCE = 0.77  # distinctive: it must never reach the LLM
BROKEN = 5  # the LLM answers dialogue_005 with a score outside the scale
ACCOUNT = "llm.fake-model@annotation.sycophancy_rate@1"


def _human_level(i: int) -> int:
    return 1 + i % 5


@pytest.fixture
def batch(jsonl):
    """Batch "llm": six dialogues with distinctive texts, each rated alike by two people (level 1 + i % 5)."""
    items = [
        dialogue(i, user=f"ユーザーの質問その{i}", response=f"AIの応答その{i}です。",
                 context=[{"turn": -1, "speaker": "user", "text": f"前置きの発話その{i}"},
                          {"turn": 1, "speaker": "user", "text": f"後の発話その{i}"}])
        for i in range(6)
    ]  # fmt: skip
    call_command("import_dialogues", str(jsonl(items)), batch="llm")
    rows = [
        rating(i, who, scores=(_human_level(i),) * 4, conf=(HUMAN_CONFIDENCE,) * 4)
        for i in range(6)
        for who in ("ann_a", "ann_b")
    ]
    call_command("import_annotations", str(jsonl(rows)))
    return Batch.objects.get(name="llm")


def _item_of(request: dict) -> int:
    user = request["messages"][1]["content"]
    return int(re.search(r"<response>\nAIの応答その(\d+)です。", user).group(1))


def _answer(shift: int = 0):
    """The fake LLM's rating: the people's level on every axis, social one higher (+ ``shift``); 7 for BROKEN."""

    def reply(request: dict) -> Reply:
        i = _item_of(request)
        level = _human_level(i)
        social = 7 if i == BROKEN else min(5, level + 1 + shift)
        return Reply.json(
            {
                "annotations": {"social": social, "avoidant": level, "mechanical": level, "self": level},
                "confidence": dict.fromkeys(AXES, 0.9),
                "reasoning": "賞賛語が一つある。",
            }
        )

    return reply


@pytest.fixture
def llm(fake_llm):  # noqa: F811
    fake_llm.default_reply = _answer()
    return fake_llm


def _chat_requests(server) -> list[dict]:
    return [r["json"] for r in server.requests if r["path"] == "/v1/chat/completions"]


def _llm_ratings():
    return Annotation.objects.filter(annotator__username=ACCOUNT)


def test_the_prompt_holds_the_guidelines_and_the_dialogue_and_no_human_rating(batch, llm):
    llm_rate(batch=batch)
    requests = {_item_of(r): r for r in _chat_requests(llm)}
    assert set(requests) == set(range(6))
    _system, user = (m["content"] for m in requests[2]["messages"])
    assert guidelines.guideline_text("axis_definitions").strip() in user  # definitions with their levels
    assert guidelines.guideline_text("edge_cases").strip() in user
    assert "賞賛語: 素晴らし、すばらし" in user and "自己参照語" in user  # the markers of markers.json
    for text in ("ユーザーの質問その2", "AIの応答その2です。", "turn -1 (user): 前置きの発話その2",
                 "turn +1 (user): 後の発話その2"):  # fmt: skip
        assert text in user
    # Exactly the prompt filled with the guidelines and this dialogue: nothing else reaches the model.
    expected = get_prompt(PROMPT_REF).render(dialogue_variables(Dialogue.objects.get(external_id="dialogue_002")))
    assert requests[2]["messages"] == expected
    everything = json.dumps([r["messages"] for r in requests.values()], ensure_ascii=False)
    assert "ann_a" not in everything and "ann_b" not in everything and str(HUMAN_CONFIDENCE) not in everything
    assert "AIの応答その3です。" not in user  # one dialogue per request


def test_ratings_are_stored_with_source_llm_under_the_llm_account_and_bad_replies_fail_with_the_reason(batch, llm):
    summary = llm_rate(batch=batch)
    assert (summary.rated, summary.skipped, summary.to_rate) == (5, 0, 6)
    assert summary.rater == "llm:fake-model@annotation.sycophancy_rate@1" and summary.username == ACCOUNT
    [failure] = summary.failed
    assert failure["id"] == "dialogue_005"
    assert (
        failure["reason"].startswith("parse_error:")
        and "$.annotations.social: 7 is above the maximum 5" in (failure["reason"])
    )
    stored = {a.dialogue.external_id: a for a in _llm_ratings().select_related("dialogue")}
    assert set(stored) == {f"dialogue_{i:03d}" for i in range(5)}  # nothing for the failed one
    assert {a.source for a in stored.values()} == {Annotation.Source.LLM}
    assert stored["dialogue_002"].scores == {"social": 4, "avoidant": 3, "mechanical": 3, "self": 3}
    assert stored["dialogue_002"].confidences == dict.fromkeys(AXES, 0.9)
    profile = stored["dialogue_002"].annotator.annotator_profile
    assert profile.is_llm_rater and profile.rater_label == summary.rater and profile.llm_model == "fake-model"
    assert summary.cost_jpy > 0 and summary.run_id is not None


def test_a_rerun_asks_only_what_is_missing_and_changes_nothing_stored(batch, llm):
    llm_rate(batch=batch)
    before = list(_llm_ratings().order_by("pk").values())
    asked = len(_chat_requests(llm))
    estimate = llm_rate_estimate(batch=batch)
    assert (estimate.to_rate, estimate.already_rated) == (1, 5)
    summary = llm_rate(batch=batch)
    assert (summary.to_rate, summary.already_rated, summary.rated) == (1, 5, 0)
    assert [f["id"] for f in summary.failed] == ["dialogue_005"]
    assert len(_chat_requests(llm)) - asked == 2  # the failed one, asked and re-asked; no other
    assert list(_llm_ratings().order_by("pk").values()) == before
    assert not AnnotationEdit.objects.exists()


def test_force_re_rates_everything_and_keeps_the_old_values_in_the_history(batch, llm, researcher):
    llm_rate(batch=batch)
    llm.default_reply = _answer(shift=-1)  # now the LLM gives the people's level on social too
    summary = llm_rate(batch=batch, force=True, user=researcher)
    assert (summary.to_rate, summary.updated, summary.rated) == (6, 4, 0)
    assert summary.unchanged == 1  # dialogue_004: level 5, social was capped at 5 both times
    edit = AnnotationEdit.objects.get(annotation__dialogue__external_id="dialogue_002")
    assert edit.old_values["social_score"] == 4 and edit.new_values["social_score"] == 3
    assert edit.edited_by == researcher and edit.reason.startswith("llm_rate --force")
    assert _llm_ratings().get(dialogue__external_id="dialogue_002").social_score == 3


def _undated(lines: list[dict]) -> list[dict]:
    return [{key: value for key, value in line.items() if key != "timestamp"} for line in lines]


def test_consensus_leaves_the_llm_out_unless_included(batch, llm, tmp_path):
    people, _summary = batch_consensus(batch)
    llm_rate(batch=batch)
    without, _summary = batch_consensus(batch)
    assert _undated(without.consensus) == _undated(people.consensus) and len(people.consensus) == 6
    included, _summary = batch_consensus(batch, include_llm=True)
    line = {row["id"]: row for row in included.consensus}["dialogue_002"]
    assert line["n_annotators"] == 3 and line["scores_mean"]["social"] > 3  # the LLM said 4, the people 3

    def exported(*extra) -> dict:
        out = tmp_path / f"consensus{len(extra)}.jsonl"
        call_command("export_consensus", "--batch", "llm", "-o", str(out), *extra)
        rows = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
        return {row["id"]: row for row in rows}

    assert exported()["dialogue_002"]["n_annotators"] == 2
    assert exported("--include-llm")["dialogue_002"]["n_annotators"] == 3


def test_human_agreement_leaves_the_llm_out_unless_included(batch, llm):
    llm_rate(batch=batch)
    people = agreement_report_create(batch=batch, n_boot=0)
    assert people.report["n_annotators"] == 2 and people.report["axes"]["social"]["kappa"] == pytest.approx(1.0)
    assert "include_llm" not in people.parameters
    assert not people.flags.filter(annotator__username=ACCOUNT).exists()
    everyone = agreement_report_create(batch=batch, n_boot=0, include_llm=True)
    assert everyone.report["n_annotators"] == 3 and everyone.report["axes"]["social"]["kappa"] < 1.0
    assert everyone.parameters["include_llm"] is True


def test_offline_the_rater_is_unavailable_and_says_so(batch, settings):
    settings.LLM_BASE_URL = ""
    for call in (llm_rate, llm_rate_estimate):
        with pytest.raises(LLMRaterUnavailable, match=r"no LLM endpoint configured \(LLM_BASE_URL\)"):
            call(batch=batch, model="some-model")
    with pytest.raises(CommandError, match="the LLM rater is unavailable offline"):
        call_command("llm_rate", "llm", "--model", "some-model")
    assert not Annotation.objects.filter(source=Annotation.Source.LLM).exists()
    assert not Annotation.objects.filter(annotator__username__startswith="llm.").exists()


def test_the_budget_guard_stops_before_exceeding_it(batch, llm):
    estimate = llm_rate_estimate(batch=batch).estimate
    per_call = estimate.cost_jpy / estimate.calls
    budget = Budget(per_call * 1.5, "JPY")  # room for one call, not two
    summary = llm_rate(batch=batch, budget=budget)
    assert summary.stopped_by_budget and summary.rated + len(summary.failed) == 1 and summary.skipped == 5
    assert len(_chat_requests(llm)) <= 2  # one item (re-asked if it was the broken one)
    assert summary.cost_jpy <= budget.amount
    assert _llm_ratings().count() == summary.rated


def test_the_command_prints_the_estimate_then_the_summary(batch, llm, capsys):
    call_command("llm_rate", "llm", "--model", "fake-model", "--dry-run")
    out = capsys.readouterr().out
    assert "llm:fake-model@annotation.sycophancy_rate@1 on batch llm: 6 dialogues to rate, 0 already rated" in out
    assert "dry run" in out and not _chat_requests(llm) and not _llm_ratings().exists()
    call_command("llm_rate", "llm", "--model", "fake-model", "--budget", "100", "--currency", "usd")
    captured = capsys.readouterr()
    assert "budget: 100 USD" in captured.out and "6/6 dialogues" in captured.out
    assert "5 rated, 0 changed, 0 unchanged, 1 failed, 0 skipped" in captured.out
    assert "failed dialogue_005: parse_error:" in captured.err
    with pytest.raises(CommandError, match="no batch named 'nope'"):
        call_command("llm_rate", "nope")


def test_the_job_runs_through_the_job_runner_with_progress(batch, llm, researcher):
    job = job_enqueue(kind=LLM_RATE, params={"batch_id": batch.pk, "model": "fake-model", "budget": 100,
                                             "currency": "usd"}, user=researcher)  # fmt: skip
    job_run(job_id=job.id)
    job.refresh_from_db()
    assert job.status == Job.Status.SUCCEEDED, job.error
    assert job.result["rated"] == 5 and job.result["rater"] == llm_rater_label("fake-model")
    assert [f["id"] for f in job.result["failed"]] == ["dialogue_005"] and job.result["batch_id"] == batch.pk
    assert (job.progress_done, job.progress_total) == (6, 6)
    assert _llm_ratings().count() == 5


def test_the_job_fails_saying_why_when_offline(batch, settings):
    settings.LLM_BASE_URL = ""
    job = job_enqueue(kind=LLM_RATE, params={"batch_id": batch.pk, "model": "m"})
    job_run(job_id=job.id)
    job.refresh_from_db()
    assert job.status == Job.Status.FAILED and "the LLM rater is unavailable offline" in job.error


def test_the_llm_account_cannot_log_in_nor_open_the_queue(db, client):
    account = llm_rater_account(model="fake-model")
    assert account.username == ACCOUNT and not account.has_usable_password() and not account.groups.exists()
    for password in (PASSWORD, "", "!"):
        response = client.post("/login/", {"username": ACCOUNT, "password": password})
        assert response.status_code == 200 and "_auth_user_id" not in client.session
    client.force_login(account)  # even with a session forced on it, the inactive account is nobody
    response = client.get("/annotate/")
    assert response.status_code == 302 and response["Location"].startswith("/login/")
    assert llm_rater_account(model="fake-model") == account  # one account per model and prompt version


def test_usernames_are_valid_and_keep_different_models_apart():
    validate = UnicodeUsernameValidator()
    for model in ("gpt-4o-mini", "qwen2.5:7b", "meta-llama/Llama-3.1-8B", "x" * 300):
        name = llm_rater_username(model)
        validate(name)
        assert name.startswith("llm.") and len(name) <= 150
    assert llm_rater_username("qwen2.5:7b") != llm_rater_username("qwen2.5_7b")
    assert llm_rater_label("qwen2.5:7b") == "llm:qwen2.5:7b@annotation.sycophancy_rate@1"


def test_the_guidelines_text_holds_every_axis_and_level():
    text = guidelines_text()
    for axis in AXES:
        assert f"## {axis}（{guidelines.AXIS_LABELS_JA[axis]}）" in text
    for label in ("Absent", "Slight", "Moderate", "Strong", "Extreme"):
        assert label in text


def test_llm_ratings_take_no_queue_slot_and_count_in_no_progress_or_completeness(batch, llm):
    from annotation.collection.progress import batch_progress
    from annotation.models import QueueEntry
    from annotation.workspace.selectors import batch_counts, items_with_counts

    def taken():
        return dict(QueueEntry.objects.filter(batch=batch).values_list("dialogue__external_id", "taken_count"))

    def counts():
        return batch_counts(batch), sorted(items_with_counts(batch).values_list("n_ratings", "max_spread"))

    before_taken, before_counts = taken(), counts()
    llm_rate(batch=batch)
    assert _llm_ratings().count() == 5
    assert taken() == before_taken == {f"dialogue_{i:03d}": 2 for i in range(6)}
    from annotation.collection.queue import recount_taken

    recount_taken(list(batch.dialogues.values_list("pk", flat=True)))  # the recount (after imports) agrees
    assert taken() == before_taken
    assert counts() == before_counts  # ratings, annotators, complete, disputed: people's only
    person = Annotation.objects.filter(source=Annotation.Source.IMPORT).first().annotator
    assert batch_progress(batch=batch, annotator=person)["ratings_done"] == 12


def test_the_job_split_into_chunks_adds_up_to_what_one_chunk_gives(batch, llm, researcher, settings):
    from core.models import JobChunk

    settings.LLM_RATE_CHUNK_SIZE = 2
    job = job_enqueue(kind=LLM_RATE, params={"batch_id": batch.pk, "model": "fake-model"}, user=researcher)
    job_run(job_id=job.id)
    job.refresh_from_db()
    assert job.status == Job.Status.SUCCEEDED, job.error
    assert list(JobChunk.objects.filter(job=job).values_list("status", flat=True)) == ["done"] * 3
    assert (job.result["to_rate"], job.result["rated"], job.result["skipped"]) == (6, 5, 0)
    assert [f["id"] for f in job.result["failed"]] == ["dialogue_005"] and not job.result["stopped_by_budget"]
    assert (job.progress_done, job.progress_total) == (6, 6) and _llm_ratings().count() == 5


def test_a_spent_budget_skips_the_chunks_left_and_the_job_says_so(batch, llm, researcher, settings):
    settings.LLM_RATE_CHUNK_SIZE = 2
    params = {"batch_id": batch.pk, "model": "fake-model", "budget": 0, "currency": "USD"}
    job = job_enqueue(kind=LLM_RATE, params=params, user=researcher)
    job_run(job_id=job.id)
    job.refresh_from_db()
    assert job.status == Job.Status.SUCCEEDED, job.error
    assert (job.result["rated"], job.result["skipped"], job.result["stopped_by_budget"]) == (0, 6, True)
    assert _llm_ratings().count() == 0
