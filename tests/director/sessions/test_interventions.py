"""Interventions with their sources (rule, history, review), stored old and new, capped by the rule set;
the review's aspect notes; the prompts' limits from the rule set."""

import json

import pytest

from director.review.scores import Review, aspect_notes, low_aspects
from director.rules import check_utterance, default_rule_set
from director.rules.thresholds import SessionThresholds
from director.sessions import prompts
from director.sessions.state import Intervention, SessionState, advance, finding_interventions, history_findings


def warn(rule, text, status="WARN"):
    return {"rule": rule, "status": status, "message": "m", "suggestion": text}


def scored(*scores, reasons=None):
    aspects = ("frame", "roleplay", "connection", "density", "naturalness")
    reasons = reasons or {a: f"{a} {s}" for a, s in zip(aspects, scores, strict=True)}
    return Review(dict(zip(aspects, scores, strict=True)), reasons, "所見", sum(scores) / 5)


def test_a_state_stored_with_plain_texts_still_loads_with_unknown_sources():
    stored = {
        "topic": "猫",
        "hookDepth": 1,
        "loopCounter": 1,
        "turn": 1,
        "interventions": {"ayu": ["短く。", "語尾。"]},
    }
    state = SessionState.from_dict(stored)
    assert state.interventions == {"ayu": (Intervention("短く。", ""), Intervention("語尾。", ""))}
    assert state.texts("ayu") == ("短く。", "語尾。") and state.texts("yana") == ()
    again = json.loads(json.dumps(state.to_dict(), ensure_ascii=False))
    assert again["interventions"] == {"ayu": [{"text": "短く。", "source": ""}, {"text": "語尾。", "source": ""}]}
    assert SessionState.from_dict(again) == state


def test_old_and_new_entries_may_mix():
    stored = {"interventions": {"ayu": ["短く。", {"text": "情報密度: 薄い", "source": "review:density"}]}}
    state = SessionState.from_dict(stored)
    assert state.interventions["ayu"][1] == Intervention("情報密度: 薄い", "review:density")
    assert SessionState.from_dict(state.to_dict()) == state


@pytest.mark.parametrize(
    "entry",
    [
        {"text": "", "source": "rule:praise"},
        {"text": "x"},
        {"text": "x", "source": "praise"},
        {"text": "x", "source": "llm:density"},
        {"text": "x", "source": "rule:"},
        {"text": "x", "source": "rule:praise", "at": 1},
        {"text": 3, "source": ""},
        ["x"],
        None,
    ],
)
def test_from_dict_refuses_a_bad_entry(entry):
    with pytest.raises(ValueError, match="session state: interventions: expected"):
        SessionState.from_dict({"interventions": {"ayu": [entry]}})


def test_sources_of_rule_history_and_review_interventions():
    verdict = check_utterance("行こう!!", "yana", default_rule_set())  # tone 1: WARN
    state = SessionState(topic="猫", hook_depth=1, loop_counter=1, turn=1)
    [early] = history_findings(state, "犬")
    found = finding_interventions([*verdict.findings, early, warn("setting", "x", "RETRY"), warn("praise", "")])
    assert found == [
        Intervention(verdict.findings[0].suggestion, "rule:tone"),
        Intervention(early["suggestion"], "history:early_topic_change"),
    ]


def test_given_interventions_come_after_the_findings_without_duplicate_texts():
    review_notes = [Intervention("情報密度: 薄い", "review:density"), Intervention("A", "review:frame")]
    after = advance(
        SessionState(), status="WARN", speaker="ayu", topic="", next_speaker="ayu",
        warn_findings=[warn("praise", "A"), warn("tone", "B")], interventions=review_notes,
    )  # fmt: skip
    assert after.interventions == {
        "ayu": (Intervention("A", "rule:praise"), Intervention("B", "rule:tone"), review_notes[0])
    }
    assert prompts.bullet_list(after.texts("ayu")) == "- A\n- B\n- 情報密度: 薄い"


def test_the_cap_comes_from_the_session_thresholds():
    state = SessionState(interventions={"ayu": ("old",)})
    findings = [warn("x", text) for text in "ABCDEFG"]
    capped = advance(state, status="PASS", speaker="yana", topic="", warn_findings=findings, next_speaker="ayu",
                     thresholds=SessionThresholds(max_interventions=3))  # fmt: skip
    assert capped.texts("ayu") == ("old", "A", "B")
    default = advance(state, status="PASS", speaker="yana", topic="", warn_findings=findings, next_speaker="ayu")
    assert len(default.texts("ayu")) == 5 == SessionThresholds().max_interventions


def test_the_aspects_under_pass_from_are_noted_in_japanese_by_default():
    review = scored(4, 4, 3, 3, 4)
    assert low_aspects(review, 4.0) == ["connection", "density"]
    assert aspect_notes(review, 4.0) == [
        ("connection", "対話の接続性: connection 3"),
        ("density", "情報密度: density 3"),
    ]
    assert low_aspects(review, 4.5) == ["frame", "roleplay", "connection", "density", "naturalness"]
    assert aspect_notes(review, 4.0, "en")[1] == ("density", "Information density: density 3")
    with pytest.raises(ValueError, match="language"):
        aspect_notes(review, 4.0, "fr")


def test_a_reason_is_put_on_one_line_and_cut_and_an_empty_one_gives_the_score():
    long = "内容が\n薄い。 \x00 " + "説明が足りません。" * 20
    review = scored(5, 5, 2, 3, 5, reasons={"frame": "", "roleplay": "", "connection": "", "density": long,
                                            "naturalness": ""})  # fmt: skip
    (_, empty), (_, cut) = aspect_notes(review, 4.0)
    assert empty == "対話の接続性: 2点"
    assert cut.startswith("情報密度: 内容が 薄い。 説明が") and cut.endswith("…") and "\n" not in cut
    assert len(cut) == len("情報密度: ") + 80
    assert aspect_notes(review, 4.0, "en")[0][1] == "Connection: score 2 of 5"


def test_the_prompts_take_their_limits_from_the_caller():
    lines = [("やな", f"line {n}") for n in range(20)]
    assert prompts.history_text(lines, 12).splitlines()[0] == "やな: line 8"
    assert prompts.history_text(lines, 1) == "やな: line 19" and prompts.history_text([], 5) == "（なし）"
    with pytest.raises(ValueError, match="limit"):
        prompts.history_text(lines, 0)
    review = {"status": "RETRY", "scores": {"frame": 4, "density": 3}, "reasons": {"frame": "f", "density": "d"}}
    assert prompts.retry_feedback("x", [], review, pass_from=4.0).endswith("講評: density: d")
    assert prompts.retry_feedback("x", [], review, pass_from=4.5).endswith("講評: frame: f; density: d")
