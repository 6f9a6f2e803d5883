"""The words on the figures, in Japanese (seed 002 §2.1 指標名) and English.

Each metric has a name (the title) and an axis label saying what the bar measures: the proportion metrics
a share of items or bindings, the trial-mean metrics a mean over trials. ``SAMPLE_NOTES`` says what the
``n=…`` under each bar counts, which differs between the two kinds. ``TEXTS`` holds the other words, among
them the judge of a judged metric's figure (``judge``, ``judges_differ``) and the note of a model
configuration judged by several judges (``several_judges``), whose figures are never drawn blended.
"""

from __future__ import annotations

LANGUAGES = ("ja", "en")

# metric -> {language: (name, axis label)}
METRIC_LABELS = {
    "GV_CR": {
        "ja": ("generatedValue コンテンツ妥当性", "試行平均スコア（0–2）"),
        "en": ("generatedValue content relevance", "Trial mean score (0–2)"),
    },
    "GV_UR": {
        "ja": ("GV有用率", "有用（スコア2）の割合"),
        "en": ("generatedValue useful rate", "Share of useful items (score 2)"),
    },
    "W2WR_FR": {
        "ja": ("W2WR Flow率", "Flow バインディングの割合"),
        "en": ("W2WR flow rate", "Share of flow bindings"),
    },
    "W2WR_MR": {
        "ja": ("W2WR Meta率", "Meta バインディングの割合"),
        "en": ("W2WR meta rate", "Share of meta bindings"),
    },
    "W2WR_SYR": {
        "ja": ("W2WR Sync率", "Sync バインディングの割合"),
        "en": ("W2WR sync rate", "Share of sync bindings"),
    },
    "W2WR_SC": {
        "ja": ("W2WR 意味的正確性", "試行平均スコア（0–2）"),
        "en": ("W2WR semantic correctness", "Trial mean score (0–2)"),
    },
    "W2WR_CR": {
        "ja": ("W2WR正確率", "正確（スコア2）の割合"),
        "en": ("W2WR correctness rate", "Share of correct bindings (score 2)"),
    },
    "WS_ENT": {
        "ja": ("Widget選択エントロピー", "平均エントロピー（bit）"),
        "en": ("Widget selection entropy", "Mean entropy (bits)"),
    },
    "GC_NC": {
        "ja": ("グラフノード数", "平均ノード数（Widget数）"),
        "en": ("Graph node count", "Mean node count (widgets)"),
    },
    "GC_EC": {
        "ja": ("グラフエッジ数", "平均エッジ数（ReactiveBinding数）"),
        "en": ("Graph edge count", "Mean edge count (reactive bindings)"),
    },
    "GC_DEN": {
        "ja": ("グラフ密度", "平均グラフ密度"),
        "en": ("Graph density", "Mean graph density"),
    },
}

# metric -> {language: what n counts}
SAMPLE_NOTES = {
    "GV_UR": {"ja": "評価済み項目数", "en": "judged items"},
    "W2WR_FR": {"ja": "バインディング数", "en": "bindings"},
    "W2WR_MR": {"ja": "バインディング数", "en": "bindings"},
    "W2WR_SYR": {"ja": "バインディング数", "en": "bindings"},
    "W2WR_CR": {"ja": "評価済みバインディング数", "en": "judged bindings"},
    "GV_CR": {"ja": "評価済み項目のある試行数", "en": "trials with judged items"},
    "W2WR_SC": {"ja": "評価済みバインディングのある試行数", "en": "trials with judged bindings"},
    "WS_ENT": {"ja": "試行数", "en": "trials"},
    "GC_NC": {"ja": "試行数", "en": "trials"},
    "GC_EC": {"ja": "試行数", "en": "trials"},
    "GC_DEN": {"ja": "試行数", "en": "trials"},
}

INTERVAL_NAMES = {
    "wilson": {"ja": "Wilson スコア区間", "en": "Wilson score interval"},
    "t": {"ja": "平均の t 区間", "en": "t interval of the mean"},
}

TEXTS = {
    "ja": {
        "model_config": "モデル構成",
        "no_data": "データなし",
        "several_judges": "複数の判定モデル",
        "judge": "判定モデル: {judge}",
        "judges_differ": "判定モデル: モデル構成ごとに異なる（各棒の下に表示）",
        "no_interval": "n = 1: 区間なし",
        "ci_note": "エラーバー: 95%信頼区間（{method}）。n = {unit}",
        "types_title": "W2WR タイプ分布",
        "types_axis": "バインディングの割合",
        "types_note": "バインディング数で重み付け。n = バインディング数",
        "flow": "Flow",
        "meta": "Meta",
        "sync": "Sync",
        "unknown": "不明",
    },
    "en": {
        "model_config": "Model configuration",
        "no_data": "no data",
        "several_judges": "several judges",
        "judge": "Judge: {judge}",
        "judges_differ": "Judges: differ between model configurations (under each bar)",
        "no_interval": "n = 1: no interval",
        "ci_note": "Error bars: 95% confidence interval ({method}). n = {unit}",
        "types_title": "W2WR type distribution",
        "types_axis": "Share of bindings",
        "types_note": "Weighted by binding. n = bindings",
        "flow": "Flow",
        "meta": "Meta",
        "sync": "Sync",
        "unknown": "Unknown",
    },
}
