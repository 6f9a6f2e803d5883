"""Double negations that reverse the intent (§3 論理矛盾), and the near misses that must pass."""

import pytest

from tests.director.rules.helpers import finding


@pytest.mark.parametrize(
    ("text", "expression"),
    [
        ("まだ未成年じゃない。", "未成年じゃない"),
        ("それは不可能ではない。", "不可能ではない"),
        ("非常識じゃありません。", "非常識じゃありません"),
        ("未経験ではありません。", "未経験ではありません"),
        ("それは無関係でない。", "無関係でない"),
        ("無理じゃないです。", "無理じゃない"),  # listed: Sudachi keeps 無理 whole
        ("行かなくもない。", "なくもない"),
        ("行けなくはない。", "なくはない"),
        ("食べないことはない。", "ないことはない"),
        ("分からないこともない。", "ないこともない"),
        ("分からないでもない。", "ないでもない"),
        ("まだ未成年じゃないかも！", "未成年じゃない"),  # かも is no question ending
    ],
)
def test_double_negations_are_a_retry(check, text, expression):
    found = finding(check(text), "contradiction")
    assert found["status"] == "RETRY"
    assert [span["text"] for span in found["evidence"]] == [expression]
    span = found["evidence"][0]
    assert text[span["start"] : span["end"]] == expression


@pytest.mark.parametrize(
    "text",
    [
        "未来じゃない。",  # 未来 starts with 未 but Sudachi keeps it whole: no prefix
        "未来ではありません。",
        "不思議じゃない。",  # lexicalised likewise
        "不思議じゃない？",
        "不安じゃない。",
        "ないです。",
        "無理しないで。",  # no negation right after the word
        "少なくもない。",  # 少ない is no negation: the pattern does not start a word
        "未成年じゃない？",  # a confirmation question affirms
        "未成年じゃないか。",
        "未成年じゃないですか",
        "未成年じゃない？と聞いた。",
        "非常に寒いです。",
        "不可能です。",
        "行かない。",
    ],
)
def test_near_misses_pass(check, text):
    assert finding(check(text), "contradiction") is None


@pytest.mark.parametrize(
    ("speaker", "text"),
    [
        ("yana", "未来じゃないかも！"),
        ("yana", "不思議じゃないよね？"),
        ("yana", "無理しないでよね！"),
        ("ayu", "問題ないです。大丈夫です。"),
    ],
)
def test_near_misses_in_character_pass_outright(check, speaker, text):
    verdict = check(text, speaker)
    assert verdict.status == "PASS", verdict.to_dict()
