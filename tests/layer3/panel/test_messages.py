"""Stored English Layer3 texts read in the reader's language (layer3.panel.messages), without a database.

The Japanese catalogue gets these msgids only when the translations are merged, so most Japanese
checks here run under a marking gettext (``⟪msgid⟫``) that shows which pieces were recognised and
translated, and the English checks show that the text is rebuilt exactly as stored.
"""

import ast
import inspect
import re
import sys

import pytest
from django.utils import translation

from layer3.metrics import parsing
from layer3.metrics.spec import UISpecError
from layer3.panel import messages
from llm import baseline

JOB = "転職するか今の会社に残るか迷っていて、夜も眠れません"
SCRIPT = "<script>alert(1)</script>"
W = {"id": "w1", "component": "brainstorm_cards"}
BINDINGS = {"bindings": []}


def ok_binding(**changes):
    return {"id": "b1", "source": "w1.out", "target": "w2.in", **changes}


# Generated data that parse_ui_spec refuses, reaching every UISpecError of parsing.py (checked below)
BAD_SPECS = [
    None,
    True,
    1.5,
    "nodot",
    "x" * 80,
    [1, 2, 3],
    {},
    {"a": 1, "キー": 2},
    {"sections": "x", "reactiveBindings": BINDINGS},
    {"sections": {}, "reactiveBindings": BINDINGS},
    {"sections": {"diverge": 3}, "reactiveBindings": BINDINGS},
    {"sections": {"diverge": {}}, "reactiveBindings": BINDINGS},
    {"sections": {name: {"widgets": False} for name in parsing.SECTION_NAMES}, "reactiveBindings": BINDINGS},
    {"widgets": {"a": 1}, "reactiveBindings": BINDINGS},
    {"widgets": [W, 5], "reactiveBindings": BINDINGS},
    {"widgets": [{"component": "x"}], "reactiveBindings": BINDINGS},
    {"widgets": [{"id": "w", "component": ""}], "reactiveBindings": BINDINGS},
    {"widgets": []},
    {"widgets": [], "reactiveBindings": []},
    {"widgets": [], "reactiveBindings": {}},
    {"widgets": [], "reactiveBindings": {"bindings": "x"}},
    {"widgets": [], "reactiveBindings": {"bindings": [None]}},
    {"widgets": [], "reactiveBindings": {"bindings": [ok_binding(id=1)]}},
    {"widgets": [], "reactiveBindings": {"bindings": [ok_binding(source="nodot")]}},
    {"widgets": [], "reactiveBindings": {"bindings": [ok_binding(source=f"{SCRIPT}; accepted: x")]}},
    {"widgets": [], "reactiveBindings": {"bindings": [{"id": "b1", "source": "w1.out"}]}},
    {"widgets": [], "reactiveBindings": {"bindings": [ok_binding(mechanism=3)]}},
    {"widgets": [], "reactiveBindings": {"bindings": [ok_binding(complexityCheck=1)]}},
]

# Inputs that reach every rule of llm.baseline (checked below), and values that look like its own text
GV_INPUTS = [
    (JOB, ""),
    (JOB, "転職できないならバカだ"),
    (JOB, "転職した場合のメリット: 年収アップの可能性"),
    (JOB, "項目1"),
    (JOB, "迷子の猫"),
    (JOB, "今日の夕飯はカレーにする"),
]
W2WR_INPUTS = [
    (JOB, "matrix_1", "t", "items", "matrix_1", "t", "items", ""),
    (JOB, "a -> b", "t", "x", "a -> b", "t", "y", ""),
    (JOB, "a", "t", "items", "b", "t", "selectedItems", ""),
    (JOB, "a", "t", "it's -> 'x", "b", "t", "it's -> 'x", ""),
    (JOB, "a", "brainstorm_cards", "cards", "b", "priority_matrix", "axis", "転職と残留の理由を比較して整理する"),
    (JOB, "timer_1", "timer", "remaining", "weather_1", "weather", "region", "タイマーの残り時間を地域名に入れる"),
    (JOB, "a", "t", SCRIPT, "b", "t", 'say "hi"', ""),
]


def stored_error(data) -> str:
    """What a trial whose generated data is ``data`` stores as its error (layer3.runs.chunk.error_metrics)."""
    with pytest.raises(UISpecError) as refused:
        parsing.parse_ui_spec(data)
    return f"{refused.value.problem}; accepted: {refused.value.accepted}"


def reasonings() -> list[str]:
    return [baseline.gv_relevance(*args)["reasoning"] for args in GV_INPUTS] + [
        baseline.w2wr_semantic(*args)["reasoning"] for args in W2WR_INPUTS
    ]


def call_lines(module, name: str) -> set[tuple[int, int]]:
    """(first, last) line of every call of ``name`` in ``module``'s source."""
    tree = ast.parse(inspect.getsource(module))
    return {
        (node.lineno, node.end_lineno)
        for node in ast.walk(tree)
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == name
    }


def reached(lines: set[tuple[int, int]], line: int) -> tuple[int, int]:
    return next(span for span in lines if span[0] <= line <= span[1])


@pytest.fixture
def marked(monkeypatch):
    """A gettext that marks what it translates, ``⟪msgid⟫``, and records the msgids it was asked for."""
    asked = set()

    def fake(message):
        asked.add(message)
        return f"⟪{message}⟫"

    monkeypatch.setattr(messages, "gettext", fake)
    return asked


# Evaluation errors


def test_every_accepted_text_of_parsing_has_a_translation_entry_whose_msgid_is_the_stored_text():
    constants = {
        name: value
        for name, value in vars(parsing).items()
        if name.isupper() or (name.startswith("_") and name[1:].isupper())
    }
    accepted = {
        name: value
        for name, value in constants.items()
        if isinstance(value, str) and name != "ROOT" and not name.endswith("_PATH")
    }
    assert len(accepted) >= 10
    assert set(accepted.values()) <= set(messages.ACCEPTED)
    # and what is written in place as the third argument of a UISpecError
    for node in ast.walk(ast.parse(inspect.getsource(parsing))):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "UISpecError":
            third = node.args[2]
            text = getattr(parsing, third.id) if isinstance(third, ast.Name) else ast.literal_eval(third)
            assert text in messages.ACCEPTED, f"parsing.py line {node.lineno}: {text!r} has no translation entry"
    for stored, msgid in messages.ACCEPTED.items():
        assert stored == msgid


def test_the_bad_specs_reach_every_error_of_parsing(monkeypatch):
    lines = call_lines(parsing, "UISpecError")
    seen = set()

    class Recording(UISpecError):
        def __init__(self, path, problem, accepted):
            seen.add(reached(lines, sys._getframe(1).f_lineno))
            super().__init__(path, problem, accepted)

    monkeypatch.setattr(parsing, "UISpecError", Recording)
    for data in BAD_SPECS:
        stored_error(data)
    assert seen == lines


@pytest.mark.parametrize("data", BAD_SPECS, ids=range(len(BAD_SPECS)))
def test_every_evaluation_error_is_rebuilt_exactly_in_english(data):
    error = stored_error(data)
    with translation.override("en"):
        assert messages.spec_error_text(error) == error


def test_every_evaluation_error_is_read_piece_by_piece(marked):
    problem = r"⟪(missing|found (⟪(boolean|number|string)⟫ .+|⟪(null|an object)⟫|⟪an array of \d+⟫)|an object .+)⟫"
    for data in BAD_SPECS:
        error = stored_error(data)
        text = messages.spec_error_text(error)
        assert re.fullmatch(rf"⟪{problem}; accepted: ⟪[^⟪⟫]+⟫⟫", text, re.DOTALL), (error, text)
    templates = {messages.ERROR, messages.FOUND, messages.MISSING, messages.NEITHER, messages.NEITHER_NO_KEYS}
    assert templates | {messages.ARRAY} | set(messages.ACCEPTED.values()) <= marked


@pytest.mark.parametrize(("data", "expected"), [
    ({"widgets": [], "reactiveBindings": {"bindings": [ok_binding(source="nodot")]}},
     f'⟪⟪found ⟪string⟫ "nodot"⟫; accepted: ⟪{parsing._ENDPOINT}⟫⟫'),
    ([1, 2, 3], f"⟪⟪found ⟪an array of 3⟫⟫; accepted: ⟪{parsing._SPEC}⟫⟫"),
    (None, f"⟪⟪found ⟪null⟫⟫; accepted: ⟪{parsing._SPEC}⟫⟫"),
    (True, f"⟪⟪found ⟪boolean⟫ true⟫; accepted: ⟪{parsing._SPEC}⟫⟫"),
    (1.5, f"⟪⟪found ⟪number⟫ 1.5⟫; accepted: ⟪{parsing._SPEC}⟫⟫"),
    ({"widgets": [W]}, f"⟪⟪missing⟫; accepted: ⟪{parsing._REACTIVE_BINDINGS}⟫⟫"),
    ({"widgets": [W, {"id": "w2"}], "reactiveBindings": BINDINGS}, "⟪⟪missing⟫; accepted: ⟪a non-empty string⟫⟫"),
    ({"widgets": [W, 5], "reactiveBindings": BINDINGS}, f"⟪⟪found ⟪number⟫ 5⟫; accepted: ⟪{parsing._WIDGET}⟫⟫"),
    ({"widgets": [W, []], "reactiveBindings": BINDINGS}, f"⟪⟪found ⟪an array of 0⟫⟫; accepted: ⟪{parsing._WIDGET}⟫⟫"),
    ({"widgets": [], "reactiveBindings": {"bindings": [ok_binding(complexityCheck="yes")]}},
     '⟪⟪found ⟪string⟫ "yes"⟫; accepted: ⟪true, false or null⟫⟫'),
    ({"widgets": [W, {"id": "w2", "component": False}], "reactiveBindings": BINDINGS},
     "⟪⟪found ⟪boolean⟫ false⟫; accepted: ⟪a non-empty string⟫⟫"),
    ({"sections": {"diverge": {}}}, f"⟪⟪found ⟪an object⟫⟫; accepted: ⟪{parsing._SECTION}⟫⟫".replace(
        "⟪found ⟪an object⟫⟫", "⟪missing⟫").replace(parsing._SECTION, parsing._WIDGETS)),
    ({"a": 1, "キー": 2},
     f'⟪⟪an object with neither "widgets" nor "sections" (keys: %(keys)s)⟫; accepted: ⟪{parsing._SPEC}⟫⟫'
     .replace("%(keys)s", '"a", "キー"')),
    ({}, f'⟪⟪an object with neither "widgets" nor "sections" (keys: none)⟫; accepted: ⟪{parsing._SPEC}⟫⟫'),
])  # fmt: skip
def test_the_found_value_stays_as_written_and_its_json_type_is_translated(marked, data, expected):
    assert messages.spec_error_text(stored_error(data)) == expected


def test_a_found_string_that_looks_like_the_separator_is_kept_whole(marked):
    data = {"widgets": [], "reactiveBindings": {"bindings": [ok_binding(source=f"{SCRIPT}; accepted: x")]}}
    text = messages.spec_error_text(stored_error(data))
    assert text == f'⟪⟪found ⟪string⟫ "{SCRIPT}; accepted: x"⟫; accepted: ⟪{parsing._ENDPOINT}⟫⟫'


@pytest.mark.parametrize("error", ["", None, "something else entirely", 'found string "x" with no accepted part'])
def test_a_text_without_the_accepted_part_stays_as_stored(error):
    with translation.override("ja"):
        assert messages.spec_error_text(error) == (error or "")


def test_unrecognised_pieces_are_left_in_english_and_recognised_ones_translated(marked):
    text = messages.spec_error_text('found string "x"; accepted: a thing parsing.py does not say')
    assert text == '⟪⟪found ⟪string⟫ "x"⟫; accepted: a thing parsing.py does not say⟫'
    assert messages.spec_error_text("a new problem; accepted: a string") == "⟪a new problem; accepted: ⟪a string⟫⟫"
    assert messages.spec_error_text("no separator here") == "no separator here"


def test_run_failures_and_error_lines_of_the_run(marked):
    error = stored_error({"widgets": [], "reactiveBindings": {"bindings": [ok_binding(source="nodot")]}})
    line = f"generatedData.reactiveBindings.bindings[0].source: {error}"
    assert messages.run_error_text(line) == (
        f"generatedData.reactiveBindings.bindings[0].source: {messages.spec_error_text(error)}"
    )
    assert messages.run_error_text(messages.RUN_INTERRUPTED) == f"⟪{messages.RUN_INTERRUPTED}⟫"
    assert messages.run_error_text("OperationalError: database is locked") == "OperationalError: database is locked"
    assert messages.run_error_text(None) == ""


def test_run_failures_are_rebuilt_exactly_in_english():
    error = stored_error({"widgets": {}})
    with translation.override("en"):
        assert messages.run_error_text(f"generatedData.widgets: {error}") == f"generatedData.widgets: {error}"
        assert messages.run_error_text(messages.RUN_INTERRUPTED) == messages.RUN_INTERRUPTED


# Verdict labels and judge statuses (their msgids are in the catalogue already)


@pytest.mark.parametrize(("label", "ja", "en"), [
    ("useful", "有用", "Useful"),
    ("generic", "一般的", "Generic"),
    ("not_relevant", "無関係", "Not relevant"),
    ("correct", "正しい", "Correct"),
    ("redundant", "冗長", "Redundant"),
    ("wrong", "誤り", "Wrong"),
])  # fmt: skip
def test_verdict_labels_in_both_languages(label, ja, en):
    with translation.override("ja"):
        assert messages.verdict_label_text(label) == ja
    with translation.override("en"):
        assert messages.verdict_label_text(label) == en


def test_every_label_the_judges_give_has_a_text():
    assert {label for scale in baseline.LABELS.values() for label in scale.values()} == set(messages.VERDICT_LABELS)


def test_an_unknown_label_and_status_stay_as_stored():
    with translation.override("ja"):
        assert messages.verdict_label_text("excellent") == "excellent"
        assert messages.verdict_label_text(None) == ""
        assert messages.judge_status_text("parse_error") == "解析エラー"
        assert messages.judge_status_text("timeout") == "timeout"


# The baseline judge's reasoning


def test_the_inputs_reach_every_rule_of_the_baseline(monkeypatch):
    lines = call_lines(baseline, "_result")
    seen = set()
    result = baseline._result

    def recording(*args):
        seen.add(reached(lines, sys._getframe(1).f_lineno))
        return result(*args)

    monkeypatch.setattr(baseline, "_result", recording)
    reasonings()
    assert seen == lines


def test_every_baseline_reasoning_is_rebuilt_exactly_in_english():
    with translation.override("en"):
        for reasoning in reasonings():
            assert messages.judge_reasoning_text(reasoning) == reasoning


def test_every_baseline_reasoning_is_translated_with_its_numbers_and_values_kept(marked):
    for reasoning in reasonings():
        text = messages.judge_reasoning_text(reasoning)
        assert re.fullmatch(r"⟪baseline: ⟪.+⟫⟫", text, re.DOTALL), (reasoning, text)
        for number in re.findall(r"\d+\.\d+", reasoning):
            assert number in text
    assert set(messages.BASELINE_REASONINGS) | {messages.BASELINE} <= marked


def test_baseline_reasoning_examples(marked):
    gv = baseline.gv_relevance(JOB, "迷子の猫")["reasoning"]
    assert messages.judge_reasoning_text(gv) == (
        "⟪baseline: ⟪concern similarity >= 0.05 but < 0.08 (concern 0.058, generic corpus 0.000)⟫⟫"
    )
    w2wr = baseline.w2wr_semantic(JOB, "a", "t", "it's -> 'x", "b", "t", "it's -> 'x")["reasoning"]
    assert messages.judge_reasoning_text(w2wr) == (
        "⟪baseline: ⟪compatible port names (\"it's -> 'x\" -> \"it's -> 'x\")⟫⟫"
    )
    self_reference = baseline.w2wr_semantic(JOB, "a -> b", "t", "x", "a -> b", "t", "y")["reasoning"]
    assert messages.judge_reasoning_text(self_reference) == "⟪baseline: ⟪self reference (a -> b -> a -> b)⟫⟫"


@pytest.mark.parametrize("reasoning", [
    "The value names a concrete step for this concern.",
    "baseline: a reasoning no template gives",
    "baseline: self reference (a -> b)",
    f"judge says {SCRIPT}",
    "",
])  # fmt: skip
def test_other_reasoning_is_left_unchanged(marked, reasoning):
    assert messages.judge_reasoning_text(reasoning) == reasoning
    assert messages.judge_reasoning_text(None) == ""


# Expected to FAIL until /tmp/translations/messages.json is merged into locale/ja/LC_MESSAGES/django.po
# (and compiled): it checks the real Japanese catalogue, not a marking gettext.
def test_japanese_catalogue_translates_the_stored_english_after_the_merge():
    error = stored_error({"widgets": [], "reactiveBindings": {"bindings": [ok_binding(source="nodot")]}})
    reasoning = baseline.gv_relevance(JOB, "迷子の猫")["reasoning"]
    with translation.override("ja"):
        assert messages.spec_error_text(error) == (
            '文字列 "nodot" が見つかりました。受け付ける形式: '
            '最初のドットの前に空でない Widget ID、後に空でないポート名がある文字列 "widgetId.port"'
        )
        assert messages.spec_error_text(stored_error([1, 2, 3])).startswith("要素数 3 の配列 が見つかりました。")
        assert messages.judge_reasoning_text(reasoning) == (
            "ベースライン: 悩みとの類似度 >= 0.05 だが < 0.08（悩み 0.058、汎用コーパス 0.000）"
        )
