"""The rater's judge-audit pages through the test client: access, rating, skip, history edits, blindness, CSRF."""

import re

import pytest
from django.test import Client

from annotation.models import AuditAssignment, AuditItem, AuditRating, AuditRatingEdit, Batch, Dialogue, JudgeAudit
from tests.helpers import acknowledge_audit_guidelines, make_qualified_annotator, make_user

pytestmark = pytest.mark.django_db
HTMX = {"HX-Request": "true"}

# Written into every field a rater must never see; no page an annotator opens may show any of them.
HIDDEN = {
    "judge_label": "JUDGE-LABEL-MARKER",
    "judge_reasoning": "JUDGE-REASONING-MARKER",
    "judge_model": "JUDGE-MODEL-MARKER",
    "judge_prompt": "JUDGE-PROMPT-MARKER",
    "model_config": "MODELCONFIG-MARKER",
}
WEIGHT = 987.654321  # the design weight, as it would print
OTHER_COMMENT = "OTHER-RATER-COMMENT-MARKER"
MARKERS = [*HIDDEN.values(), "987.65", OTHER_COMMENT, "STRATUM-MARKER"]


def _gv_context(n: int, text: str = "") -> dict:
    widget = {
        "id": "w1",
        "component": "brainstorm_cards",
        "config": {
            "title": "ステップ1",
            "items": [
                {"id": f"i{n}", "text": text or f"転職先に求める条件{n}", "isGenerated": True},
                {"id": "other", "text": "今の職場で続けたいこと", "isGenerated": True},
            ],
        },
    }
    return {
        "concern": "転職すべきか迷っている",
        "trialId": f"A-{n:05d}",
        "itemId": f"i{n}",
        "widgetId": "w1",
        "widgetType": "brainstorm_cards",
        "portId": "items",
        "text": text or f"転職先に求める条件{n}",
        "widget": widget,
    }


def _w2wr_context(n: int) -> dict:
    return {
        "concern": "引っ越し先を決めたい",
        "trialId": f"B-{n:05d}",
        "bindingId": f"b{n}",
        "description": "ブレストの結果を優先度マトリクスに送る",
        "source": {
            "widget": "w1",
            "type": "brainstorm_cards",
            "port": "items",
            "config": {"id": "w1", "component": "brainstorm_cards", "config": {"title": "発散"}},
        },
        "target": {"widget": "w9", "type": "priority_matrix", "port": "input", "config": None},
    }


def _audit(kind: str, n_items: int = 3, per_item: int = 2, name: str | None = None) -> JudgeAudit:
    audit = JudgeAudit.objects.create(
        name=name or f"audit-{kind}",
        kind=kind,
        source_batch="layer3-batch",
        per_item=per_item,
        requested_size=n_items,
        seed=1,
        population=100,
    )
    for n in range(n_items):
        AuditItem.objects.create(
            audit=audit,
            key=f"t{n}:u{n}",
            trial_id=f"t{n}",
            context=_gv_context(n) if kind == "gv" else _w2wr_context(n),
            judge_score=2,
            baseline_score=0,
            stratum=[HIDDEN["model_config"], 2, "STRATUM-MARKER"],
            weight=WEIGHT,
            **HIDDEN,
        )
    return audit


@pytest.fixture
def gv_audit():
    return _audit("gv")


@pytest.fixture
def w2wr_audit():
    return _audit("w2wr")


@pytest.fixture
def rater(client):
    user = _audit_rater("rater")
    client.force_login(user)
    return user


def _audit_rater(username: str):
    """A qualified annotator who has read the audits' guidelines."""
    user = make_qualified_annotator(username)
    acknowledge_audit_guidelines(user)
    return user


def _assignment_id(html: str) -> int:
    return int(re.search(r'data-assignment="(\d+)"', html).group(1))


def _page(client, audit) -> str:
    response = client.get(f"/annotate/audits/{audit.pk}/")
    assert response.status_code == 200
    return response.content.decode()


def _assert_blind(html: str) -> None:
    for marker in MARKERS:
        assert marker not in html, marker


# ---------------------------------------------------------------- access


def test_anonymous_users_are_sent_to_the_login_page(client, gv_audit):
    for url in (f"/annotate/audits/{gv_audit.pk}/", "/annotate/audits/history/"):
        response = client.get(url)
        assert response.status_code == 302 and response["Location"].startswith("/login/")
    response = client.post(f"/annotate/audits/{gv_audit.pk}/1/submit/", {"score": "1"})
    assert response.status_code == 302 and not AuditRating.objects.exists()


def test_users_without_the_annotator_role_are_refused_as_in_the_work_queue(client, gv_audit):
    for user in (make_user("res", "researcher"), make_user("nobody"), make_user("boss", staff=True)):
        client.force_login(user)
        assert client.get(f"/annotate/audits/{gv_audit.pk}/").status_code == 403
        assert client.get("/annotate/audits/history/").status_code == 403
    assert not AuditAssignment.objects.exists()


def test_an_annotator_not_qualified_for_sycophancy_reads_the_audit_guidelines_once_then_rates(client, gv_audit):
    """README, Judge calibration: a judge audit needs its own short instructions, not the sycophancy test."""
    w2wr = _audit("w2wr", name="audit-w2wr-2")
    user = make_user("fresh", "annotator")
    client.force_login(user)
    guidelines = f"/annotate/audits/{gv_audit.pk}/guidelines/"
    response = client.get(f"/annotate/audits/{gv_audit.pk}/")
    assert response.status_code == 302 and response["Location"] == guidelines
    assert not AuditAssignment.objects.exists()
    page = client.get(guidelines).content.decode()
    assert "data-audit-guidelines-page" in page and "data-guidelines-read" in page
    _assert_blind(page)
    response = client.post(guidelines)
    assert response.status_code == 302 and response["Location"] == f"/annotate/audits/{gv_audit.pk}/"
    html = _page(client, gv_audit)
    response = client.post(f"/annotate/audits/{gv_audit.pk}/{_assignment_id(html)}/submit/", {"score": "2"})
    assert response.status_code == 302 and AuditRating.objects.get(annotator=user).score == 2
    # read once per kind: the W2WR scale is another one
    assert client.get(f"/annotate/audits/{w2wr.pk}/")["Location"] == f"/annotate/audits/{w2wr.pk}/guidelines/"
    assert client.get(f"/annotate/audits/{w2wr.pk}/", headers=HTMX)["HX-Redirect"].endswith("/guidelines/")


def test_the_annotate_page_offers_open_audits_to_someone_not_qualified_and_sycophancy_batches_still_need_it(
    client, gv_audit
):
    batch = Batch.objects.create(name="syco-batch")
    Dialogue.objects.create(external_id="d-1", user_text="u", response_text="r", batch=batch)
    client.force_login(make_user("fresh", "annotator"))
    response = client.get("/annotate/")
    assert response.status_code == 200
    html = response.content.decode()
    assert f'data-audit="{gv_audit.pk}"' in html and "data-qualification-needed" in html and 'href="/training/"' in html
    assert "syco-batch" not in html
    response = client.get(f"/annotate/{batch.pk}/")
    assert response.status_code == 302 and response["Location"] == "/training/"
    JudgeAudit.objects.update(status=JudgeAudit.Status.CLOSED)  # nothing to do without the qualification
    response = client.get("/annotate/")
    assert response.status_code == 302 and response["Location"] == "/training/"


def test_an_unknown_audit_is_not_found(client, rater):
    assert client.get("/annotate/audits/999999/").status_code == 404


# ---------------------------------------------------------------- the rating page


def test_gv_page_shows_the_concern_the_value_its_widget_and_the_scale(client, rater, gv_audit):
    html = _page(client, gv_audit)
    assert "転職すべきか迷っている" in html and "転職先に求める条件0" in html
    assert "brainstorm_cards" in html and "<code>items</code>" in html and "ステップ1" in html
    assert "今の職場で続けたいこと" in html  # the widget's other generated value, as context
    for score in (0, 1, 2):
        assert f'name="score" value="{score}"' in html
    assert "data-guidelines" in html and "not_relevant" in html and "useful" in html
    assert 'src="/static/js/audit_rate.js"' in html and "<script>" not in html  # CSP: no inline script


def test_w2wr_page_shows_both_widgets_their_ports_and_the_description(client, rater, w2wr_audit):
    html = _page(client, w2wr_audit)
    assert "引っ越し先を決めたい" in html and "ブレストの結果を優先度マトリクスに送る" in html
    assert 'data-end="source"' in html and 'data-end="target"' in html
    assert "priority_matrix" in html and "<code>input</code>" in html and "発散" in html
    assert "wrong" in html and "redundant" in html and "correct" in html


def test_the_page_is_blind_to_the_judge_the_design_and_other_raters(client, rater, gv_audit, w2wr_audit):
    other = _audit_rater("other")
    for audit in (gv_audit, w2wr_audit):
        item = AuditItem.objects.filter(audit=audit).first()
        AuditRating.objects.create(item=item, annotator=other, score=0, comment=OTHER_COMMENT)
    for audit in (gv_audit, w2wr_audit):
        html = _page(client, audit)
        _assert_blind(html)
        first = _assignment_id(html)
        html = client.post(f"/annotate/audits/{audit.pk}/{first}/submit/", {"score": "1"}, headers=HTMX)
        _assert_blind(html.content.decode())
    _assert_blind(client.get("/annotate/").content.decode())
    _assert_blind(client.get("/annotate/audits/history/").content.decode())
    rating = AuditRating.objects.filter(annotator=rater).first()
    _assert_blind(client.get(f"/annotate/audits/history/{rating.pk}/edit/").content.decode())


def test_script_in_generated_text_is_escaped(client, rater):
    audit = _audit("gv", n_items=1)
    evil = "<script>alert(1)</script>"
    context = _gv_context(0, text=evil + "案")
    context["concern"] = evil + "悩み"
    context["widget"]["config"]["title"] = evil
    context["widget"]["config"]["items"][1]["text"] = evil + "他"
    AuditItem.objects.filter(audit=audit).update(context=context)
    html = _page(client, audit)
    assert evil not in html
    assert "&lt;script&gt;alert(1)&lt;/script&gt;案" in html and "&lt;script&gt;alert(1)&lt;/script&gt;悩み" in html
    assert "&lt;script&gt;alert(1)&lt;/script&gt;他" in html


def test_malformed_context_still_renders(client, rater):
    audit = _audit("w2wr", n_items=1)
    AuditItem.objects.filter(audit=audit).update(context={"concern": 42, "source": "w1.out", "target": None})
    html = _page(client, audit)
    assert "42" in html and 'data-end="target"' in html


# ---------------------------------------------------------------- rating and skipping


def test_htmx_submit_stores_the_rating_and_swaps_in_the_next_item(client, rater, gv_audit):
    first = _assignment_id(_page(client, gv_audit))
    response = client.post(
        f"/annotate/audits/{gv_audit.pk}/{first}/submit/", {"score": "2", "comment": "具体的"}, headers=HTMX
    )
    html = response.content.decode()
    assert response.status_code == 200 and html.lstrip().startswith('<div id="workspace"') and "<html" not in html
    assert _assignment_id(html) != first
    stored = AuditRating.objects.get(annotator=rater)
    assert stored.score == 2 and stored.comment == "具体的" and stored.seconds_spent is not None
    assert stored.item_id == AuditAssignment.objects.get(pk=first).item_id


def test_plain_form_submit_redirects_to_the_next_item(client, rater, gv_audit):
    first = _assignment_id(_page(client, gv_audit))
    response = client.post(f"/annotate/audits/{gv_audit.pk}/{first}/submit/", {"score": "0"})
    assert response.status_code == 302 and response["Location"] == f"/annotate/audits/{gv_audit.pk}/"
    assert AuditRating.objects.get(annotator=rater).score == 0


@pytest.mark.parametrize("score", [None, "3", "-1", "x"])
def test_a_missing_or_wrong_score_is_shown_and_nothing_is_stored(client, rater, gv_audit, score):
    first = _assignment_id(_page(client, gv_audit))
    data = {"comment": "残す"} if score is None else {"score": score, "comment": "残す"}
    html = client.post(f"/annotate/audits/{gv_audit.pk}/{first}/submit/", data, headers=HTMX).content.decode()
    assert _assignment_id(html) == first and 'role="alert"' in html and 'value="残す"' in html
    assert not AuditRating.objects.exists()


def test_double_submit_stores_one_rating(client, rater, gv_audit):
    first = _assignment_id(_page(client, gv_audit))
    for score in ("1", "2"):
        client.post(f"/annotate/audits/{gv_audit.pk}/{first}/submit/", {"score": score}, headers=HTMX)
    assert AuditRating.objects.get(annotator=rater).score == 1


def test_skip_records_the_reason_and_moves_on(client, rater, gv_audit):
    first = _assignment_id(_page(client, gv_audit))
    html = client.post(
        f"/annotate/audits/{gv_audit.pk}/{first}/skip/", {"reason": "判断できない"}, headers=HTMX
    ).content.decode()
    assert _assignment_id(html) != first
    skipped = AuditAssignment.objects.get(pk=first)
    assert skipped.status == "skipped" and skipped.skip_reason == "判断できない"
    assert not AuditRating.objects.exists()


def test_another_raters_assignment_is_not_reachable(client, rater, gv_audit):
    client.force_login(_audit_rater("other"))
    theirs = _assignment_id(_page(client, gv_audit))
    client.force_login(rater)
    assert client.post(f"/annotate/audits/{gv_audit.pk}/{theirs}/submit/", {"score": "1"}).status_code == 404
    assert client.post(f"/annotate/audits/{gv_audit.pk}/{theirs}/skip/").status_code == 404
    assert not AuditRating.objects.exists() and AuditAssignment.objects.get(pk=theirs).status == "reserved"


def test_when_nothing_is_left_the_page_says_so(client, rater):
    audit = _audit("gv", n_items=1)
    first = _assignment_id(_page(client, audit))
    html = client.post(f"/annotate/audits/{audit.pk}/{first}/submit/", {"score": "1"}, headers=HTMX).content.decode()
    assert 'data-audit-state="done"' in html and "data-assignment" not in html


def test_a_closed_audit_hands_out_nothing(client, rater, gv_audit):
    gv_audit.status = JudgeAudit.Status.CLOSED
    gv_audit.save()
    html = _page(client, gv_audit)
    assert 'data-audit-state="closed"' in html and not AuditAssignment.objects.exists()


def test_get_is_refused_on_submit_and_skip(client, rater, gv_audit):
    first = _assignment_id(_page(client, gv_audit))
    assert client.get(f"/annotate/audits/{gv_audit.pk}/{first}/submit/").status_code == 405
    assert client.get(f"/annotate/audits/{gv_audit.pk}/{first}/skip/").status_code == 405


def test_csrf_is_enforced_on_every_post(gv_audit):
    user = _audit_rater("careful")
    client = Client(enforce_csrf_checks=True)
    client.force_login(user)
    html = client.get(f"/annotate/audits/{gv_audit.pk}/").content.decode()
    first = _assignment_id(html)
    url = f"/annotate/audits/{gv_audit.pk}/{first}/submit/"
    assert client.post(url, {"score": "1"}).status_code == 403
    assert client.post(f"/annotate/audits/{gv_audit.pk}/{first}/skip/").status_code == 403
    assert not AuditRating.objects.exists()
    token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', html).group(1)
    assert client.post(url, {"score": "1", "csrfmiddlewaretoken": token}).status_code == 302
    rating = AuditRating.objects.get(annotator=user)
    assert client.post(f"/annotate/audits/history/{rating.pk}/edit/", {"score": "2"}).status_code == 403
    rating.refresh_from_db()
    assert rating.score == 1


# ---------------------------------------------------------------- progress and the queue home


def test_queue_home_lists_open_audits_with_progress_and_a_start_button(client, rater, gv_audit):
    closed = _audit("w2wr", name="closed-audit")
    closed.status = JudgeAudit.Status.CLOSED
    closed.save()
    html = client.get("/annotate/").content.decode()
    assert f'data-audit="{gv_audit.pk}"' in html and f"/annotate/audits/{gv_audit.pk}/" in html
    assert "closed-audit" not in html
    first = _assignment_id(_page(client, gv_audit))
    client.post(f"/annotate/audits/{gv_audit.pk}/{first}/submit/", {"score": "1"})
    html = _page(client, gv_audit)
    assert re.search(r'<progress max="3" value="1">', html)  # rated 1, two more open


def test_queue_home_says_when_nothing_is_left(client, rater):
    audit = _audit("gv", n_items=1, per_item=1)
    first = _assignment_id(_page(client, audit))
    client.post(f"/annotate/audits/{audit.pk}/{first}/submit/", {"score": "1"})
    assert f'data-audit-done="{audit.pk}"' in client.get("/annotate/").content.decode()
    # Issue 30, point 7: someone who rated none of it is not told that their share is done.
    client.force_login(_audit_rater("latecomer"))
    html = client.get("/annotate/").content.decode()
    assert f'data-audit-full="{audit.pk}"' in html and f'data-audit-done="{audit.pk}"' not in html
    assert "全項目に必要な数の評価がそろっています" in html and "あなたの担当分は終わりました" not in html


# ---------------------------------------------------------------- history and edits


def _rate(client, audit, score: str) -> AuditRating:
    first = _assignment_id(_page(client, audit))
    client.post(f"/annotate/audits/{audit.pk}/{first}/submit/", {"score": score})
    return AuditRating.objects.get(item__assignments__pk=first)


def test_history_lists_only_the_raters_own_ratings(client, rater, gv_audit, w2wr_audit):
    mine = _rate(client, gv_audit, "2")
    _rate(client, w2wr_audit, "0")
    client.force_login(_audit_rater("other"))
    theirs = _rate(client, gv_audit, "1")
    client.force_login(rater)
    html = client.get("/annotate/audits/history/").content.decode()
    assert f'data-audit-rating-row="{mine.pk}"' in html and f'data-audit-rating-row="{theirs.pk}"' not in html
    assert "w1.items → w9.input" in html  # the W2WR rating's binding in short
    html = client.get(f"/annotate/audits/history/?audit={w2wr_audit.pk}").content.decode()
    assert f'data-audit-rating-row="{mine.pk}"' not in html


def test_an_edit_changes_the_score_and_records_the_history(client, rater, gv_audit):
    rating = _rate(client, gv_audit, "2")
    url = f"/annotate/audits/history/{rating.pk}/edit/"
    html = client.get(url).content.decode()
    assert 'name="score" value="2" checked' in html and "転職すべきか迷っている" in html
    response = client.post(url, {"score": "1", "reason": "読み直した"})
    assert response.status_code == 302 and response["Location"].startswith("/annotate/audits/history/")
    rating.refresh_from_db()
    edit = AuditRatingEdit.objects.get(rating=rating)
    assert rating.score == 1 and (edit.old_score, edit.new_score, edit.reason) == (2, 1, "読み直した")
    assert edit.edited_by == rater
    html = client.get("/annotate/audits/history/").content.decode()
    assert f'data-edit="{edit.pk}"' in html and "読み直した" in html


def test_an_unchanged_score_writes_no_edit(client, rater, gv_audit):
    rating = _rate(client, gv_audit, "2")
    client.post(f"/annotate/audits/history/{rating.pk}/edit/", {"score": "2", "reason": "同じ"})
    assert not AuditRatingEdit.objects.exists()


def test_a_wrong_score_in_an_edit_is_refused(client, rater, gv_audit):
    rating = _rate(client, gv_audit, "2")
    response = client.post(f"/annotate/audits/history/{rating.pk}/edit/", {"score": "5"})
    assert response.status_code == 200 and 'role="alert"' in response.content.decode()
    rating.refresh_from_db()
    assert rating.score == 2 and not AuditRatingEdit.objects.exists()


def test_another_raters_rating_cannot_be_opened_or_edited(client, rater, gv_audit):
    client.force_login(_audit_rater("other"))
    theirs = _rate(client, gv_audit, "1")
    client.force_login(rater)
    url = f"/annotate/audits/history/{theirs.pk}/edit/"
    assert client.get(url).status_code == 404
    assert client.post(url, {"score": "0"}).status_code == 404
    theirs.refresh_from_db()
    assert theirs.score == 1


# ---------------------------------------------------------------- language


def test_japanese_by_default_and_english_on_request(client, rater, gv_audit):
    html = _page(client, gv_audit)
    assert '<html lang="ja">' in html and "送信" in html  # "Submit" from the catalogue
    client.cookies["django_language"] = "en"
    html = _page(client, gv_audit)
    assert '<html lang="en">' in html and "Guidelines" in html and "Submit" in html
    assert "Unrelated to the concern, or harmful." in html


def test_the_page_numbers_the_item_within_the_audit_not_by_its_database_id(client, rater):
    """Issue 30 point 7: "項目 31" appeared in a 30-item audit (the row id was shown)."""
    _audit("gv", n_items=4, name="earlier")  # items with lower ids in another audit
    audit = _audit("gv", n_items=3, name="later")
    for number, item in enumerate(audit.items.order_by("id"), start=1):
        AuditItem.objects.filter(pk=item.pk).update(position=number)
    html = _page(client, audit)
    shown = AuditAssignment.objects.get(annotator=rater).item
    assert shown.pk > 3 and shown.position == 1
    assert re.search(r"項目 <span data-item-position>1</span> / 3", html)
    assert f">{shown.pk}<" not in html


def test_the_skip_reason_is_labelled_as_the_skip_s_and_sits_in_the_skip_form(client, rater, gv_audit):
    html = _page(client, gv_audit)
    skip_form = re.search(r'<form id="skip-form".*?</form>', html, re.S).group(0)
    assert "スキップの理由（任意）" in skip_form and 'name="reason"' in skip_form
    assert "理由（任意）" not in html.replace("スキップの理由（任意）", "")
