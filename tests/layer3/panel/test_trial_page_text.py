"""The trial page and the trials list show stored English results in the reader's language, escaped.

The trials are written directly (no run), with results as a run stores them. Texts whose msgids the
Japanese catalogue does not hold yet are checked under a marking gettext (``⟪msgid⟫``); labels and
words the catalogue already has are checked in real Japanese.
"""

import pytest
from django.urls import reverse
from django.utils.html import escape

from layer3.metrics import parsing
from layer3.metrics.spec import UISpecError
from layer3.models import Batch, TrialLog
from layer3.panel import messages
from llm import baseline

pytestmark = pytest.mark.django_db
SCRIPT = "<script>alert(1)</script>"
JOB = "転職するか今の会社に残るか迷っていて、夜も眠れません"
SPEC = {
    "widgets": [{"id": "w1", "component": "brainstorm_cards"}, {"id": "w2", "component": "priority_matrix"}],
    "reactiveBindings": {"bindings": [{"id": "b1", "source": "w1.items", "target": "w2.selectedItems"}]},
}
BROKEN = {**SPEC, "reactiveBindings": {"bindings": [{"id": "b1", "source": "nodot", "target": "w2.x"}]}}
LLM_JUDGE = {"kind": "llm", "model": "gpt-4o", "prompt": "layer3.w2wr_semantic@1"}
BASELINE_JUDGE = {"kind": "baseline", "model": "baseline-tfidf@1", "prompt": "layer3.gv_relevance@1"}


def gv_block(items, *, judge=BASELINE_JUDGE, errors=()):
    block = {
        "totalItems": len(items) + len(errors),
        "evaluatedItems": len(items),
        "distribution": {"notRelevant": 0, "generic": 0, "useful": len(items)},
        "avgScore": 2.0 if items else 0,  # 0, not null: as trials stored before issue 26 hold it
        "usefulRate": 1.0 if items else 0,
        "itemEvaluations": items,
        "judge": judge,
    }
    if errors:
        block["judgeErrors"] = list(errors)
    return block


def gv_item(text, *, item_id="w1.items[0]", reasoning=None):
    verdict = baseline.gv_relevance(JOB, text)
    reasoning = verdict["reasoning"] if reasoning is None else reasoning
    return {"itemId": item_id, "widgetId": "w1", "portId": "items", "text": text, "score": verdict["score"],
            "label": verdict["label"], "reasoning": reasoning}  # fmt: skip


def w2wr_block(*, judge=LLM_JUDGE):
    return {
        "evaluatedBindings": 1,
        "distribution": {"correct": 0, "redundant": 0, "wrong": 1},
        "avgScore": 0.0,
        "correctnessRate": 0.0,
        "bindingEvaluations": [{
            "bindingId": "b1", "sourceWidget": "w1", "sourcePort": "items", "targetWidget": "w2",
            "targetPort": "selectedItems", "score": 0, "label": "wrong", "reasoning": f"judge says {SCRIPT}",
        }],
        "judgeErrors": [{"bindingId": "b2", "status": "parse_error", "error": f"ValueError: {SCRIPT}"}],
        "judge": judge,
    }  # fmt: skip


def stored_error(data):
    try:
        parsing.parse_ui_spec(data)
    except UISpecError as error:
        return {"version": "1.0", "evaluatedAt": "2025-01-01T00:00:00.000Z",
                "error": f"{error.problem}; accepted: {error.accepted}", "path": error.path}  # fmt: skip
    raise AssertionError("the data parses")


@pytest.fixture
def trials(db):
    batch = Batch.objects.create(name="texts")

    def trial(external_id, data, metrics):
        return TrialLog.objects.create(batch=batch, external_id=external_id, model_config="A", stage=3,
                                       input_text=JOB, generated_data=data, layer3_metrics=metrics)  # fmt: skip

    judged = trial("t1", SPEC, {
        "version": "1.0",
        "evaluatorModel": "baseline-tfidf@1, gpt-4o",
        "generatedValueRelevance": gv_block(
            [gv_item(f"転職した場合のメリット {SCRIPT}"), gv_item("迷子の猫", item_id="w1.items[1]"),
             gv_item("項目1", item_id="w1.items[2]", reasoning=f"an LLM says {SCRIPT}")],
            errors=[{"itemId": "w1.items[3]", "status": "error", "error": "APITimeoutError: timed out"}],
        ),
        "w2wrSemanticCorrectness": w2wr_block(),
    })  # fmt: skip
    empty = trial("t2", SPEC, {"version": "1.0", "generatedValueRelevance": gv_block([])})
    broken = trial("t3", BROKEN, stored_error(BROKEN))
    hostile = {**SPEC, "widgets": f"{SCRIPT}; accepted: a string"}  # under describe's 60 characters
    hostile_trial = trial("t4", hostile, stored_error(hostile))
    legacy = {"version": "1.0", "evaluatorModel": "gpt-4o", "generatedValueRelevance": gv_block([], judge=None)}
    del legacy["generatedValueRelevance"]["judge"]
    unrecorded = trial("t5", SPEC, legacy)
    return {"batch": batch, "judged": judged, "empty": empty, "broken": broken, "hostile": hostile_trial,
            "unrecorded": unrecorded}  # fmt: skip


@pytest.fixture
def as_researcher(client, researcher):
    client.force_login(researcher)
    return client


@pytest.fixture
def english(as_researcher):
    as_researcher.cookies["django_language"] = "en"
    return as_researcher


@pytest.fixture
def marked(monkeypatch):
    """A gettext for layer3.panel.messages that marks what it translates: ``⟪msgid⟫``."""
    monkeypatch.setattr(messages, "gettext", lambda message: f"⟪{message}⟫")


def page(client, trial):
    response = client.get(reverse("layer3:trial", args=[trial.batch_id, trial.pk]))
    assert response.status_code == 200
    return response.content.decode()


def between(html, start, end="</"):
    return html.split(start, 1)[1].split(end, 1)[0]


def test_labels_judges_and_statuses_in_japanese(as_researcher, trials):
    html = page(as_researcher, trials["judged"])
    assert "2 有用" in html and "0 誤り" in html and "useful" not in html.split("<main", 1)[1]
    gv_judge = between(html, 'data-judge="gv">', "</dd>")
    assert "<code>baseline:<wbr>baseline-tfidf@1:<wbr>layer3.gv_relevance@1</code>" in gv_judge
    assert "オフライン基準判定" in gv_judge
    w2wr_judge = between(html, 'data-judge="w2wr">', "</dd>")
    assert w2wr_judge == "<code>llm:<wbr>gpt-4o:<wbr>layer3.w2wr_semantic@1</code>"
    assert "<dt>判定</dt>" in html
    assert "解析エラー ValueError: &lt;script&gt;" in html and "エラー APITimeoutError: timed out" in html


def test_labels_judges_and_statuses_in_english(english, trials):
    html = page(english, trials["judged"])
    assert "2 Useful" in html and "0 Wrong" in html
    assert "Offline baseline" in between(html, 'data-judge="gv">', "</dd>")
    assert "parse error ValueError" in html


def test_baseline_reasoning_is_translated_and_an_llms_is_not(as_researcher, trials, marked):
    html = page(as_researcher, trials["judged"])
    assert "⟪baseline: ⟪concern similarity &gt;= 0.05 but &lt; 0.08 (concern 0.058, generic corpus 0.000)⟫⟫" in html
    assert "an LLM says &lt;script&gt;alert(1)&lt;/script&gt;" in html
    assert "judge says &lt;script&gt;alert(1)&lt;/script&gt;" in html


def test_baseline_reasoning_reads_as_stored_in_english(english, trials):
    html = page(english, trials["judged"])
    reasoning = trials["judged"].layer3_metrics["generatedValueRelevance"]["itemEvaluations"][1]["reasoning"]
    assert escape(reasoning) in html


def test_data_and_judge_text_stay_escaped(as_researcher, trials, marked):
    for trial in trials.values():
        if isinstance(trial, TrialLog):
            html = page(as_researcher, trial)
            assert SCRIPT not in html, trial.external_id
    html = page(as_researcher, trials["judged"])
    assert "転職した場合のメリット &lt;script&gt;alert(1)&lt;/script&gt;" in html


def test_a_gv_block_without_judged_items_shows_no_items_not_zero(english, trials):
    html = page(english, trials["empty"])
    assert between(html, 'data-figure="gv">', "</dd>") == "no items"
    assert "0.0%" not in html


def test_a_gv_block_without_judged_items_in_japanese_shows_no_rate(as_researcher, trials, marked):
    figure = between(page(as_researcher, trials["empty"]), 'data-figure="gv">', "</dd>")
    assert "%" not in figure and figure != "–"


def test_a_block_without_a_judge_record_says_so_and_names_the_trials_evaluator(english, trials):
    judge = between(page(english, trials["unrecorded"]), 'data-judge="gv">', "</dd>")
    assert judge == "not recorded <code>gpt-4o</code>"


def test_the_evaluation_error_box_and_graph_read_in_japanese(as_researcher, trials, marked):
    html = page(as_researcher, trials["broken"])
    translated = escape(f'⟪⟪found ⟪string⟫ "nodot"⟫; accepted: ⟪{parsing._ENDPOINT}⟫⟫')
    box = between(html, "data-trial-error>", "</p>")
    assert "この試行は評価できませんでした" in box and "generatedData.reactiveBindings.bindings[0].source" in box
    assert box.endswith(f"— {translated}")
    assert f"</code>: {translated}</p>" in html  # the graph's note
    assert "; accepted: a string" not in html


def test_the_evaluation_error_box_reads_as_stored_in_english(english, trials):
    html = page(english, trials["broken"])
    stored = trials["broken"].layer3_metrics["error"]
    assert between(html, "data-trial-error>", "</p>").endswith(f"— {escape(stored)}")
    assert f": {escape(stored)}</p>" in html  # the graph's note


def test_a_hostile_found_value_is_escaped_and_kept_whole(as_researcher, trials, marked):
    html = page(as_researcher, trials["hostile"])
    box = between(html, "data-trial-error>", "</p>")
    assert box.endswith(escape(f'⟪⟪found ⟪string⟫ "{SCRIPT}; accepted: a string"⟫; accepted: ⟪{parsing._WIDGETS}⟫⟫'))


def test_the_trials_list_shows_the_error_in_the_readers_language(as_researcher, trials, marked):
    url = reverse("layer3:trials", args=[trials["batch"].pk])
    html = as_researcher.get(url, {"only": "errors"}).content.decode()
    assert SCRIPT not in html
    cells = html.split("<span data-trial-error>")[1:]
    assert len(cells) == 2
    nodot = escape(f'⟪⟪found ⟪string⟫ "nodot"⟫; accepted: ⟪{parsing._ENDPOINT}⟫⟫')
    assert any(cell.startswith(nodot) for cell in cells)


def test_the_trials_list_shows_the_stored_error_in_english(english, trials):
    url = reverse("layer3:trials", args=[trials["batch"].pk])
    html = english.get(url, {"only": "errors"}).content.decode()
    assert f"<span data-trial-error>{escape(trials['broken'].layer3_metrics['error'])}</span>" in html
