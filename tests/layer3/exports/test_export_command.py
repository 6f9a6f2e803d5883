"""export_layer3: the stored results as JSON, CSV, Markdown and LaTeX files, and its refusals."""

import csv
import io
import json
import re

import pytest
from django.core.management import CommandError, call_command

from layer3.models import Batch, TrialLog

pytestmark = pytest.mark.django_db


@pytest.fixture
def evaluated(trials_file, settings, tmp_path):
    settings.VAR_DIR = tmp_path
    call_command("import_trials", str(trials_file), "--batch", "b", "--experiment", "exp-1")
    call_command("evaluate_layer3", "b", "--judge", "baseline")
    return Batch.objects.get(name="b")


def export(tmp_path, *args, name="out"):
    path = tmp_path / name
    call_command("export_layer3", "b", *args, "--output", str(path))
    return path.read_text(encoding="utf-8")


def test_json_holds_the_stored_results_and_with_include_raw_every_trial(evaluated, tmp_path):
    document = json.loads(export(tmp_path, "--format", "json"))
    assert document["batchId"] == str(evaluated.pk) and document["batchName"] == "b"
    assert document["experimentId"] == "exp-1"
    assert document["overall"] == evaluated.layer3_results and document["byModel"] == evaluated.layer3_by_model
    assert document["statistics"] == evaluated.layer3_statistics and "trials" not in document
    raw = json.loads(export(tmp_path, "--format", "json", "--include-raw"))
    trials = {t["id"]: t for t in raw["trials"]}
    assert len(trials) == TrialLog.objects.count() == 20
    assert trials["D-00003"]["layer3Metrics"]["path"] == "generatedData.reactiveBindings.bindings[0].source"
    assert trials["E-00004"]["layer3Metrics"] is None
    assert trials["A-00000"]["layer3Metrics"] == TrialLog.objects.get(external_id="A-00000").layer3_metrics


def test_holm_is_computed_on_request(evaluated, tmp_path):
    document = json.loads(export(tmp_path, "--format", "json", "--correction", "holm"))
    assert document["statistics"]["summary"]["correction"] == "holm"
    bonferroni = {(c["metric"], c["modelA"], c["modelB"]): c for c in evaluated.layer3_statistics["layer3Comparisons"]}
    for comparison in document["statistics"]["layer3Comparisons"]:
        same = bonferroni[(comparison["metric"], comparison["modelA"], comparison["modelB"])]
        assert comparison["pValue"] == same["pValue"]
        if comparison["adjustedPValue"] is not None:
            assert comparison["adjustedPValue"] <= same["adjustedPValue"]


def test_csv_has_one_row_per_trial(evaluated, tmp_path):
    rows = list(csv.DictReader(io.StringIO(export(tmp_path, "--format", "csv").lstrip("\ufeff"))))
    assert len(rows) == 20
    by_id = {row["id"]: row for row in rows}
    assert by_id["D-00003"]["status"] == "error" and by_id["E-00004"]["status"] == "unevaluated"
    stored = TrialLog.objects.get(external_id="A-00000").layer3_metrics
    assert float(by_id["A-00000"]["graph_density"]) == stored["graphComplexity"]["density"]
    assert by_id["A-00000"]["gv_judge"] == "baseline:baseline-tfidf@1:layer3.gv_relevance@1"
    assert by_id["A-00000"]["diversity_availableWidgetCount"] == str(stored["widgetDiversity"]["availableWidgetCount"])
    assert by_id["E-00004"]["gv_judge"] == ""


def test_one_model_config_only(evaluated, tmp_path):
    rows = list(
        csv.DictReader(io.StringIO(export(tmp_path, "--format", "csv", "--model-config", "B").lstrip("\ufeff")))
    )
    assert {row["modelConfig"] for row in rows} == {"B"}
    document = json.loads(export(tmp_path, "--format", "json", "--model-config", "B"))
    assert [entry["modelConfig"] for entry in document["byModel"]] == ["B"]
    assert document["statistics"]["layer3Comparisons"] == []


def test_markdown_and_latex_hold_both_tables(evaluated, tmp_path):
    markdown = export(tmp_path, "--format", "markdown")
    assert "\n| A | 4 |" in markdown and "| **Overall** | 19 |" in markdown
    assert "Bonferroni correction over the seed's family of m = 110 comparisons (11 metrics × 10 pairs" in markdown
    assert "GC\\_DEN | D vs E |" in markdown
    assert "judged by baseline:baseline-tfidf@1:layer3.gv\\_relevance@1 (A, B, C, D, E, Overall)." in markdown
    latex = export(tmp_path, "--format", "latex")
    assert latex.count("\\toprule") == 2 and "\\usepackage{booktabs}" in latex and "GC\\_DEN & D vs E" in latex


def test_a_label_with_markup_is_escaped_in_every_format(tmp_path, settings):
    settings.VAR_DIR = tmp_path
    from layer3.demo.generator import generate_trials
    from tests.layer3.conftest import write_trials

    trials = generate_trials(6, seed=3, model_configs="AB", broken_share=0.0)
    for trial in trials[::2]:
        trial["modelConfig"] = "<script>alert(1)</script>_&%"
    for trial in trials[1::2]:
        trial["modelConfig"] = "=HYPERLINK(1)"
    path = write_trials(tmp_path / "t.jsonl", trials)
    call_command("import_trials", str(path), "--batch", "b")
    call_command("evaluate_layer3", "b")
    markdown = export(tmp_path, "--format", "markdown")
    assert "<script>" not in markdown
    latex = export(tmp_path, "--format", "latex")
    assert "\\_\\&\\%" in latex and "<script>" not in latex
    rows = list(csv.reader(io.StringIO(export(tmp_path, "--format", "csv").lstrip("\ufeff"))))
    assert {row[1] for row in rows[1:]} == {"<script>alert(1)</script>_&%", "'=HYPERLINK(1)"}


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["nope", "--format", "json"], "no batch named 'nope'"),
        (["b", "--format", "json", "--model-config", "Z"], "model config 'Z': batch b has A, B, C, D, E"),
    ],
)
def test_bad_arguments_are_named(evaluated, tmp_path, args, message):
    with pytest.raises(CommandError, match=message):
        call_command("export_layer3", *args, "--output", str(tmp_path / "x"))
    assert not (tmp_path / "x").exists()


def test_an_unevaluated_batch_says_what_to_run(trials_file, tmp_path):
    call_command("import_trials", str(trials_file), "--batch", "fresh")
    with pytest.raises(CommandError, match=re.escape("run `python manage.py evaluate_layer3 fresh` first")):
        call_command("export_layer3", "fresh", "--format", "csv", "--output", str(tmp_path / "x.csv"))


def test_a_missing_output_folder_is_named(evaluated, tmp_path):
    with pytest.raises(CommandError, match="does not exist"):
        call_command("export_layer3", "b", "--format", "json", "--output", str(tmp_path / "no" / "x.json"))
