"""Migration 0003 gives the judged blocks stored by earlier releases their judge, and "no items" its null."""

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

pytestmark = pytest.mark.django_db(transaction=True)

OLD_GV = {
    "totalItems": 0,
    "evaluatedItems": 0,
    "distribution": {"notRelevant": 0, "generic": 0, "useful": 0},
    "avgScore": 0,
    "usefulRate": 0,
    "itemEvaluations": [],
}


def test_judged_blocks_get_their_judge_from_the_evaluator_model_and_zero_items_read_as_null():
    executor = MigrationExecutor(connection)
    executor.migrate([("layer3", "0002_runs")])
    apps = executor.loader.project_state([("layer3", "0002_runs")]).apps
    Batch, TrialLog = apps.get_model("layer3", "Batch"), apps.get_model("layer3", "TrialLog")
    batch = Batch.objects.create(name="old")
    full = {**OLD_GV, "totalItems": 2, "evaluatedItems": 2, "avgScore": 1.5, "usefulRate": 0.5}
    rows = {
        "llm": {"version": "1.0", "evaluatedAt": "x", "evaluatorModel": "gpt-4o", "generatedValueRelevance": full},
        "baseline": {"version": "1.0", "evaluatedAt": "x", "evaluatorModel": "baseline-tfidf@1",
                     "generatedValueRelevance": dict(OLD_GV), "w2wrSemanticCorrectness": {"evaluatedBindings": 1,
                     "distribution": {"correct": 1, "redundant": 0, "wrong": 0}, "avgScore": 2, "correctnessRate": 1}},
        "plain": {"version": "1.0", "evaluatedAt": "x", "graphComplexity": {"nodeCount": 1}},
    }  # fmt: skip
    for name, metrics in rows.items():
        TrialLog.objects.create(batch=batch, external_id=name, model_config="A", stage=3, input_text="",
                                generated_data={}, layer3_metrics=metrics)  # fmt: skip

    executor = MigrationExecutor(connection)
    executor.loader.build_graph()
    executor.migrate(executor.loader.graph.leaf_nodes())

    from layer3.models import Batch as Current
    from layer3.models import TrialLog as Trial

    stored = {trial.external_id: trial.layer3_metrics for trial in Trial.objects.all()}
    assert stored["llm"]["generatedValueRelevance"]["judge"] == {
        "kind": "llm", "model": "gpt-4o", "prompt": "layer3.gv_relevance@1"
    }  # fmt: skip
    assert stored["llm"]["generatedValueRelevance"]["usefulRate"] == 0.5
    gv, w2wr = stored["baseline"]["generatedValueRelevance"], stored["baseline"]["w2wrSemanticCorrectness"]
    assert gv["judge"]["kind"] == "baseline" and (gv["avgScore"], gv["usefulRate"]) == (None, None)
    assert w2wr["judge"] == {"kind": "baseline", "model": "baseline-tfidf@1", "prompt": "layer3.w2wr_semantic@1"}
    assert stored["plain"] == rows["plain"]
    old = Current.objects.get(name="old")
    assert len(old.widget_catalogue) == 15 and old.results_version == 0  # recomputed on its next read
