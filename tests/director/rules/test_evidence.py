"""Evidence spans index the ORIGINAL text, also after normalisation changed its length."""

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from director.rules import analyser as analyser_module
from director.rules import check_utterance
from director.rules.normalise import normalise
from tests.director.rules.helpers import assert_evidence_in_original, finding


@pytest.mark.parametrize(
    ("text", "rule", "expected"),
    [
        ("ほんと！！！　すごい…", "praise", ["すごい"]),
        ("えっ!!!   \n\n  あなたは正しい、天才だね｡｡", "praise", ["あなた", "正しい", "天才"]),
        ("  ほんと??  まだ未成年じゃない！！", "contradiction", ["未成年じゃない"]),
        ("わあ～～～　一人暮らしなの？？", "setting", ["一人暮らし"]),
        ("猫!!猫!!\n\n\n猫!!", "topic_loop", ["猫", "猫", "猫"]),
        ("「天気について！！」", "script_format", ["「", "」"]),
        ("「 猫は可愛い！！ 犬は賢い!!」", "scatter", ["猫", "犬"]),  # offsets shifted by the stripped 「
        ("\n\n「ほんと？？", "bracket", ["「"]),
    ],
)
def test_spans_slice_the_original_text_to_the_matched_words(check, text, rule, expected):
    verdict = check(text, "ayu")
    assert [span["text"] for span in finding(verdict, rule)["evidence"]] == expected
    assert_evidence_in_original(text, verdict)


def test_each_span_is_where_the_word_is(check):
    text = "ほんと！！！　すごい…"
    span = finding(check(text, "ayu"), "praise")["evidence"][0]
    assert (span["start"], span["end"]) == (7, 10)


def test_a_text_too_long_for_one_analysis_is_analysed_in_pieces(check, monkeypatch):
    text = "\n".join(["猫は可愛いよね！", "犬は賢い!!", "鳥は速い。"] * 4)
    whole = check(text, "yana")
    monkeypatch.setattr(analyser_module, "CHUNK", 12)
    pieces = check(text, "yana")
    assert pieces.to_dict() == whole.to_dict()
    assert pieces.topics == 3
    assert_evidence_in_original(text, pieces)


# Words the rules look for, symbols that get folded or bracket, spaces that get collapsed.
WORDS = ["ほんと", "すごい", "すっごい", "天才", "完璧", "あなた", "その答え", "正しい", "猫", "は", "について"]
WORDS += ["姉様", "あゆ"]  # the characters' names for the listener (praise targets)
WORDS += ["の話", "未成年", "じゃない", "なくもない", "ないことはない", "一人暮らし", "かも", "よね", "です"]
WORDS += ["ました", "ね", "つまり", "目安", "可愛い", "食べた", "京都", "わ", "へ"]
SYMBOLS = list("！!？?。｡、､…～♪「」『』（）()")
SPACES = [" ", "\u3000", "\n", "\r\n", "\t"]
NOISE = st.text(alphabet="あいう猫ー!！？ ", max_size=3)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    parts=st.lists(st.sampled_from(WORDS + SYMBOLS + SPACES) | NOISE, max_size=30),
    speaker=st.sampled_from(["yana", "ayu"]),
)
@example(parts=["すごい", "よね", "よね"], speaker="ayu")  # two endings: two spans, not one よねよね
def test_every_evidence_span_slices_the_original_text(rules, parts, speaker):
    text = "".join(parts)
    verdict = check_utterance(text, speaker, rules)
    assert_evidence_in_original(text, verdict)
    # ... and what it slices, normalised again, is what the rule matched
    character = rules.character(speaker)
    praise = rules.config["praise"]
    words = {
        "praise": {*praise["evaluation_words"], *praise["targets"], *character.praise_targets, *praise["predicates"]}
        | set(praise["predicate_endings"]),  # said of the listener: the word's ending is evidence too
        "setting": set(rules.config["setting"]["phrases"]),
        "tone": {*character.endings, *character.vocabulary},
        "bracket": set("「」『』（）()"),
    }
    for found in verdict.findings:
        for span in found.evidence if found.rule in words else ():
            matched = normalise(span["text"]).text
            if found.rule == "setting":  # a stem, shown to the end of its word (別の家に住 → 別の家に住ん)
                assert any(matched.startswith(phrase) for phrase in words["setting"]), (found.rule, span)
            else:
                assert matched in words[found.rule], (found.rule, span)
    verdict.to_dict()
