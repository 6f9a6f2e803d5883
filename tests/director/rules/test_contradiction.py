"""Double negations (§3 論理矛盾): the tag reading that reverses the intent is a RETRY, a litotes a WARN."""

import pytest

from tests.director.rules.helpers import finding


def only_span(found: dict, text: str) -> str:
    assert len(found["evidence"]) == 1, found
    span = found["evidence"][0]
    assert text[span["start"] : span["end"]] == span["text"]
    return span["text"]


@pytest.mark.parametrize(
    ("text", "expression"),
    [
        # the seed's example in every written form: じゃない also reads as the tag "…, isn't she?"
        ("まだ未成年じゃない", "未成年じゃない"),
        ("まだ未成年じゃない。", "未成年じゃない"),
        ("えー、あゆってまだ未成年じゃない？", "未成年じゃない"),
        ("まだ未成年じゃない！", "未成年じゃない"),
        ("まだ未成年じゃない…", "未成年じゃない"),
        ("未成年じゃないか。", "未成年じゃない"),
        ("未成年じゃないよね", "未成年じゃない"),
        ("未成年じゃないの？", "未成年じゃない"),
        ("未成年じゃないですか", "未成年じゃない"),
        ("未成年じゃないっけ？", "未成年じゃない"),
        ("まだ未成年じゃん！", "未成年じゃん"),
        ("未成年じゃない？と聞いた。", "未成年じゃない"),  # the question ends at ？, whatever follows
        ("無理じゃないかな？", "無理じゃない"),
        # any negation followed by a question ending is a confirmation question too
        ("不可能ではないですか？", "不可能ではない"),
        ("それは非常識ではありませんか。", "非常識ではありません"),
    ],
)
def test_a_negation_that_reads_as_a_tag_is_a_retry(check, text, expression):
    verdict = check(text, "yana")
    found = finding(verdict, "contradiction")
    assert found is not None and found["status"] == "RETRY", verdict.to_dict()
    assert only_span(found, text) == expression
    assert finding(verdict, "litotes") is None


@pytest.mark.parametrize(
    ("text", "expression"),
    [
        ("えー、無理じゃないよ！", "無理じゃない"),  # listed: Sudachi keeps 無理 whole
        ("無理じゃないし！", "無理じゃない"),
        ("無理じゃないけどね", "無理じゃない"),
        ("その二つは無関係ではありません。", "無関係ではありません"),
        ("不可能ではないですね。", "不可能ではない"),
        ("それは不可能ではない。", "不可能ではない"),
        ("非常識じゃありません。", "非常識じゃありません"),
        ("未経験ではありません。", "未経験ではありません"),
        ("それは無関係でない。", "無関係でない"),
        ("無理じゃないです。", "無理じゃない"),
        ("まだ未成年じゃないかも！", "未成年じゃない"),  # かも does not end the sentence as a tag
        ("未成年じゃないのに。", "未成年じゃない"),
        ("未成年じゃないって言ってた。", "未成年じゃない"),
        # negated negations: a hedged yes, never a reversal
        ("行かなくもない。", "なくもない"),
        ("行けなくはない。", "なくはない"),
        ("食べないことはない。", "ないことはない"),
        ("分からないこともない。", "ないこともない"),
        ("分からないでもない。", "ないでもない"),
    ],
)
def test_a_plain_double_negative_is_a_litotes_warn(check, text, expression):
    verdict = check(text, "ayu")
    found = finding(verdict, "litotes")
    assert found is not None and found["status"] == "WARN", verdict.to_dict()
    assert only_span(found, text) == expression
    assert finding(verdict, "contradiction") is None


@pytest.mark.parametrize(
    ("speaker", "text", "status"),
    [
        ("yana", "えー、あゆってまだ未成年じゃない？", "RETRY"),
        ("yana", "まだ未成年じゃない", "RETRY"),
        ("yana", "えー、無理じゃないよ！", "WARN"),
        ("ayu", "その二つは無関係ではありません。", "WARN"),
        ("ayu", "不可能ではないですね。", "WARN"),
    ],
)
def test_the_issues_examples_get_their_status(check, speaker, text, status):
    assert check(text, speaker).status == status


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
        "非常に寒いです。",
        "不可能です。",
        "行かない。",
    ],
)
def test_near_misses_find_nothing(check, text):
    verdict = check(text)
    assert finding(verdict, "contradiction") is None and finding(verdict, "litotes") is None


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


def test_a_line_with_both_kinds_reports_each_once(check):
    text = "無理じゃないよ。でも未成年じゃない？"
    verdict = check(text, "yana")
    assert only_span(finding(verdict, "contradiction"), text) == "未成年じゃない"
    assert only_span(finding(verdict, "litotes"), text) == "無理じゃない"
    assert verdict.status == "RETRY"


def test_the_contradiction_switch_covers_the_litotes(tmp_path):
    from director.rules import check_utterance, load_rule_set
    from tests.director.rules.helpers import write_rule_set

    def off(data):
        data["characters"] = {"yana": {"name": "やな", "markers": {"ending": ["よ"], "vocabulary": []},
                                       "style": {"kind": "short_exclaiming", "max_sentences": 2, "marks": ["！"]},
                                       "rules": {"contradiction": False}}}  # fmt: skip

    rules = load_rule_set(write_rule_set(tmp_path, off))
    verdict = check_utterance("無理じゃないよ！未成年じゃない？", "yana", rules)
    assert {found.rule for found in verdict.findings} & {"contradiction", "litotes"} == set()
