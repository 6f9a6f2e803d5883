"""Speed of the Director's hard rules (seed 004 §3–§6, §8) on generated utterances, in one process.

Targets (issue: Director hard-rules engine): ``check_utterance`` including the morphological analysis
>= 10,000 utterances/s, and at most 4x the time of bare tokenisation with the same analyser (Sudachi,
core dictionary, mode C) over the same texts. Both figures are the median of ``--repeats`` runs over
the same utterances, the two taking turns in each round; the rule set is loaded and the analyser warmed
up before timing. ``check_utterance(...).to_dict()`` (messages and evidence filled in) is timed too.

The utterances come from a seeded generator below: 1–8 lines (short ones most often, as in chat), each
line one or two phrases of やな (casual) or あゆ (polite) taken from realistic lists; 6 % of the phrases
carry symbols to fold (！！, ASCII ?, ｡) and 4 % break a rule (praise, a double negation, a setting slip,
a quote), so every check is exercised. The verdicts are printed with the figures.

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

# Clean lines of each character, lines with symbols to fold (MODIFY material) and lines that break a rule.
YANA = [
    "えー、ほんとに？",
    "やだ、雨降ってきたよね。",
    "うーん、どうしようかな。",
    "そっか、あゆは詳しいね。",
    "すっごい綺麗な夕焼けだわ！",
    "ねえ、あのカフェ行ってみない？",
    "今日は風が気持ちいいね。",
    "お腹すいたかも。",
    "この坂、けっこうきついよね。",
    "あ、猫がいる！",
    "写真撮ろうよ！",
    "ほんと、あっという間だね。",
    "へー、そうなんだ。",
    "私もそう思うかな。",
    "あゆ、それってどういうこと？",
    "明日の天気について調べてみよっか。",
    "駅前のパン屋さんの話なんだけどね。",
    "紅葉はもう見頃かな？",
    "なんか眠くなってきたかも。",
    "山の上は寒いよね……",
    "えー！？　もう終わり？",
]
YANA_NOISY = ["やだ、財布忘れた！！", "あはは、それいいね!!", "帰りに団子食べたいな～～", "え、ほんと?"]
YANA_SLIPS = [
    "「ほんと？」って聞いちゃった。",
    "すごいね、この景色！",
    "まだ未成年じゃない。",
    "行かなくもないけど。",
    "別々に住んでた頃を思い出すね。",
]
AYU = [
    "一般的には、紅葉の見頃は十一月中旬です。",
    "つまり、今日は早めに出発したほうがいいですね。",
    "目安として、片道で三十分ほどかかります。",
    "このあたりは湧き水で有名な地域です。",
    "要するに、予約は不要ということです。",
    "気温は午後から下がる見込みです。",
    "推奨されている順路は左回りですよ。",
    "お姉ちゃん、そこは段差があります。",
    "展望台は閉館時間が早いでしょう。",
    "入場料は大人五百円でした。",
    "雨の日は足元が滑りやすくなります。",
    "この神社は平安時代に建てられました。",
    "バスは一時間に二本しかありません。",
    "地図によると、次の角を右です。",
    "お土産の話をしましょうか。",
    "ちなみに、ここの名物はお蕎麦です。",
]
AYU_NOISY = ["混雑は夕方に落ち着きます｡", "え?　それは知りませんでした。", "閉館は五時です。。"]
AYU_SLIPS = [
    "その考えは正しいと思います、完璧です。",
    "すごいですね。",
    "不可能ではありません。",
    "（少し考えて）そうですね。",
]
LINE_WEIGHTS = {1: 30, 2: 24, 3: 17, 4: 11, 5: 7, 6: 5, 7: 3, 8: 3}
NOISY_SHARE = 0.06  # of the phrases
SLIP_SHARE = 0.04


def generate_utterances(n: int, seed: int) -> list[tuple[str, str]]:
    """``n`` (speaker, text) pairs, alternating やな and あゆ, reproducible for a seed."""
    rng = random.Random(seed)
    counts, weights = zip(*LINE_WEIGHTS.items(), strict=True)
    casts = (("やな", YANA, YANA_NOISY, YANA_SLIPS), ("あゆ", AYU, AYU_NOISY, AYU_SLIPS))

    def phrase(clean: list[str], noisy: list[str], slips: list[str]) -> str:
        draw = rng.random()
        if draw < SLIP_SHARE:
            return rng.choice(slips)
        if draw < SLIP_SHARE + NOISY_SHARE:
            return rng.choice(noisy)
        return rng.choice(clean)

    utterances = []
    for index in range(n):
        speaker, clean, noisy, slips = casts[index % 2]
        lines = rng.choices(counts, weights)[0]
        text = "\n".join(
            "".join(phrase(clean, noisy, slips) for _ in range(1 if rng.random() < 0.75 else 2)) for _ in range(lines)
        )
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
    statuses = Counter(check_utterance(text, speaker, rules).status for speaker, text in utterances)  # warm-up

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
    print("verdicts: " + ", ".join(f"{status} {count:,}" for status, count in sorted(statuses.items())))
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
