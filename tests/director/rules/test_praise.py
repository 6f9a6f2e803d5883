"""Praise of the listener (§5): RETRY with an affirmation in the same sentence, WARN for the word alone."""

import pytest

from director.rules import check_utterance, load_rule_set
from tests.director.rules.helpers import finding, write_rule_set


@pytest.mark.parametrize(
    ("text", "status", "evidence"),
    [
        ("あなたの答えは正しいです、完璧ですね。", "RETRY", ["あなた", "正しい", "完璧"]),
        ("完璧です、その考えは素敵ですね。", "RETRY", ["完璧", "その考え", "素敵"]),
        ("きみの意見、合っているよ。すごいね", "WARN", ["すごい"]),  # the affirmation is in another sentence
        ("あなたの答えは正しいです。完璧ですね。", "WARN", ["完璧"]),
        ("この景色は素晴らしいですね。", "WARN", ["素晴らしい"]),
        ("あなたは天才ですね。", "WARN", ["天才"]),  # a target but no predicate
        ("その答えは正しいです。", None, []),  # an affirmation without an evaluation word is information
        ("ものすごく寒いですね。", None, []),
        ("「すごい」と言われました。", None, []),  # quoted
        ("「あなたは正しい」と完璧に言いました。", "WARN", ["完璧"]),  # the affirmation is quoted
        ("（あなたの答えは正しい、完璧）と思いました。", None, []),
    ],
)
def test_praise_for_ayu(check, text, status, evidence):
    found = finding(check(text, "ayu"), "praise")
    if status is None:
        assert found is None
        return
    assert found["status"] == status
    assert [span["text"] for span in found["evidence"]] == sorted(evidence, key=text.index)
    for span in found["evidence"]:
        assert text[span["start"] : span["end"]] == span["text"]


def test_praise_is_not_checked_for_yana_by_default(check):
    assert finding(check("あなたの答えは正しいね、完璧！", "yana"), "praise") is None


def test_a_rule_set_can_switch_praise_on_for_yana(tmp_path):
    def praise_for_yana(data):
        data["characters"] = {
            "yana": {
                "name": "やな",
                "markers": {"ending": ["よね"], "vocabulary": ["ほんと"]},
                "style": {"kind": "short_exclaiming", "max_sentences": 2, "marks": ["！", "？"]},
                "rules": {"praise": True},
            }
        }

    rules = load_rule_set(write_rule_set(tmp_path, praise_for_yana))
    verdict = check_utterance("あなたの答えは正しいね、完璧！", "やな", rules)
    assert finding(verdict, "praise")["status"] == "RETRY"
    assert verdict.status == "RETRY"
