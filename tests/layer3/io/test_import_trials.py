"""import_trials: located problems store nothing; the same file twice stores nothing new."""

import json

import pytest
from django.core.management import CommandError, call_command

from layer3.models import Batch, TrialLog

pytestmark = pytest.mark.django_db

SPEC = {"widgets": [{"id": "w1", "component": "card", "config": {}}], "reactiveBindings": {"bindings": []}}


def trial(i: int, **overrides) -> dict:
    row = {"id": f"t{i}", "modelConfig": "ABCDE"[i % 5], "stage": 3, "inputText": f"悩み {i}", "generatedData": SPEC}
    row.update(overrides)
    return row


def write(tmp_path, rows, name="trials.jsonl"):
    path = tmp_path / name
    path.write_text("".join((r if isinstance(r, str) else json.dumps(r, ensure_ascii=False)) + "\n" for r in rows))
    return path


def test_trials_are_stored_with_their_batch_and_experiment(tmp_path):
    path = write(tmp_path, [trial(i) for i in range(10)])
    call_command("import_trials", str(path), "--batch", "run-1", "--experiment", "exp-7")
    batch = Batch.objects.get(name="run-1")
    assert batch.experiment_id == "exp-7" and batch.layer3_results is None
    stored = {t.external_id: t for t in TrialLog.objects.filter(batch=batch)}
    assert len(stored) == 10
    assert stored["t3"].model_config == "D" and stored["t3"].input_text == "悩み 3"
    assert stored["t3"].generated_data == SPEC and stored["t3"].layer3_metrics is None


def test_importing_the_same_file_again_stores_nothing_new(tmp_path, capsys):
    path = write(tmp_path, [trial(i) for i in range(5)])
    call_command("import_trials", str(path), "--batch", "run-1")
    call_command("import_trials", str(path), "--batch", "run-1")
    assert "0 new, 5 unchanged" in capsys.readouterr().out
    assert TrialLog.objects.count() == 5


@pytest.mark.parametrize(
    ("line", "where"),
    [
        ("{not json", "trials.jsonl:2"),
        (json.dumps(trial(1, stage="3")), "trials.jsonl:2: $.stage: expected an integer ≥ 0, got string"),
        (
            json.dumps({k: v for k, v in trial(1).items() if k != "modelConfig"}),
            "$.modelConfig: missing required field",
        ),
        (json.dumps(trial(1, id="")), "$.id: expected a non-empty string"),
        (json.dumps(trial(0)), "duplicate id 't0' (first at"),
        (json.dumps({**trial(1), "modelconfig": "A"}), "$.modelconfig: unknown field; accepted: id, modelConfig"),
        (json.dumps([1, 2]), "trials.jsonl:2: $: expected a JSON object per line, got array"),
    ],
)
def test_a_bad_line_names_its_place_and_stores_nothing(tmp_path, line, where):
    path = write(tmp_path, [trial(0), line, trial(2)])
    with pytest.raises(CommandError, match="nothing was stored") as raised:
        call_command("import_trials", str(path), "--batch", "run-1")
    assert where in str(raised.value)
    assert not TrialLog.objects.exists() and not Batch.objects.exists()


def test_generated_data_that_is_no_ui_spec_is_stored_as_it_is(tmp_path):
    path = write(tmp_path, [trial(0, generatedData="not a spec"), trial(1, generatedData={"widgets": 5})])
    call_command("import_trials", str(path), "--batch", "run-1")
    assert sorted(map(repr, TrialLog.objects.values_list("generated_data", flat=True))) == [
        "'not a spec'",
        "{'widgets': 5}",
    ]


def test_a_changed_trial_is_refused_and_nothing_is_stored(tmp_path):
    call_command("import_trials", str(write(tmp_path, [trial(0)])), "--batch", "run-1")
    changed = write(tmp_path, [trial(1), trial(0, inputText="別の悩み")], name="again.jsonl")
    with pytest.raises(CommandError, match="already has trial 't0' with other content"):
        call_command("import_trials", str(changed), "--batch", "run-1")
    assert list(TrialLog.objects.values_list("external_id", flat=True)) == ["t0"]


def test_another_experiment_for_an_existing_batch_is_refused(tmp_path):
    call_command("import_trials", str(write(tmp_path, [trial(0)])), "--batch", "run-1", "--experiment", "a")
    with pytest.raises(CommandError, match="belongs to experiment 'a', not 'b'"):
        call_command("import_trials", str(write(tmp_path, [trial(1)])), "--batch", "run-1", "--experiment", "b")


def test_missing_and_empty_files_are_named(tmp_path):
    with pytest.raises(CommandError, match=r"nope.jsonl: \$: file not found"):
        call_command("import_trials", str(tmp_path / "nope.jsonl"), "--batch", "run-1")
    empty = tmp_path / "empty.jsonl"
    empty.write_text("")
    with pytest.raises(CommandError, match="no trials in this file"):
        call_command("import_trials", str(empty), "--batch", "run-1")


def test_a_batch_name_of_digits_only_is_refused_as_it_would_read_as_an_id(tmp_path):
    path = write(tmp_path, [trial(0)])
    with pytest.raises(CommandError, match=r"only digits, which URLs and commands read as a batch id.*batch-42"):
        call_command("import_trials", str(path), "--batch", "42")
    assert not Batch.objects.exists()


def test_a_new_batch_records_the_default_widget_catalogue(tmp_path, settings):
    settings.LAYER3_WIDGET_CATALOGUE = ("card", "list")
    call_command("import_trials", str(write(tmp_path, [trial(0)])), "--batch", "run-1")
    assert Batch.objects.get().widget_catalogue == ["card", "list"]


@pytest.mark.parametrize("text", ['["card", "timeline", "matrix"]', "# widgets\ncard\ntimeline\n\nmatrix\n"])
def test_a_catalogue_file_sets_the_batch_s_widget_types_and_the_entropy_s_w(tmp_path, text):
    catalogue = tmp_path / "catalogue.txt"
    catalogue.write_text(text, encoding="utf-8")
    other = {"widgets": [{"id": "w1", "component": "card"}, {"id": "w2", "component": "kanban"}],
             "reactiveBindings": {"bindings": []}}  # fmt: skip
    path = write(tmp_path, [trial(0), trial(1, generatedData=other)])
    call_command("import_trials", str(path), "--batch", "run-1", "--widget-catalogue", str(catalogue))
    batch = Batch.objects.get()
    assert batch.widget_catalogue == ["card", "timeline", "matrix"]
    call_command("evaluate_layer3", "run-1")
    diversity = TrialLog.objects.get(external_id="t1").layer3_metrics["widgetDiversity"]
    assert (diversity["availableWidgetCount"], diversity["outOfCatalogue"]) == (4, ["kanban"])
    assert diversity["maxEntropy"] == 2.0 and diversity["normalizedEntropy"] == 0.5  # log2(3 + 1 outside)
    assert batch.widget_types_seen == [{"type": "kanban", "trials": 1, "widgets": 1}]
    batch.refresh_from_db()
    assert batch.layer3_results["widgetDiversity"]["outOfCatalogue"] == {"trials": 1, "types": {"kanban": 1}}


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("card\n\ncard\n", "line 3: 'card' is listed twice"),
        ('["card", 3]', r"JSON \[1\]: expected a widget type name"),
        ("# nothing\n", "lists no widget type"),
        ("[1, 2", "not a JSON array"),
    ],
)
def test_a_bad_catalogue_file_stores_nothing_and_says_where(tmp_path, text, message):
    catalogue = tmp_path / "catalogue.txt"
    catalogue.write_text(text, encoding="utf-8")
    with pytest.raises(CommandError, match=message):
        call_command("import_trials", str(write(tmp_path, [trial(0)])), "--batch", "b", "--widget-catalogue",
                     str(catalogue))  # fmt: skip
    assert not Batch.objects.exists()


def test_adding_trials_with_another_catalogue_is_refused(tmp_path):
    catalogue = tmp_path / "catalogue.txt"
    catalogue.write_text("card\n", encoding="utf-8")
    call_command(
        "import_trials", str(write(tmp_path, [trial(0)])), "--batch", "b", "--widget-catalogue", str(catalogue)
    )
    catalogue.write_text("card\nlist\n", encoding="utf-8")
    with pytest.raises(CommandError, match="imported with another widget catalogue"):
        call_command("import_trials", str(write(tmp_path, [trial(1)], name="more.jsonl")), "--batch", "b",
                     "--widget-catalogue", str(catalogue))  # fmt: skip
    assert TrialLog.objects.count() == 1
