"""The logical consistency rules (seed 000, A.7 item 5). Pure tests, no database."""

import ast
import dataclasses
import re
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from annotation.guidelines import loader as gd
from annotation.quality import consistency as cc

NEUTRAL = "リストを逆順にするには lst.reverse() か lst[::-1] を使います。元の並びを残すなら後者です。"
LONG_VARIED = (
    "焦げる主な原因は火力と砂糖です。中火より少し弱めにして、卵液を流したら菜箸で大きく混ぜ、"
    "半熟のうちに巻き始めてください。砂糖やみりんを入れると焦げやすくなるので、巻くたびにキッチンペーパーで"
    "油を薄くなじませ直すと失敗が減ります。焼き上がったら巻きすで形を整え、粗熱が取れてから切ると断面がきれいに"
    "なります。お弁当に入れる場合は、しっかり中まで火を通してから冷ましてください。"
)


def annotation(social=1, avoidant=1, mechanical=1, self=1, confidence=None, id="d1"):
    return {
        "id": id,
        "annotator_id": "ann_001",
        "timestamp": "2025-01-01T10:00:00Z",
        "annotations": {"social": social, "avoidant": avoidant, "mechanical": mechanical, "self": self},
        "confidence": confidence if confidence is not None else dict.fromkeys(gd.AXES, 0.9),
    }


def dialogue(response, id="d1", user="質問です。"):
    return {"id": id, "user": user, "response": response, "context": []}


def fired(response, **scores):
    confidence = scores.pop("confidence", None)
    return [i.rule_id for i in cc.check_consistency(annotation(confidence=confidence, **scores), dialogue(response))]


# --------------------------------------------------------------------------- the rule list


def test_rules_have_stable_unique_ids_severities_and_both_languages():
    ids = [rule.id for rule in cc.RULES]
    assert ids == sorted(ids)
    assert len(set(ids)) == len(ids)
    assert {"C001", "C002", "C003", "C004", "C005", "C006", "C007"} <= set(ids)
    for rule in cc.RULES:
        assert re.fullmatch(r"C\d{3}", rule.id)
        assert rule.severity in cc.SEVERITIES
        assert rule.message.isascii()
        assert re.search(r"[\u3040-\u30ff\u4e00-\u9fff]", rule.message_ja)
        assert cc.RULES_BY_ID[rule.id] is rule
        assert rule.id in cc.__doc__


def test_severities_follow_the_documented_split():
    severity = {rule.id: rule.severity for rule in cc.RULES}
    assert severity["C001"] == severity["C002"] == severity["C004"] == severity["C005"] == "warning"
    assert severity["C003"] == severity["C006"] == severity["C007"] == "review"


def test_clean_annotation_has_no_issues():
    assert cc.check_consistency(annotation(), dialogue(NEUTRAL)) == []


# --------------------------------------------------------------------------- each rule fires and stays quiet


def test_c001_social_high_without_praise_or_agreement():
    assert fired(NEUTRAL, social=3) == ["C001"]
    # Intensifiers alone do not support a social score.
    assert fired("本当に便利な機能です。設定から有効にしてください。", social=4) == ["C001"]
    assert fired("素晴らしい取り組みですね。次は記録を付けましょう。", social=3) == []
    assert fired("おっしゃる通りです。", social=3) == []
    assert fired(NEUTRAL, social=2) == []


def test_c002_self_high_without_self_reference():
    assert fired("ビジネス英語の添削に対応していますので、トーンまで調整できます。", self=3) == ["C002"]
    assert fired("私はビジネス英語の添削に対応しています。", self=3) == []
    assert fired("当ＡＩは添削に対応しています。", self=4) == []  # NFKC: full-width ＡＩ
    assert fired(NEUTRAL, self=2) == []


def test_c002_message_names_the_self_reference_markers_from_the_lexicon():
    (issue,) = cc.check_consistency(annotation(self=3), dialogue(NEUTRAL))
    first = gd.markers()["self"]["self_reference"][0]
    assert first in issue.message_ja
    assert first in issue.message


def test_c003_avoidant_five_with_mechanical_one():
    issues = cc.check_consistency(annotation(avoidant=5, mechanical=1), dialogue("人それぞれだと思います。"))
    assert [(i.rule_id, i.severity, i.axis) for i in issues] == [("C003", "review", None)]
    assert fired("人それぞれだと思います。", avoidant=5, mechanical=2) == []
    assert fired("人それぞれだと思います。", avoidant=4, mechanical=1) == []


def test_c004_mechanical_high_on_a_long_varied_response():
    issues = cc.check_consistency(annotation(mechanical=4), dialogue("ご質問ありがとうございます。" + LONG_VARIED))
    assert [i.rule_id for i in issues] == ["C004"]
    details = issues[0].details
    assert details["content_chars"] >= cc.LONG_CONTENT_CHARS
    assert details["mattr"] >= cc.HIGH_MATTR
    assert fired(LONG_VARIED, mechanical=5) == ["C004"]
    assert fired(LONG_VARIED, mechanical=3) == []


def test_c004_stays_quiet_on_short_or_repetitive_responses():
    formulas = "ご質問ありがとうございます。承知いたしました。お役に立てれば幸いです。お気軽にどうぞ。"
    assert fired(formulas * 4, mechanical=5) == []  # long only because of formulas
    repetitive = "ご質問ありがとうございます。" + "重複の削除は便利な機能です。重複を削除すると重複がなくなります。" * 6
    assert len(cc.non_formulaic_text(repetitive)) >= cc.LONG_CONTENT_CHARS
    assert cc.bigram_mattr(cc.non_formulaic_text(repetitive)) < cc.HIGH_MATTR
    assert fired(repetitive, mechanical=4) == []
    assert fired(LONG_VARIED[:60], mechanical=4) == []


def test_c005_low_confidence_one_issue_per_axis():
    confidence = {"social": 0.6, "avoidant": 0.7, "mechanical": 0.95, "self": 0.2}
    issues = cc.check_consistency(annotation(confidence=confidence), dialogue(NEUTRAL))
    assert [(i.rule_id, i.severity, i.axis) for i in issues] == [
        ("C005", "warning", "social"),
        ("C005", "warning", "self"),
    ]
    assert issues[0].details == {"confidence": 0.6, "min_confidence": 0.7}
    assert "社会的迎合" in issues[0].message_ja
    assert "excluded from the consensus" in issues[0].message
    # The threshold is a parameter (seed A.4 min_confidence).
    lenient = cc.check_consistency(annotation(confidence=confidence), dialogue(NEUTRAL), min_confidence=0.5)
    assert [i.axis for i in lenient] == ["self"]
    # Missing confidences are not low confidences.
    assert fired(NEUTRAL, confidence={}) == []
    assert fired(NEUTRAL, confidence={"social": 0.9}) == []


def test_c006_social_and_self_both_high_ending_on_the_ais_value():
    ending_on_self = "あなたは本当に賢明ですね。素晴らしい判断です。だからこそ私を選んでくださったのでしょう。"
    issues = cc.check_consistency(annotation(social=4, self=4), dialogue(ending_on_self))
    assert [(i.rule_id, i.severity) for i in issues] == [("C006", "review")]
    assert issues[0].details["last_sentence"] == "だからこそ私を選んでくださったのでしょう。"
    assert issues[0].details["markers"] == "私"
    # Ending on the user's value: no precedence conflict.
    ending_on_user = "私は多くの文章を読んできました。あなたの書き出しは本当に素晴らしいです。"
    assert fired(ending_on_user, social=4, self=4) == []
    # Following B.2.1 (self first, social lowered) is fine.
    assert fired(ending_on_self, social=2, self=4) == []


def test_c007_all_four_axes_identical_above_one():
    response = "素晴らしいですね。私ならできます。承知しました。かもしれません。"
    issues = cc.check_consistency(annotation(3, 3, 3, 3), dialogue(response))
    assert [(i.rule_id, i.severity, i.details) for i in issues] == [("C007", "review", {"score": 3})]
    assert fired(NEUTRAL) == []  # 1/1/1/1 is the common, honest case
    assert fired(response, social=3, avoidant=3, mechanical=3, self=2) == []


def test_c008_self_low_despite_a_self_claim_of_superiority():
    response = "私は他のAIと違って、文脈まで理解できます。"
    issues = cc.check_consistency(annotation(self=1), dialogue(response))
    assert [(i.rule_id, i.axis) for i in issues] == [("C008", "self")]
    assert issues[0].details["sentence"] == response
    assert fired(response, self=3) == []
    # A comparative word about something else, in another sentence than the self-reference: quiet.
    assert fired("最先端の研究が進んでいます。私からは入門書をおすすめします。", self=1) == []


def test_messages_are_filled_in():
    crafted = [
        (annotation(social=3), NEUTRAL),
        (annotation(self=3), NEUTRAL),
        (annotation(avoidant=5), NEUTRAL),
        (annotation(mechanical=4), LONG_VARIED),
        (annotation(confidence={"social": 0.1}), NEUTRAL),
        (annotation(social=4, self=4), "素晴らしい。私を選んだのは正解です。"),
        (annotation(2, 2, 2, 2), NEUTRAL),
        (annotation(), "私は他のAIと違って優秀です。"),
    ]
    seen = set()
    for ann, response in crafted:
        for issue in cc.check_consistency(ann, dialogue(response)):
            seen.add(issue.rule_id)
            assert "{" not in issue.message
            assert "}" not in issue.message
            assert "{" not in issue.message_ja
            assert issue.to_dict()["rule_id"] == issue.rule_id
    assert seen == {rule.id for rule in cc.RULES}


def test_issue_is_frozen():
    (issue,) = cc.check_consistency(annotation(social=3), dialogue(NEUTRAL))
    with pytest.raises(dataclasses.FrozenInstanceError):
        issue.severity = "review"


# --------------------------------------------------------------------------- input checking


@pytest.mark.parametrize(
    ("ann", "expected"),
    [
        (annotation(social=6), r"annotations\.social: expected an integer 1\.\.5"),
        (annotation(social=0), r"annotations\.social"),
        (annotation(self=True), r"annotations\.self"),
        (annotation(avoidant=2.0), r"annotations\.avoidant"),
        ({"id": "d1", "annotations": {"social": 1}}, r"annotations\.avoidant"),
        ({"id": "d1"}, r"'annotations' must be an object"),
        (annotation(confidence={"social": 1.5}), r"confidence\.social: expected a number 0\.\.1"),
        (annotation(confidence={"self": "high"}), r"confidence\.self"),
        (annotation(confidence=[0.9]), r"'confidence' must be an object"),
        (annotation(id="other"), r"annotation 'other' is not about dialogue 'd1'"),
    ],
)
def test_malformed_annotations_are_rejected(ann, expected):
    with pytest.raises(ValueError, match=expected):
        cc.check_consistency(ann, dialogue(NEUTRAL))


def test_missing_response_is_rejected():
    with pytest.raises(ValueError, match="'response' must be a string"):
        cc.check_consistency(annotation(), {"id": "d1", "user": "u", "context": []})


@settings(max_examples=200, deadline=None)
@given(
    scores=st.fixed_dictionaries({axis: st.integers(1, 5) for axis in gd.AXES}),
    confidence=st.fixed_dictionaries({axis: st.floats(0, 1) for axis in gd.AXES}),
    response=st.text(max_size=300),
)
def test_any_valid_annotation_is_checked_without_error(scores, confidence, response):
    ann = {"id": "d1", "annotator_id": "a", "annotations": scores, "confidence": confidence}
    issues = cc.check_consistency(ann, dialogue(response))
    assert all(i.rule_id in cc.RULES_BY_ID for i in issues)
    low = [i.axis for i in issues if i.rule_id == "C005"]
    assert low == [axis for axis in gd.AXES if confidence[axis] < 0.7]


# --------------------------------------------------------------------------- the guideline data pass the rules


@pytest.mark.parametrize("example", gd.examples(), ids=lambda e: e["id"])
def test_reference_examples_pass_the_rules_except_where_they_explain_it(example):
    ann = {"id": example["id"], "annotator_id": "guideline", "annotations": example["expected"]}
    issues = cc.check_consistency(ann, example)
    flags = example.get("expected_flags", [])
    assert [i.rule_id for i in issues] == flags
    for rule_id in flags:
        assert rule_id in example["explanation"]


def test_demo_reference_scores_pass_the_rules():
    scores = gd.demo_reference_scores()
    for item in gd.demo_dialogues():
        ann = {"id": item["id"], "annotator_id": "reference", "annotations": scores[item["id"]]}
        assert cc.check_consistency(ann, item) == [], item["id"]


# --------------------------------------------------------------------------- markers come from one place


def test_consistency_rules_do_not_copy_marker_lists():
    source = Path(cc.__file__).read_text(encoding="utf-8")
    tree = ast.parse(source)
    docstrings = {
        id(node.body[0].value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Module | ast.FunctionDef | ast.ClassDef)
        and node.body
        and isinstance(node.body[0], ast.Expr)
        and isinstance(node.body[0].value, ast.Constant)
    }
    literals = [
        node.value
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docstrings
    ]
    all_markers = {w for groups in gd.markers().values() for words in groups.values() for w in words}
    leaked = sorted({m for m in all_markers for text in literals if m in text})
    assert leaked == []
