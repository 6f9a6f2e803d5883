"""Issue: the remaining bad inputs end in a located message, never in a traceback or a silent change."""

import json
from pathlib import Path

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import CommandError, call_command
from django.urls import reverse

from annotation.collection.queue import assignment_next
from annotation.models import Annotation, Batch, Dialogue, DialogueRevision, QualityFlag
from tests.annotation.collection.test_training_services import gold_row
from tests.helpers import make_qualified_annotator

AXES = ("social", "avoidant", "mechanical", "self")


def _dialogue(i: int, **overrides) -> dict:
    row = {"id": f"d_{i:03d}", "user": f"質問 {i}", "response": f"応答 {i}", "context": []}
    return row | overrides


def _write(path: Path, lines) -> Path:
    path.write_text("".join((x if isinstance(x, str) else json.dumps(x)) + "\n" for x in lines), encoding="utf-8")
    return path


def _rating(dialogue_id: str, annotator: str = "ann_001", social: int = 3) -> dict:
    return {
        "id": dialogue_id,
        "annotator_id": annotator,
        "timestamp": "2026-01-01T10:00:00Z",
        "annotations": dict.fromkeys(AXES, 1) | {"social": social},
        "confidence": dict.fromkeys(AXES, 0.9),
    }


# 3. --update does not rewrite rated text silently ---------------------------------------------------------


@pytest.mark.django_db
def test_changing_the_text_of_a_rated_dialogue_needs_force_and_keeps_the_old_text(tmp_path):
    call_command("import_dialogues", str(_write(tmp_path / "a.jsonl", [_dialogue(1), _dialogue(2)])), "--batch", "b")
    call_command("import_annotations", str(_write(tmp_path / "r.jsonl", [_rating("d_001")])))
    changed = _write(tmp_path / "a2.jsonl", [_dialogue(1, user="書き換え"), _dialogue(2, user="未評価の変更")])
    with pytest.raises(CommandError, match=r"a2.jsonl:1: \$: dialogue 'd_001' has 1 rating\(s\).*--force-text-change"):
        call_command("import_dialogues", str(changed), "--batch", "b", "--update")
    assert Dialogue.objects.get(external_id="d_001").user_text == "質問 1"
    assert Dialogue.objects.get(external_id="d_002").user_text == "質問 2"  # all or nothing

    call_command("import_dialogues", str(changed), "--batch", "b", "--update", "--force-text-change")
    first = Dialogue.objects.get(external_id="d_001")
    assert first.user_text == "書き換え"
    revision = DialogueRevision.objects.get(dialogue=first)
    assert (revision.user_text, revision.ratings, revision.source) == ("質問 1", 1, "import_dialogues a2.jsonl:1")
    flag = QualityFlag.objects.get(source="text_change")
    assert flag.annotation == Annotation.objects.get() and flag.status == "open" and "d_001" in flag.message
    assert DialogueRevision.objects.get(dialogue__external_id="d_002").ratings == 0


# 11, 15, 16. Lone surrogates, NUL characters, duplicate keys -----------------------------------------------


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("line", "expected"),
    [
        (
            '{"id": "d_\\ud800", "user": "u", "response": "r", "context": []}',
            r"d.jsonl:1: \$.id: contains a lone surrogate",
        ),
        ('{"id": "d", "user": "u\\u0000", "response": "r", "context": []}', r"d.jsonl:1: \$.user: contains a NUL"),
        (
            '{"id": "d", "user": "u", "response": "r", '
            '"context": [{"turn": -1, "speaker": "user", "text": "\\u0000"}]}',
            r"d.jsonl:1: \$.context\[0\].text: contains a NUL",
        ),
        (
            '{"id": "d", "user": "u", "user": "v", "response": "r", "context": []}',
            r"d.jsonl:1: \$: key 'user' appears twice",
        ),
    ],
)
def test_text_that_cannot_be_stored_is_refused_with_its_location(tmp_path, line, expected):
    with pytest.raises(CommandError, match=expected):
        call_command("import_dialogues", str(_write(tmp_path / "d.jsonl", [line])), "--batch", "b")
    assert not Dialogue.objects.exists() and not Batch.objects.exists()


@pytest.mark.django_db
def test_a_duplicate_score_key_in_a_rating_is_refused(tmp_path):
    call_command("import_dialogues", str(_write(tmp_path / "a.jsonl", [_dialogue(1)])), "--batch", "b")
    line = json.dumps(_rating("d_001")).replace('"social": 3', '"social": 3, "social": 5')
    with pytest.raises(CommandError, match=r"r.jsonl:1: \$: key 'social' appears twice"):
        call_command("import_annotations", str(_write(tmp_path / "r.jsonl", [line])))
    assert not Annotation.objects.exists()


@pytest.mark.django_db
def test_the_web_gold_upload_answers_a_lone_surrogate_with_its_location(client, researcher):
    client.force_login(researcher)
    line = json.dumps(gold_row(1)).replace('"gold_test_001"', '"gold_\\ud800"')
    upload = SimpleUploadedFile("gold.jsonl", (line + "\n").encode())
    response = client.post(reverse("annotation:gold-items"), {"file": upload})
    assert response.status_code == 400
    assert "gold.jsonl:1: $.id: contains a lone surrogate" in response.content.decode()


# 12. Command options and output paths ---------------------------------------------------------------------


@pytest.fixture
def ratings_file(tmp_path):
    return _write(tmp_path / "r.jsonl", [_rating(f"d_{i}", a, s) for i in range(5) for a, s in (("a", 1), ("b", 2))])


@pytest.mark.parametrize("value", ["nan", "7", "-1.5", "inf", "abc"])
def test_kappa_thresholds_outside_their_range_are_refused(ratings_file, tmp_path, value):
    with pytest.raises(CommandError, match=rf"--min_kappa.*must be a number from -1 to 1, got '{value}'"):
        call_command("kappa_calculator", "--input", str(ratings_file), "--output", str(tmp_path / "k.json"),
                     "--min_kappa", value)  # fmt: skip


def test_min_confidence_must_be_a_confidence(ratings_file, tmp_path):
    with pytest.raises(CommandError, match=r"must be a number from 0 to 1, got '1.5'"):
        call_command("merge_annotations", "--input", str(ratings_file), "--output", str(tmp_path / "c.jsonl"),
                     "--min_confidence", "1.5")  # fmt: skip


@pytest.mark.parametrize("command", ["kappa_calculator", "merge_annotations"])
def test_an_output_that_is_a_folder_or_unwritable_is_refused_before_any_work(ratings_file, tmp_path, command):
    with pytest.raises(CommandError, match="is a folder; give a file name"):
        call_command(command, "--input", str(ratings_file), "--output", str(tmp_path))
    blocker = tmp_path / "plain-file"
    blocker.write_text("x")
    with pytest.raises(CommandError, match="is a file, not a folder"):
        call_command(command, "--input", str(ratings_file), "--output", str(blocker / "out.json"))


@pytest.mark.django_db
def test_export_refuses_a_folder_for_dash_o(tmp_path):
    with pytest.raises(CommandError, match="is a folder"):
        call_command("export_annotations", "-o", str(tmp_path))


def test_merge_reports_folder_must_not_be_a_file(ratings_file, tmp_path):
    blocker = tmp_path / "reports"
    blocker.write_text("x")
    with pytest.raises(CommandError, match="is a file; give a folder"):
        call_command("merge_annotations", "--input", str(ratings_file), "--output", str(tmp_path / "c.jsonl"),
                     "--reports", str(blocker))  # fmt: skip


# 13. Empty files, imports that change nothing, names too long ----------------------------------------------


@pytest.mark.django_db
@pytest.mark.parametrize("content", ["", "\n\n   \n"])
def test_an_empty_file_is_refused_and_creates_no_batch(tmp_path, content):
    path = tmp_path / "empty.jsonl"
    path.write_text(content)
    with pytest.raises(CommandError, match=r"empty.jsonl: \$: no dialogues in this file"):
        call_command("import_dialogues", str(path))
    with pytest.raises(CommandError, match=r"empty.jsonl: \$: no ratings in this file"):
        call_command("import_annotations", str(path))
    assert not Batch.objects.exists()


@pytest.mark.django_db
def test_an_import_that_changes_nothing_creates_no_batch(tmp_path, capsys):
    path = _write(tmp_path / "a.jsonl", [_dialogue(1)])
    call_command("import_dialogues", str(path), "--batch", "first")
    call_command("import_dialogues", str(path))  # the batch would be named "a"
    assert "batch a was not created" in capsys.readouterr().out
    assert list(Batch.objects.values_list("name", flat=True)) == ["first"]


@pytest.mark.django_db
@pytest.mark.parametrize(("name", "message"), [("x" * 124, "has 124 characters; at most 100 fit"), ("  ", "empty")])
def test_a_batch_name_that_does_not_fit_is_refused_before_writing(tmp_path, name, message):
    with pytest.raises(CommandError, match=message):
        call_command("import_dialogues", str(_write(tmp_path / "a.jsonl", [_dialogue(1)])), "--batch", name)
    assert not Dialogue.objects.exists() and not Batch.objects.exists()


# 14. Confidence errors beside the field ---------------------------------------------------------------------


@pytest.mark.django_db
@pytest.mark.parametrize("confidence", ["1.5", "NaN", None])
def test_a_bad_confidence_is_shown_beside_its_field(client, confidence):
    batch = Batch.objects.create(name="b", annotations_per_item=1)
    Dialogue.objects.create(external_id="d_1", user_text="u", response_text="r", batch=batch)
    user = make_qualified_annotator("alice")
    assignment = assignment_next(batch=batch, annotator=user)
    client.force_login(user)
    client.cookies["django_language"] = "en"
    data = {**dict.fromkeys(AXES, "3"), **{f"{a}_confidence": "1.0" for a in AXES[1:]}}
    if confidence is not None:
        data["social_confidence"] = confidence
    html = client.post(f"/annotate/{batch.pk}/{assignment.pk}/submit/", data).content.decode()
    assert 'id="err-social_confidence"' in html and 'aria-invalid="true"' in html
    expected = "Choose a confidence from 0.0 to 1.0." if confidence is None else f"got {confidence}"
    assert expected in html
    assert not Annotation.objects.exists()


@pytest.mark.django_db
def test_a_confidence_written_as_0_70_is_stored_as_0_7(client):
    batch = Batch.objects.create(name="b", annotations_per_item=1)
    Dialogue.objects.create(external_id="d_1", user_text="u", response_text="r", batch=batch)
    user = make_qualified_annotator("alice")
    assignment = assignment_next(batch=batch, annotator=user)
    client.force_login(user)
    data = {**dict.fromkeys(AXES, "3"), **{f"{a}_confidence": "0.70" for a in AXES}}
    client.post(f"/annotate/{batch.pk}/{assignment.pk}/submit/", data)
    assert Annotation.objects.get().confidences == dict.fromkeys(AXES, 0.7)
