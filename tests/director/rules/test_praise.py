"""Praise of the listener (§3, §5): RETRY with an affirmation in the same sentence, WARN for the word alone."""

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
        # predicated of the listener: no other subject, nothing but an ending after it
        ("天才ですね！", "RETRY", ["天才", "ですね"]),
        ("さすがです！", "RETRY", ["さすが", "です"]),
        ("すごいですね", "RETRY", ["すごい", "ですね"]),
        ("本当に素晴らしい！", "RETRY", ["素晴らしい"]),
        ("あなたは天才ですね。", "RETRY", ["天才", "ですね"]),  # the listener named as the subject
        ("きみの意見、合っているよ。すごいね", "RETRY", ["すごい", "ね"]),
        ("あなたの答えは正しいです。完璧ですね。", "RETRY", ["完璧", "ですね"]),
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


def test_the_issues_praise_line_is_a_retry_naming_what_was_said_of_the_listener(check):
    verdict = check("さすがです！本当に素晴らしい！天才ですね！", "ayu")
    found = finding(verdict, "praise")
    assert verdict.status == "RETRY" and found["status"] == "RETRY"
    assert "さすがです" in found["message"]


def test_english_message_of_praise_said_of_the_listener(check):
    found = finding(check("天才ですね！", "ayu", language="en"), "praise")
    assert found["message"].startswith("An evaluation word is said of the listener")
    assert "天才ですね" in found["message"]
