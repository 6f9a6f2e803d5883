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
