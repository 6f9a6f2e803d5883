"""``export_template`` and the rows of an annotator's sheet: rated (filled in), reserved, and still open to them."""

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from openpyxl import load_workbook

from annotation.collection.queue import assignment_next
from annotation.models import Batch
from annotation.spreadsheets import layout
from annotation.spreadsheets.services import template_guide, template_items
from tests.annotation.conftest import dialogue, rating
from tests.helpers import make_user

pytestmark = pytest.mark.django_db


@pytest.fixture
def batch(jsonl):
    """Batch "sheet" (quota 2) of six dialogues: 000 rated by ann_x; 001 full (two others); 002 rated once."""
    call_command("import_dialogues", str(jsonl([dialogue(i) for i in range(6)])), batch="sheet")
    ratings = [rating(0, "ann_x", scores=(2, 3, 1, 4), conf=(0.5, 1, 1, 0.75)), rating(1, "ann_y"), rating(1, "ann_z"),
               rating(2, "ann_y")]  # fmt: skip
    call_command("import_annotations", str(jsonl(ratings)))
    found = Batch.objects.get(name="sheet")
    found.annotations_per_item = 2
    found.save()
    return found


def _user(name):
    from django.contrib.auth import get_user_model

    return get_user_model().objects.get(username=name)


def test_the_sheet_lists_rated_items_filled_in_and_those_still_open_in_batch_order(batch):
    items = template_items(batch=batch, annotator=_user("ann_x"))
    assert [item.id for item in items] == [
        "dialogue_000",
        "dialogue_002",
        "dialogue_003",
        "dialogue_004",
        "dialogue_005",
    ]
    assert items[0].scores == {"social": 2, "avoidant": 3, "mechanical": 1, "self": 4}
    assert items[0].confidence == {"social": 0.5, "avoidant": 1.0, "mechanical": 1.0, "self": 0.75}
    assert items[1].scores is None and items[1].user == dialogue(2)["user"]


def test_a_reservation_is_listed_and_the_limit_caps_only_unrated_items(batch):
    annotator = make_user("ann_w", "annotator")
    reserved = assignment_next(batch=batch, annotator=annotator)
    assert reserved is not None
    items = template_items(batch=batch, annotator=annotator, limit=1)
    assert [item.id for item in items] == [reserved.dialogue.external_id]
    rated_only = template_items(batch=batch, annotator=_user("ann_x"), limit=0)
    assert [item.id for item in rated_only] == ["dialogue_000"]


def test_the_guide_is_japanese_with_every_axis_and_level():
    guide = template_guide()
    assert guide.axes[0][0] == "社会的迎合 (social)"
    assert guide.title == "迎合性アノテーション 記入シート" and "「評価」" in guide.paragraphs[0]
    assert template_guide("en").paragraphs[0].startswith("Each row of the sheet “評価” is one dialogue.")
    assert all(len(levels) == 5 for _name, _definition, levels in guide.axes)
    assert guide.axes[0][2][0][1] == "なし"


def test_the_command_writes_the_workbook_for_the_annotator(batch, tmp_path):
    out = tmp_path / "ann_x.xlsx"
    call_command("export_template", "--batch", "sheet", "--annotator", "ann_x", "--output", str(out))
    book = load_workbook(out)
    sheet = book[layout.RATINGS_SHEET]
    assert [cell.value for cell in sheet[1]] == list(layout.HEADERS)
    assert [sheet.cell(row=r, column=1).value for r in range(2, sheet.max_row + 1)][:2] == [
        "dialogue_000",
        "dialogue_002",
    ]
    meta = {row[0]: row[1] for row in book[layout.META_SHEET].iter_rows(min_row=1, max_row=len(layout.META_KEYS),
                                                                         values_only=True)}  # fmt: skip
    assert meta["batch"] == "sheet" and meta["annotator"] == "ann_x" and str(meta["batch_id"]) == str(batch.pk)
    assert not list(tmp_path.glob(".ann_x.xlsx.*"))  # no temporary file left


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--batch", "nope", "--annotator", "ann_x"], "--batch: no batch named 'nope'; batches: sheet"),
        (["--batch", "sheet", "--annotator", "nobody"], "--annotator: 'nobody' is no user"),
        (["--batch", "sheet", "--annotator", "ann_x", "--limit", "-1"], "--limit: must be 0 or more"),
    ],
)
def test_bad_arguments_are_named(batch, tmp_path, args, message):
    with pytest.raises(CommandError, match=message.replace("(", r"\(").replace(")", r"\)")):
        call_command("export_template", *args, "--output", str(tmp_path / "x.xlsx"))
    assert not (tmp_path / "x.xlsx").exists()


def test_only_annotators_of_an_open_batch_that_is_theirs(batch, tmp_path):
    make_user("res", "researcher")
    out = str(tmp_path / "x.xlsx")
    with pytest.raises(CommandError, match="'res' is a user without the annotator role"):
        call_command("export_template", "--batch", "sheet", "--annotator", "res", "--output", out)
    batch.restricted = True
    batch.save()
    with pytest.raises(CommandError, match="open only to its chosen annotators"):
        call_command("export_template", "--batch", "sheet", "--annotator", "ann_x", "--output", out)
    batch.restricted, batch.status = False, Batch.Status.CLOSED
    batch.save()
    with pytest.raises(CommandError, match="is closed"):
        call_command("export_template", "--batch", "sheet", "--annotator", "ann_x", "--output", out)
    batch.status = Batch.Status.OPEN
    batch.save()
    with pytest.raises(CommandError, match=r"must end in \.xlsx"):
        call_command("export_template", "--batch", "sheet", "--annotator", "ann_x", "--output", str(tmp_path / "x.csv"))
