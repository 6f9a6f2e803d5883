"""Praise of the listener (§3, §5): RETRY with an affirmation in the same sentence, WARN for the word alone.

The implicit-listener option and the per-character targets: ``tests/director/test_praise_scope.py``."""

import pytest

from director.rules import check_utterance, load_rule_set
from tests.director.rules.helpers import finding, write_rule_set


@pytest.mark.parametrize(
    ("text", "status", "evidence"),
    [
        ("あなたの答えは正しいです、完璧ですね。", "RETRY", ["あなた", "正しい", "完璧"]),
        ("完璧です、その考えは素敵ですね。", "RETRY", ["完璧", "その考え", "素敵"]),
        ("きみの意見、合っているよ。すごい景色だね", "WARN", ["すごい"]),  # the affirmation is in another sentence
        ("あなたの答えは正しいです。完璧な景色ですね。", "WARN", ["完璧"]),
        ("この景色は素晴らしいですね。", "WARN", ["素晴らしい"]),  # said of a thing
        ("姉はすごいです。", "WARN", ["すごい"]),  # said of a third person
        ("このケーキは素晴らしい", "WARN", ["素晴らしい"]),
        ("すごい景色ですね。", "WARN", ["すごい"]),  # attributive: about the view
        ("今日も完璧な天気ですね。", "WARN", ["完璧"]),
        # said to the listener with no affirmation, or with the affirmation in another sentence: the
        # evaluation word alone (the rule set's implicit_listener option makes these RETRY)
        ("天才ですね！", "WARN", ["天才"]),
        ("さすがです！", "WARN", ["さすが"]),
        ("すごいですね", "WARN", ["すごい"]),
        ("本当に素晴らしい！", "WARN", ["素晴らしい"]),
        ("あなたは天才ですね。", "WARN", ["天才"]),  # a target, but no affirming predicate
        ("きみの意見、合っているよ。すごいね", "WARN", ["すごい"]),
        ("あなたの答えは正しいです。完璧ですね。", "WARN", ["完璧"]),
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


def test_praise_is_checked_for_yana_too(check):
    found = finding(check("あなたの答えは正しいね、完璧！", "yana"), "praise")
    assert found["status"] == "RETRY"


def test_a_rule_set_can_switch_praise_off_for_yana(tmp_path):
    def no_praise_for_yana(data):
        data["characters"] = {
            "yana": {
                "name": "やな",
                "markers": {"ending": ["よね"], "vocabulary": ["ほんと"]},
                "style": {"kind": "short_exclaiming", "max_sentences": 2, "marks": ["！", "？"]},
                "rules": {"praise": False},
            }
        }

    rules = load_rule_set(write_rule_set(tmp_path, no_praise_for_yana))
    verdict = check_utterance("あなたの答えは正しいね、完璧！", "やな", rules)
    assert [found.rule for found in verdict.findings] == ["tone"]  # no praise; tone 1 with these markers


def test_the_issues_praise_line_is_a_warn_naming_the_evaluation_words(check):
    verdict = check("さすがです！本当に素晴らしい！天才ですね！", "ayu")
    found = finding(verdict, "praise")
    assert verdict.status == "WARN" and found["status"] == "WARN"
    assert [span["text"] for span in found["evidence"]] == ["さすが", "素晴らしい", "天才"]
