import json

import pytest
from django.contrib.auth.models import User
from django.core.management import CommandError, call_command
from django.db import IntegrityError, transaction

from annotation.models import Annotation, AnnotationEdit, Batch, Dialogue
from core.roles import user_roles
from tests.annotation.conftest import dialogue, rating
from tests.helpers import make_qualified_annotator, make_user

pytestmark = pytest.mark.django_db


def _import_dialogues(*paths, **options):
    call_command("import_dialogues", *map(str, paths), **options)


def _import_annotations(*paths, **options):
    call_command("import_annotations", *map(str, paths), **options)


def test_import_dialogues_stores_text_context_and_batch(jsonl, capsys):
    path = jsonl([dialogue(1), dialogue(2, context=[])], name="batch_001.jsonl")
    _import_dialogues(path)
    assert "dialogues created 2, updated 0, unchanged 0 (batch batch_001)" in capsys.readouterr().out
    stored = Dialogue.objects.get(external_id="dialogue_001")
    assert stored.batch.name == "batch_001"
    assert stored.as_record() == dialogue(1)
    assert Dialogue.objects.get(external_id="dialogue_002").context == []


def test_reimporting_the_same_dialogues_changes_nothing(jsonl, capsys):
    path = jsonl([dialogue(i) for i in range(1, 6)])
    _import_dialogues(path)
    _import_dialogues(path)
    assert "created 0, updated 0, unchanged 5" in capsys.readouterr().out
    assert Dialogue.objects.count() == 5


def test_one_bad_line_stores_nothing_and_names_the_line(jsonl):
    path = jsonl([dialogue(1), dialogue(2), {"id": "dialogue_003", "user": "u"}])
    with pytest.raises(CommandError) as error:
        _import_dialogues(path, batch="b")
    assert f"{path}:3: $.response: missing required field" in str(error.value)
    assert "nothing was stored" in str(error.value)
    assert not Dialogue.objects.exists() and not Batch.objects.exists()


def test_dry_run_validates_without_storing(jsonl, capsys):
    path = jsonl([dialogue(1)])
    _import_dialogues(path, dry_run=True)
    assert "dry run, nothing stored: dialogues would create 1" in capsys.readouterr().out
    assert not Dialogue.objects.exists()


def test_changed_dialogue_needs_update_flag(jsonl):
    _import_dialogues(jsonl([dialogue(1)]), batch="b")
    changed = jsonl([dialogue(1, response="別の回答")])
    with pytest.raises(CommandError, match=r":1: \$\.id: dialogue 'dialogue_001' already exists with different"):
        _import_dialogues(changed, batch="b")
    _import_dialogues(changed, batch="b", update=True)
    assert Dialogue.objects.get().response_text == "別の回答"


def test_missing_file_is_named(tmp_path):
    with pytest.raises(CommandError, match=r"nope\.jsonl: \$: file not found"):
        _import_dialogues(tmp_path / "nope.jsonl")


def test_import_annotations_creates_imported_annotator_accounts(jsonl, capsys):
    _import_dialogues(jsonl([dialogue(1), dialogue(2)]), batch="b")
    _import_annotations(jsonl([rating(1, "ann_001"), rating(2, "ann_001"), rating(1, "ann_002", seconds_spent=12.5)]))
    assert "annotations created 3, updated 0, unchanged 0, new annotator accounts 2" in capsys.readouterr().out
    user = User.objects.get(username="ann_002")
    assert user_roles(user) == {"annotator"}
    assert user.annotator_profile.imported
    assert not user.has_usable_password()
    stored = Annotation.objects.get(annotator=user)
    assert stored.scores == {"social": 1, "avoidant": 2, "mechanical": 1, "self": 1}
    assert stored.confidences == {"social": 0.9, "avoidant": 0.8, "mechanical": 0.95, "self": 0.95}
    assert stored.seconds_spent == 12.5 and stored.source == "import"
    assert stored.created_at.isoformat() == "2025-01-01T10:00:00+00:00"


def test_existing_annotator_account_is_reused(jsonl):
    person = make_qualified_annotator("ann_001")
    _import_dialogues(jsonl([dialogue(1)]), batch="b")
    _import_annotations(jsonl([rating(1, "ann_001")]))
    assert Annotation.objects.get().annotator == person
    assert User.objects.count() == 1


def test_annotator_id_of_a_non_annotator_account_is_refused(jsonl):
    make_user("res_001", "researcher")
    _import_dialogues(jsonl([dialogue(1)]), batch="b")
    path = jsonl([rating(1, "res_001")])
    with pytest.raises(
        CommandError, match=r":1: \$\.annotator_id: 'res_001' is an existing account without the annotator"
    ):
        _import_annotations(path)
    assert not Annotation.objects.exists()


def test_unknown_dialogue_id_stores_nothing(jsonl):
    _import_dialogues(jsonl([dialogue(1)]), batch="b")
    path = jsonl([rating(1), rating(9)])
    with pytest.raises(
        CommandError, match=rf"{path}:2: \$\.id: unknown dialogue id 'dialogue_009'; import the dialogues"
    ):
        _import_annotations(path)
    assert not Annotation.objects.exists() and not User.objects.exists()


def test_reimporting_annotations_is_idempotent(jsonl, capsys):
    _import_dialogues(jsonl([dialogue(1)]), batch="b")
    path = jsonl([rating(1)])
    _import_annotations(path)
    _import_annotations(path)
    assert "created 0, updated 0, unchanged 1" in capsys.readouterr().out
    assert Annotation.objects.count() == 1


def test_changed_rating_needs_update_and_keeps_history(jsonl):
    _import_dialogues(jsonl([dialogue(1)]), batch="b")
    _import_annotations(jsonl([rating(1, scores=(1, 1, 1, 1))]))
    changed = jsonl([rating(1, scores=(3, 1, 1, 1))], name="fix.jsonl")
    with pytest.raises(CommandError, match="'ann_001' already rated 'dialogue_001' differently; use --update"):
        _import_annotations(changed)
    _import_annotations(changed, update=True)
    stored = Annotation.objects.get()
    assert stored.social_score == 3
    edit = AnnotationEdit.objects.get()
    assert edit.old_values["social_score"] == 1 and edit.new_values["social_score"] == 3
    assert edit.reason == "import --update fix.jsonl:1"


def test_duplicate_rating_in_a_file_stores_nothing(jsonl):
    _import_dialogues(jsonl([dialogue(1)]), batch="b")
    with pytest.raises(CommandError, match="duplicate rating of 'dialogue_001' by 'ann_001'"):
        _import_annotations(jsonl([rating(1), rating(1, scores=(2, 2, 2, 2))]))
    assert not Annotation.objects.exists()


def test_export_writes_the_seed_output_format_and_round_trips(jsonl, tmp_path):
    _import_dialogues(jsonl([dialogue(1), dialogue(2)]), batch="b")
    rows = [rating(1, "ann_001"), rating(1, "ann_002", scores=(3, 2, 1, 5)), rating(2, "ann_001", seconds_spent=4.0)]
    _import_annotations(jsonl(rows))
    out = tmp_path / "export" / "annotations.jsonl"
    out.parent.mkdir()
    call_command("export_annotations", output=str(out))
    exported = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    assert sorted(exported, key=lambda r: (r["id"], r["annotator_id"])) == sorted(
        rows, key=lambda r: (r["id"], r["annotator_id"])
    )
    Annotation.objects.all().delete()
    _import_annotations(out)
    assert Annotation.objects.count() == 3


def test_export_can_be_limited_to_a_batch(jsonl, tmp_path):
    _import_dialogues(jsonl([dialogue(1)]), batch="a")
    _import_dialogues(jsonl([dialogue(2)]), batch="b")
    _import_annotations(jsonl([rating(1), rating(2)]))
    out = tmp_path / "b.jsonl"
    call_command("export_annotations", output=str(out), batch="b")
    assert [json.loads(line)["id"] for line in out.read_text().splitlines()] == ["dialogue_002"]
    with pytest.raises(CommandError, match="no batch named 'zzz'"):
        call_command("export_annotations", output=str(out), batch="zzz")


@pytest.mark.parametrize(
    ("field", "value"),
    [("social_score", 0), ("self_score", 6), ("avoidant_confidence", 1.5), ("mechanical_confidence", -0.1)],
)
def test_database_refuses_out_of_range_values(field, value):
    batch = Batch.objects.create(name="b")
    item = Dialogue.objects.create(external_id="x", user_text="u", response_text="r", batch=batch)
    user = make_user("ann_009", "annotator")
    values = {f"{axis}_score": 1 for axis in ("social", "avoidant", "mechanical", "self")}
    values[field] = value
    with pytest.raises(IntegrityError), transaction.atomic():
        Annotation.objects.create(dialogue=item, annotator=user, **values)


def test_database_refuses_a_second_rating_by_the_same_annotator():
    batch = Batch.objects.create(name="b")
    item = Dialogue.objects.create(external_id="x", user_text="u", response_text="r", batch=batch)
    user = make_user("ann_009", "annotator")
    scores = {f"{axis}_score": 1 for axis in ("social", "avoidant", "mechanical", "self")}
    Annotation.objects.create(dialogue=item, annotator=user, **scores)
    with pytest.raises(IntegrityError), transaction.atomic():
        Annotation.objects.create(dialogue=item, annotator=user, **scores)


@pytest.mark.parametrize("n_items", [3, 1_200])  # id by id, and the batch's dialogues read whole
def test_an_import_restricted_to_a_batch_refuses_other_batches_dialogues(jsonl, n_items):
    from annotation.io.imports import annotations_import
    from core.jsonl import InputError

    _import_dialogues(jsonl([dialogue(i) for i in range(n_items)], name="mine.jsonl"))
    _import_dialogues(jsonl([dialogue(9_999)], name="theirs.jsonl"))
    mine = Batch.objects.get(name="mine")
    rows = [rating(i, "ann_b") for i in range(n_items)]
    path = jsonl([*rows, rating(9_999, "ann_b"), rating(5_000, "ann_b")])
    with pytest.raises(InputError) as refused:
        annotations_import(paths=[path], batch=mine)
    found = [(p.line, p.path, p.message) for p in refused.value.problems]
    assert found == [
        (n_items + 1, "$.id", "dialogue 'dialogue_9999' belongs to batch 'theirs', not to batch 'mine'; "
                              "upload its ratings to its own batch"),
        (n_items + 2, "$.id", "unknown dialogue id 'dialogue_5000'; import the dialogues first (import_dialogues)"),
    ]  # fmt: skip
    assert not Annotation.objects.exists()
    summary = annotations_import(paths=[jsonl(rows)], batch=mine)
    assert summary.created == n_items and Annotation.objects.filter(dialogue__batch=mine).count() == n_items
    assert annotations_import(paths=[jsonl(rows)], batch=mine).unchanged == n_items


def test_the_update_hint_names_the_option_as_the_caller_offers_it(jsonl):
    from annotation.io.imports import annotations_import
    from core.jsonl import InputError

    _import_dialogues(jsonl([dialogue(1)], name="b.jsonl"))
    annotations_import(paths=[jsonl([rating(1, "ann_b")])])
    changed = jsonl([rating(1, "ann_b", scores=(5, 5, 5, 5))])
    with pytest.raises(InputError, match="use --update to replace"):
        annotations_import(paths=[changed])
    with pytest.raises(InputError, match="use update=true to replace"):
        annotations_import(paths=[changed], option_names={"update": "update=true"})
