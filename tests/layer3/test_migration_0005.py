"""Migration 0005 records each batch's widget types outside its catalogue and renormalises the stored widget
diversity of its trials by the batch's one |W|; its frozen parser agrees with the application's."""

import importlib

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor
from hypothesis import given
from hypothesis import strategies as st

from layer3.metrics import calculate_widget_diversity, parse_ui_spec
from layer3.metrics.widget_types import spec_components
from tests.layer3.metrics.test_properties import JSON_VALUES, SPEC_LIKE

MIGRATION = importlib.import_module("layer3.migrations.0005_batch_widget_denominator")
CATALOGUE = ["timeline", "checklist", *(f"type_{i}" for i in range(13))]
OLD_STAMP = "2000-01-01T00:00:00.000Z"


def spec(*components):
    widgets = [{"id": f"w{i}", "component": name} for i, name in enumerate(components)]
    return {"widgets": widgets, "reactiveBindings": {"bindings": []}}


def old_record(data):
    """What a release before 0005 stored: |W| of the catalogue and of the trial's own types outside it."""
    block = calculate_widget_diversity(parse_ui_spec(data), catalogue=CATALOGUE)
    block["availableWidgetCount"] = len(CATALOGUE)  # it reported the catalogue's size
    return {"version": "1.0", "evaluatedAt": OLD_STAMP, "widgetDiversity": block, "graphComplexity": {"nodeCount": 2}}


@pytest.mark.django_db(transaction=True)
def test_batches_get_their_types_seen_and_stored_figures_use_the_batch_s_one_denominator():
    executor = MigrationExecutor(connection)
    executor.migrate([("layer3", "0004_batch_name_rule")])
    apps = executor.loader.project_state([("layer3", "0004_batch_name_rule")]).apps
    Batch, TrialLog = apps.get_model("layer3", "Batch"), apps.get_model("layer3", "TrialLog")
    mixed = Batch.objects.create(name="mixed", widget_catalogue=CATALOGUE, results_version=2, layer3_results={})
    plain = Batch.objects.create(name="plain", widget_catalogue=CATALOGUE, results_version=2, layer3_results={})
    trials = {
        "t1": (mixed, spec("timeline", "checklist")),
        "t2": (mixed, spec("timeline", "custom_chart")),
        "t3": (mixed, spec("custom_chart", "custom_table")),
        "t4": (mixed, {"widgets": [{"id": "w1", "component": "custom_broken"}]}),  # not a UISpec
        "p1": (plain, spec("timeline", "checklist")),
    }
    for external_id, (batch, data) in trials.items():
        record = old_record(data) if external_id != "t4" else {"version": "1.0", "evaluatedAt": OLD_STAMP,
                                                              "error": "x", "path": "generatedData"}  # fmt: skip
        TrialLog.objects.create(batch=batch, external_id=external_id, model_config="A", stage=3, input_text="",
                                generated_data=data, layer3_metrics=record)  # fmt: skip
    assert TrialLog.objects.get(external_id="t1").layer3_metrics["widgetDiversity"]["normalizedEntropy"] == 0.256

    executor = MigrationExecutor(connection)
    executor.loader.build_graph()
    executor.migrate(executor.loader.graph.leaf_nodes())

    from layer3.models import Batch as Current
    from layer3.models import TrialLog as Trial

    stored = {trial.external_id: trial.layer3_metrics for trial in Trial.objects.all()}
    for external_id in ("t1", "t2", "t3"):
        block = stored[external_id]["widgetDiversity"]
        assert (block["normalizedEntropy"], block["availableWidgetCount"], block["maxEntropy"]) == (0.2447, 17, 4.0875)
        assert stored[external_id]["evaluatedAt"] != OLD_STAMP
        assert stored[external_id]["graphComplexity"] == {"nodeCount": 2}
    assert stored["t3"]["widgetDiversity"]["outOfCatalogue"] == ["custom_chart", "custom_table"]
    assert stored["t4"]["error"] == "x"
    assert stored["p1"] == old_record(spec("timeline", "checklist"))  # |W| was the catalogue: nothing changes
    mixed, plain = Current.objects.get(name="mixed"), Current.objects.get(name="plain")
    assert mixed.widget_types_seen == [
        {"type": "custom_chart", "trials": 2, "widgets": 2},
        {"type": "custom_table", "trials": 1, "widgets": 1},
    ]
    assert mixed.results_version == 0  # its figures are recomputed on the next read
    assert (plain.widget_types_seen, plain.results_version) == ([], 2)


SECTIONS_LIKE = st.fixed_dictionaries(
    {"sections": st.fixed_dictionaries(
        {}, optional={name: st.fixed_dictionaries({}, optional={"widgets": st.lists(
            st.fixed_dictionaries({}, optional={"id": st.just("w") | JSON_VALUES, "component": JSON_VALUES}),
            max_size=3) | JSON_VALUES}) | JSON_VALUES for name in ("diverge", "organize", "converge")}) | JSON_VALUES},
    optional={"reactiveBindings": st.just({"bindings": []}) | JSON_VALUES},
)  # fmt: skip


@given(SPEC_LIKE | SECTIONS_LIKE | JSON_VALUES)
def test_the_frozen_parser_finds_the_types_the_application_finds(data):
    frozen = MIGRATION.components(data)
    found = spec_components(data)
    assert (frozen is None) == (found is None)
    if found is not None:
        assert MIGRATION.counted(frozen) == found
