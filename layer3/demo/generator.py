"""Synthetic trial logs for the demo, the tests and the benchmark (pure: no Django, seeded).

Written for this project: twenty Japanese concerns, fifteen widget types of a thinking-support app,
and five model configurations (A–E) with different habits, so that a demo batch shows real
differences between them. A: many widgets, concern-specific sample values, update flows.
B: fewer widgets, generic placeholders. C: PlanUISpecs (diverge / organize / converge) with
validations. D: PlanUISpecs with bidirectional (sync) bindings. E: a "router" that mixes the
others' habits, with more unknown mechanisms. A small share of trials carries broken generated
data (a binding source without a dot, a widget without an id), as stored logs sometimes do.
"""

from __future__ import annotations

import random

from layer3.metrics.catalogue import DEFAULT_WIDGET_TYPES

CONCERNS = (  # (the concern, its topic as a noun for the sample values)
    ("転職するか今の会社に残るか迷っていて、夜も眠れません", "転職"),
    ("大学院に進学するか就職するか決められない", "大学院進学"),
    ("親の介護と仕事の両立に疲れてきた", "介護と仕事の両立"),
    ("友人との関係がぎくしゃくしていて、どう話せばいいかわからない", "友人との関係"),
    ("副業を始めたいが、時間もお金も足りない", "副業"),
    ("引っ越し先を都心にするか郊外にするか迷っている", "引っ越し先"),
    ("上司からの評価が低く、昇進できるか不安だ", "昇進"),
    ("貯金が増えず、老後の生活が心配", "老後の資金"),
    ("子どもの習い事をいくつ続けさせるべきか悩んでいる", "子どもの習い事"),
    ("結婚式を挙げるかどうかパートナーと意見が合わない", "結婚式"),
    ("資格の勉強が続かず、試験に間に合うか不安", "資格試験の勉強"),
    ("チームの雰囲気が悪く、リーダーとして何をすべきかわからない", "チームの雰囲気"),
    ("健康診断で数値が悪く、生活習慣を変えたい", "生活習慣の改善"),
    ("起業のアイデアがあるが、失敗が怖くて踏み出せない", "起業"),
    ("留学したいが、家族に反対されている", "留学"),
    ("在宅勤務で孤独を感じ、集中できない", "在宅勤務"),
    ("家を買うか賃貸を続けるか決められない", "住宅購入"),
    ("趣味の時間が取れず、毎日が仕事だけになっている", "趣味の時間"),
    ("人前で話すのが苦手で、来月の発表が憂うつだ", "来月の発表"),
    ("SNSを見る時間が長すぎて、やめたいのにやめられない", "SNSの利用時間"),
)

WIDGET_TYPES = DEFAULT_WIDGET_TYPES  # the default catalogue (layer3.metrics.catalogue)

GENERIC_TEXTS = ("項目1", "項目2", "アイデアを書き出そう", "メモを入力", "選択肢A", "選択肢B", "やることリスト")
UNRELATED_TEXTS = ("今日の夕飯はカレーにする", "週末は晴れるらしい", "新しいスマホの色を選ぶ")
SPECIFIC_PATTERNS = (
    "{topic}のメリット",
    "{topic}のデメリット",
    "{topic}について信頼できる人に相談する",
    "{topic}で一番不安なこと",
    "{topic}を決める期限",
    "{topic}にかかる費用と時間",
)
OFFTOPIC_DESCRIPTIONS = ("タイマーの残り時間を天気ウィジェットの地域名に入れる", "カードの色を次の画面の背景に反映する")
PORTS = ("items", "selected", "output", "input", "scores", "summary")


class Profile:
    def __init__(self, widgets, bindings, specific, generic, plan, sync, validate, unknown, offtopic):
        self.widgets = widgets  # (min, max) widgets per trial
        self.bindings = bindings  # bindings per widget
        self.specific, self.generic = specific, generic  # shares of sample values; the rest unrelated
        self.plan = plan  # share of PlanUISpecs
        self.sync, self.validate, self.unknown = sync, validate, unknown
        self.offtopic = offtopic  # share of bindings whose description has nothing to do with the concern


PROFILES = {
    "A": Profile((5, 8), 1.1, 0.75, 0.2, 0.0, 0.05, 0.1, 0.03, 0.05),
    "B": Profile((3, 5), 0.8, 0.35, 0.55, 0.0, 0.05, 0.05, 0.05, 0.35),
    "C": Profile((5, 9), 1.0, 0.6, 0.3, 1.0, 0.05, 0.3, 0.03, 0.1),
    "D": Profile((4, 7), 1.0, 0.55, 0.35, 1.0, 0.3, 0.1, 0.03, 0.15),
    "E": Profile((3, 8), 0.9, 0.5, 0.3, 0.5, 0.1, 0.1, 0.15, 0.25),
}
BROKEN_SHARE = 0.02


def _sample_text(rng: random.Random, profile: Profile, topic: str) -> str:
    roll = rng.random()
    if roll < profile.specific:
        return rng.choice(SPECIFIC_PATTERNS).format(topic=topic)
    if roll < profile.specific + profile.generic:
        return rng.choice(GENERIC_TEXTS)
    return rng.choice(UNRELATED_TEXTS)


def _widget(rng: random.Random, profile: Profile, topic: str, number: int) -> dict:
    items = [
        {"id": f"w{number}-i{k}", "text": _sample_text(rng, profile, topic), "isGenerated": True}
        for k in range(rng.randint(0, 3))
    ]
    config: dict = {"title": f"ステップ{number}"}
    if items:
        if rng.random() < 0.8:
            config["items"] = items
        else:
            config["hint"] = items[0]  # a generated item directly under a key
    return {"id": f"w{number}", "component": rng.choice(WIDGET_TYPES), "config": config}


def _bindings(rng: random.Random, profile: Profile, widget_ids: list[str], topic: str) -> list[dict]:
    count = round(len(widget_ids) * profile.bindings * rng.uniform(0.6, 1.4))
    bindings: list[dict] = []
    for k in range(count):
        # forward only (earlier widget to a later one), so a sync pair is always a deliberate reverse
        if len(widget_ids) > 1:
            first, second = sorted(rng.sample(range(len(widget_ids)), 2))
            source, target = widget_ids[first], widget_ids[second]
        else:
            source = target = widget_ids[0]
        roll = rng.random()
        binding = {
            "id": f"b{k + 1}",
            "source": f"{source}.{rng.choice(PORTS)}",
            "target": f"{target}.{rng.choice(PORTS)}",
            "mechanism": "update",
            "description": f"{topic}について書き出した内容を次のステップで整理する",
        }
        if rng.random() < profile.offtopic:
            binding["description"] = rng.choice(OFFTOPIC_DESCRIPTIONS)
        if roll < profile.validate:
            binding["mechanism"] = "validate"
        elif roll < profile.validate + profile.unknown:
            binding["mechanism"] = "compute"
        elif rng.random() < 0.1:
            binding["complexityCheck"] = True
        bindings.append(binding)
        if rng.random() < profile.sync:
            bindings.append({**binding, "id": f"b{k + 1}r", "source": binding["target"], "target": binding["source"]})
    return bindings


def break_generated_data(data: dict) -> None:
    """Damage a generated spec as stored logs sometimes are: the last binding's source loses its dot,
    or, without bindings, the first widget its id."""
    bindings = data["reactiveBindings"]["bindings"]
    if bindings:
        bindings[-1]["source"] = bindings[-1]["source"].replace(".", "")
        return
    sections = data.get("sections")
    widgets = data["widgets"] if sections is None else next(s["widgets"] for s in sections.values() if s["widgets"])
    widgets[0].pop("id")


def generate_trial(
    rng: random.Random, model_config: str, concern: tuple[str, str], number: int, *, broken_share: float = BROKEN_SHARE
) -> dict:
    """One trial line ``{"id", "modelConfig", "stage", "inputText", "generatedData"}`` for ``(concern, topic)``."""
    profile = PROFILES[model_config]
    text, topic = concern
    widgets = [_widget(rng, profile, topic, n) for n in range(1, rng.randint(*profile.widgets) + 1)]
    bindings = _bindings(rng, profile, [w["id"] for w in widgets], topic)
    if rng.random() < profile.plan:
        thirds = max(1, len(widgets) // 3)
        data: dict = {
            "sections": {
                "diverge": {"widgets": widgets[:thirds]},
                "organize": {"widgets": widgets[thirds : 2 * thirds]},
                "converge": {"widgets": widgets[2 * thirds :]},
            },
            "reactiveBindings": {"bindings": bindings},
        }
    else:
        data = {"widgets": widgets, "reactiveBindings": {"bindings": bindings}}
    if rng.random() < broken_share:
        break_generated_data(data)
    return {
        "id": f"{model_config}-{number:05d}",
        "modelConfig": model_config,
        "stage": 3,
        "inputText": text,
        "generatedData": data,
    }


def generate_trials(
    count: int, *, seed: int = 2026, model_configs: str = "ABCDE", broken_share: float = BROKEN_SHARE
) -> list[dict]:
    """``count`` trials spread evenly over the model configs, each concern in turn (deterministic)."""
    rng = random.Random(seed)  # noqa: S311 - reproducible synthetic data, not secrets
    trials = []
    for number in range(count):
        model_config = model_configs[number % len(model_configs)]
        concern = CONCERNS[(number // len(model_configs)) % len(CONCERNS)]
        trials.append(generate_trial(rng, model_config, concern, number, broken_share=broken_share))
    return trials
