"""The bulk helpers: COPY's text format built by hand must store every value exactly; lookups by key lists."""

from datetime import UTC, datetime

import pytest

from annotation.models import Batch, Dialogue
from core.bulk import bulk_insert, existing_values, values_in

pytestmark = pytest.mark.django_db

AWKWARD = [
    "tab\there",
    "new\nline",
    "carriage\rreturn",
    "back\\slash",
    "\\N",
    "\\.",
    "",
    "引用「テスト」😀",
    'quote "x"',
]


def test_bulk_insert_stores_awkward_text_exactly():
    batch = Batch.objects.create(name="b")
    at = datetime(2026, 1, 2, 3, 4, 5, 678901, tzinfo=UTC)
    rows = [
        (f"id_{i}", text, text[::-1], f'[{{"turn": -1, "speaker": "user", "text": "{i}"}}]', batch.pk, at)
        for i, text in enumerate(AWKWARD)
    ]
    fields = ["external_id", "user_text", "response_text", "context", "batch", "created_at"]
    bulk_insert(Dialogue, fields, rows)
    stored = {d.external_id: d for d in Dialogue.objects.all()}
    for external_id, user, response, _context, _batch, created in rows:
        found = stored[external_id]
        assert (found.user_text, found.response_text, found.created_at) == (user, response, created)
        assert found.context[0]["speaker"] == "user"


def test_bulk_insert_refuses_naive_times():
    batch = Batch.objects.create(name="b")
    with pytest.raises(ValueError, match="naive datetime"):
        bulk_insert(Dialogue, ["external_id", "user_text", "response_text", "context", "batch", "created_at"],
                    [("x", "u", "r", "[]", batch.pk, datetime(2026, 1, 1))])  # fmt: skip


def test_lookups_by_key_lists_find_exactly_the_keys():
    batch = Batch.objects.create(name="b")
    Dialogue.objects.bulk_create(
        Dialogue(external_id=key, user_text="u", response_text="r", batch=batch) for key in AWKWARD if key
    )
    keys = [key for key in AWKWARD if key] + ["missing", 'a"b\\c']
    found = existing_values(Dialogue, "external_id", keys, ["user_text"], chunk=3)
    assert set(found) == {key for key in AWKWARD if key}
    ids = sorted(Dialogue.objects.values_list("pk", flat=True))
    rows = set(values_in(Dialogue, ("id", "external_id"), {"id": ids[:4], "batch": [batch.pk]}, chunk=2))
    assert {pk for pk, _key in rows} == set(ids[:4])


def test_bulk_update_json_sets_exactly_the_given_rows_with_awkward_content():
    from core.bulk import bulk_update_json
    from layer3.models import Batch as TrialBatch
    from layer3.models import TrialLog

    batch = TrialBatch.objects.create(name="b")
    trials = [
        TrialLog.objects.create(
            batch=batch, external_id=f"t{i}", model_config="A", stage=3, input_text="", generated_data={}
        )
        for i in range(4)
    ]
    awkward = {"text": "改行\n'quote' \"dq\" \\ tab\t ✓", "n": 1.5, "list": [None, True, {"k": "v"}]}
    assert bulk_update_json(TrialLog, "layer3_metrics", [(trials[0].pk, awkward), (trials[2].pk, {"a": 1})]) == 2
    stored = {t.external_id: t.layer3_metrics for t in TrialLog.objects.all()}
    assert stored == {"t0": awkward, "t1": None, "t2": {"a": 1}, "t3": None}
    bulk_update_json(TrialLog, "layer3_metrics", [(trials[0].pk, None)])
    assert TrialLog.objects.filter(layer3_metrics__isnull=True).count() == 3
    assert bulk_update_json(TrialLog, "layer3_metrics", []) == 0


def _dialogue_rows(batch, n: int, prefix: str):
    at = datetime(2026, 1, 2, tzinfo=UTC)
    return ((f"{prefix}_{i}", "u", "r", "[]", batch.pk, at) for i in range(n))


@pytest.mark.postgres
def test_a_large_copy_refreshes_the_tables_statistics_once_committed(django_capture_on_commit_callbacks):
    """Issue 31: right after a bulk load PostgreSQL has no statistics of the rows and plans for a handful."""
    from django.db import connection

    from core.bulk import ANALYZE_AFTER_ROWS

    if connection.vendor != "postgresql":
        pytest.skip("ANALYZE after COPY is PostgreSQL's")
    fields = ["external_id", "user_text", "response_text", "context", "batch", "created_at"]
    batch = Batch.objects.create(name="b")
    with django_capture_on_commit_callbacks() as small:
        bulk_insert(Dialogue, fields, _dialogue_rows(batch, ANALYZE_AFTER_ROWS - 1, "s"))
    assert small == []
    with django_capture_on_commit_callbacks(execute=True) as large:
        bulk_insert(Dialogue, fields, _dialogue_rows(batch, ANALYZE_AFTER_ROWS, "l"))
    assert len(large) == 1
    with connection.cursor() as cursor:
        cursor.execute("SELECT count(*) FROM pg_stats WHERE tablename = %s", [Dialogue._meta.db_table])
        assert cursor.fetchone()[0] > 0


def test_copy_rows_built_column_by_column_are_what_each_value_gives_alone():
    """``_copy_block`` converts whole columns at once; every value must come out as ``_copy_text`` gives it."""
    from datetime import timedelta, timezone

    from core.bulk import _copy_block, _copy_text

    tokyo = timezone(timedelta(hours=9))
    at = datetime(2026, 1, 2, 3, 4, 5, tzinfo=tokyo)
    rows = [
        (i, 1.5 * i, None if i % 2 else 0.25, AWKWARD[i % len(AWKWARD)], "plain", at + timedelta(seconds=i),
         at + timedelta(seconds=i), bool(i % 3), 1 if i % 2 == 0 else 1.0, None)
        for i in range(30)
    ]  # fmt: skip
    rows.append((1, 2, 3, "x", "plain", at, at, False, 7, "end"))
    expected = "".join("\t".join(map(_copy_text, row)) + "\n" for row in rows)
    assert _copy_block(rows, 10) == expected
    # a column equal to the one before it, but of another kind (1 == True), is converted by itself
    assert _copy_block([(1, True), (0, False)], 2) == "1\tt\n0\tf\n"
    with pytest.raises(ValueError, match="naive"):
        _copy_block([(datetime(2026, 1, 1),)], 1)
    with pytest.raises(ValueError, match="2 values each"):
        _copy_block([(1, 2), (3,)], 2)
