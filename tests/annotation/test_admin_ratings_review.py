"""The ratings admin (filters, lowest confidence, edit history) and adding an adjudication (an override of one
axis's consensus) in the admin: stored through the service, refused without a reason or the permission, history
never changed."""

import re
from datetime import UTC, datetime

import pytest
from django.contrib.auth.models import Permission
from django.core.management import call_command
from django.test import Client

from annotation.axes import MIN_CONFIDENCE
from annotation.models import Adjudication, Annotation, AnnotationEdit, Batch, Dialogue
from annotation.review.selectors import batch_consensus
from annotation.review.services import adjudication_record
from annotation.services import annotation_update
from tests.annotation.conftest import dialogue, rating
from tests.helpers import make_user

pytestmark = pytest.mark.django_db
JAPANESE = re.compile(r"[\u3040-\u30ff\u4e00-\u9fff]")
RATINGS = "/admin/annotation/annotation/"
ADJUDICATIONS = "/admin/annotation/adjudication/"
ADD = f"{ADJUDICATIONS}add/"


@pytest.fixture
def ratings(jsonl):
    """Batch b1 (dialogue_000–005) and b2 (dialogue_006–007), rated by ann_001 and ann_002. Below 0.7 on some
    axis: ann_001 on dialogue_000 (social 0.6) and ann_002 on dialogue_001 (self 0.69); ann_001 on dialogue_002
    is at exactly 0.7. dialogue_003's ratings came from the spreadsheet."""
    call_command("import_dialogues", str(jsonl([dialogue(i) for i in range(6)])), batch="b1")
    call_command("import_dialogues", str(jsonl([dialogue(i) for i in (6, 7)])), batch="b2")
    low = {(0, "ann_001"): (0.6, 0.9, 0.9, 0.9), (1, "ann_002"): (0.9, 0.9, 0.9, 0.69),
           (2, "ann_001"): (0.7, 0.7, 0.7, 0.7)}  # fmt: skip
    rows = [
        rating(i, name, conf=low.get((i, name), (0.9, 0.8, 0.95, 0.95)))
        for name, items in (("ann_001", [0, 1, 2, 3, 4, 5, 6]), ("ann_002", [0, 1, 2, 3, 7]))
        for i in items
    ]
    call_command("import_annotations", str(jsonl(rows)))
    Annotation.objects.filter(dialogue__external_id="dialogue_003").update(source=Annotation.Source.SPREADSHEET)


@pytest.fixture
def staff_client(client, staff_user):
    client.force_login(staff_user)  # no language cookie: Japanese is the default
    return client


def _changelist(client, url=RATINGS, **params):
    response = client.get(url, params)
    assert response.status_code == 200
    return response.context["cl"]


def _found(client, **params) -> set[tuple[str, str]]:
    return {(a.dialogue.external_id, a.annotator.username) for a in _changelist(client, **params).queryset}


def _spec(cl, parameter: str):
    return next(spec for spec in cl.filter_specs if parameter in spec.expected_parameters())


def test_every_rating_filter_has_a_japanese_title(staff_client, ratings):
    titles = [str(spec.title) for spec in _changelist(staff_client).filter_specs]
    assert titles[:4] == ["信頼度", "バッチ", "アノテーター", "出所"]
    assert len(titles) == 8 and all(JAPANESE.search(title) for title in titles), titles


def test_the_batch_filter_finds_the_ratings_of_the_batch(staff_client, ratings):
    b2 = Batch.objects.get(name="b2")
    assert _found(staff_client, dialogue__batch__id__exact=b2.pk) == {
        ("dialogue_006", "ann_001"),
        ("dialogue_007", "ann_002"),
    }


def test_the_annotator_filter_offers_only_people_who_rated(staff_client, ratings, outsider, staff_user):
    cl = _changelist(staff_client)
    offered = {label for _pk, label in _spec(cl, "annotator__id__exact").lookup_choices}
    assert offered == {"ann_001", "ann_002"}
    ann_002 = Annotation.objects.filter(annotator__username="ann_002").first().annotator
    found = _found(staff_client, annotator__id__exact=ann_002.pk)
    assert len(found) == 5 and {name for _item, name in found} == {"ann_002"}


def test_the_source_filter_names_the_sources_in_japanese(staff_client, ratings):
    assert _found(staff_client, source__exact="spreadsheet") == {
        ("dialogue_003", "ann_001"),
        ("dialogue_003", "ann_002"),
    }
    html = staff_client.get(RATINGS).content.decode()
    assert "スプレッドシート" in html and "JSONLインポート" in html


def test_below_the_minimum_confidence_finds_exactly_the_ratings_with_some_axis_below_it(staff_client, ratings):
    expected = {
        (a.dialogue.external_id, a.annotator.username)
        for a in Annotation.objects.select_related("dialogue", "annotator")
        if min(a.confidences.values()) < MIN_CONFIDENCE
    }
    assert expected == {("dialogue_000", "ann_001"), ("dialogue_001", "ann_002")}
    assert _found(staff_client, confidence="below") == expected
    at_least = _found(staff_client, confidence="at_least")
    assert len(at_least) == Annotation.objects.count() - 2 and not at_least & expected
    assert ("dialogue_002", "ann_001") in at_least  # exactly 0.7 is not below


def test_the_confidence_choices_name_the_threshold(staff_client, ratings):
    labels = [label for _value, label in _spec(_changelist(staff_client), "confidence").lookup_choices]
    assert len(labels) == 2 and all("0.7" in label for label in labels)


def test_a_score_filter_names_the_levels_and_finds_the_score(staff_client, ratings):
    annotation = Annotation.objects.get(dialogue__external_id="dialogue_004", annotator__username="ann_001")
    annotation_update(annotation=annotation, values={"social_score": 5}, user=None)
    assert _found(staff_client, social_score="5") == {("dialogue_004", "ann_001")}
    labels = dict(_spec(_changelist(staff_client), "social_score").lookup_choices)
    assert labels["1"].startswith("1 · ") and JAPANESE.search(labels["5"])


def test_the_lowest_confidence_column_is_rounded_and_sorts(staff_client, ratings):
    Annotation.objects.filter(dialogue__external_id="dialogue_005").update(avoidant_confidence=0.123456)
    index = 1 + ["dialogue", "annotator", "social_score", "avoidant_score", "mechanical_score", "self_score",
                 "lowest_confidence"].index("lowest_confidence")  # fmt: skip
    response = staff_client.get(RATINGS, {"o": str(index)})
    cells = re.findall(r'<td class="field-lowest_confidence">([^<]*)</td>', response.content.decode())
    assert cells[0] == "0.12" and cells[1] == "0.6"
    values = [float(cell) for cell in cells]
    assert values == sorted(values)


def test_the_list_shows_the_time_in_tokyo(staff_client, ratings):
    Annotation.objects.filter(dialogue__external_id="dialogue_006").update(
        created_at=datetime(2025, 1, 6, 16, 30, tzinfo=UTC)
    )
    html = staff_client.get(RATINGS, {"q": "dialogue_006"}).content.decode()
    assert re.search(r'<td class="field-created[^"]*">2025-01-07 01:30</td>', html)
    assert "16:30" not in html


def test_the_change_page_shows_the_edit_history(staff_client, ratings, staff_user):
    annotation = Annotation.objects.get(dialogue__external_id="dialogue_001", annotator__username="ann_001")
    annotation_update(annotation=annotation, values={"self_score": 5}, user=staff_user, reason="見直し")
    annotation_update(annotation=annotation, values={"social_confidence": 0.5}, user=staff_user, reason="再確認")
    AnnotationEdit.objects.filter(reason="見直し").update(edited_at=datetime(2025, 1, 6, 16, 30, tzinfo=UTC))
    html = staff_client.get(f"{RATINGS}{annotation.pk}/change/").content.decode()
    history = html[html.index('id="edits-group"') :]
    for header in ("修正日時", "修正者", "修正前の値", "修正後の値", "理由"):
        assert header in history
    assert "2025-01-07 01:30" in history and "16:30" not in history
    assert "自己迎合: 1" in history and "自己迎合: 5" in history  # only what changed, by its name
    assert "社会的迎合の信頼度: 0.9" in history and "社会的迎合の信頼度: 0.5" in history
    assert "見直し" in history and "再確認" in history and "admin_001" in history
    assert 'name="edits-0-DELETE"' not in history and "edits-__prefix__" not in history  # history only


def _csrf_client(user) -> Client:
    client = Client(enforce_csrf_checks=True)
    client.force_login(user)
    return client


def _post_add(client, **data):
    """The add form as a browser sends it: fetch the page for the CSRF token, then post."""
    page = client.get(ADD)
    assert page.status_code == 200
    token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page.content.decode()).group(1)
    return client.post(ADD, {"csrfmiddlewaretoken": token, **data})


def _line(batch, external_id: str) -> dict:
    result, _summary = batch_consensus(batch)
    return next(line for line in result.consensus if line["id"] == external_id)


def test_the_add_form_offers_the_axes_by_name_and_a_dialogue_lookup(staff_client, disputed_batch):
    html = staff_client.get(ADD).content.decode()
    assert '<option value="social">社会的迎合</option>' in html and '<option value="self">自己迎合</option>' in html
    assert '<option value="" selected>裁定なし</option>' in html and "5 · 極度" in html
    assert 'name="reason"' in html and 'href="/admin/annotation/dialogue/?_to_field=id"' in html
    popup = staff_client.get("/admin/annotation/dialogue/", {"_to_field": "id", "_popup": "1", "q": "dialogue_00"})
    assert popup.status_code == 200 and popup.context["cl"].result_count == 6


def test_an_admin_adds_an_override_and_the_consensus_keeps_the_computed_value_beside_it(staff_user, disputed_batch):
    item = Dialogue.objects.get(external_id="dialogue_001")
    assert _line(disputed_batch, "dialogue_001")["annotations"]["social"] == 1
    response = _post_add(_csrf_client(staff_user), dialogue=item.pk, axis="social", score="2", reason=" 文脈から2 ")
    assert response.status_code == 302
    decision = Adjudication.objects.get()
    assert (decision.dialogue, decision.axis, decision.score, decision.reason, decision.decided_by) == (
        item, "social", 2, "文脈から2", staff_user,
    )  # fmt: skip
    line = _line(disputed_batch, "dialogue_001")
    assert line["annotations"]["social"] == 2
    assert line["adjudicated"]["social"]["score"] == 2 and line["adjudicated"]["social"]["merged"] == 1.0
    assert line["adjudicated"]["social"]["reason"] == "文脈から2" and line["adjudicated"]["social"]["by"] == "admin_001"


def test_no_score_withdraws_the_decision_in_force(staff_client, staff_user, disputed_batch):
    item = Dialogue.objects.get(external_id="dialogue_001")
    adjudication_record(dialogue=item, axis="social", score=2, reason="first", user=staff_user)
    response = staff_client.post(ADD, {"dialogue": item.pk, "axis": "social", "score": "", "reason": "元に戻す"})
    assert response.status_code == 302
    assert list(Adjudication.objects.order_by("decided_at", "pk").values_list("score", flat=True)) == [2, None]
    assert "adjudicated" not in _line(disputed_batch, "dialogue_001")


@pytest.mark.parametrize("reason", ["", "   "])
def test_a_decision_without_a_reason_is_refused_and_nothing_is_stored(staff_user, disputed_batch, reason):
    item = Dialogue.objects.get(external_id="dialogue_000")
    response = _post_add(_csrf_client(staff_user), dialogue=item.pk, axis="social", score="3", reason=reason)
    assert response.status_code == 200
    errors = response.context["adminform"].form.errors
    assert errors["reason"] == ["理由を入力してください（裁定と一緒に記録されます）。"]
    assert not Adjudication.objects.exists()


def test_a_decision_that_changes_nothing_is_refused(staff_client, staff_user, disputed_batch):
    item = Dialogue.objects.get(external_id="dialogue_000")
    response = staff_client.post(ADD, {"dialogue": item.pk, "axis": "social", "score": "", "reason": "なし"})
    assert response.status_code == 200 and "変更がありません" in response.content.decode()
    adjudication_record(dialogue=item, axis="social", score=3, reason="first", user=staff_user)
    response = staff_client.post(ADD, {"dialogue": item.pk, "axis": "social", "score": "3", "reason": "again"})
    assert response.status_code == 200 and response.context["adminform"].form.non_field_errors()
    assert Adjudication.objects.count() == 1


def test_a_score_outside_the_scale_is_refused(staff_client, disputed_batch):
    item = Dialogue.objects.get(external_id="dialogue_000")
    for axis, score in (("social", "6"), ("tone", "3")):
        response = staff_client.post(ADD, {"dialogue": item.pk, "axis": axis, "score": score, "reason": "x"})
        assert response.status_code == 200 and response.context["adminform"].form.errors
    assert not Adjudication.objects.exists()


def _staff(name: str, *codenames: str):
    user = make_user(name)
    user.is_staff = True
    user.save()
    user.user_permissions.add(*Permission.objects.filter(codename__in=codenames))
    return user


def test_a_user_without_the_add_permission_cannot_add(disputed_batch):
    viewer = _staff("viewer", "view_adjudication", "view_dialogue")
    client = _csrf_client(viewer)
    assert client.get(ADJUDICATIONS).status_code == 200
    assert client.get(ADD).status_code == 403
    item = Dialogue.objects.get(external_id="dialogue_000")
    client = Client()
    client.force_login(viewer)
    response = client.post(ADD, {"dialogue": item.pk, "axis": "social", "score": "3", "reason": "x"})
    assert response.status_code == 403 and not Adjudication.objects.exists()


def test_the_add_permission_is_what_lets_a_user_add(disputed_batch):
    adder = _staff("adder", "add_adjudication", "view_adjudication", "view_dialogue")
    item = Dialogue.objects.get(external_id="dialogue_000")
    response = _post_add(_csrf_client(adder), dialogue=item.pk, axis="social", score="3", reason="中間")
    assert response.status_code == 302 and Adjudication.objects.get().decided_by == adder


def test_stored_decisions_cannot_be_changed_or_deleted(staff_client, staff_user, disputed_batch):
    item = Dialogue.objects.get(external_id="dialogue_000")
    decision = adjudication_record(dialogue=item, axis="social", score=3, reason="中間", user=staff_user)
    page = staff_client.get(f"{ADJUDICATIONS}{decision.pk}/change/")
    assert page.status_code == 200
    html = page.content.decode()
    assert 'name="_save"' not in html and 'name="reason"' not in html and "中間" in html
    changed = {"dialogue": item.pk, "axis": "social", "score": "5", "reason": "changed"}
    assert staff_client.post(f"{ADJUDICATIONS}{decision.pk}/change/", changed).status_code == 403
    assert staff_client.post(f"{ADJUDICATIONS}{decision.pk}/delete/", {"post": "yes"}).status_code == 403
    listing = staff_client.post(ADJUDICATIONS, {"action": "delete_selected", "_selected_action": [decision.pk],
                                                "post": "yes"})  # fmt: skip
    assert listing.status_code in (200, 302)
    decision.refresh_from_db()
    assert (decision.score, decision.reason) == (3, "中間") and Adjudication.objects.count() == 1


def test_the_list_shows_decisions_in_tokyo_with_the_axis_by_name_and_a_link_to_the_item(
    staff_client, staff_user, disputed_batch
):
    item = Dialogue.objects.get(external_id="dialogue_000")
    decision = adjudication_record(dialogue=item, axis="social", score=3, reason="中間", user=staff_user)
    Adjudication.objects.filter(pk=decision.pk).update(decided_at=datetime(2025, 1, 6, 16, 30, tzinfo=UTC))
    html = staff_client.get(ADJUDICATIONS).content.decode()
    assert "2025-01-07 01:30" in html and "16:30" not in html
    assert "社会的迎合" in html and f'href="/research/batches/{disputed_batch.pk}/items/{item.pk}/"' in html
    assert _changelist(staff_client, ADJUDICATIONS, axis="social").result_count == 1
    assert _changelist(staff_client, ADJUDICATIONS, axis="self").result_count == 0


def test_the_admin_and_the_item_page_store_the_same_kind_of_decision(staff_user, disputed_batch):
    researcher = make_user("res_001", "researcher")
    workspace = Client()
    workspace.force_login(researcher)
    first, second = Dialogue.objects.get(external_id="dialogue_000"), Dialogue.objects.get(external_id="dialogue_002")
    response = workspace.post(f"/research/batches/{disputed_batch.pk}/items/{first.pk}/adjudicate/",
                              {"social": "4", "reason": "ページから"})  # fmt: skip
    assert response.status_code == 302
    response = _post_add(_csrf_client(staff_user), dialogue=second.pk, axis="social", score="4", reason="管理画面から")
    assert response.status_code == 302
    rows = list(Adjudication.objects.order_by("pk").values("axis", "score", "reason", "decided_by__username"))
    assert rows == [
        {"axis": "social", "score": 4, "reason": "ページから", "decided_by__username": "res_001"},
        {"axis": "social", "score": 4, "reason": "管理画面から", "decided_by__username": "admin_001"},
    ]
    for external_id, by in (("dialogue_000", "res_001"), ("dialogue_002", "admin_001")):
        decided = _line(disputed_batch, external_id)["adjudicated"]["social"]
        assert decided["score"] == 4 and decided["by"] == by and isinstance(decided["merged"], float)
    assert _line(disputed_batch, "dialogue_002")["adjudicated"]["social"]["merged"] == 2.0
