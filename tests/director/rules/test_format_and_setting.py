"""Output format (§3 出力形式: non-blank lines) and setting consistency (§3 設定整合性)."""

import pytest

from tests.director.rules.helpers import finding

LINE = "そっか、いいよね！"


@pytest.mark.parametrize(
    ("lines", "status"),
    [(1, None), (5, None), (6, "WARN"), (7, "WARN"), (8, "RETRY"), (12, "RETRY")],
)
def test_lines_against_the_thresholds(check, lines, status):
    verdict = check("\n".join([LINE] * lines), "yana")
    found = finding(verdict, "format")
    assert (found["status"] if found else None) == status


def test_blank_lines_are_not_counted(check):
    text = "\n\n".join([LINE] * 5) + "\n \n\u3000\n"
    assert finding(check(text, "yana"), "format") is None


def test_the_evidence_is_the_lines_from_the_sixth_on(check):
    lines = [f"{index}行目だよね！" for index in range(1, 9)]
    text = "\n".join(lines)
    found = finding(check(text, "yana"), "format")
    assert found["status"] == "RETRY"
    assert found["evidence"] == [{"start": text.index("6行目"), "end": len(text), "text": "\n".join(lines[5:])}]
    assert "8行" in found["message"]


@pytest.mark.parametrize(
    "text",
    [
        "姉とは別居しているんです。",
        "姉は別居中です。",
        "私、一人暮らしなんだよね。",
        "ひとり暮らしも楽しいかも。",
        "私たち、別々に住んでいるでしょう。",
        "実家を出た姉に会いに行きました。",
        "「一人暮らしがしたい」と言っていました。",  # quotes are excluded from tone and praise only
    ],
)
def test_phrases_implying_the_sisters_live_apart_are_a_retry(check, text):
    found = finding(check(text), "setting")
    assert found["status"] == "RETRY"
    assert found["evidence"]
    for span in found["evidence"]:
        assert text[span["start"] : span["end"]] == span["text"]


@pytest.mark.parametrize("text", ["姉と一緒に住んでいます。", "別々に行きましょう。", "一人で買い物に行きました。"])
def test_other_phrases_pass_the_setting_check(check, text):
    assert finding(check(text), "setting") is None


@pytest.mark.parametrize(
    ("text", "phrase"),
    [
        ("姉とは去年から別居しました。", "別居"),  # any form of 別居
        ("姉は別の家に住んでいます。", "別の家に住ん"),  # the subject is a sister
        ("私、一人で暮らしてるから自由なんだよね！", "一人で暮らし"),
        ("今は姉と別居中です。", "別居中"),  # 今は is a time, no subject; the evidence is the whole word
        ("あなたは一人暮らしですよね。", "一人暮らし"),  # said to the other sister
    ],
)
def test_other_wordings_of_living_apart_are_a_retry(check, text, phrase):
    found = finding(check(text), "setting")
    assert found is not None and [span["text"] for span in found["evidence"]] == [phrase]


@pytest.mark.parametrize(
    "text",
    [
        "えー、友達が一人暮らし始めたんだって！",  # someone else
        "彼女は一人暮らしをしています。",
        "先輩が別居しているそうです。",
        "一人暮らし向けの部屋は駅の近くに多いです。",  # a kind of flat
        "一人暮らし用の冷蔵庫です。",
        "あゆと離れて暮らしてるなんて想像できないよね。",  # not what is so
        "あゆと別々に住んでたら、寂しいよね。",
        "もし一人暮らしなら、料理を覚えないと。",
    ],
)
def test_living_apart_said_of_someone_else_or_not_as_a_fact_passes_the_setting_check(check, text):
    assert finding(check(text), "setting") is None


@pytest.mark.parametrize(
    ("text", "counts"),
    [
        ("姉と離れて住むことになりました。", True),  # every inflection of the stem
        ("妹と別の家に住み始めたよね。", True),
        ("私、春に実家を出るんだよね！", True),
        ("姉とは別居している状態です。", True),  # the sisters' state, not a person described
        ("えー、別居してないよ！", False),  # a denial
        ("別々に住んでいませんよ。", False),
        ("一人暮らしを始めた先輩から電話がありました。", False),  # the clause describes someone else
        ("一人暮らしをする人が増えています。", False),
        ("姉とは別居していないです。", False),
    ],
)
def test_stems_denials_and_described_people(check, text, counts):
    assert (finding(check(text), "setting") is not None) is counts


def test_a_polite_negated_negation_is_a_litotes(check):
    found = finding(check("この距離なら行けなくもありません。", "ayu"), "litotes")
    assert found is not None and [span["text"] for span in found["evidence"]] == ["なくもありません"]
