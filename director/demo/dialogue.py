"""The Director's demo dialogue: a recorded session of やな and あゆ planning a rainy Sunday (pure data).

Written for this project (fixed texts, no LLM). Each turn is the speaker and its recorded attempts in
order; each attempt carries the status the Director gives it in the session (hard rules and the
session's topic history, no LLM review) and the rules of its WARN and RETRY findings. Every attempt
but the last of a turn is a RETRY; the last one is accepted. ``director.demo.load`` replays the turns
through ``turn_run`` and refuses the demo when a status or rule differs from what is written here.

What the demo shows: RETRYs for a tone that is not the character's (turn 2), praise of the listener
(turn 6), a setting violation (turn 7), a scattered line (turn 8) and too many lines (turn 12), each
followed by the accepted line; WARNs for a topic kept three turns in a row (turn 5), a topic changed
too early (turn 7), an evaluation word alone (turn 10) and a weak tone (turn 15); PASS for the rest.
Topic heads come from "Xは" / "Xが" (``leading_topic``): a line that names none carries the topic on.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Attempt:
    text: str
    status: str  # PASS | WARN | RETRY | MODIFY, as the session judges it
    rules: tuple[str, ...] = ()  # the rules of its WARN and RETRY findings, in any order


@dataclass(frozen=True)
class Turn:
    speaker: str  # character id
    attempts: tuple[Attempt, ...]


TITLE = "デモ: 雨の日曜日"
SCENE = "雨の日曜日の朝。姉妹は二人で暮らすマンションのリビングで、今日の予定を話している。"
SPEAKERS = ("yana", "ayu")  # やな speaks first

TURNS: tuple[Turn, ...] = (
    # 1: no topic head yet (「今日の予定、」 has no は/が)
    Turn("yana", (Attempt("雨、すっごい降ってるね。今日の予定、どうしよっかな？", "PASS"),)),
    # 2: やな's voice in あゆ's mouth (tone score 0), then あゆ's own
    Turn(
        "ayu",
        (
            Attempt("えー、雨だし家でごろごろしたいな！", "RETRY", ("tone",)),
            Attempt("天気予報では夕方まで雨です。駅前のカフェなら、傘があれば歩いて行けますよ。", "PASS"),
        ),
    ),
    # 3–5: カフェ leads three turns in a row, the third is a topic loop
    Turn("yana", (Attempt("カフェはいいかも！新しいケーキが出たって聞いたんだよね。", "PASS"),)),
    Turn("ayu", (Attempt("カフェは休日の午後が一番混みます。午前中に行くのが目安ですね。", "PASS"),)),
    Turn("yana", (Attempt("カフェは開店と同時に行こっか！で、そのあとは映画かな？", "WARN", ("topic_loop_turns",)),)),
    # 6: praise of the listener's idea, then information instead; 映画館 takes over after カフェ's three turns
    Turn(
        "ayu",
        (
            Attempt("その考えはすごいです、本当に正しいですね。雨の日は映画館が一番です。", "RETRY", ("praise",)),
            Attempt(
                "映画館は駅の地下なので、雨でも濡れずに行けます。二時の回が、カフェのあとにちょうどいい時間ですよ。",
                "PASS",
            ),
        ),
    ),
    # 7: a setting violation (一人暮らし), then a jump to 晩ごはん after one turn on 映画館
    Turn(
        "yana",
        (
            Attempt(
                "映画のあとは家で一緒に料理しようよ！一人暮らしのときみたいに適当じゃなくてさ。",
                "RETRY",
                ("setting", "tone"),
            ),
            Attempt("晩ごはんはどうしよっかな？映画のあとは家で一緒に作ろうよ！", "WARN", ("early_topic_change",)),
        ),
    ),
    # 8: four sentences on three topics, then one point on 晩ごはん
    Turn(
        "ayu",
        (
            Attempt(
                "晩ごはんは冷蔵庫の中身次第です。卵と玉ねぎならあります。スーパーは駅の反対側です。映画は二時からでした。",
                "RETRY",
                ("scatter",),
            ),
            Attempt(
                "晩ごはんはオムライスがいいと思います。冷蔵庫に卵と玉ねぎが残っているので、買い足すのは鶏肉だけですね。",
                "PASS",
            ),
        ),
    ),
    Turn("yana", (Attempt("オムライスは私が作るよ！卵をふわふわにするの、ほんと得意なんだよね。", "PASS"),)),
    # 10: an evaluation word alone
    Turn(
        "ayu",
        (Attempt("すごい自信ですね。では、ケチャップの代わりにデミグラスソースを作ります。", "WARN", ("praise",)),),
    ),
    Turn("yana", (Attempt("デザートはどうしよっか？プリンなんてどうかな？", "PASS"),)),
    # 12: a recipe in eight lines, then the one thing that matters for the plan
    Turn(
        "ayu",
        (
            Attempt(
                "プリンの材料です。\n卵 2個\n牛乳 200ml\n砂糖 大さじ3\nバニラエッセンス 少々\n"
                "鍋で牛乳を温めます。\n卵と砂糖を混ぜます。\n器に入れて蒸します。",
                "RETRY",
                ("format", "scatter"),
            ),
            Attempt(
                "デザートはプリンにしましょう。冷やす時間を考えると、映画の前に仕込んでおくのが目安ですね。", "PASS"
            ),
        ),
    ),
    Turn("yana", (Attempt("そっか、じゃあ出かける前にプリンを仕込んで、それからカフェだね！", "PASS"),)),
    Turn("ayu", (Attempt("わかりました。傘は二本とも玄関に出しておきますね。", "PASS"),)),
    # 15: short and glad, but only one of やな's tone signals
    Turn("yana", (Attempt("やった、楽しみ！", "WARN", ("tone",)),)),
    Turn("ayu", (Attempt("帰りは雨が強くなる予報です。映画が終わったら、まっすぐ帰るのが安全ですね。", "PASS"),)),
)
