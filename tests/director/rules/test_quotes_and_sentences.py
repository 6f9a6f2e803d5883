"""Quoted regions and unbalanced brackets (§2.1, §8), sentences (§6.1) and lines (§3)."""

import pytest

from director.rules.quotes import find_quotes, is_script
from director.rules.sentences import line_spans, sentence_spans


@pytest.mark.parametrize(
    ("text", "regions", "unbalanced"),
    [
        ("そう「すごい」って", [(2, 7)], []),
        ("（笑）そうだね", [(0, 3)], []),
        ("(笑)そうだね", [(0, 3)], []),
        ("（笑)そうだね", [(0, 3)], []),  # full-width and ASCII round brackets are one kind
        ("「彼が『すごい』と」言った", [(0, 10)], []),
        ("「あ」「い」", [(0, 3), (3, 6)], []),
        ("「「あ」」", [(0, 5)], []),
        ("「すごい", [], [0]),
        ("すごい」よね", [], [3]),
        ("「あ（い」う", [(0, 5)], [2]),  # 」 closes 「 and leaves （ open
        ("「あ」」", [(0, 3)], [3]),
        ("なにもない", [], []),
    ],
)
def test_quoted_regions_and_unbalanced_brackets(text, regions, unbalanced):
    quotes = find_quotes(text)
    assert quotes.regions == regions
    assert quotes.unbalanced == unbalanced


def test_the_view_hides_quoted_characters_but_keeps_offsets_and_line_breaks():
    text = "ね「すご\nい」よね"
    view = find_quotes(text).view(text)
    assert view == "ね\x00\x00\x00\n\x00\x00よね"
    assert len(view) == len(text)


@pytest.mark.parametrize(
    ("text", "script"),
    [
        ("「えー、ほんと？」", True),
        ("「あ」「い」", False),
        ("「あ」よね", False),
        ("「すごい", False),
        ("『あ』", False),
    ],
)
def test_script_format_is_one_bracket_pair_around_everything(text, script):
    assert is_script(text, find_quotes(text)) is script


def sentences(text):
    spans = sentence_spans(find_quotes(text).view(text))
    return [text[start:end] for start, end in spans]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("そうだね。", ["そうだね。"]),
        ("そうだね", ["そうだね"]),  # a non-empty tail counts
        ("そうだね。行こう！本当？", ["そうだね。", "行こう！", "本当？"]),
        ("本当！？うそ", ["本当！？", "うそ"]),
        ("そうだね\n行こう", ["そうだね", "行こう"]),  # a line break ends a sentence
        ("そうだね。\n行こう。", ["そうだね。", "行こう。"]),
        ("「すごい！」と言った。", ["「すごい！」と言った。"]),  # quoted terminators do not end it
        ("そう。 次", ["そう。", " 次"]),
        ("。。！", []),
        ("", []),
    ],
)
def test_sentences(text, expected):
    assert sentences(text) == expected


@pytest.mark.parametrize(
    ("text", "count"),
    [("あ", 1), ("あ\nい", 2), ("あ\n\nい\n \nう", 3), ("\nあ\n", 1), ("", 0)],
)
def test_lines_that_are_not_blank(text, count):
    assert len(line_spans(text)) == count


def test_lines_of_a_short_text_are_skipped_when_only_long_ones_matter():
    assert line_spans("あ\nい", at_least=6) == []
    assert line_spans("あ\nい\nう\nえ\nお\nか", at_least=6) == [(0, 1), (2, 3), (4, 5), (6, 7), (8, 9), (10, 11)]
