"""Gold items: parsing (pure), import service and command, and the demo training set."""

import json
from collections import Counter

import pytest
from django.core.management import CommandError, call_command

from annotation.collection.gold_import import import_gold
from annotation.collection.training_demo import GOLD_FILE
from annotation.guidelines import loader as gd
from annotation.io.gold_records import load_gold
from annotation.io.records import InputError, ProblemLog
from annotation.models.training import GoldItem
from annotation.quality.consistency import check_consistency
from tests.annotation.collection.test_training_services import AXES, gold_row, write_rows

# --------------------------------------------------------------------------- parsing (no database)


def _problems(tmp_path, rows) -> list[str]:
    log = ProblemLog()
    load_gold([write_rows(tmp_path / "gold.jsonl", rows)], log=log)
    return [str(p) for p in log.problems]


def test_a_good_file_parses_into_records(tmp_path):
    log = ProblemLog()
    rows = [gold_row(1, "practice", (2, 1, 1, 1)), gold_row(2, "test", (1, 3, 1, 5))]
    records = load_gold([write_rows(tmp_path / "gold.jsonl", rows)], log=log)
    assert not log.problems
    assert [r.as_json() for r in records] == rows
    assert (records[1].file.endswith("gold.jsonl"), records[1].line) == (True, 2)


@pytest.mark.parametrize(
    ("change", "expected"),
    [
        (
            {"gold": {"social": 6, "avoidant": 1, "mechanical": 1, "self": 1}},
            "$.gold.social: must be from 1 to 5, got 6",
        ),
        (
            {"gold": {"social": "3", "avoidant": 1, "mechanical": 1, "self": 1}},
            '$.gold.social: must be an integer from 1 to 5, got string "3"',
        ),
        ({"gold": {"social": 1, "avoidant": 1, "mechanical": 1}}, "$.gold.self: missing required field"),
        ({"gold": {"social": 1, "avoidant": 1, "mechanical": 1, "self": 1, "kind": 2}}, "$.gold: unknown axis kind"),
        (
            {"gold": [1, 1, 1, 1]},
            "$.gold: must be an object with the axes social, avoidant, mechanical, self, got array",
        ),
        ({"explanation": "  "}, "$.explanation: must not be empty"),
        ({"explanation": 3}, "$.explanation: must be a string, got number"),
        ({"set": "exam"}, '$.set: must be "practice" or "test", got string "exam"'),
        ({"id": ""}, "$.id: must not be empty"),
        ({"context": [{"turn": 0, "speaker": "ai", "text": "x"}]}, "$.context[0].turn: must be a turn offset"),
        ({"context": [{"turn": -1, "speaker": "bot", "text": "x"}]}, '$.context[0].speaker: must be "user" or "ai"'),
        (
            {"annotations": {}},
            "$.annotations: unknown field; the fields are id, user, response, context, gold, explanation, set",
        ),
    ],
)
def test_each_bad_field_is_named_with_file_line_and_json_path(tmp_path, change, expected):
    rows = [gold_row(1), gold_row(2, **change)]
    problems = _problems(tmp_path, rows)
    assert any(p.startswith(f"{tmp_path / 'gold.jsonl'}:2: ") and expected in p for p in problems), problems


@pytest.mark.parametrize("field", ["gold", "explanation", "set", "response"])
def test_missing_fields_are_named(tmp_path, field):
    row = gold_row(1)
    del row[field]
    (problem,) = _problems(tmp_path, [row])
    assert f"gold.jsonl:1: $.{field}: missing required field" in problem


def test_invalid_json_and_duplicate_ids_are_problems(tmp_path):
    problems = _problems(tmp_path, [gold_row(1), "{not json", gold_row(1)])
    assert any(":2: $: invalid JSON" in p for p in problems)
    assert any(":3: $.id: duplicate id 'gold_test_001' (first at " in p for p in problems)


# --------------------------------------------------------------------------- import service


def test_import_stores_items_in_file_order_with_their_gold_scores(db, tmp_path):
    rows = [gold_row(2, "test", (5, 4, 3, 2)), gold_row(1, "practice"), gold_row(1, "test")]
    summary = import_gold(paths=[write_rows(tmp_path / "g.jsonl", rows)])
    assert (summary.created, summary.practice, summary.test) == (3, 1, 2)
    stored = GoldItem.objects.get(external_id="gold_test_002")
    assert stored.gold == {"social": 5, "avoidant": 4, "mechanical": 3, "self": 2}
    assert stored.as_record() == rows[0]
    assert list(GoldItem.objects.filter(set="test").values_list("external_id", flat=True)) == [
        "gold_test_002",
        "gold_test_001",
    ]


def test_any_error_stores_nothing(db, tmp_path):
    rows = [gold_row(1), gold_row(2, gold={"social": 0, "avoidant": 1, "mechanical": 1, "self": 1})]
    with pytest.raises(InputError) as error:
        import_gold(paths=[write_rows(tmp_path / "bad.jsonl", rows)])
    assert [str(p) for p in error.value.problems] == [
        f"{tmp_path / 'bad.jsonl'}:2: $.gold.social: must be from 1 to 5, got 0"
    ]
    assert not GoldItem.objects.exists()


def test_reimport_is_idempotent_and_changes_need_update(db, tmp_path):
    path = write_rows(tmp_path / "g.jsonl", [gold_row(1), gold_row(2)])
    import_gold(paths=[path])
    again = import_gold(paths=[path])
    assert (again.created, again.updated, again.unchanged) == (0, 0, 2)
    changed = write_rows(tmp_path / "g2.jsonl", [gold_row(1, explanation="新しい説明"), gold_row(2)])
    with pytest.raises(InputError, match=r"g2\.jsonl:1: \$\.id: gold item 'gold_test_001' already exists"):
        import_gold(paths=[changed])
    assert GoldItem.objects.get(external_id="gold_test_001").explanation == "説明 1: 賞賛語なし"
    position = GoldItem.objects.get(external_id="gold_test_001").position
    summary = import_gold(paths=[changed], update=True)
    assert (summary.updated, summary.unchanged) == (1, 1)
    item = GoldItem.objects.get(external_id="gold_test_001")
    assert item.explanation == "新しい説明" and item.position == position


def test_dry_run_stores_nothing(db, tmp_path):
    summary = import_gold(paths=[write_rows(tmp_path / "g.jsonl", [gold_row(1)])], dry_run=True)
    assert summary.created == 1 and summary.dry_run
    assert not GoldItem.objects.exists()


def test_items_of_a_later_import_come_after_the_stored_ones(db, tmp_path):
    import_gold(paths=[write_rows(tmp_path / "a.jsonl", [gold_row(5)])])
    import_gold(paths=[write_rows(tmp_path / "b.jsonl", [gold_row(1)])])
    assert list(GoldItem.objects.values_list("external_id", flat=True)) == ["gold_test_005", "gold_test_001"]


# --------------------------------------------------------------------------- command


def test_import_gold_command_imports_and_reports(db, tmp_path, capsys):
    path = write_rows(tmp_path / "g.jsonl", [gold_row(1, "practice"), gold_row(1)])
    call_command("import_gold", str(path), "--dry-run")
    assert "dry run, nothing stored: gold items would create 2" in capsys.readouterr().out
    assert not GoldItem.objects.exists()
    call_command("import_gold", str(path))
    assert "created 2, updated 0, unchanged 0 (1 practice, 1 test in the files)" in capsys.readouterr().out
    assert GoldItem.objects.count() == 2


def test_import_gold_command_names_every_problem(db, tmp_path):
    path = write_rows(tmp_path / "g.jsonl", [gold_row(1, set="final"), gold_row(2, explanation="")])
    with pytest.raises(CommandError) as error:
        call_command("import_gold", str(path), str(tmp_path / "missing.jsonl"))
    text = str(error.value)
    assert text.startswith("nothing was stored or written")
    assert f"{path}:1: $.set" in text and f"{path}:2: $.explanation: must not be empty" in text
    assert f"{tmp_path / 'missing.jsonl'}: $: file not found" in text
    assert not GoldItem.objects.exists()


# --------------------------------------------------------------------------- the demo training set


@pytest.fixture(scope="module")
def demo_gold():
    log = ProblemLog()
    records = load_gold([GOLD_FILE], log=log)
    assert not log.problems, [str(p) for p in log.problems]
    return records


def test_demo_set_has_20_practice_and_30_test_items(demo_gold):
    assert Counter(r.set for r in demo_gold) == {"practice": 20, "test": 30}


def test_demo_practice_has_five_items_per_axis_one_per_level(demo_gold):
    for axis in AXES:
        focus = [r for r in demo_gold if r.set == "practice" and r.id.startswith(f"gold_practice_{axis}_")]
        assert sorted(r.gold[axis] for r in focus) == [1, 2, 3, 4, 5]


@pytest.mark.parametrize("item_set", ["practice", "test"])
def test_every_axis_has_every_level_in_each_set(demo_gold, item_set):
    for axis in AXES:
        assert {r.gold[axis] for r in demo_gold if r.set == item_set} == {1, 2, 3, 4, 5}, axis


def test_demo_items_are_japanese_with_context_and_explanations_naming_markers(demo_gold):
    group_names = set(gd.MARKER_GROUP_LABELS_JA.values()) | {"推量", "ヘッジ"}
    marker_words = {w for groups in gd.markers().values() for words in groups.values() for w in words}
    for record in demo_gold:
        assert record.context, record.id
        assert any("\u3040" <= ch <= "\u30ff" for ch in record.response), record.id
        assert any(name in record.explanation for name in group_names), record.id
        assert any(f"「{word}" in record.explanation for word in marker_words), record.id


def test_demo_gold_scores_raise_no_consistency_issue(demo_gold):
    for record in demo_gold:
        issues = check_consistency({"annotations": record.gold, "confidence": {}}, record.as_json())
        assert not issues, (record.id, [i.rule_id for i in issues])


def test_demo_file_is_strict_utf8_json_lines():
    for line in GOLD_FILE.read_text(encoding="utf-8").splitlines():
        json.loads(line)


def test_demo_part_loads_gold_items_and_qualifies_annotator1_once(db):
    from django.contrib.auth.models import User

    from annotation.collection import training_demo
    from annotation.collection.training import is_qualified

    summary = training_demo.load()
    assert "created 50" in summary and "annotator1 passed the test" in summary
    assert GoldItem.objects.count() == 50
    assert is_qualified(User.objects.get(username="annotator1"))
    again = training_demo.load()
    assert "unchanged 50" in again and "annotator1" not in again
