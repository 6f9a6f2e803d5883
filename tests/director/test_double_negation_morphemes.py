"""Double negation read on morphemes (issue 43): any spelling, any negative-prefix word, the whole grammar.

Sentences written for these tests. RETRY (``contradiction``) only where a reading reverses another
(the tag じゃない / じゃん / じゃね ending the sentence, or a negation + a question ending); else a
``litotes`` WARN.
"""

import pytest

from director.rules import check_utterance, load_rule_set
from director.rules.analyser import get_analyser
from tests.director.rules.helpers import finding


@pytest.fixture(scope="module")
def rules():
    return load_rule_set()


def found(rules, text: str, speaker: str = "yana") -> dict[str, list[str]]:
    """``{rule: [evidence texts]}`` of the double-negation findings of ``text``."""
    verdict = check_utterance(text, speaker, rules)
    result = {}
    for rule in ("contradiction", "litotes"):
        item = finding(verdict, rule)
        if item is not None:
            for span in item["evidence"]:
                assert text[span["start"] : span["end"]] == span["text"]
            result[rule] = [span["text"] for span in item["evidence"]]
    return result


@pytest.mark.parametrize(
    ("text", "expression"),
    [
        # the same word in kanji, hiragana and katakana
        ("弟ってまだ未成年じゃない？", "未成年じゃない"),
        ("弟ってまだみせいねんじゃない？", "みせいねんじゃない"),
        ("弟ってまだミセイネンじゃない？", "ミセイネンじゃない"),
        ("そのノートってまだみしようじゃない？", "みしようじゃない"),
        # じゃ無い, じゃねえ, じゃね: the tag in other spellings
        ("弟はまだ未成年じゃ無い？", "未成年じゃ無い"),
        ("弟はまだ未成年じゃねえ？", "未成年じゃねえ"),
        ("それって不公平じゃね？", "不公平じゃね"),
    ],
)
def test_spelling_variants_are_one_word(rules, text, expression):
    assert found(rules, text) == {"contradiction": [expression]}


@pytest.mark.parametrize(
    ("text", "expression"),
    [
        # negative-prefix words no list names: recognised as a prefix + a noun
        ("この駐車場って無料じゃない？", "無料じゃない"),
        ("その手続き、不要じゃないかな？", "不要じゃない"),
        ("この道、ちょっと不便じゃない！", "不便じゃない"),
        ("駅前の本屋さんって無休じゃない？", "無休じゃない"),
        ("あの屋敷って無人じゃん！", "無人じゃん"),
        ("新しいパン屋さん、まだ未開店じゃない？", "未開店じゃない"),  # 未開 + the suffix 店
        ("その計画は非現実的じゃないの？", "非現実的じゃない"),  # 非 as its own prefix morpheme
        ("その書類はまだ未記入ではないですか？", "未記入ではない"),  # any negation + a question ending
        ("それは不必要ではありませんか。", "不必要ではありません"),
        ("この席は無料じゃないでしょうか。", "無料じゃない"),
    ],
)
def test_a_negative_prefix_word_is_found_by_its_morphemes(rules, text, expression):
    assert found(rules, text) == {"contradiction": [expression]}


@pytest.mark.parametrize(
    ("text", "expression"),
    [
        ("この駐車場は無料じゃないよ！", "無料じゃない"),  # よ: no tag
        ("その手続きは不要ではありません。", "不要ではありません"),
        ("その店は無休でもないです。", "無休でもない"),
        ("昔はあの道も不便じゃなかった。", "不便じゃなかった"),
        ("その書類はまだみていしゅつじゃないけど。", "みていしゅつじゃない"),
    ],
)
def test_a_plain_negation_of_the_word_is_a_litotes(rules, text, expression):
    assert found(rules, text) == {"litotes": [expression]}


@pytest.mark.parametrize(
    "text",
    [
        "それは未来じゃない？",  # the prefix no longer felt: listed in not_negative_prefix_words
        "ちょっと不安じゃない？",
        "それって無駄じゃない？",
        "今って非常事態じゃない？",
        "それ、不思議じゃない？",  # 思議 is no word
        "みらいじゃない？",  # the kana spelling of an excluded word
        "ひまじゃない？",  # ヒ + マ: no negative-prefix word reads so
        "ミルクじゃない？",
        "それ、無料アプリの話じゃないよ。",  # the negation is not of the prefixed word
    ],
)
def test_words_that_are_no_negative_prefix_words_find_nothing(rules, text):
    assert found(rules, text) == {}


@pytest.mark.parametrize(
    ("text", "expression"),
    [
        # なくはない / なくもない, any tense, any spelling of ない
        ("寒くなくはないかな。", "なくはない"),
        ("あの映画、面白くなくもなかった。", "なくもなかった"),
        ("手伝えなくはありません。", "なくはありません"),
        ("そういう道も無くはないよ。", "無くはない"),
        # ないではない / ないでもない
        ("彼の言い分もわからないではない。", "ないではない"),
        ("泳げないでもありません。", "ないでもありません"),
        # こと / 事 / コト
        ("歩けないことはないよ。", "ないことはない"),
        ("歩けない事はないよ。", "ない事はない"),
        ("歩けないコトもないよ。", "ないコトもない"),
        ("歩けない事は無いよ。", "ない事は無い"),
        # わけ / 訳, では / でも / じゃ
        ("嫌いなものが食べられないわけではない。", "ないわけではない"),
        ("眠くない訳でもない。", "ない訳でもない"),
        ("会いたくないわけじゃないよ。", "ないわけじゃない"),
        ("気にしていなかった訳じゃありません。", "なかった訳じゃありません"),
        # もの
        ("その考えも理解できないものでもない。", "ないものでもない"),
        ("その結末は予想できないものではなかった。", "ないものではなかった"),
        # と(は/も) 限らない / 言い切れない
        ("明日も晴れないとは限らない。", "ないとは限らない"),
        ("電車が遅れないとも限りません。", "ないとも限りません"),
        ("これで足りないとは言い切れない。", "ないとは言い切れない"),
        ("これで足りないと言い切れない。", "ないと言い切れない"),
    ],
)
def test_negated_negations_are_a_litotes(rules, text, expression):
    assert found(rules, text, "ayu") == {"litotes": [expression]}


@pytest.mark.parametrize(
    "text",
    [
        "少なくもないお金です。",  # 少ない is one word, no negation
        "明日が晴れるとは限らない。",  # 限らない after no negation
        "知らないわけがないよ。",  # no は / も / では: emphatic, not hedged
        "好きなわけじゃないよ。",  # one negation only
        "行かないことにした。",
        "できないことがあります。",
        "そうとは言い切れないね。",
    ],
)
def test_single_negations_find_nothing(rules, text):
    assert found(rules, text, "ayu") == {}


def test_kana_spellings_are_read_from_the_dictionary():
    analyser = get_analyser()
    prefixes = frozenset("未不非無")
    assert analyser.kana_prefixed_word("みせいねん", prefixes) == "未成年"
    assert analyser.kana_prefixed_word("ミセイネン", prefixes) == "未成年"
    assert analyser.kana_prefixed_word("きれい", prefixes) is None  # no prefix reading: no look-up
    assert analyser.kana_prefixed_word("未成年", prefixes) is None  # not kana
