"""Topic loop inside one utterance (§8): a content word 3+ times is a WARN, never a RETRY."""

import pytest

from director.rules import check_utterance, load_rule_set
from tests.director.rules.helpers import finding, write_rule_set


@pytest.mark.parametrize(
    ("text", "words", "evidence"),
    [
        ("猫が好き。猫と遊ぶ。猫を撫でる。", "猫×3", ["猫", "猫", "猫"]),
        ("食べた。食べる。食べたい。", "食べる×3", ["食べ", "食べる", "食べ"]),  # one lemma, three forms
        ("きれい、きれいだね、きれいな花。", "きれい×3", ["きれい", "きれい", "きれい"]),
        ("猫と犬。猫と犬。猫と犬。", "猫×3、犬×3", ["猫", "犬", "猫", "犬", "猫", "犬"]),
    ],
)
def test_a_word_three_times_is_a_warn(check, text, words, evidence):
    found = finding(check(text), "topic_loop")
    assert found["status"] == "WARN"
    assert words in found["message"]
    assert [span["text"] for span in found["evidence"]] == evidence
    for span in found["evidence"]:
        assert text[span["start"] : span["end"]] == span["text"]


@pytest.mark.parametrize(
    "text",
    [
        "猫が好き。猫と遊ぶ。",  # twice
        "することがある。することもある。することにする。",  # する, こと, ある are stop words
        "すごい、凄い、すごかった。",  # three spellings: すごい twice, 凄い once
    ],
)
def test_fewer_repeats_or_stop_words_pass(check, text):
    assert finding(check(text), "topic_loop") is None


def test_it_is_never_a_retry(check):
    verdict = check("猫です。猫です。猫です。猫です。猫です。")
    assert finding(verdict, "topic_loop")["status"] == "WARN"


def test_the_repeat_count_comes_from_the_rule_set(tmp_path):
    rules = load_rule_set(
        write_rule_set(tmp_path, lambda data: data["thresholds"]["topic_loop"].update(repeat_count=2))
    )
    verdict = check_utterance("猫が好き。猫と遊ぶ。", "ayu", rules)
    assert finding(verdict, "topic_loop")["status"] == "WARN"


def test_an_adjective_said_three_times_is_a_repetition(check):
    found = finding(check("いいね、いいよ、ほんといいかも！", "yana"), "topic_loop")
    assert found is not None and found["status"] == "WARN"
    assert [span["text"] for span in found["evidence"]] == ["いい", "いい", "いい"]
