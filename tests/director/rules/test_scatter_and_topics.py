"""Scatter (§3, §6): sentences × topics, and the topic heads found by morphological analysis (§6.2)."""

import pytest

from director.rules.analyser import get_analyser
from director.rules.quotes import find_quotes
from director.rules.sentences import sentence_spans
from director.rules.topics import topic_heads
from tests.director.rules.helpers import finding

CLAUSES = ["猫は可愛い", "犬は賢い", "鳥は速い"]
FILLER = "そうですね。"


def utterance(sentences: int, topics: int) -> str:
    """``sentences`` sentences holding ``topics`` distinct は-topics (several in the first when needed)."""
    crowded = max(1, topics - sentences + 1)
    parts = ["し、".join(CLAUSES[:crowded]) + "。"] + [clause + "。" for clause in CLAUSES[crowded:topics]]
    return "".join(parts + [FILLER] * (sentences - len(parts)))


@pytest.mark.parametrize(
    ("sentences", "topics", "status"),
    [
        (2, 1, None),
        (2, 2, "WARN"),
        (2, 3, "WARN"),
        (3, 1, "WARN"),
        (3, 2, "WARN"),
        (3, 3, "WARN"),
        (4, 1, "WARN"),
        (4, 2, "WARN"),
        (4, 3, "RETRY"),
    ],
)
def test_sentences_and_topics_against_the_thresholds(check, sentences, topics, status):
    text = utterance(sentences, topics)
    verdict = check(text)
    assert (verdict.sentences, verdict.topics) == (sentences, topics), text
    found = finding(verdict, "scatter")
    assert (found["status"] if found else None) == status
    if found:
        assert [span["text"] for span in found["evidence"]] == ["猫", "犬", "鳥"][:topics]


def heads(text: str) -> list[str]:
    quotes = find_quotes(text)
    sentences = sentence_spans(quotes.view(text))
    return list(topic_heads(text, get_analyser().tokenize(text), sentences, frozenset({"こと", "お姉ちゃん"})))


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("天気について話そう。", ["天気"]),
        ("明日の天気についてです。", ["天気"]),
        ("猫の話をしよう。", ["猫"]),
        ("東京タワーの話なんだけど。", ["東京タワー"]),
        ("京都は寺が多いです。", ["京都"]),  # noun + は + a predicate later in the sentence
        ("紅葉は見頃ですね。", ["紅葉"]),  # the auxiliary です is the predicate
        ("山田さんは来る。", ["山田さん"]),  # a noun suffix is part of the head
        ("このパンケーキは美味しい！", ["パンケーキ"]),
        ("猫は。", []),  # no predicate in the sentence
        ("猫は\n可愛い。", []),  # nor across a line break
        ("今日はいい天気ですね。", []),  # a time word sets the scene
        ("3時は混む。", []),  # a counter too
        ("それは違う。", []),  # a pronoun points at a topic already named
        ("東京には行った。", []),  # には is no topic marker
        ("未成年ではない。", []),  # では neither
        ("話題の店に行った。", []),  # の話題 is not の話
        ("できないことはない。", []),  # stop head
        ("お姉ちゃんはどう思う？", []),  # stop head: a form of address
        ("猫は可愛い。猫の話をしよう。", ["猫"]),  # distinct heads
        ("猫の話と犬の話。鳥について。", ["猫", "犬", "鳥"]),
    ],
)
def test_topic_heads(text, expected):
    assert heads(text) == expected


@pytest.mark.parametrize(
    ("sentences", "topics", "message", "suggestion"),
    [
        (3, 0, "3文あります（3文以上は長めです）。", "2文以内にまとめてください。"),
        (3, 1, "3文あります（3文以上は長めです）。", "2文以内にまとめてください。"),
        (2, 2, "話題が2つあります（猫、犬）。", "話題を1つに絞ってください。"),
        (3, 2, "3文で話題が2つあります（猫、犬）。", "話題を1つに絞り、2文以内にまとめてください。"),
        (4, 3, "4文で話題が3つあり、散漫です（猫、犬、鳥）。", "話題を1つに絞り、2文以内にまとめてください。"),
    ],
)
def test_the_scatter_message_names_the_condition_that_fired_and_omits_what_is_zero(
    check, sentences, topics, message, suggestion
):
    text = utterance(sentences, topics) if topics else "そうですね。" * sentences
    found = finding(check(text), "scatter")
    assert (found["message"], found["suggestion"]) == (message, suggestion)


def test_the_scatter_message_in_english_names_only_the_topics_when_they_fired(check):
    found = finding(check(utterance(2, 2), language="en"), "scatter")
    assert (found["message"], found["suggestion"]) == ("2 topics (猫, 犬).", "Keep to one topic.")
