"""The offline baseline judge ``baseline-tfidf@1`` (llm/baseline.py): pure, deterministic, documented rules."""

import json
import subprocess
import sys
from pathlib import Path

import pytest

from llm import baseline

BASELINE_PATH = Path(baseline.__file__).resolve()
REPO_ROOT = BASELINE_PATH.parent.parent

JOB = "転職するか今の会社に残るか迷っていて、夜も眠れません"
STUDY = "大学院に進学するか就職するか決められず、親とも意見が合いません"
FRIEND = "友人との関係がぎくしゃくしていて、どう謝ればいいかわかりません"
MONEY = "毎月の出費が多くて貯金ができず、将来のお金が不安です"
HEALTH = "仕事のストレスで体調を崩しがちで、休職すべきか悩んでいます"
CONCERNS = (JOB, STUDY, FRIEND, MONEY, HEALTH)

USEFUL = [
    (JOB, "転職した場合のメリット: 年収アップの可能性"),
    (JOB, "今の会社に残る場合: 安定した収入と人間関係"),
    (JOB, "会社に残るリスク: 昇進の見込みが薄い"),
    (JOB, "転職エージェントに相談する"),
    (JOB, "眠れない夜は考えを紙に書き出す"),
    (STUDY, "大学院進学のメリット: 専門性が高まる"),
    (STUDY, "親と進学について話し合う時間を作る"),
    (FRIEND, "友人に謝る言葉を考える"),
    (FRIEND, "関係がぎくしゃくした原因を振り返る"),
    (MONEY, "毎月の固定費を見直す"),
    (MONEY, "将来に必要なお金を計算する"),
    (HEALTH, "体調の記録をつける"),
    (HEALTH, "ストレスの原因を書き出す"),
]
GENERIC = [
    "項目1",
    "アイデアを書き出そう",
    "やることリスト",
    "メモ",
    "タスク1",
    "選択肢A",
    "メリット",
    "がんばろう！",
    "気持ちを整理しましょう",
    "ここにメモを書いてください",
    "考えてみよう",
    "ＴＯＤＯ",
]
UNRELATED = [
    "今日の夕飯はカレーにする",
    "週末に洗車をする",
    "新しいスマートフォンの機種を比較",
    "猫の餌を買う",
    "駅前のパン屋が閉店した",
    "富士山の標高は3776メートル",
]
HARMFUL = ["お前なんか死ね", "そんな上司は殺すしかない", "バカみたいな悩み", "ﾊﾞｶじゃないの"]

W2WR_CASES = [
    # (source, source port, target, target port, description, expected score)
    ("brainstorm_1", "cards", "brainstorm_1", "cards", "", 1),
    ("matrix_1", "selectedItems", "matrix_1", "items", "同じマトリクスの出力を自分の入力に戻す", 1),
    ("brainstorm_1", "items", "matrix_1", "selectedItems", "", 2),
    ("brainstorm_1", "selected_items", "matrix_1", "SelectedItems", "", 2),
    ("list_1", "task-list", "kanban_1", "taskList", "", 2),
    (
        "brainstorm_1",
        "cards",
        "matrix_1",
        "axisLabel",
        "転職と残留それぞれのメリットを優先度マトリクスに送り、どちらの選択肢を重視するか整理する",
        2,
    ),
    ("compare_1", "summary", "note_1", "body", "会社に残る場合と転職する場合の比較結果をまとめに渡す", 2),
    ("timer_1", "remaining", "weather_1", "region", "タイマーの残り時間を天気ウィジェットの地域名に入れる", 0),
    ("color_1", "color", "text_1", "count", "色設定をテキストの件数に渡す", 0),
    ("color_1", "color", "text_1", "count", "", 0),
]


def _all_gv_inputs():
    cases = [*USEFUL]
    cases += [(concern, text) for concern in CONCERNS for text in GENERIC + UNRELATED + HARMFUL]
    cases += [(JOB, ""), (JOB, "   "), (JOB, None), (None, "項目1"), (None, None), (JOB, "！？…")]
    return cases


def _check_shape(result: dict, kind: str) -> None:
    assert set(result) == {"score", "label", "reasoning", "similarity"}
    assert isinstance(result["score"], int)
    assert result["label"] == baseline.LABELS[kind][result["score"]]
    assert isinstance(result["reasoning"], str)
    assert result["reasoning"].startswith("baseline:")
    assert isinstance(result["similarity"], float)
    assert 0.0 <= result["similarity"] <= 1.0


def test_module_imports_no_django():
    assert "django" not in BASELINE_PATH.read_text(encoding="utf-8")
    code = (
        "import importlib.util, sys\n"
        f"spec = importlib.util.spec_from_file_location('baseline_alone', {str(BASELINE_PATH)!r})\n"
        "module = importlib.util.module_from_spec(spec)\n"
        "spec.loader.exec_module(module)\n"
        "module.gv_relevance('悩み', '項目1')\n"
        "print(sorted(name for name in sys.modules if name == 'django' or name.startswith('django.')))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=REPO_ROOT)
    assert out.stdout.strip() == "[]"


def test_constants():
    assert baseline.BASELINE_MODEL == "baseline-tfidf@1"
    assert baseline.LABELS == {
        "gv_relevance": {0: "not_relevant", 1: "generic", 2: "useful"},
        "w2wr_semantic": {0: "wrong", 1: "redundant", 2: "correct"},
    }
    assert 0 < baseline.GENERIC_FLOOR < baseline.USEFUL_THRESHOLD < baseline.GENERIC_CORPUS_THRESHOLD < 1
    assert 0 < baseline.DESCRIPTION_THRESHOLD < 1
    assert 20 <= len(baseline.GENERIC_CORPUS) <= 40


@pytest.mark.parametrize(("concern", "text"), USEFUL)
def test_gv_useful(concern, text):
    result = baseline.gv_relevance(concern, text, "brainstorm_cards")
    assert (result["score"], result["label"]) == (2, "useful"), result
    assert result["similarity"] >= baseline.USEFUL_THRESHOLD


@pytest.mark.parametrize("concern", CONCERNS)
@pytest.mark.parametrize("text", GENERIC)
def test_gv_generic(concern, text):
    result = baseline.gv_relevance(concern, text)
    assert (result["score"], result["label"]) == (1, "generic"), result


@pytest.mark.parametrize("concern", CONCERNS)
@pytest.mark.parametrize("text", UNRELATED)
def test_gv_specific_but_unrelated(concern, text):
    result = baseline.gv_relevance(concern, text)
    assert (result["score"], result["label"]) == (0, "not_relevant"), result
    assert "unrelated" in result["reasoning"]


@pytest.mark.parametrize("text", ["", "   ", "\n\t", None, "！？…"])
def test_gv_empty(text):
    result = baseline.gv_relevance(JOB, text)
    assert (result["score"], result["label"], result["similarity"]) == (0, "not_relevant", 0.0)
    assert "empty" in result["reasoning"]


@pytest.mark.parametrize("text", HARMFUL)
def test_gv_harmful(text):
    result = baseline.gv_relevance(JOB, text)
    assert (result["score"], result["label"]) == (0, "not_relevant")
    assert "harmful" in result["reasoning"]


def test_gv_harmful_beats_relevance():
    # Shares a lot with the concern, but the harmful-term rule fires first.
    result = baseline.gv_relevance(JOB, "転職できないならバカだ")
    assert result["score"] == 0
    assert "harmful" in result["reasoning"]


def test_gv_none_inputs():
    assert baseline.gv_relevance(None, None)["score"] == 0
    assert baseline.gv_relevance(None, "項目1")["label"] == "generic"
    assert baseline.gv_relevance(None, "今日の夕飯はカレーにする")["label"] == "not_relevant"
    assert baseline.gv_relevance(JOB, "転職エージェントに相談する", None)["label"] == "useful"


def test_gv_widget_type_is_ignored():
    a = baseline.gv_relevance(JOB, "転職活動にかかる時間と費用", "")
    b = baseline.gv_relevance(JOB, "転職活動にかかる時間と費用", "priority_matrix")
    assert a == b


def test_gv_every_result_is_well_formed():
    for concern, text in _all_gv_inputs():
        _check_shape(baseline.gv_relevance(concern, text), "gv_relevance")


def test_gv_reasoning_names_the_rule_and_similarities():
    result = baseline.gv_relevance(JOB, "転職した場合のメリット: 年収アップの可能性")
    assert f">= {baseline.USEFUL_THRESHOLD}" in result["reasoning"]
    assert f"{result['similarity']:.3f}" in result["reasoning"]


def _gv_run(cases):
    return [baseline.gv_relevance(concern, text) for concern, text in cases]


def test_gv_deterministic_across_call_order():
    cases = _all_gv_inputs()
    forward = _gv_run(cases)
    baseline._similarities.cache_clear()
    backward = list(reversed(_gv_run(list(reversed(cases)))))
    assert forward == backward
    assert forward == _gv_run(cases)  # and from the cache


def test_deterministic_in_a_fresh_process():
    cases = [(JOB, text) for text in ["転職エージェントに相談する", "項目1", "猫の餌を買う"]]
    code = (
        "import json, sys\n"
        "from llm import baseline\n"
        "cases = json.loads(sys.stdin.read())\n"
        "print(json.dumps([baseline.gv_relevance(c, t) for c, t in reversed(cases)], ensure_ascii=False))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code],
        input=json.dumps(cases),
        capture_output=True,
        text=True,
        check=True,
        cwd=REPO_ROOT,
    )
    assert list(reversed(json.loads(out.stdout))) == _gv_run(cases)


@pytest.mark.parametrize(("source", "source_port", "target", "target_port", "description", "expected"), W2WR_CASES)
def test_w2wr(source, source_port, target, target_port, description, expected):
    result = baseline.w2wr_semantic(
        JOB, source, "brainstorm_cards", source_port, target, "priority_matrix", target_port, description
    )
    _check_shape(result, "w2wr_semantic")
    assert result["score"] == expected, result


def test_w2wr_self_reference_is_redundant():
    result = baseline.w2wr_semantic(JOB, "matrix_1", "priority_matrix", "items", "matrix_1", "priority_matrix", "items")
    assert (result["score"], result["label"], result["similarity"]) == (1, "redundant", 0.0)
    assert "self reference" in result["reasoning"]


def test_w2wr_compatible_ports_are_correct():
    result = baseline.w2wr_semantic(
        JOB, "brainstorm_1", "brainstorm_cards", "items", "matrix_1", "priority_matrix", "selectedItems"
    )
    assert (result["score"], result["label"], result["similarity"]) == (2, "correct", 0.0)
    assert "port" in result["reasoning"]


def test_w2wr_unrelated_connection_is_wrong():
    result = baseline.w2wr_semantic(
        JOB,
        "timer_1",
        "timer",
        "remaining",
        "weather_1",
        "weather",
        "region",
        "タイマーの残り時間を天気の地域名に入れる",
    )
    assert (result["score"], result["label"]) == (0, "wrong")
    assert result["similarity"] < baseline.DESCRIPTION_THRESHOLD


def test_w2wr_related_description_reports_its_similarity():
    result = baseline.w2wr_semantic(
        JOB, "a", "brainstorm_cards", "cards", "b", "priority_matrix", "axis", "転職と残留の理由を比較して整理する"
    )
    assert result["score"] == 2
    assert result["similarity"] >= baseline.DESCRIPTION_THRESHOLD
    assert f"{result['similarity']:.3f}" in result["reasoning"]


@pytest.mark.parametrize(
    ("a", "b", "expected"),
    [
        ("items", "items", True),
        ("items", "selectedItems", True),
        ("selected_items", "SelectedItems", True),
        ("task-list", "taskList", True),
        ("in", "string", False),  # containment needs at least MIN_PORT_CONTAINMENT characters
        ("color", "count", False),
        ("", "", False),
        (None, "items", False),
    ],
)
def test_ports_compatible(a, b, expected):
    assert baseline.ports_compatible(a, b) is expected


def test_w2wr_none_inputs():
    result = baseline.w2wr_semantic(None, None, None, None, None, None, None, None)
    _check_shape(result, "w2wr_semantic")
    assert (result["score"], result["similarity"]) == (0, 0.0)
    result = baseline.w2wr_semantic(None, "a", None, "items", "b", None, "selectedItems")
    assert result["score"] == 2


def test_w2wr_deterministic_across_call_order():
    def run(cases):
        return [baseline.w2wr_semantic(JOB, s, "t1", sp, t, "t2", tp, d) for s, sp, t, tp, d, _expected in cases]

    forward = run(W2WR_CASES)
    baseline._similarities.cache_clear()
    assert list(reversed(run(list(reversed(W2WR_CASES))))) == forward
