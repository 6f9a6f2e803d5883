"""The session state (§8, §9): topic, hook depth and loop counter on accepted turns only, interventions."""

import json

import pytest

from director.rules import check_utterance, default_rule_set
from director.rules.thresholds import SessionThresholds
from director.sessions.state import (
    Intervention,
    SessionState,
    advance,
    history_findings,
    leading_topic,
)

THRESHOLDS = SessionThresholds(topic_loop_turns=3, hook_depth=2)


def turn(state, topic, status="PASS", speaker="yana", next_speaker="ayu", findings=()):
    """The history findings of a turn led by ``topic`` and the state after it."""
    found = history_findings(state, topic, THRESHOLDS)
    warns = [*findings, *found]
    return found, advance(
        state, status=status, speaker=speaker, topic=topic, warn_findings=warns, next_speaker=next_speaker
    )


def rules_of(found):
    return [finding["rule"] for finding in found]


def test_the_start_state():
    state = SessionState()
    assert (state.topic, state.hook_depth, state.loop_counter, state.turn, state.interventions) == ("", 0, 0, 0, {})
    assert SessionState.from_dict({}) == state


def test_a_pass_opens_a_topic_and_counts_the_turn():
    found, state = turn(SessionState(), "猫")
    assert found == []
    assert state == SessionState(topic="猫", hook_depth=1, loop_counter=1, turn=1)


@pytest.mark.parametrize("status", ["PASS", "WARN", "MODIFY"])
def test_accepted_statuses_advance(status):
    _, state = turn(SessionState(topic="猫", hook_depth=1, loop_counter=1, turn=1), "猫", status=status)
    assert (state.topic, state.hook_depth, state.loop_counter, state.turn) == ("猫", 2, 2, 2)


def test_a_new_topic_restarts_depth_and_run():
    state = SessionState(topic="猫", hook_depth=4, loop_counter=2, turn=6)
    _, state = turn(state, "犬")
    assert (state.topic, state.hook_depth, state.loop_counter, state.turn) == ("犬", 1, 1, 7)


def test_a_turn_without_topic_carries_the_topic_on_and_keeps_the_run():
    state = SessionState(topic="猫", hook_depth=2, loop_counter=2, turn=2)
    found, state = turn(state, "")
    assert found == []
    assert (state.topic, state.hook_depth, state.loop_counter, state.turn) == ("猫", 3, 2, 3)


def test_a_retry_changes_nothing():
    state = SessionState(topic="猫", hook_depth=1, loop_counter=1, turn=3, interventions={"yana": ("短く。",)})
    before = state.to_dict()
    warn = {"rule": "tone", "status": "WARN", "message": "m", "suggestion": "語尾を使ってください。"}
    after = advance(state, status="RETRY", speaker="yana", topic="犬", warn_findings=[warn], next_speaker="ayu")
    assert after is state
    assert after.to_dict() == before


def test_the_topic_loop_fires_on_the_third_turn_in_a_row_and_after():
    state, seen = SessionState(), []
    for _ in range(4):
        found, state = turn(state, "猫")
        seen.append(rules_of(found))
    assert seen == [[], [], ["topic_loop_turns"], ["topic_loop_turns"]]
    assert state.loop_counter == 4


def test_retried_turns_do_not_count_towards_a_loop():
    state = SessionState()
    _, state = turn(state, "猫")
    _, state = turn(state, "猫", status="RETRY")
    _, state = turn(state, "猫", status="RETRY")
    found, state = turn(state, "猫")
    assert found == [] and state.loop_counter == 2


def test_a_turn_without_topic_neither_breaks_nor_extends_the_run():
    state, seen = SessionState(), []
    for topic in ("猫", "", "猫", "猫"):
        found, state = turn(state, topic)
        seen.append(rules_of(found))
    assert seen == [[], [], [], ["topic_loop_turns"]]


def test_an_early_topic_change_is_a_warn():
    _, state = turn(SessionState(), "猫")
    found, state = turn(state, "犬")
    assert rules_of(found) == ["early_topic_change"]
    assert found[0]["status"] == "WARN"
    assert "猫" in found[0]["message"] and "犬" in found[0]["message"] and "犬" in found[0]["suggestion"]


def test_a_change_after_the_hook_depth_is_fine():
    state = SessionState()
    for topic in ("猫", "", "犬", "犬", "鳥"):
        found, state = turn(state, topic)
        assert found == [], topic


def test_no_early_change_from_the_start_or_without_topic():
    assert history_findings(SessionState(), "猫", THRESHOLDS) == []
    assert history_findings(SessionState(topic="猫", hook_depth=1, loop_counter=1, turn=1), "", THRESHOLDS) == []


def test_a_retried_change_does_not_make_the_next_turn_early():
    # §9: had the retried utterance moved the topic to 犬, going back to 猫 would look like an early change
    state = SessionState(topic="猫", hook_depth=2, loop_counter=2, turn=2)
    _, state = turn(state, "犬", status="RETRY")
    found, state = turn(state, "猫")
    assert rules_of(found) == ["topic_loop_turns"]  # 猫 for the third turn in a row, and nothing else


def test_findings_are_never_retry_and_come_in_english_too():
    state = SessionState(topic="猫", hook_depth=1, loop_counter=1, turn=1)
    [early] = history_findings(state, "犬", THRESHOLDS, language="en")
    assert early == {
        "rule": "early_topic_change",
        "status": "WARN",
        "message": "The topic changed to “犬” after only 1 turn(s) on “猫”.",
        "suggestion": "Stay with “犬” and go deeper before changing the topic.",
    }
    state = SessionState(topic="猫", hook_depth=5, loop_counter=5, turn=5)
    [loop] = history_findings(state, "猫", THRESHOLDS, language="ja")
    assert loop["status"] == "WARN"
    assert loop["message"] == "「猫」の話題が6ターン続いています。"
    with pytest.raises(ValueError, match="language"):
        history_findings(state, "猫", THRESHOLDS, language="fr")


def test_the_thresholds_come_from_the_rule_set_by_default():
    state = SessionState(topic="猫", hook_depth=2, loop_counter=2, turn=2)
    assert rules_of(history_findings(state, "猫")) == ["topic_loop_turns"]
    assert history_findings(state, "猫", SessionThresholds(topic_loop_turns=4)) == []
    assert default_rule_set().session == SessionThresholds()


@pytest.mark.parametrize(("loop", "depth"), [(0, 2), (3, 0), (True, 2), (3, 1.5)])
def test_session_thresholds_are_checked(loop, depth):
    with pytest.raises(ValueError):
        SessionThresholds(loop, depth)


def test_interventions_go_to_the_next_speaker_and_are_consumed_on_their_turn():
    tone = {"rule": "tone", "status": "WARN", "message": "m", "suggestion": "語尾を使ってください。"}
    _, state = turn(SessionState(), "", speaker="yana", next_speaker="ayu", findings=[tone])
    assert state.interventions == {"ayu": (Intervention("語尾を使ってください。", "rule:tone"),)}
    _, state = turn(state, "", speaker="ayu", next_speaker="yana")
    assert state.interventions == {}
    _, state = turn(state, "猫", speaker="yana", next_speaker="ayu")
    found, state = turn(state, "犬", speaker="ayu", next_speaker="yana")
    assert state.interventions == {"yana": (Intervention(found[0]["suggestion"], "history:early_topic_change"),)}


def test_a_retry_keeps_the_pending_interventions():
    state = SessionState(interventions={"ayu": ("短く。",)})
    assert advance(state, status="RETRY", speaker="ayu", topic="", next_speaker="yana").interventions == {
        "ayu": (Intervention("短く。"),)
    }


def test_interventions_skip_non_warns_dedupe_keep_order_and_cap():
    def warn(text, status="WARN"):
        return {"rule": "x", "status": status, "message": "", "suggestion": text}

    state = SessionState(interventions={"ayu": ("A",), "yana": ("mine",)})
    findings = [warn("B"), warn("A"), warn("R", "RETRY"), warn(""), warn("C"), warn("B")]
    findings += [warn("D"), warn("E"), warn("F")]
    after = advance(state, status="WARN", speaker="yana", topic="", warn_findings=findings, next_speaker="ayu")
    assert after.texts("ayu") == ("A", "B", "C", "D", "E") and "yana" not in after.interventions
    assert SessionThresholds().max_interventions == 5


def test_findings_of_a_verdict_become_interventions():
    verdict = check_utterance("行こう!!", "yana", default_rule_set())  # tone 1: WARN
    assert verdict.status == "WARN"
    state = advance(
        SessionState(),
        status=verdict.status,
        speaker=verdict.speaker,
        topic=leading_topic(verdict),
        warn_findings=verdict.findings,
        next_speaker="ayu",
    )
    assert state.interventions == {"ayu": (Intervention(verdict.findings[0].suggestion, "rule:tone"),)}


def test_the_state_copies_its_interventions():
    pending = {"ayu": ["短く。"]}
    state = SessionState(interventions=pending)
    pending["ayu"].append("長く。")
    assert state.texts("ayu") == ("短く。",)


def test_an_unknown_status_is_refused():
    with pytest.raises(ValueError, match="status"):
        advance(SessionState(), status="OK", speaker="yana", topic="", next_speaker="ayu")


def test_to_dict_and_from_dict_round_trip_through_json():
    pending = (Intervention("短く。", "rule:scatter"), Intervention("語尾。", "review:roleplay"))
    state = SessionState(topic="猫", hook_depth=3, loop_counter=2, turn=7, interventions={"ayu": pending})
    stored = json.loads(json.dumps(state.to_dict(), ensure_ascii=False))
    assert stored == {
        "topic": "猫",
        "hookDepth": 3,
        "loopCounter": 2,
        "turn": 7,
        "interventions": {
            "ayu": [{"text": "短く。", "source": "rule:scatter"}, {"text": "語尾。", "source": "review:roleplay"}]
        },
    }
    assert SessionState.from_dict(stored) == state


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ({"topics": "猫"}, "unknown key 'topics'"),
        ({"topic": 3}, "topic: expected a string"),
        ({"hookDepth": -1}, "hookDepth: expected an integer ≥ 0"),
        ({"turn": True}, "turn: expected an integer ≥ 0"),
        ({"loopCounter": "2"}, "loopCounter: expected an integer ≥ 0"),
        ({"interventions": {"ayu": "短く。"}}, "interventions: expected"),
        ({"interventions": {"ayu": [3]}}, "interventions: expected"),
        ([], "expected an object"),
    ],
)
def test_from_dict_refuses_a_bad_state(data, message):
    with pytest.raises(ValueError, match=message):
        SessionState.from_dict(data)


def test_the_leading_topic_is_the_first_head_in_text_order():
    verdict = check_utterance("猫の話です。犬は元気です。", "ayu", default_rule_set())
    assert leading_topic(verdict) == "猫"
    assert leading_topic(verdict.to_dict()) == "猫"
    assert leading_topic(("犬", "猫")) == "犬"
    assert leading_topic([]) == ""
    assert leading_topic(check_utterance("それは違うよね！", "yana", default_rule_set())) == ""


def test_the_leading_topic_needs_topic_heads():
    with pytest.raises(ValueError, match="topicHeads"):
        leading_topic({"status": "PASS", "findings": []})
    with pytest.raises(TypeError):
        leading_topic("猫")
    with pytest.raises(TypeError):
        leading_topic([3])


def test_the_pure_modules_load_no_framework():
    import subprocess
    import sys
    from pathlib import Path

    code = (
        "import sys, director.review.scores, director.sessions.state\n"
        "print(','.join(sorted(n for n in sys.modules if n.split('.')[0] in {'django', 'rest_framework', 'celery'})))"
    )
    root = Path(__file__).resolve().parents[3]
    result = subprocess.run([sys.executable, "-c", code], cwd=root, capture_output=True, text=True, check=True)
    assert result.stdout.strip() == ""
