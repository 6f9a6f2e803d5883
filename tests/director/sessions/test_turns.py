"""The Director in the dialogue (#15): the LLM review, the retry loop and the session state, against the fake server."""

import json
import threading

import pytest
from django.db import connection

from director.models import DirectorSession, RetryVerdict, UtteranceAttempt
from director.sessions.services import (
    GenerationUnavailable,
    TurnConflict,
    evaluate_line,
    session_create,
    turn_run,
)
from tests.fakes.openai_server import Reply
from tests.llm.conftest import fake_llm  # noqa: F401 - the fake OpenAI endpoint

PASSING_AYU = "カフェは駅から歩いて十分ほどです。目安として覚えておくと便利ですね。"
PASSING_YANA = "えー、ほんと？ 行ってみたいかも！"
RETRY_LINE = "私たちは別居しているので、会うのは週末だけです。そうですね。"  # setting: RETRY
WARN_AYU = "すごい景色ですね。つまり、駅から歩いて十分ほどです。"  # an evaluation word about a thing: WARN

pytestmark = pytest.mark.django_db(transaction=True)


def review(*scores: int) -> Reply:
    aspects = ("frame", "roleplay", "connection", "density", "naturalness")
    body = {a: {"score": s, "reason": f"{a} {s}"} for a, s in zip(aspects, scores, strict=True)}
    return Reply.json({**body, "summary": "所見"})


class Director:
    """Routes the fake server's requests: lines for the generator, reviews for the reviewer, in order."""

    def __init__(self, server):
        self.server, self.lines, self.reviews = server, [], []
        server.default_reply = self.reply

    def reply(self, request):
        system = request["messages"][0]["content"]
        if "脚本家" in system:
            return Reply.json({"line": self.lines.pop(0)}) if self.lines else Reply.json({"line": PASSING_AYU})
        return self.reviews.pop(0) if self.reviews else review(4, 4, 4, 4, 4)

    def prompts(self, kind: str) -> list[str]:
        marker = "脚本家" if kind == "line" else "ディレクター"
        bodies = [r["json"] for r in self.server.requests if isinstance(r.get("json"), dict)]
        return [b["messages"][1]["content"] for b in bodies if marker in b["messages"][0]["content"]]


@pytest.fixture
def director(fake_llm):  # noqa: F811
    return Director(fake_llm)


@pytest.mark.parametrize(
    ("scores", "status"),
    [((3, 3, 4, 4, 3), "RETRY"), ((4, 4, 3, 3, 4), "WARN"), ((4, 4, 4, 4, 4), "PASS"), ((4, 3, 4, 3, 3), "RETRY")],
)
def test_the_review_average_decides_retry_warn_pass(director, scores, status):
    director.reviews.append(review(*scores))
    evaluation = evaluate_line(text=PASSING_AYU, speaker="ayu", scene="駅前のカフェ")
    assert evaluation.rules_status == "PASS" and evaluation.review.status == "ok"
    assert evaluation.review.review.average == pytest.approx(sum(scores) / 5)
    assert evaluation.status == status
    prompt = director.prompts("review")[0]
    assert "駅前のカフェ" in prompt and PASSING_AYU in prompt and "あゆ" in prompt


def test_the_review_is_not_asked_when_the_rules_say_retry(director):
    evaluation = evaluate_line(text=RETRY_LINE, speaker="ayu")
    assert (evaluation.status, evaluation.review.status) == ("RETRY", "skipped")
    assert director.server.request_count == 0


def test_the_worse_of_rules_and_review_wins(director):
    director.reviews.append(review(5, 5, 5, 5, 5))
    assert evaluate_line(text=WARN_AYU, speaker="ayu").status == "WARN"


def test_without_an_endpoint_the_review_is_skipped_and_says_why(settings):
    settings.LLM_BASE_URL = ""
    evaluation = evaluate_line(text=PASSING_AYU, speaker="ayu")
    assert (evaluation.status, evaluation.review.status) == ("PASS", "skipped")
    assert "LLM_BASE_URL" in evaluation.review.note and evaluation.review.to_dict() is None


def test_an_endpoint_that_fails_falls_back_to_the_rules_flagged(director):
    director.server.default_reply = lambda request: Reply.server_error(503)
    evaluation = evaluate_line(text=WARN_AYU, speaker="ayu")
    assert (evaluation.status, evaluation.review.status) == ("WARN", "failed")
    assert evaluation.review.note and evaluation.review.review is None


def test_a_malformed_review_is_recorded_as_failed(director):
    director.server.default_reply = lambda request: Reply.json({"frame": 9})
    evaluation = evaluate_line(text=PASSING_AYU, speaker="ayu")
    assert (evaluation.status, evaluation.review.status) == ("PASS", "failed")


def test_a_retry_is_regenerated_with_its_reasons_and_the_second_attempt_is_shown(director):
    session = session_create(scene="雨の日の部屋", speakers=("ayu", "yana"))
    director.lines += [RETRY_LINE, PASSING_AYU]
    outcome = turn_run(session_id=session.pk)
    assert [a.number for a in outcome.attempts] == [1, 2] and outcome.accepted and outcome.flag == ""
    assert outcome.shown.number == 2 and outcome.shown.text == PASSING_AYU
    assert [v.status for v in outcome.verdicts] == ["RETRY", "PASS"]
    assert outcome.verdicts[0].review_status == "skipped" and outcome.verdicts[1].review_status == "ok"
    second_prompt = director.prompts("line")[1]
    assert "却下された案" in second_prompt and RETRY_LINE in second_prompt and "別居" in second_prompt
    assert UtteranceAttempt.objects.filter(session=session, shown=True).count() == 1
    session.refresh_from_db()
    assert session.state["turn"] == 1
    assert RetryVerdict.objects.filter(session=session).count() == 2


def test_all_attempts_retry_flags_the_outcome_and_keeps_the_state(director):
    session = session_create(scene="s", speakers=("ayu", "yana"), max_retries=2)
    before = dict(session.state)
    director.lines += [RETRY_LINE] * 3
    outcome = turn_run(session_id=session.pk)
    assert len(outcome.attempts) == 3 and not outcome.accepted and outcome.flag == "all_retry"
    assert outcome.shown is not None and "RETRY" in outcome.reason
    session.refresh_from_db()
    assert session.state == before
    director.lines += [PASSING_AYU]
    again = turn_run(session_id=session.pk)  # the same turn again: attempts go on numbering
    assert again.turn == 1 and again.attempts[0].number == 4 and again.accepted


def test_retry_leaves_hook_depth_loop_counter_and_topic_unchanged(settings):
    settings.LLM_BASE_URL = ""
    session = session_create(scene="s", speakers=("ayu", "yana"), llm_review=False)
    turn_run(session_id=session.pk, text=PASSING_AYU)
    session.refresh_from_db()
    before = dict(session.state)
    assert before["turn"] == 1 and before["topic"]
    outcome = turn_run(session_id=session.pk, text=RETRY_LINE + "駅の話ですね。", speaker="yana")
    assert not outcome.accepted and outcome.verdicts[0].status == "RETRY"
    session.refresh_from_db()
    assert session.state == before
    for key in ("topic", "hookDepth", "loopCounter", "turn", "interventions"):
        assert session.state[key] == before[key], key


def test_warn_findings_arrive_as_interventions_in_that_characters_next_prompt(director, settings):
    session = session_create(scene="s", speakers=("ayu", "yana"))
    director.reviews += [review(5, 5, 5, 5, 5), review(5, 5, 5, 5, 5)]
    first = turn_run(session_id=session.pk, text=WARN_AYU)
    assert first.accepted and first.verdicts[0].status == "WARN"
    suggestion = next(f["suggestion"] for f in first.verdicts[0].findings if f["status"] == "WARN")
    turn_run(session_id=session.pk, text=PASSING_YANA)
    director.lines.append(PASSING_AYU)
    third = turn_run(session_id=session.pk)
    assert third.speaker == "ayu"
    prompt = director.prompts("line")[-1]
    assert suggestion in prompt
    session.refresh_from_db()
    assert suggestion not in json.dumps(session.state["interventions"].get("ayu", []), ensure_ascii=False)


def test_generating_needs_an_endpoint(settings):
    settings.LLM_BASE_URL = ""
    session = session_create(scene="s")
    with pytest.raises(GenerationUnavailable):
        turn_run(session_id=session.pk)


def test_a_generation_failure_is_stored_and_flagged(director):
    director.server.default_reply = lambda request: Reply.server_error(500)
    session = session_create(scene="s")
    outcome = turn_run(session_id=session.pk)
    assert outcome.flag == "generation_failed" and not outcome.accepted and outcome.shown is None
    assert outcome.attempts[0].generation_error


def test_two_turns_of_one_session_at_once_never_both_advance_it(director):
    if connection.vendor != "postgresql":
        pytest.skip("row locks: PostgreSQL")
    director.server.latency = 0.3
    session = session_create(scene="s", speakers=("ayu", "yana"))
    results = []

    def take():
        try:
            results.append(turn_run(session_id=session.pk))
        except TurnConflict as exc:
            results.append(exc)
        finally:
            connection.close()

    threads = [threading.Thread(target=take) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(type(r).__name__ for r in results) == ["TurnConflict", "TurnOutcome"]
    session.refresh_from_db()
    assert session.state["turn"] == 1
    assert UtteranceAttempt.objects.filter(session=session).count() == 1
    assert DirectorSession.objects.get(pk=session.pk).state["turn"] == 1


def test_the_review_uses_the_director_model_when_configured(director, settings):
    settings.DIRECTOR_MODEL = "gemma2-27b"
    evaluation = evaluate_line(text=PASSING_AYU, speaker="ayu")
    assert evaluation.review.model == "gemma2-27b"
    assert [r["json"]["model"] for r in director.server.requests if isinstance(r.get("json"), dict)] == ["gemma2-27b"]
