"""A WARN of the LLM review steers the speaker's next turn (seed 004 §1); limits and personas from the rule set."""

import pytest

from director.rules import load_rule_set
from director.sessions import services
from director.sessions.services import evaluate_line, session_create, turn_run
from tests.director.rules.helpers import write_rule_set
from tests.director.sessions.test_turns import PASSING_AYU, PASSING_YANA, WARN_AYU, Director, review
from tests.llm.conftest import fake_llm  # noqa: F401 - the fake OpenAI endpoint

pytestmark = pytest.mark.django_db(transaction=True)
NOTES = [
    {"text": "対話の接続性: connection 3", "source": "review:connection"},
    {"text": "情報密度: density 3", "source": "review:density"},
]


@pytest.fixture
def director(fake_llm):  # noqa: F811
    return Director(fake_llm)


@pytest.fixture
def rule_set(monkeypatch, tmp_path):
    """``rule_set(max_interventions=…, history_turns=…)``: the shipped rule set with those session limits,
    used by the session services from then on."""

    def use(**session):
        rules = load_rule_set(write_rule_set(tmp_path, lambda data: data["session"].update(session)))
        monkeypatch.setattr(services, "default_rule_set", lambda: rules)
        return rules

    return use


def test_the_aspects_scored_3_in_a_review_warn_become_ayus_next_interventions(director):
    session = session_create(scene="駅前のカフェ", speakers=("ayu", "yana"))
    director.reviews.append(review(4, 4, 3, 3, 4))  # mean 3.6: WARN
    first = turn_run(session_id=session.pk, text=PASSING_AYU)
    verdict = first.verdicts[0]
    assert first.accepted and (verdict.rules_status, verdict.review["status"], verdict.status) == (
        "PASS",
        "WARN",
        "WARN",
    )
    assert first.state_after["interventions"] == {"ayu": NOTES}
    turn_run(session_id=session.pk, text=PASSING_YANA)  # reviewed 4 × 5: PASS, nothing for yana
    director.lines.append(PASSING_AYU)
    third = turn_run(session_id=session.pk)
    assert third.speaker == "ayu" and third.accepted
    prompt = director.prompts("line")[-1]
    assert "- 対話の接続性: connection 3\n- 情報密度: density 3" in prompt
    assert load_rule_set().cast["ayu"].persona in prompt  # the persona comes from ayu.yaml
    assert third.state_after["interventions"] == {}  # consumed by the line they were in the prompt of


def test_a_review_pass_adds_nothing_even_with_an_aspect_under_4(director):
    session = session_create(scene="s", speakers=("ayu", "yana"))
    director.reviews.append(review(5, 5, 5, 3, 4))  # mean 4.4: PASS
    outcome = turn_run(session_id=session.pk, text=PASSING_AYU)
    assert outcome.accepted and outcome.verdicts[0].status == "PASS"
    assert outcome.state_after["interventions"] == {}


def test_a_review_retry_changes_no_state(director):
    session = session_create(scene="s", speakers=("ayu", "yana"))
    before = dict(session.state)
    director.reviews.append(review(3, 3, 4, 4, 3))  # mean 3.4: RETRY
    outcome = turn_run(session_id=session.pk, text=PASSING_AYU)
    assert not outcome.accepted and outcome.state_after == before


def test_review_notes_follow_the_hard_rules_warns(director):
    session = session_create(scene="s", speakers=("ayu", "yana"))
    director.reviews.append(review(4, 4, 3, 3, 4))
    outcome = turn_run(session_id=session.pk, text=WARN_AYU)
    rule_warns = [f for f in outcome.verdicts[0].findings if f["status"] == "WARN"]
    assert "praise" in {f["rule"] for f in rule_warns}
    assert outcome.state_after["interventions"]["ayu"] == [
        *({"text": f["suggestion"], "source": f"rule:{f['rule']}"} for f in rule_warns),
        *NOTES,
    ]


def test_the_most_interventions_kept_come_from_the_rule_set(director, rule_set):
    rule_set(max_interventions=1)
    session = session_create(scene="s", speakers=("ayu", "yana"))
    director.reviews.append(review(4, 4, 3, 3, 4))
    outcome = turn_run(session_id=session.pk, text=WARN_AYU)
    assert [entry["source"] for entry in outcome.state_after["interventions"]["ayu"]] == ["rule:praise"]


def test_the_history_in_the_prompts_comes_from_the_rule_set(director, rule_set):
    rule_set(history_turns=1)
    session = session_create(scene="s", speakers=("ayu", "yana"))
    turn_run(session_id=session.pk, text=PASSING_AYU)
    turn_run(session_id=session.pk, text=PASSING_YANA)
    director.lines.append("駅前のカフェは静かです。落ち着きますね。")
    turn_run(session_id=session.pk)
    for kind in ("line", "review"):
        prompt = director.prompts(kind)[-1]
        assert f"やな: {PASSING_YANA}" in prompt and f"あゆ: {PASSING_AYU}" not in prompt, kind


def test_an_evaluation_says_what_it_would_queue(director):
    director.reviews += [review(4, 4, 3, 3, 4), review(3, 3, 3, 3, 3)]
    warn = evaluate_line(text=PASSING_AYU, speaker="ayu", language="en")
    assert [entry.to_dict() for entry in warn.interventions] == [
        {"text": "Connection: connection 3", "source": "review:connection"},
        {"text": "Information density: density 3", "source": "review:density"},
    ]
    assert warn.to_dict()["interventions"] == [entry.to_dict() for entry in warn.interventions]
    retry = evaluate_line(text=WARN_AYU, speaker="ayu")
    assert retry.status == "RETRY" and retry.interventions == []
