"""The tone score (§4): ending, vocabulary and style hits per character; 2+ PASS, 1 WARN, 0 RETRY."""

import pytest

from tests.director.rules.helpers import finding


@pytest.mark.parametrize(
    ("speaker", "text", "hits", "matched"),
    [
        # やな: endings わ！ へ？ よね かな かも; words やだ ほんと えー …; style: ≤ 2 sentences with ！ or ？
        ("yana", "今日は晴れている。明日は雨が降る。夜は寒い。", (0, 0, 0), ([], [], "")),
        ("yana", "行こう！", (0, 0, 1), ([], [], "！")),
        ("yana", "雨が降るかも。\n傘を持った。\n駅で待つ。", (1, 0, 0), (["かも"], [], "")),
        ("yana", "うーん。\n傘を持った。\n駅で待つ。", (0, 1, 0), ([], ["うーん"], "")),
        ("yana", "雨が降るかも！", (1, 0, 1), (["かも"], [], "！")),
        ("yana", "えー、雨が降るかも？", (1, 1, 1), (["かも"], ["えー"], "？")),
        ("yana", "えー、雨が降るかも。\n傘は？\n駅で待つ！", (1, 1, 0), (["かも"], ["えー"], "")),  # 3 sentences
        # あゆ: endings でしょう ですね ました ません; words つまり 目安 です。 …; style: ≥ 2 polite sentence ends
        ("ayu", "今日は晴れ。明日は雨だ。", (0, 0, 0), ([], [], "")),
        ("ayu", "目安は三十分。", (0, 1, 0), ([], ["目安"], "")),
        ("ayu", "駅は近いです\nバスもあります", (0, 0, 1), ([], [], "です/ます")),
        ("ayu", "駅は近いです。バスもあります。", (0, 1, 1), ([], ["です。"], "です/ます")),
        ("ayu", "駅は近いですね。バスもありました。", (1, 0, 1), (["ですね", "ました"], [], "です/ました")),
        (
            "ayu",
            "つまり、駅は近いですね。バスもありました。",
            (1, 1, 1),
            (["ですね", "ました"], ["つまり"], "です/ました"),
        ),
        ("ayu", "バスはありません。", (1, 0, 0), (["ません"], [], "")),  # one polite end is not a style
    ],
)
def test_hits_and_score(check, speaker, text, hits, matched):
    tone = check(text, speaker).tone.to_dict()
    assert (tone["marker"], tone["vocab"], tone["style"]) == hits
    assert tone["score"] == sum(hits)
    assert (tone["matched"]["marker"], tone["matched"]["vocab"], tone["matched"]["style"]) == matched


@pytest.mark.parametrize(
    ("speaker", "text", "status"),
    [
        ("yana", "今日は晴れている。明日は雨が降る。夜は寒い。", "RETRY"),
        ("yana", "行こう！", "WARN"),
        ("yana", "雨が降るかも！", None),
        ("yana", "えー、雨が降るかも？", None),
        ("ayu", "今日は晴れ。明日は雨だ。", "RETRY"),
        ("ayu", "目安は三十分。", "WARN"),
        ("ayu", "駅は近いです。バスもあります。", None),
        ("ayu", "つまり、駅は近いですね。バスもありました。", None),
    ],
)
def test_score_zero_is_a_retry_one_a_warn(check, speaker, text, status):
    found = finding(check(text, speaker), "tone")
    assert (found["status"] if found else None) == status


def test_the_warn_shows_the_markers_that_matched(check):
    text = "駅までは歩いて三十分、目安だよ。"
    found = finding(check(text, "ayu"), "tone")
    assert found["status"] == "WARN"
    assert found["evidence"] == [{"start": text.index("目安"), "end": text.index("目安") + 2, "text": "目安"}]
    # the message names the kinds missing; the suggestion (the next turn's intervention) the markers to use
    assert found["message"] == "口調スコアが1です。キャラクターらしい語尾・文体がなく、弱いです。"
    assert "語尾（でしょう・ですね・ました・ません）" in found["suggestion"]
    assert "文体（文末の丁寧語（です・ます・でした・ました）を2回以上）" in found["suggestion"]
    assert "語彙" not in found["suggestion"]  # 目安 was there
    assert found["suggestion"].endswith("のうち1つ以上を使ってください。")


def test_a_retry_lists_every_missing_marker_in_either_language(check):
    ja = finding(check("了解。", "yana"), "tone")
    assert ja["status"] == "RETRY" and ja["evidence"] == []
    assert ja["message"] == "口調スコアが0です。キャラクターらしい語尾・語彙・文体がありません。"
    assert "語尾（わ！・へ？・よね・かな・かも）" in ja["suggestion"]
    assert "語彙（やだ・ほんと・えー・うーん・すっごい…）" in ja["suggestion"]
    assert "文体（2文以内で！・？のどれかを使う）" in ja["suggestion"]
    en = finding(check("了解。", "yana", language="en"), "tone")
    assert en["message"] == "Tone score 0: no ending, vocabulary or style of the character."
    assert en["suggestion"].startswith("Use 2 or more of: an ending (わ！, へ？, よね, かな, かも); a word (やだ")
    assert en["suggestion"].endswith("the style (at most 2 sentences with one of ！, ？).")


@pytest.mark.parametrize(
    ("speaker", "text"),
    [
        ("yana", "「えー、ほんとかも」って言われた。\n駅で待つ。\n傘はない。"),
        ("ayu", "（つまり、目安です。推奨でしょう。）"),  # not the whole utterance in 「」: a quote
        ("ayu", "「つまり、近いです。あります。」と書いてあった"),
    ],
)
def test_quoted_text_does_not_count(check, speaker, text):
    tone = check(text, speaker).tone.to_dict()
    assert tone["score"] == 0
    assert finding(check(text, speaker), "tone")["status"] == "RETRY"


def test_the_same_text_scores_differently_for_each_character(check):
    text = "要するに、混むかもね。"
    assert check(text, "yana").tone.to_dict()["matched"]["marker"] == ["かも"]
    assert check(text, "ayu").tone.to_dict()["matched"]["vocab"] == ["要するに"]
