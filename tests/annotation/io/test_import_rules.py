"""Issue #41, point 5: ratings imports obey the batch's rules (quota, chosen annotators, qualification), never replace
a web rating unless asked by name, refuse unknown keys and unsafe ids; every override needs a reason and is recorded.

Through ``manage.py import_annotations`` / ``import_dialogues`` (the API, the batch page and the job have their own
tests: tests/annotation/api/test_ratings_import_rules.py, tests/annotation/workspace/test_ratings_upload_rules.py).
Each refusal is a located problem (file:line: $.path) and stores nothing: every table an import writes keeps its
row count.
"""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.contrib.auth.models import User
from django.core.management import CommandError, call_command
from django.utils import timezone

from annotation.collection.queue import annotation_submit, assignment_next
from annotation.models import (
    Annotation,
    AnnotationEdit,
    AnnotatorProfile,
    Assignment,
    Batch,
    Dialogue,
    ImportOverride,
    ImportOverrideRating,
    QualificationAttempt,
    QueueEntry,
)
from tests.annotation.api.support import CONFIDENCE, SCORES
from tests.annotation.conftest import dialogue, rating
from tests.helpers import make_qualified_annotator, make_user

pytestmark = pytest.mark.django_db

WRITTEN = (Annotation, AnnotationEdit, User, AnnotatorProfile, ImportOverride, ImportOverrideRating, Dialogue, Batch)


def _counts() -> dict:
    return {model.__name__: model.objects.count() for model in WRITTEN}


def _batch(jsonl, name="b", n=3, quota=3, **settings) -> Batch:
    call_command("import_dialogues", str(jsonl([dialogue(i, id=f"{name}_{i}") for i in range(n)])), batch=name)
    batch = Batch.objects.get(name=name)
    Batch.objects.filter(pk=batch.pk).update(annotations_per_item=quota, **settings)
    batch.refresh_from_db()
    return batch


def _refused(path, **options) -> str:
    """The import's error (it stores nothing: every table keeps its rows)."""
    before = _counts()
    with pytest.raises(CommandError) as error:
        call_command("import_annotations", str(path), **options)
    assert _counts() == before
    return str(error.value)


def _import(path, **options) -> str:
    from io import StringIO

    out = StringIO()
    call_command("import_annotations", str(path), stdout=out, **options)
    return out.getvalue()


# --- quota ---------------------------------------------------------------------------------------------------


def test_six_ratings_of_a_quota_3_item_are_refused_past_the_third(jsonl):
    _batch(jsonl, quota=3)
    path = jsonl([rating(0, f"ext_{k}", id="b_0") for k in range(6)])
    message = _refused(path)
    for line in (4, 5, 6):
        assert f"{path}:{line}: $.id: dialogue 'b_0' would have 6 ratings, more than the quota of batch 'b' " in message
    assert "(3 per item; 0 stored or reserved in the queue, 6 new in this import)" in message
    assert "--allow-over-quota with a reason" in message
    assert f"{path}:3:" not in message  # the first three fit


def test_stored_ratings_and_open_reservations_count_towards_the_quota(jsonl):
    batch = _batch(jsonl, quota=3)
    _import(jsonl([rating(0, "ext_a", id="b_0")]))
    holder = make_qualified_annotator("holder")
    reserved = assignment_next(batch=batch, annotator=holder)
    assert reserved.dialogue.external_id == "b_1"  # the fewest ratings first: b_1
    _import(jsonl([rating(0, "ext_b", id="b_0")]))
    path = jsonl([rating(0, "ext_c", id="b_0"), rating(0, "ext_d", id="b_0")])
    message = _refused(path)  # 2 stored + 2 new > 3
    assert f"{path}:2: $.id: dialogue 'b_0' would have 4 ratings" in message and f"{path}:1:" not in message
    path = jsonl([rating(0, f"ext_{k}", id="b_1") for k in "xyz"])
    message = _refused(path)  # holder's open reservation takes a slot of b_1
    assert f"{path}:3: $.id: dialogue 'b_1' would have 4 ratings" in message and "1 stored or reserved" in message


def test_an_llm_raters_rating_takes_no_slot_and_the_own_reservation_becomes_the_rating(jsonl):
    batch = _batch(jsonl, n=1, quota=2)
    alice = make_qualified_annotator("alice")
    reserved = assignment_next(batch=batch, annotator=alice)
    bot = make_user("llm_bot")
    values = {f"{axis}_score": 1 for axis in SCORES} | {f"{axis}_confidence": 1.0 for axis in SCORES}
    Annotation.objects.create(dialogue=reserved.dialogue, annotator=bot, source="llm", **values)
    _import(jsonl([rating(0, "alice", id="b_0"), rating(0, "ext_a", id="b_0")]))
    assert Assignment.objects.get(pk=reserved.pk).status == "closed"
    assert Annotation.objects.exclude(source="llm").count() == 2
    assert QueueEntry.objects.get(pk=reserved.dialogue_id).taken_count == 2


def test_the_quota_override_stores_and_records_who_and_why(jsonl, researcher):
    _batch(jsonl, quota=3)
    path = jsonl([rating(0, f"ext_{k}", id="b_0") for k in range(5)])
    with pytest.raises(CommandError, match="--reason: give a reason for the override \\(--allow-over-quota\\)"):
        call_command("import_annotations", str(path), allow_over_quota=True)
    output = _import(path, allow_over_quota=True, reason="two more raters for the pilot", by="res_001")
    assert Annotation.objects.filter(dialogue__external_id="b_0").count() == 5
    record = ImportOverride.objects.get()
    assert record.created_by == researcher and record.by_name == "res_001"
    assert record.reason == "two more raters for the pilot" and record.surface == "command"
    assert record.counts == {"quota": 2} and record.batch_names == "b" and record.files == path.name
    links = list(record.ratings.order_by("line").values_list("annotation__annotator__username", "rule", "line"))
    assert links == [("ext_3", "quota", f"{path}:4"), ("ext_4", "quota", f"{path}:5")]
    assert f"recorded as import override #{record.pk} by res_001: two more raters for the pilot" in output


def test_without_by_the_override_names_the_system_user(jsonl):
    _batch(jsonl, quota=1)
    _import(jsonl([rating(0, "ext_a", id="b_0"), rating(0, "ext_b", id="b_0")]), allow_over_quota=True, reason="x")
    record = ImportOverride.objects.get()
    assert record.created_by is None and record.by_name.endswith("(command line)") and "@" in record.by_name


def test_a_dry_run_says_what_an_override_would_let_in_and_records_nothing(jsonl):
    _batch(jsonl, quota=1)
    path = jsonl([rating(0, "ext_a", id="b_0"), rating(0, "ext_b", id="b_0")])
    before = _counts()
    output = _import(path, dry_run=True, allow_over_quota=True, reason="x")
    assert "batch rules that would be overridden: quota 1 rating(s) (nothing recorded)" in output
    assert _counts() == before


# --- chosen annotators -----------------------------------------------------------------------------------------


def test_a_batch_for_chosen_annotators_refuses_everyone_else(jsonl):
    batch = _batch(jsonl, restricted=True)
    alice, bob = make_qualified_annotator("alice"), make_qualified_annotator("bob")
    batch.annotators.add(alice)
    path = jsonl([rating(0, "alice", id="b_0"), rating(0, "bob", id="b_0"), rating(1, "bob", id="b_1"),
                  rating(0, "ext_new", id="b_0")])  # fmt: skip
    message = _refused(path)
    assert (f"{path}:2: $.annotator_id: 'bob' is not among the annotators chosen for batch 'b' (2 new rating(s) in "
            "this import): the batch is for its chosen annotators only") in message  # fmt: skip
    assert f"{path}:4: $.annotator_id: 'ext_new' is not among the annotators chosen" in message
    assert "--allow-unchosen-annotators with a reason" in message and "'alice'" not in message
    assert bob.pk  # bob exists and is qualified: only the batch's choice refuses him


def test_the_chosen_annotators_override_stores_and_records(jsonl):
    batch = _batch(jsonl, restricted=True)
    batch.annotators.add(make_qualified_annotator("alice"))
    make_qualified_annotator("bob")
    path = jsonl([rating(0, "alice", id="b_0"), rating(0, "bob", id="b_0")])
    _import(path, allow_unchosen_annotators=True, reason="bob rated on paper")
    record = ImportOverride.objects.get()
    assert record.counts == {"chosen_annotators": 1} and record.reason == "bob rated on paper"
    assert [link.annotation.annotator.username for link in record.ratings.all()] == ["bob"]
    assert Annotation.objects.count() == 2


# --- qualification ----------------------------------------------------------------------------------------------


def test_a_live_annotator_without_the_qualification_is_refused(jsonl):
    _batch(jsonl)
    make_user("newbie", "annotator")  # logs in, has not passed the test
    path = jsonl([rating(0, "newbie", id="b_0"), rating(1, "newbie", id="b_1")])
    message = _refused(path)
    assert (f"{path}:1: $.annotator_id: 'newbie' has not passed the qualification test (2 new rating(s) in this "
            "import): the queue hands items only to qualified annotators") in message  # fmt: skip
    assert "--allow-unqualified-annotators with a reason" in message


def test_an_expired_qualification_and_an_inactive_account_are_named(jsonl, settings):
    settings.QUALIFICATION_VALID_DAYS = 92
    _batch(jsonl)
    old = make_user("old", "annotator")
    passed = timezone.now() - timedelta(days=100)
    QualificationAttempt.objects.create(annotator=old, finished_at=passed, passed=True)
    gone = make_qualified_annotator("gone")
    User.objects.filter(pk=gone.pk).update(is_active=False)
    path = jsonl([rating(0, "old", id="b_0"), rating(0, "gone", id="b_0")])
    message = _refused(path)
    expired = timezone.localdate(passed + timedelta(days=92)).isoformat()
    assert f"{path}:1: $.annotator_id: 'old' has a qualification that expired on {expired} (1 new" in message
    assert f"{path}:2: $.annotator_id: 'gone' is an inactive account (1 new" in message


def test_placeholder_accounts_of_imports_are_not_asked_for_a_qualification(jsonl):
    """They cannot log in, so they cannot take the test: their ratings (source import) need no override."""
    _batch(jsonl)
    _import(jsonl([rating(0, "ext_1", id="b_0")]))  # makes the placeholder
    assert not User.objects.get(username="ext_1").has_usable_password()
    _import(jsonl([rating(1, "ext_1", id="b_1")]))
    assert Annotation.objects.filter(annotator__username="ext_1").count() == 2
    assert not ImportOverride.objects.exists()
    placeholder = User.objects.get(username="ext_1")
    placeholder.set_password("now-a-person-1")  # given a password it is a live annotator: the rule applies
    placeholder.save()
    path = jsonl([rating(2, "ext_1", id="b_2")])
    assert f"{path}:1: $.annotator_id: 'ext_1' has not passed the qualification test" in _refused(path)


def test_the_qualification_override_stores_and_records(jsonl):
    _batch(jsonl)
    make_user("newbie", "annotator")
    _import(jsonl([rating(0, "newbie", id="b_0")]), allow_unqualified_annotators=True, reason="trained offline")
    record = ImportOverride.objects.get()
    assert record.counts == {"qualification": 1} and record.reason == "trained offline"
    assert ImportOverrideRating.objects.get().annotation == Annotation.objects.get(annotator__username="newbie")


# --- closed batch -------------------------------------------------------------------------------------------------


def test_a_closed_batch_refuses_new_and_changed_ratings_at_its_first_line(jsonl):
    _batch(jsonl)
    _import(jsonl([rating(0, "ext_a", id="b_0")]))  # stored while the batch was open
    Batch.objects.filter(name="b").update(status=Batch.Status.CLOSED)
    _import(jsonl([rating(0, "ext_a", id="b_0")]))  # the same again changes nothing: accepted
    path = jsonl([rating(0, "ext_a", id="b_0"), rating(1, "ext_a", id="b_1"), rating(2, "ext_b", id="b_2")])
    message = _refused(path)
    assert (f"{path}:2: $.id: batch 'b' is closed (2 new or changed rating(s) in this import): a closed batch takes "
            "no more ratings, as the queue hands none of its items out. Reopen it in the batch's settings, or add "
            "--allow-closed-batch with a reason") in message  # fmt: skip
    assert f"{path}:3:" not in message and f"{path}:1:" not in message  # one problem per batch; line 1 is stored
    changed = jsonl([rating(0, "ext_a", id="b_0", scores=(5, 5, 5, 5))])
    assert f"{changed}:1: $.id: batch 'b' is closed (1 new or changed rating(s)" in _refused(changed, update=True)


def test_the_closed_batch_override_stores_and_records_who_and_why(jsonl, researcher):
    _batch(jsonl)
    _import(jsonl([rating(0, "ext_a", id="b_0")]))
    Batch.objects.filter(name="b").update(status=Batch.Status.CLOSED)
    path = jsonl([rating(0, "ext_a", id="b_0", scores=(5, 5, 5, 5)), rating(1, "ext_a", id="b_1")])
    with pytest.raises(CommandError, match="--reason: give a reason for the override \\(--allow-closed-batch\\)"):
        call_command("import_annotations", str(path), update=True, allow_closed_batch=True)
    output = _import(path, update=True, allow_closed_batch=True, reason="late paper ratings", by="res_001")
    record = ImportOverride.objects.get()
    assert (record.created_by, record.reason, record.counts) == (researcher, "late paper ratings", {"closed_batch": 2})
    links = list(record.ratings.order_by("line").values_list("annotation__dialogue__external_id", "rule", "line"))
    assert links == [("b_0", "closed_batch", f"{path}:1"), ("b_1", "closed_batch", f"{path}:2")]
    assert Annotation.objects.get(dialogue__external_id="b_0").social_score == 5
    assert f"batch rules overridden (closed_batch 2 rating(s)), recorded as import override #{record.pk}" in output


# --- update over a web rating -------------------------------------------------------------------------------------


def _web_rating(batch, name="alice"):
    person = make_qualified_annotator(name)
    reserved = assignment_next(batch=batch, annotator=person)
    return annotation_submit(assignment=reserved, scores=SCORES, confidence=CONFIDENCE).annotation


def test_update_never_replaces_a_rating_made_on_the_web(jsonl):
    batch = _batch(jsonl, n=1)
    web = _web_rating(batch)
    assert web.source == "web"
    path = jsonl([rating(0, "alice", id="b_0", scores=(5, 5, 5, 5))])
    message = _refused(path, update=True)
    assert (f"{path}:1: $: 'alice' rated 'b_0' on the web and this line differs: an import never replaces a rating "
            "made on the web unless asked by name. Leave the line out, or add --replace-web-ratings with a "
            "reason") in message  # fmt: skip
    message = _refused(path)
    assert "a rating made on the web is replaced only with --update and --replace-web-ratings together" in message
    with pytest.raises(CommandError, match="--replace-web-ratings replaces ratings made on the web only together"):
        call_command("import_annotations", str(path), replace_web_ratings=True, reason="x")
    web.refresh_from_db()
    assert web.social_score == SCORES["social"]


def test_update_replaces_an_imported_rating_but_with_the_option_also_a_web_rating(jsonl, researcher):
    batch = _batch(jsonl, n=2)
    web = _web_rating(batch)
    _import(jsonl([rating(1, "alice", id="b_1")]))
    both = jsonl([rating(0, "alice", id=web.dialogue.external_id, scores=(5, 5, 5, 5)),
                  rating(1, "alice", id="b_1", scores=(4, 4, 4, 4))])  # fmt: skip
    _import(jsonl([rating(1, "alice", id="b_1", scores=(3, 3, 3, 3))]), update=True)  # an imported one: fine
    assert not ImportOverride.objects.exists()
    _import(both, update=True, replace_web_ratings=True, reason="alice asked to correct her ratings", by="res_001")
    web.refresh_from_db()
    assert web.social_score == 5 and web.source == "web"
    edit = AnnotationEdit.objects.get(annotation=web)
    assert edit.old_values["social_score"] == SCORES["social"] and edit.new_values["social_score"] == 5
    assert edit.reason.startswith("import --update --replace-web-ratings ") and "alice asked to correct" in edit.reason
    record = ImportOverride.objects.get()
    assert record.counts == {"web_ratings": 1} and record.created_by == researcher
    assert [(link.annotation_id, link.rule) for link in record.ratings.all()] == [(web.pk, "web_ratings")]


# --- unknown keys -------------------------------------------------------------------------------------------------


def test_an_unknown_key_of_a_rating_is_a_located_problem(jsonl):
    _batch(jsonl)
    path = jsonl([rating(0, "ext_a", id="b_0"), rating(1, "ext_a", id="b_1", note="x" * 100_000),
                  rating(2, "ext_a", id="b_2", **{"a b": 1})])  # fmt: skip
    message = _refused(path)
    fields = "id, annotator_id, timestamp, annotations, confidence, seconds_spent"
    assert (f"{path}:2: $.note: unknown field; the fields are {fields} (--ignore-unknown-keys ignores unknown "
            "fields)") in message  # fmt: skip
    assert f'{path}:3: $["a b"]: unknown field' in message


def test_ignored_unknown_keys_are_counted(jsonl):
    _batch(jsonl)
    path = jsonl([rating(0, "ext_a", id="b_0", note="n"), rating(1, "ext_a", id="b_1", note="m", extra=[1])])
    output = _import(path, ignore_unknown_keys=True)
    assert "unknown fields ignored: note ×2, extra ×1" in output
    assert Annotation.objects.count() == 2


def test_an_unknown_key_of_a_dialogue_is_a_located_problem_unless_ignored(jsonl, capsys):
    path = jsonl([dialogue(0), dialogue(1, source="crawl")])
    with pytest.raises(CommandError) as error:
        call_command("import_dialogues", str(path), batch="d")
    assert (f"{path}:2: $.source: unknown field; the fields are id, user, response, context "
            "(--ignore-unknown-keys ignores unknown fields)") in str(error.value)  # fmt: skip
    assert not Dialogue.objects.exists() and not Batch.objects.exists()
    call_command("import_dialogues", str(path), batch="d", ignore_unknown_keys=True)
    assert "unknown fields ignored: source ×1" in capsys.readouterr().out
    assert Dialogue.objects.count() == 2


def test_extra_keys_inside_a_context_turn_are_still_accepted(jsonl):
    """Seed A.8 types a context turn as Dict[str, str]: only the top level is the format's fixed set of fields."""
    turns = [{"turn": -1, "speaker": "user", "text": "前", "lang": "ja"}]
    call_command("import_dialogues", str(jsonl([dialogue(0, context=turns)])), batch="d")
    assert Dialogue.objects.get().context == [{"turn": -1, "speaker": "user", "text": "前"}]


# --- ids ----------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(("value", "char"), [("=1+1", "'='"), ("+SUM(A1)", "'+'"), ("-2+3", "'-'"), ("@cmd", "'@'"),
                                             (" =x", "'='"), ("＝1", "'＝'")])  # fmt: skip
def test_a_formula_like_dialogue_id_is_refused(jsonl, value, char):
    path = jsonl([dialogue(0), dialogue(1, id=value)])
    with pytest.raises(CommandError) as error:
        call_command("import_dialogues", str(path), batch="d")
    assert f"{path}:2: $.id: {value!r} begins with {char} (U+" in str(error.value)
    assert "which a spreadsheet runs as a formula (formula injection)" in str(error.value)
    assert not Dialogue.objects.exists() and not Batch.objects.exists()


CONTROLS = [
    ("a\tb", "U+0009", "tab"),
    ("a\rb", "U+000D", "carriage return"),
    ("a\nb", "U+000A", "line feed"),
    ("a\x1bb", "U+001B", "a control character"),
    ("a\x85b", "U+0085", "a control character"),
]


@pytest.mark.parametrize(("value", "codepoint", "name"), CONTROLS)
def test_a_dialogue_id_with_a_control_character_is_refused(jsonl, value, codepoint, name):
    path = jsonl([dialogue(0, id=value)])
    with pytest.raises(CommandError) as error:
        call_command("import_dialogues", str(path), batch="d")
    assert f"{path}:1: $.id: {value!r} holds the control character {codepoint} ({name}) at character 2" in str(
        error.value
    )
    assert not Dialogue.objects.exists()


def test_unsafe_ids_in_ratings_are_refused(jsonl):
    _batch(jsonl)
    path = jsonl([rating(0, "@ext", id="b_0"), rating(0, "-ext", id="b_1"), rating(0, "ext\t1", id="b_2"),
                  rating(0, "ext", id="=b_0"), rating(0, "ext", id="b\r0")])  # fmt: skip
    message = _refused(path)
    assert f"{path}:1: $.annotator_id: '@ext' begins with '@' (U+0040)" in message
    assert f"{path}:2: $.annotator_id: '-ext' begins with '-' (U+002D)" in message
    assert f"{path}:3: $.annotator_id: 'ext\\t1' holds the control character U+0009 (tab)" in message
    assert f"{path}:4: $.id: '=b_0' begins with '=' (U+003D)" in message
    assert f"{path}:5: $.id: 'b\\r0' holds the control character U+000D (carriage return)" in message


def test_gold_items_refuse_unsafe_ids_too(jsonl):
    from annotation.models import GoldItem

    gold = {**dialogue(0, id="=gold"), "gold": {"social": 1, "avoidant": 1, "mechanical": 1, "self": 1},
            "explanation": "e", "set": "practice"}  # fmt: skip
    path = jsonl([gold])
    with pytest.raises(CommandError, match=r":1: \$\.id: '=gold' begins with '='"):
        call_command("import_gold", str(path))
    assert not GoldItem.objects.exists()


def test_all_problems_at_once_and_nothing_stored(jsonl):
    """Rules and format problems come together: the user fixes the file once."""
    _batch(jsonl, quota=1)
    make_user("newbie", "annotator")
    path = jsonl([rating(0, "ext_a", id="b_0"), rating(0, "newbie", id="b_0"), rating(1, "ext_b", id="b_1", x=1)])
    message = _refused(path)
    assert f"{path}:2: $.id: dialogue 'b_0' would have 2 ratings" in message
    assert f"{path}:2: $.annotator_id: 'newbie' has not passed" in message
    assert f"{path}:3: $.x: unknown field" in message
