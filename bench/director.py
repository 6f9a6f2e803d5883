"""Speed of the Director's hard rules (seed 004 §3–§6, §8) on generated utterances, in one process.

Targets (issue: Director hard-rules engine): ``check_utterance`` including the morphological analysis
>= 10,000 utterances/s, and at most 4x the time of bare tokenisation with the same analyser (Sudachi,
core dictionary, mode C) over the same texts. Both figures are the median of ``--repeats`` runs over
the same utterances, the two taking turns in each round; the rule set is loaded and the analyser warmed
up before timing. ``check_utterance(...).to_dict()`` (messages and evidence filled in) is timed too.

The utterances come from a seeded generator below, alternating やな and あゆ, 50 characters and 1.1
lines on average (the seed recommends 50–80 characters; only the long slips have several lines):
chat lines of one sentence (25 %) or two (75 %), an opening sentence carrying the character's
markers (tone 2–3, at most one topic) and possibly a follow-up without a topic. Each of those passes
every rule by the seed. Of the utterances, 5 % have one symbol to fold (！！, ASCII ! or ?, ｡:
MODIFY) and 8 % are a slip breaking one rule, so that every check is exercised: for each character
nine slips, five RETRY (tone 0, a double negation or praise of the listener, a setting slip, four
sentences on three topics, eight lines) and four WARN (tone 1, six lines, script format or an
unclosed bracket, a word repeated three times or an evaluation word alone). Expected verdicts: about
87 % PASS, 5 % MODIFY, 3.6 % WARN and 4.4 % RETRY. The verdicts and the findings per rule are
printed with the figures.

    .venv/bin/python bench/director.py [--n 20000] [--repeats 5] [--seed 4]
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

TARGET_RATE = 10_000  # utterances/s
TARGET_RATIO = 4.0  # hard rules / bare tokenisation

# Opening sentences: each one sentence, tone >= 2 for its speaker on its own (やな: a marker or word
# and ！/？; あゆ: a marker and a word), at most one topic. Follow-ups: one sentence without a topic head.
# Any opening + any follow-up is a PASS by the seed (two sentences, one topic, the tone kept).
YANA_OPENINGS = [
    "えー、朝はあんなに晴れてたのに、今日ってほんとに夕方から雨降るの？",
    "駅前のカフェ、新しいいちごのケーキが出たって聞いたんだけど混んでるかな？",
    "うーん、映画の前にお昼を食べるか、終わってから食べるか迷っちゃうかも！",
    "すっごい綺麗な夕焼けだから、ちょっとだけ川沿いを遠回りして帰りたいわ！",
    "やだ、新しく買った傘を玄関に置いたまま出てきちゃったかも！",
    "そっか、日曜日だから駅の向こうの美術館は夕方まで開いてるんだね！",
    "紅葉はもう見頃だって昨日友達が言ってたけど、それってほんとかな？",
    "この坂、思ってたよりずっと長くて、けっこうきついよね！",
    "晩ごはんはオムライスにしよっかな、冷蔵庫に卵まだ残ってたよね？",
    "えー、もうこんな時間なのに、あゆはまだ宿題終わってないの？",
    "ねえ、商店街のパン屋さんの新作って、もう食べてみたかな？",
    "ほんと、楽しい日曜日ってどうしてこんなにあっという間に終わっちゃうのかな？",
]
YANA_FOLLOW_UPS = [
    "早めに出れば並ばずに入れるし、窓際の席も選べると思う。",
    "あとで一緒に写真撮って、お母さんにも送ってあげようよ！",
    "帰りにコンビニ寄って、アイスでも買って帰ってもいい？",
    "なんだか急にお腹すいてきちゃったから、何かつまみたいな。",
    "あゆも一緒に来てくれたら、私ももっと楽しめるんだけどな。",
    "天気予報、出かける前にちゃんと見ておけばよかった。",
    "今度の休みにでも、二人で電車に乗って行ってみようよ！",
    "私が先に行って、どんな感じか様子を見てくるね。",
]
AYU_OPENINGS = [
    "つまり、このあたりの紅葉の見頃は来週の半ばから週末にかけてですね。",
    "片道の目安は三十分ほどなので、十時に家を出れば開演に間に合うでしょう。",
    "一般的に、雨の日の午後は駅前の道路がかなり混みやすいでしょう。",
    "要するに、日曜日でも当日なら予約なしで入れるということですね。",
    "この時間の駅前からのバスはもうありませんが、タクシーなら十分ほどですよ。",
    "出かける前に天気予報を確認しましたが、午後から晴れる見込みです。",
    "地図で調べましたが、美術館は次の角を右に曲がってすぐのところです。",
    "傘は二本とも玄関に出しておきました、夕方から降る予報なので念のためです。",
    "推奨されている順路は、入口から左回りに展示を見ていくコースでしょう。",
    "冷蔵庫を見ましたが、卵はまだ六個残っているので今夜の分は十分です。",
    "お客さんに「すごいね」と言われましたが、私はまだ練習中の身です。",
    "映画の上映は二時からなので、一時半に家を出るのが目安ですね。",
]
AYU_FOLLOW_UPS = [
    "早めに出発すると、駅前の混雑を避けられます。",
    "念のため、折りたたみ傘をかばんに入れて持っていきましょう。",
    "帰りに駅前でお土産を買う時間も十分にありますよ。",
    "地図もスマホに保存しておいたので、迷わずに行けます。",
    "時間に余裕を持って動けると、やっぱり安心ですね。",
    "必要なら、私があとで電話して予約しておきます。",
    "途中に休憩できるベンチやカフェもいくつかあります。",
]
# One rule broken each (the rest of the utterance as clean as the lines above): RETRY ones first.
YANA_SLIPS = [
    "へー、そうなんだ。",  # tone 0: RETRY
    "えー、あゆってまだ未成年じゃない！",  # double negation: RETRY
    "私、来月から一人暮らしするんだよね！",  # setting: RETRY
    "カフェは混んでるかな？映画は二時からだよね。夕飯は家で食べよう！ほんと楽しみ！",  # 4 sentences, 3 topics
    "えー、もう着いたの？\n駅から近かったよね。\n荷物は私が持つよ。\n先に受付しよっか。\nほんと楽しみ！\n"
    "部屋から海が見えるといいな。\n夕飯まで散歩しない？\n温泉も入りたいかも。",  # 8 lines: RETRY
    "あ、猫がいる！",  # tone 1: WARN
    "えー、もう着いたの？\n駅から近かったよね。\n荷物は私が持つよ。\n先に受付しよっか。\nほんと楽しみ！\n"
    "部屋から海が見えるといいな。",  # 6 lines: WARN
    "「ほんと？楽しみだね」",  # script format: WARN
    "えー、雨、雨、また雨だね！",  # a word three times: WARN
]
AYU_SLIPS = [
    "入場料は大人五百円でした。",  # tone 0: RETRY
    "あなたの答えは正しいです、完璧ですね。次に進みます。",  # praise of the listener: RETRY
    "姉とは別居している状態です。連絡は毎晩取っています。",  # setting: RETRY
    "紅葉は来週が見頃です。バスは一時間に二本です。お土産は駅で買えます。帰りは混雑するでしょう。",  # scatter
    "持ち物を確認しますね。\n傘を一本入れました。\n財布も忘れずに。\nハンカチも必要です。\n充電器を持ちましょう。\n"
    "水筒に麦茶を詰めました。\nチケットはスマホに保存済みです。\n以上で準備完了です。",  # 8 lines: RETRY
    "入口は右側です。",  # tone 1: WARN
    "持ち物を確認しますね。\n傘を一本入れました。\n財布も忘れずに。\nハンカチも必要です。\n充電器を持ちましょう。\n"
    "以上で準備完了です。",  # 6 lines: WARN
    "入口は（右側です。階段を上がります。",  # unclosed bracket: WARN
    "この曲は素晴らしいですね。百年前に作られたそうです。",  # evaluation word alone: WARN
]
# Symbols that normalisation folds or unifies (§2.2): each turns a clean line into a MODIFY.
NOISE = (("！", "！！"), ("！", "!"), ("？", "?"), ("。", "｡"))
FOLLOW_UP_SHARE = 0.75  # of the clean utterances
NOISY_SHARE = 0.05  # of the utterances
SLIP_SHARE = 0.08


def generate_utterances(n: int, seed: int) -> list[tuple[str, str]]:
    """``n`` (speaker, text) pairs, alternating やな and あゆ, reproducible for a seed."""
    rng = random.Random(seed)
    casts = (
        ("やな", YANA_OPENINGS, YANA_FOLLOW_UPS, YANA_SLIPS),
        ("あゆ", AYU_OPENINGS, AYU_FOLLOW_UPS, AYU_SLIPS),
    )
    utterances = []
    for index in range(n):
        speaker, openings, follow_ups, slips = casts[index % 2]
        draw = rng.random()
        if draw < SLIP_SHARE:
            utterances.append((speaker, rng.choice(slips)))
            continue
        text = rng.choice(openings)
        if rng.random() < FOLLOW_UP_SHARE:
            text += rng.choice(follow_ups)
        if draw < SLIP_SHARE + NOISY_SHARE:
            old, new = rng.choice([pair for pair in NOISE if pair[0] in text])
            at = rng.choice([i for i, character in enumerate(text) if character == old])
            text = text[:at] + new + text[at + 1 :]
        utterances.append((speaker, text))
    return utterances


def timed(functions: dict, utterances, repeats: int) -> dict[str, list[float]]:
    """Seconds per run of each function over all utterances; the functions take turns in each round, so a
    slow spell of a shared machine hits them alike and the ratios stay fair."""
    times: dict[str, list[float]] = {name: [] for name in functions}
    for _ in range(repeats):
        for name, function in functions.items():
            started = time.perf_counter()
            for speaker, text in utterances:
                function(text, speaker)
            times[name].append(time.perf_counter() - started)
    return times


def verdict(ok: bool) -> str:
    return "met" if ok else "NOT met"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--n", type=int, default=20_000)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--seed", type=int, default=4)
    args = parser.parse_args()

    from director.rules import check_utterance, load_rule_set
    from director.rules.analyser import get_analyser

    utterances = generate_utterances(args.n, args.seed)
    rules = load_rule_set()
    analyser = get_analyser()
    statuses: Counter = Counter()
    findings: Counter = Counter()
    for speaker, text in utterances:  # also the warm-up
        judged = check_utterance(text, speaker, rules)
        statuses[judged.status] += 1
        findings.update((finding.rule, finding.status) for finding in judged.findings)

    def bare(text: str, speaker: str) -> None:
        analyser.bare_tokenize(text)

    def hard_rules(text: str, speaker: str) -> None:
        check_utterance(text, speaker, rules)

    def hard_rules_dict(text: str, speaker: str) -> None:
        check_utterance(text, speaker, rules).to_dict()

    times = timed({"bare": bare, "rules": hard_rules, "dict": hard_rules_dict}, utterances, args.repeats)
    bare_times, rule_times, dict_times = times["bare"], times["rules"], times["dict"]
    bare_time, rule_time, dict_time = map(statistics.median, (bare_times, rule_times, dict_times))
    rate = args.n / rule_time
    ratio = rule_time / bare_time
    characters = sum(len(text) for _, text in utterances) / args.n
    lines = sum(text.count("\n") + 1 for _, text in utterances) / args.n

    def runs(times: list[float]) -> str:
        return ", ".join(f"{t:.3f}" for t in times)

    print(
        f"{args.n:,} generated utterances (seed {args.seed}; {characters:.0f} characters and {lines:.1f} lines on "
        f"average), median of {args.repeats} runs"
    )
    print(
        "verdicts: "
        + ", ".join(f"{status} {count:,} ({count / args.n:.1%})" for status, count in sorted(statuses.items()))
    )
    print(
        "findings per rule: "
        + (", ".join(f"{rule} {status} {count:,}" for (rule, status), count in findings.most_common()) or "none")
    )
    print(f"bare tokenisation: {args.n / bare_time:,.0f} utterances/s ({bare_time:.3f} s; runs {runs(bare_times)})")
    print(
        f"hard rules (check_utterance): {rate:,.0f} utterances/s ({rule_time:.3f} s; runs {runs(rule_times)}); "
        f"target >= {TARGET_RATE:,}/s: {verdict(rate >= TARGET_RATE)}"
    )
    print(f"ratio to bare tokenisation: {ratio:.2f}x; target <= {TARGET_RATIO:.0f}x: {verdict(ratio <= TARGET_RATIO)}")
    print(
        f"with Verdict.to_dict(): {args.n / dict_time:,.0f} utterances/s ({dict_time:.3f} s; "
        f"{dict_time / bare_time:.2f}x bare tokenisation)"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
