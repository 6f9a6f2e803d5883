"""The verdict (§1): worst finding wins, MODIFY for a folded display, script format, brackets, the dict shape."""

import threading

import pytest

from director.rules import RULE_ORDER, UnknownCharacter, check_utterance
from tests.director.rules.helpers import finding, rules_found


def test_a_clean_utterance_passes_without_modified_text(check, rules):
    verdict = check("そっか、いいよね！", "yana")
    assert verdict.status == "PASS"
    assert verdict.to_dict() == {
        "status": "PASS",
        "findings": [],
        "tone": {
            "marker": 1,
            "vocab": 1,
            "style": 1,
            "score": 3,
            "matched": {"marker": ["よね"], "vocab": ["そっか"], "style": "！"},
        },
        "sentences": 1,
        "topics": 0,
        "topicHeads": [],
        "rulesVersion": "1.3",
        "rulesHash": rules.content_hash,
        "speaker": "yana",
    }


def test_the_topic_heads_come_in_text_order(check):
    verdict = check("猫の話です。犬は元気です。猫は寝ています。", "ayu")
    assert verdict.topic_heads == ("猫", "犬")
    assert verdict.topics == 2
    assert verdict.to_dict()["topicHeads"] == ["猫", "犬"]


@pytest.mark.parametrize(
    ("text", "modified"),
    [
        ("そっか、いいよね！！", "そっか、いいよね！"),
        ("そっか、いいよね!", "そっか、いいよね！"),
        ("そっか、  いいよね！", "そっか、 いいよね！"),
        ("「そっか」、いいよね！！", "「そっか」、いいよね！"),  # quotes and brackets are kept
    ],
)
def test_a_folded_display_without_findings_is_modify(check, text, modified):
    verdict = check(text, "yana")
    assert verdict.status == "MODIFY"
    assert verdict.findings == ()
    assert verdict.to_dict()["modifiedText"] == modified


def test_trailing_whitespace_alone_is_no_modification(check):
    verdict = check("  そっか、いいよね！\n", "yana")
    assert verdict.status == "PASS"
    assert "modifiedText" not in verdict.to_dict()


def test_a_warn_wins_over_modify_and_carries_no_modified_text(check):
    verdict = check("行こう!!", "yana")  # tone 1
    assert verdict.status == "WARN"
    assert "modifiedText" not in verdict.to_dict()


@pytest.mark.parametrize(
    ("text", "speaker", "status", "found"),
    [
        ("今日は少し晴れている。明日は雨が降る。夜も寒い。", "yana", "RETRY", {"tone": "RETRY", "scatter": "WARN"}),
        ("行こう！", "yana", "WARN", {"tone": "WARN"}),
        ("まだ未成年じゃない！", "yana", "RETRY", {"contradiction": "RETRY", "tone": "WARN"}),
        ("まだ未成年じゃないかも！", "yana", "WARN", {"litotes": "WARN"}),
        ("猫は可愛い。犬は賢い。", "ayu", "RETRY", {"scatter": "WARN", "tone": "RETRY"}),
    ],
)
def test_the_status_is_the_worst_finding(check, text, speaker, status, found):
    verdict = check(text, speaker)
    assert verdict.status == status
    assert rules_found(verdict) == found


def test_findings_come_in_rule_order(check):
    text = "「まだ未成年じゃない\n" + "\n".join(["一人暮らしです"] * 8)
    verdict = check(text, "ayu")
    order = [found.rule for found in verdict.findings]
    assert order == sorted(order, key=RULE_ORDER.index)
    assert order[:3] == ["bracket", "format", "setting"]


def test_a_whole_utterance_in_brackets_is_judged_inside_and_warned(check):
    text = "「えー、ほんと？」"
    verdict = check(text, "yana")
    assert verdict.status == "WARN"  # not RETRY: the inside is not a quote
    assert verdict.tone.score == 2
    found = finding(verdict, "script_format")
    assert found["status"] == "WARN"
    assert found["evidence"] == [{"start": 0, "end": 1, "text": "「"}, {"start": 8, "end": 9, "text": "」"}]


def test_script_format_never_retries_by_itself_and_inner_quotes_stay_quotes(check):
    verdict = check("「つまり『すごい』は褒め言葉です。目安でしょう。」", "ayu")
    assert rules_found(verdict) == {"script_format": "WARN"}
    assert finding(verdict, "praise") is None  # 『すごい』 is a quote inside the script line


@pytest.mark.parametrize(
    ("text", "brackets", "vocab"),
    [
        ("「えー、ほんと？", ["「"], 1),  # えー counted: the unclosed 「 excludes nothing
        ("えー、ほんと」？", ["」"], 1),
        ("「えー（ほんと」？", ["（"], 0),  # the closed 「」 is a quote all the same
    ],
)
def test_an_unbalanced_bracket_is_a_warn_and_excludes_nothing(check, text, brackets, vocab):
    verdict = check(text, "yana")
    found = finding(verdict, "bracket")
    assert found["status"] == "WARN"
    assert [span["text"] for span in found["evidence"]] == brackets
    assert verdict.tone.vocab == vocab


def test_nested_brackets_are_balanced(check):
    assert finding(check("「彼が『すごい』と」言ったよね！", "yana"), "bracket") is None


def test_messages_come_in_english_on_request(check):
    verdict = check("今日は少し晴れている。明日は雨が降る。夜も寒い。", "yana", language="en")
    tone = finding(verdict, "tone")
    assert tone["message"] == "Tone score 0: no ending, vocabulary or style of the character."
    assert tone["suggestion"].startswith("Use 2 or more of: an ending (わ！, へ？")
    assert finding(verdict, "scatter")["message"] == "3 sentences (3 or more is long)."
    japanese = check("今日は少し晴れている。明日は雨が降る。夜も寒い。", "yana")
    tone_ja = finding(japanese, "tone")["message"]
    assert tone_ja == "口調スコアが0です。キャラクターらしい語尾・語彙・文体がありません。"
    assert finding(japanese, "scatter")["message"] == "3文あります（3文以上は長めです）。"


def test_another_language_is_refused(check):
    with pytest.raises(ValueError, match="language: expected one of ja, en, got 'fr'"):
        check("そっか", "yana", language="fr")


@pytest.mark.parametrize("speaker", ["やな", "yana", "YANA", " やな "])
def test_speakers_by_id_or_name(check, speaker):
    assert check("そっか", speaker).speaker == "yana"


def test_an_unknown_speaker_names_the_known_ones(check):
    with pytest.raises(UnknownCharacter) as raised:
        check("そっか", "ゆな")
    assert str(raised.value) == "unknown speaker 'ゆな'; known: ayu (あゆ), yana (やな)"
    assert isinstance(raised.value, ValueError)


def test_text_must_be_a_string(check):
    with pytest.raises(TypeError, match="text: expected a string, got bytes"):
        check(b"abc", "yana")


def test_history_is_accepted_and_does_not_change_the_verdict(check):
    history = [{"speaker": "yana", "text": "猫は可愛い。猫の話をしよう。"}] * 3
    assert check("猫の話だね！", "yana", history=history).to_dict() == check("猫の話だね！", "yana").to_dict()


def test_the_default_rule_set_is_used_when_none_is_given(rules):
    verdict = check_utterance("そっか、いいよね！", speaker="やな")
    assert (verdict.rules_version, verdict.rules_hash) == (rules.version, rules.content_hash)


def test_an_empty_utterance_is_a_retry(check):
    verdict = check("", "yana")
    assert (verdict.status, verdict.sentences, verdict.topics) == ("RETRY", 0, 0)


def test_it_works_from_another_thread(check):
    results = []
    thread = threading.Thread(target=lambda: results.append(check("猫は可愛いよね！", "yana").topics))
    thread.start()
    thread.join()
    assert results == [1]
