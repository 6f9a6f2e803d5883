"""Normalisation (seed 004 §2.2, §2.3) and its map back to the original text."""

import pytest
from hypothesis import given
from hypothesis import strategies as st

from director.rules.normalise import normalise


@pytest.mark.parametrize(
    ("original", "normalised"),
    [
        ("すごい！！", "すごい！"),
        ("すごい！！！！", "すごい！"),
        ("えっ!!", "えっ！"),
        ("えっ!", "えっ！"),
        ("えっ！!！", "えっ！"),
        ("ほんと??", "ほんと？"),
        ("ほんと?", "ほんと？"),
        ("本当！？", "本当！？"),  # different symbols: an interrobang stays
        ("本当!?!?", "本当！？！？"),
        ("そうです｡", "そうです。"),
        ("そうです。。", "そうです。"),
        ("あ､い", "あ、い"),
        ("あ、、い", "あ、い"),
        ("ね♪♪", "ね♪"),
        ("ね～～～", "ね～"),
        ("ね〜〜", "ね〜"),
        ("えーーー", "えーーー"),  # a long vowel is part of the word
        ("そうね…", "そうね…"),
        ("そうね……", "そうね……"),  # the typographic pair stays
        ("そうね………", "そうね……"),
        ("そうね・・・", "そうね・・・"),
        ("そうね...", "そうね..."),
        ("あ  い", "あ い"),
        ("あ\u3000\u3000い", "あ\u3000い"),
        ("あ\u3000 い", "あ\u3000い"),
        ("あ\n\n\nい", "あ\nい"),
        ("あ \n い", "あ\nい"),
        ("あ\r\nい", "あ\nい"),
        ("あ\rい", "あ\nい"),
        ("  あい \n", "あい"),
        ("", ""),
        (" \n ", ""),
    ],
)
def test_it_folds_symbols_and_whitespace(original, normalised):
    assert normalise(original).text == normalised


@pytest.mark.parametrize(
    ("original", "changed"),
    [("そっか、いいよね！", False), ("  そっか、いいよね！\n", False), ("そっか、いいよね！！", True), ("a  b", True)],
)
def test_trimming_alone_is_no_change(original, changed):
    assert normalise(original).changed is changed


def test_spans_map_back_over_folded_runs():
    original = "ほんと！！！　すごい…ね"
    result = normalise(original)
    assert result.text == "ほんと！　すごい…ね"
    start = result.text.index("すごい")
    assert result.original_span(start, start + 3) == (7, 10)
    assert result.original_span(3, 4) == (3, 6)  # the ！ stands for ！！！
    assert result.evidence(0, 6) == {"start": 0, "end": 8, "text": "ほんと！！！　す"}


def test_spans_map_back_over_trimmed_whitespace():
    original = " \n えっ!!!   \n\n  天才だね"
    result = normalise(original)
    assert result.text == "えっ！\n天才だね"
    start = result.text.index("天才")
    assert result.evidence(start, start + 2) == {"start": 15, "end": 17, "text": "天才"}


ALPHABET = [*"あいうえおかきすごい天才猫ーね", "！", "!", "？", "?", "｡", "。", "､", "、", "…", "～", "♪"]
ALPHABET += [" ", "\u3000", "\n", "\r", "\t"]
CANONICAL = {"!": "！", "?": "？", "｡": "。", "､": "、"}


@given(st.text(alphabet=ALPHABET, max_size=40))
def test_every_normalised_character_maps_to_the_characters_it_stands_for(original):
    result = normalise(original)
    previous_end = 0
    for index, character in enumerate(result.text):
        start, end = result.original_span(index, index + 1)
        assert previous_end <= start < end <= len(original)
        source = original[start:end]
        if character.isspace():
            assert source.isspace()
        else:
            assert {CANONICAL.get(c, c) for c in source} == {character}
        previous_end = start
    if result.text:
        assert result.original_span(0, len(result.text)) == (
            len(original) - len(original.lstrip()),
            len(original.rstrip()),
        )
