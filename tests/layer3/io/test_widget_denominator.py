"""One widget denominator |W| per batch: set at import, used by every trial, and a new type recomputes the rest."""

import json
import math

import pytest
from django.core.management import call_command

from layer3.io.imports import trials_import
from layer3.metrics.jscompat import js_round
from layer3.models import Batch, TrialLog
from layer3.runs.options import EvaluationOptions
from layer3.runs.services import layer3_run_create, layer3_run_execute

pytestmark = pytest.mark.django_db

# A catalogue of 15 types with timeline and checklist in it, and no custom_*.
CATALOGUE = ["timeline", "checklist", *(f"type_{i}" for i in range(13))]
OLD_STAMP = "2000-01-01T00:00:00.000Z"


def spec(*components):
    widgets = [{"id": f"w{i}", "component": name, "config": {}} for i, name in enumerate(components)]
    return {"widgets": widgets, "reactiveBindings": {"bindings": []}}


THREE = {
    "t1": spec("timeline", "checklist"),
    "t2": spec("timeline", "custom_chart"),
    "t3": spec("custom_chart", "custom_table"),
}


def write(tmp_path, trials, name="trials.jsonl"):
    path = tmp_path / name
    rows = [
        {
            "id": trial_id,
            "modelConfig": "ABC"[int(trial_id[1:]) % 3],
            "stage": 3,
            "inputText": "悩み",
            "generatedData": data,
        }
        for trial_id, data in trials.items()
    ]
    path.write_text("".join(json.dumps(row, ensure_ascii=False) + "\n" for row in rows), encoding="utf-8")
    return path


@pytest.fixture
def catalogue(tmp_path):
    path = tmp_path / "catalogue.json"
    path.write_text(json.dumps(CATALOGUE), encoding="utf-8")
    return path


def evaluate(batch, judge="baseline"):
    layer3_run_execute(run=layer3_run_create(batch=batch, options=EvaluationOptions(judge=judge)))
    batch.refresh_from_db()
    return batch


def diversity(trial_id):
    return TrialLog.objects.get(external_id=trial_id).layer3_metrics["widgetDiversity"]


def test_three_trials_of_one_batch_share_one_denominator_and_the_mean_equals_it(tmp_path, catalogue):
    # Each trial: two widgets of two types, H = 1 bit. |W| = 15 + custom_chart + custom_table = 17 for all three
    # (per trial it would have been 15, 16 and 17: 0.256, 0.25 and 0.2447).
    expected = js_round(1 / math.log2(17), 4)
    assert expected == 0.2447
    trials_import(paths=[write(tmp_path, THREE)], batch_name="b", catalogue_path=catalogue)
    batch = evaluate(Batch.objects.get(name="b"))
    figures = [diversity(trial_id) for trial_id in THREE]
    assert [f["normalizedEntropy"] for f in figures] == [expected] * 3
    assert [f["availableWidgetCount"] for f in figures] == [17] * 3
    assert [f["maxEntropy"] for f in figures] == [js_round(math.log2(17), 4)] * 3
    assert [f["outOfCatalogue"] for f in figures] == [[], ["custom_chart"], ["custom_chart", "custom_table"]]
    overall = batch.layer3_results["widgetDiversity"]
    assert overall["avgNormalizedEntropy"] == expected
    assert overall["availableWidgetCount"] == 17
    assert batch.widget_types_seen == [
        {"type": "custom_chart", "trials": 2, "widgets": 2},
        {"type": "custom_table", "trials": 1, "widgets": 1},
    ]


def test_specs_that_are_not_ui_specs_add_no_type(tmp_path, catalogue):
    broken = {"widgets": [{"id": "w1", "component": "custom_broken"}]}  # no reactiveBindings: not a UISpec
    trials_import(paths=[write(tmp_path, {"t1": THREE["t1"], "t2": broken})], batch_name="b", catalogue_path=catalogue)
    assert Batch.objects.get(name="b").widget_types_seen == []


def _old_batch(tmp_path, catalogue):
    """t1 and t2 imported and evaluated (|W| = 16), their records stamped with an old evaluatedAt."""
    trials_import(paths=[write(tmp_path, {"t1": THREE["t1"], "t2": THREE["t2"]}, "first.jsonl")], batch_name="b",
                  catalogue_path=catalogue)  # fmt: skip
    batch = evaluate(Batch.objects.get(name="b"))
    for trial in TrialLog.objects.filter(batch=batch):
        trial.layer3_metrics["evaluatedAt"] = OLD_STAMP
        trial.save(update_fields=["layer3_metrics"])
    return batch


def test_an_import_that_adds_a_type_recomputes_the_stored_figures_and_the_batch_figures(tmp_path, catalogue, capsys):
    batch = _old_batch(tmp_path, catalogue)
    before = {t.external_id: t.layer3_metrics for t in TrialLog.objects.filter(batch=batch)}
    assert [before[t]["widgetDiversity"]["normalizedEntropy"] for t in ("t1", "t2")] == [0.25, 0.25]  # 1/log2(16)
    assert batch.layer3_results["widgetDiversity"]["avgNormalizedEntropy"] == 0.25
    by_model_before = batch.layer3_by_model

    path = write(tmp_path, {"t3": THREE["t3"]}, "second.jsonl")
    call_command("import_trials", str(path), "--batch", "b")
    out = capsys.readouterr().out
    assert 'widget types outside the catalogue added to |W|: "custom_table"' in out
    assert "the widget diversity figures of 2 stored trial(s) changed and were recomputed" in out
    assert "earlier figures changed" in out and "batch figures were refreshed" in out

    after = {t.external_id: t.layer3_metrics for t in TrialLog.objects.filter(batch=batch)}
    for trial_id in ("t1", "t2"):
        block = after[trial_id]["widgetDiversity"]
        assert (block["normalizedEntropy"], block["availableWidgetCount"], block["maxEntropy"]) == (0.2447, 17, 4.0875)
        assert block["outOfCatalogue"] == before[trial_id]["widgetDiversity"]["outOfCatalogue"]
        assert after[trial_id]["evaluatedAt"] != OLD_STAMP  # recomputed now, as a run replacing the block
        for untouched in ("graphComplexity", "w2wrTypeDistribution", "generatedValueRelevance", "evaluatorModel"):
            assert after[trial_id][untouched] == before[trial_id][untouched]
    assert after["t3"] is None  # the new trial waits for a run
    batch.refresh_from_db()
    assert batch.layer3_results["widgetDiversity"]["avgNormalizedEntropy"] == 0.2447
    assert batch.layer3_results["widgetDiversity"]["availableWidgetCount"] == 17
    assert batch.layer3_by_model != by_model_before
    per_model = {e["modelConfig"]: e["layer3"]["widgetDiversity"] for e in batch.layer3_by_model}
    assert {config: block["avgNormalizedEntropy"] for config, block in per_model.items()} == {
        "B": 0.2447, "C": 0.2447, "A": None,
    }  # fmt: skip
    assert batch.layer3_statistics is not None

    evaluate(batch)  # the new trial gets the same |W|
    assert diversity("t3")["normalizedEntropy"] == 0.2447


def test_the_summary_names_the_types_added_and_the_trials_recomputed(tmp_path, catalogue):
    _old_batch(tmp_path, catalogue)
    summary = trials_import(paths=[write(tmp_path, {"t3": THREE["t3"]}, "second.jsonl")], batch_name="b")
    assert (summary.created, summary.widget_types_added, summary.recomputed) == (1, ("custom_table",), 2)
    assert "custom_table" in str(summary) and "2 stored trial(s) changed and were recomputed" in str(summary)


def test_a_dry_run_says_what_would_be_recomputed_and_writes_nothing(tmp_path, catalogue, capsys):
    batch = _old_batch(tmp_path, catalogue)
    before = {t.external_id: t.layer3_metrics for t in TrialLog.objects.filter(batch=batch)}
    results, seen = batch.layer3_results, batch.widget_types_seen
    path = write(tmp_path, {"t3": THREE["t3"]}, "second.jsonl")
    summary = trials_import(paths=[path], batch_name="b", dry_run=True)
    assert (summary.created, summary.widget_types_added, summary.recomputed) == (1, ("custom_table",), 2)
    call_command("import_trials", str(path), "--batch", "b", "--dry-run")
    out = capsys.readouterr().out
    assert "dry run, nothing stored" in out and "would change and be recomputed" in out
    assert "earlier figures would change" in out
    assert {t.external_id: t.layer3_metrics for t in TrialLog.objects.filter(batch=batch)} == before
    batch.refresh_from_db()
    assert (batch.layer3_results, batch.widget_types_seen) == (results, seen)


def test_an_import_without_a_new_type_recomputes_nothing(tmp_path, catalogue, capsys):
    batch = _old_batch(tmp_path, catalogue)
    before = {t.external_id: t.layer3_metrics for t in TrialLog.objects.filter(batch=batch)}
    path = write(tmp_path, {"t4": spec("custom_chart", "checklist")}, "second.jsonl")
    call_command("import_trials", str(path), "--batch", "b")
    out = capsys.readouterr().out
    assert "recomputed" not in out and "added to |W|" not in out
    stored = {t.external_id: t.layer3_metrics for t in TrialLog.objects.filter(batch=batch)}
    assert {k: v for k, v in stored.items() if k != "t4"} == before
    batch.refresh_from_db()
    assert batch.widget_types_seen == [{"type": "custom_chart", "trials": 2, "widgets": 2}]  # counts follow
    summary = trials_import(paths=[path], batch_name="b")  # the same file again: nothing new at all
    assert (summary.created, summary.widget_types_added, summary.recomputed) == (0, (), 0)


def test_a_type_new_to_the_batch_is_refused_while_a_run_is_in_flight(tmp_path, catalogue):
    batch = _old_batch(tmp_path, catalogue)
    layer3_run_create(batch=batch, options=EvaluationOptions(judge="none"))  # queued, alive
    from core.jsonl import InputError

    with pytest.raises(InputError, match="import them after the run ends"):
        trials_import(paths=[write(tmp_path, {"t3": THREE["t3"]}, "second.jsonl")], batch_name="b")
    assert not TrialLog.objects.filter(external_id="t3").exists()
