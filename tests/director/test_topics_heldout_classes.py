"""Classes of lines the issue-43 held-out set showed the topic rules missing (seed 004 §6.2, §8).

The sentences are written here, not taken from any evaluation set.

- §6.2 「（名詞）は（活用語）」 with a time word: it heads a topic when the conjugating word follows は
  directly and is said of it (今日は暑い), not when something stands between or the word modifies a noun.
- §8 早すぎる話題転換: a turn opening with a word that starts another topic (ところで, そういえば) before
  the current topic, named or not, has led the rule set's hook depth.
"""

import pytest

from director.rules import check_utterance, load_rule_set
from director.rules.analyser import get_analyser
from director.rules.quotes import find_quotes
from director.rules.sentences import sentence_spans
from director.rules.topics import topic_heads
from director.sessions.state import SessionState, advance, history_findings, leading_topic


@pytest.fixture(scope="module")
def rules():
    return load_rule_set()


def heads(text: str) -> list[str]:
    sentences = sentence_spans(find_quotes(text).view(text))
    return list(topic_heads(text, get_analyser().tokenize(text), sentences, frozenset()))


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("昨日は寒かったね。", ["昨日"]),  # adjective right after は
        ("来週は忙しくなりそう。", ["来週"]),
        ("夕方は混みます。", ["夕方"]),  # verb right after は
        ("3時は混むよ。", []),  # a clock time after a numeral: a quantity
        ("週末は散歩しよう。", ["週末"]),  # サ変 noun + する
        ("今朝は静かだね。", ["今朝"]),  # adjectival noun
        ("昨日は少し寒かったね。", []),  # an adverb between: the time word sets the scene
        ("夕方は駅が混みます。", []),  # another subject: the time word is a frame
        ("昨日は寒い日だったね。", []),  # the adjective modifies 日
        ("今朝は静かな朝だね。", []),  # the adjectival noun modifies 朝
        ("週末は雨だね。", []),  # a noun without する
        ("今朝はあんなに晴れてたのにね。", []),  # an adverbial adjectival noun modifies the verb
        ("昨日は寒かったし、来週は暑くなるらしい。", ["昨日", "来週"]),
    ],
)
def test_a_time_word_heads_a_topic_only_with_the_conjugating_word_right_after(text, expected):
    assert heads(text) == expected


def test_two_time_topics_in_two_sentences_are_a_scatter_warn(rules):
    verdict = check_utterance("昨日は寒かったよね。来週は暑くなるかな？", "yana", rules)
    assert (verdict.sentences, verdict.topics, verdict.status) == (2, 2, "WARN")
    assert [found.rule for found in verdict.findings] == ["scatter"]


def test_four_sentences_on_three_topics_with_time_words_are_a_retry(rules):
    text = "昨日は疲れたよね。部活は大変だったし。ほんとにね。来週は休みたいかも。"
    verdict = check_utterance(text, "yana", rules)
    assert (verdict.sentences, verdict.topics) == (4, 3)
    assert verdict.finding("scatter").status == "RETRY"


def test_time_words_setting_the_scene_stay_out_of_the_count(rules):
    text = "朝は駅が混みます。昼は比較的空いています。夜は電車が少ないです。週末は工事があります。"
    verdict = check_utterance(text, "ayu", rules)
    assert (verdict.sentences, verdict.topics) == (4, 0)
    assert verdict.finding("scatter").status == "WARN"


# §8 早すぎる話題転換: a word starting another topic (別の話を始めた), named topics or not.


@pytest.mark.parametrize(
    ("text", "shift"),
    [
        ("ところで、週末の予定はどうかな？", "ところで"),
        ("ねえ、そういえば図書館の本返した？", "そういえば"),  # after 、
        ("あ、そうだ！洗剤が切れてたかも。", "あ、そうだ"),
        ("そういえばそうだね。", ""),  # agreeing: a hiragana follows
        ("あ、そうだね！", ""),
        ("静かなところで読書したいかも。", ""),  # a place, inside a sentence
        ("「ところで」って口癖だよね。", ""),  # quoted
    ],
)
def test_topic_shift_words(rules, text, shift):
    assert check_utterance(text, "yana", rules).topic_shift == shift


def _state_after(lines, rules):
    state = SessionState()
    for speaker, text in lines:
        verdict = check_utterance(text, speaker, rules)
        state = advance(state, status="PASS", speaker=speaker, topic=leading_topic(verdict), next_speaker=speaker)
    return state


def _history_rules(lines, text, speaker, rules):
    verdict = check_utterance(text, speaker, rules)
    state = _state_after(lines, rules)
    found = history_findings(state, leading_topic(verdict), rules.session, shift=verdict.topic_shift)
    return [finding["rule"] for finding in found]


def test_a_shift_word_one_turn_after_a_topic_opened_is_an_early_change(rules):
    lines = [("ayu", "姉様、明日の遠足のお弁当を準備しています。")]
    assert _history_rules(lines, "ところで、新しい靴買ったんだよね！", "yana", rules) == ["early_topic_change"]


def test_a_shift_word_after_the_topic_led_enough_turns_is_fine(rules):
    lines = [("ayu", "姉様、明日の遠足のお弁当を準備しています。"), ("yana", "うーん、唐揚げ入れてほしいかも！")]
    assert _history_rules(lines, "ところで、新しい靴買ったんだよね！", "yana", rules) == []


def test_a_shift_word_on_the_first_turn_or_without_one_is_fine(rules):
    assert _history_rules([], "ところで、新しい靴買ったんだよね！", "yana", rules) == []
    lines = [("ayu", "姉様、明日の遠足のお弁当を準備しています。")]
    assert _history_rules(lines, "唐揚げ入れてほしいかも！", "yana", rules) == []


def test_the_shift_finding_speaks_english_on_request(rules):
    state = _state_after([("ayu", "姉様、明日の遠足のお弁当を準備しています。")], rules)
    (found,) = history_findings(state, "", rules.session, language="en", shift="ところで")
    assert found["status"] == "WARN"
    assert found["message"] == "“ところで” starts another topic after only 1 turn(s) on the current one."
