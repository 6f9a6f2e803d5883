"""The Director part of the demo data: the recorded rainy-Sunday dialogue, replayed and checked as recorded."""

from dataclasses import replace

import pytest

from core.demo import _PARTS
from director.demo import dialogue
from director.demo.dialogue import Attempt, Turn
from director.demo.load import DemoDialogueMismatch, check_dialogue, load, load_dialogue
from director.models import DirectorSession, RetryVerdict, UtteranceAttempt

pytestmark = pytest.mark.django_db


@pytest.fixture
def session():
    summary = load()
    assert dialogue.TITLE in summary
    return DirectorSession.objects.get()


def test_the_demo_session_has_the_dialogue_s_accepted_turns(session):
    assert session.title == "デモ: 雨の日曜日"
    assert session.speakers == ["yana", "ayu"]
    assert session.llm_review is False
    assert session.state["turn"] == len(dialogue.TURNS) >= 12
    shown = list(UtteranceAttempt.objects.filter(session=session, shown=True).order_by("turn"))
    assert [a.turn for a in shown] == list(range(1, len(dialogue.TURNS) + 1))
    assert [a.speaker for a in shown] == [("yana", "ayu")[(n - 1) % 2] for n in range(1, len(shown) + 1)]
    assert [a.text for a in shown] == [turn.attempts[-1].text for turn in dialogue.TURNS]


def test_the_demo_shows_retries_warnings_and_passes(session):
    verdicts = RetryVerdict.objects.filter(session=session)
    retried_turns = {v.attempt.turn for v in verdicts.filter(status="RETRY").select_related("attempt")}
    assert len(retried_turns) >= 3
    for turn in retried_turns:  # each retried turn still ends in an accepted line after its RETRYs
        attempts = list(UtteranceAttempt.objects.filter(session=session, turn=turn).order_by("number"))
        assert len(attempts) >= 2 and attempts[-1].shown and not any(a.shown for a in attempts[:-1])
    assert verdicts.filter(shown=True, status="WARN").count() >= 3
    assert verdicts.filter(shown=True, status="PASS").exists()
    assert not verdicts.filter(shown=True, status="RETRY").exists()
    warned = {rule for v in verdicts.filter(shown=True, status="WARN") for rule in v.rules}
    assert {"topic_loop_turns", "early_topic_change", "praise"} <= warned
    retry_rules = {rule for v in verdicts.filter(status="RETRY") for rule in v.rules}
    assert {"praise", "setting", "scatter", "format", "tone"} <= retry_rules
    assert set(verdicts.values_list("review_status", flat=True)) == {"off"}


def test_every_attempt_has_its_verdict_with_the_expected_status(session):
    attempts = UtteranceAttempt.objects.filter(session=session).select_related("verdict")
    assert attempts.count() == sum(len(turn.attempts) for turn in dialogue.TURNS)
    stored = {(a.turn, a.number): a for a in attempts}
    for number, turn in enumerate(dialogue.TURNS, 1):
        for index, expected in enumerate(turn.attempts, 1):
            attempt = stored[number, index]
            assert (attempt.speaker, attempt.text, attempt.source) == (turn.speaker, expected.text, "given")
            assert attempt.verdict.status == expected.status, (number, index)
            assert sorted(attempt.verdict.rules) == sorted(expected.rules), (number, index)
            assert attempt.verdict.shown == attempt.shown == (index == len(turn.attempts))


def test_loading_again_keeps_one_demo_session(session):
    load()
    assert DirectorSession.objects.count() == 1
    assert UtteranceAttempt.objects.count() == sum(len(turn.attempts) for turn in dialogue.TURNS)
    assert RetryVerdict.objects.count() == UtteranceAttempt.objects.count()


def test_the_part_is_registered_for_load_demo():
    assert _PARTS["director"].load is load


def test_a_status_that_differs_from_the_dialogue_fails_the_load_naming_the_turn():
    turns = list(dialogue.TURNS)
    turns[4] = Turn("yana", (replace(turns[4].attempts[0], status="PASS", rules=()),))
    with pytest.raises(DemoDialogueMismatch, match=r"turn 5 \(yana\), attempt 1 .*expected PASS.*gave WARN"):
        load_dialogue(turns=turns)
    assert not DirectorSession.objects.exists() and not RetryVerdict.objects.exists()


def test_a_rule_that_differs_from_the_dialogue_fails_the_load():
    turns = list(dialogue.TURNS)
    turns[1] = Turn("ayu", (replace(turns[1].attempts[0], rules=("setting",)), turns[1].attempts[1]))
    with pytest.raises(DemoDialogueMismatch, match=r"turn 2 \(ayu\), attempt 1 .*RETRY \(setting\).*RETRY \(tone\)"):
        load_dialogue(turns=turns)


def test_an_attempt_accepted_where_a_retry_was_expected_fails_the_load():
    turns = [Turn("yana", (Attempt("えー、ほんと？ 行ってみたいかも！", "RETRY"), Attempt("そっか！", "PASS")))]
    with pytest.raises(DemoDialogueMismatch, match=r"turn 1 \(yana\), attempt 1 .*expected RETRY.*gave PASS"):
        load_dialogue(turns=turns)


@pytest.mark.parametrize(
    ("turns", "message"),
    [
        ([], "no turns"),
        ([Turn("ayu", (Attempt("そうですね。", "PASS"),))], r"turn 1 \(ayu\): the speaker should be yana"),
        ([Turn("yana", ())], "no attempts"),
        ([Turn("yana", (Attempt("ほんと？", "OK"),))], "unknown status"),
        ([Turn("yana", (Attempt("ほんと？", "RETRY"),))], "the last attempt must be accepted"),
        ([Turn("yana", (Attempt("ほんと？", "WARN"), Attempt("そっか！", "PASS")))], "only the last may be accepted"),
    ],
)
def test_a_malformed_dialogue_is_refused(turns, message):
    with pytest.raises(DemoDialogueMismatch, match=message):
        check_dialogue(turns, ("yana", "ayu"))


def test_the_recorded_dialogue_is_well_formed():
    check_dialogue(dialogue.TURNS, dialogue.SPEAKERS)
    assert all(line.text.strip() for turn in dialogue.TURNS for line in turn.attempts)
