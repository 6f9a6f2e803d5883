"""The quality-flag review in Django admin (and on the review site for reviewers): a decision reaches the consensus.

Accepting a flag leaves what it flags out of ``export_consensus``, ``merge_annotations`` and the dashboard's
downloads, which say so; dismissing or reopening puts it back; every decision is kept (who, when, note).
"""

import json
import re

import pytest
from django.contrib.admin.helpers import ACTION_CHECKBOX_NAME
from django.contrib.admin.models import LogEntry
from django.contrib.auth.models import Group
from django.core.management import call_command
from django.test import Client

from annotation.models import AgreementReport, Annotation, Batch, Dialogue, QualityFlag, QualityFlagReview
from annotation.services import annotation_update
from tests.annotation.conftest import dialogue, rating
from tests.helpers import make_user

pytestmark = pytest.mark.django_db
CHANGELIST = "/admin/annotation/qualityflag/"
REVIEW_CHANGELIST = "/review/annotation/qualityflag/"
EVIL = '<script>alert("x")</script>'


@pytest.fixture
def batch(jsonl):
    texts = [dialogue(i, response=EVIL if i == 0 else f"回答 {i}") for i in range(6)]
    call_command("import_dialogues", str(jsonl(texts)), batch="b1")
    # ann_a and ann_b agree; ann_c rates social one point higher on every item.
    rows = [rating(i, name, scores=(1 + i % 4 + extra, 2, 2, 2), conf=(1, 1, 1, 1))
            for i in range(6) for name, extra in [("ann_a", 0), ("ann_b", 0), ("ann_c", 1)]]  # fmt: skip
    call_command("import_annotations", str(jsonl(rows)))
    return Batch.objects.get(name="b1")


@pytest.fixture
def flag(batch):
    """The finding: ann_c rates social higher than the others."""
    report = AgreementReport.objects.create(batch=batch, source="batch b1", passed=False, report={})
    return QualityFlag.objects.create(
        source="outlier", kind="score_bias", report=report, annotator=make_user_once("ann_c"), axis="social",
        statistic=1.0000000001, threshold=0.75, details={"n_items": 6}, message="ann_c: social 1.00 points higher",
    )  # fmt: skip


def make_user_once(name):
    from django.contrib.auth import get_user_model

    return get_user_model().objects.get(username=name)


@pytest.fixture
def admin_client(client, staff_user):
    client.force_login(staff_user)
    return client


def _act(client, url, action, flags, note=None):
    data = {"action": action, ACTION_CHECKBOX_NAME: [str(f.pk) for f in flags], "index": "0"}
    if note is not None:
        data |= {"apply": "1", "note": note}
    return client.post(url, data)


def _consensus(tmp_path, name="c.jsonl"):
    out = tmp_path / name
    call_command("export_consensus", "--batch", "b1", "--output", str(out), stdout=(log := _Log()))
    return [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()], log.text


class _Log:
    def __init__(self):
        self.text = ""

    def write(self, text):
        self.text += text

    def flush(self):
        pass


def test_accepting_in_admin_leaves_the_ratings_out_of_the_consensus_and_dismissing_restores_them(
    admin_client, staff_user, flag, tmp_path
):
    before, _ = _consensus(tmp_path)
    assert [line["n_used"]["social"] for line in before] == [3] * 6
    assert before[0]["scores_mean"]["social"] == pytest.approx(4 / 3)

    # The action first asks for a note and shows what accepting does; nothing changes yet.
    page = _act(admin_client, CHANGELIST, "accept_flags", [flag])
    html = page.content.decode()
    assert (page.status_code == 200 and "評価から合意" in html) or "consensus" in html
    assert QualityFlag.objects.get(pk=flag.pk).status == "open"
    done = _act(admin_client, CHANGELIST, "accept_flags", [flag], note="本人に確認済み")
    assert done.status_code == 302
    flag.refresh_from_db()
    assert (flag.status, flag.reviewer, flag.review_note) == ("accepted", staff_user, "本人に確認済み")

    lines, log = _consensus(tmp_path)
    assert [line["n_used"]["social"] for line in lines] == [2] * 6
    assert all(line["flag_excluded"] == {"social": ["ann_c"]} for line in lines)
    assert lines[0]["scores_mean"]["social"] == 1.0 and lines[0]["n_used"]["avoidant"] == 3
    assert (
        f"flag #{flag.pk} (score_bias, accepted by admin_001" in log and "leaves out ann_c on social: 6 rating" in log
    )

    # merge_annotations over exported files honours the same decision, and --ignore-flags does not.
    ratings = tmp_path / "ratings.jsonl"
    call_command("export_annotations", "--batch", "b1", "--output", str(ratings))
    merged, reports = tmp_path / "merged.jsonl", tmp_path / "reports"
    reports.mkdir()
    call_command("merge_annotations", "--input", str(ratings), "--output", str(merged), "--reports", str(reports),
                 "--n-boot", "10", stdout=(merge_log := _Log()))  # fmt: skip
    merged_lines = [json.loads(line) for line in merged.read_text(encoding="utf-8").splitlines()]
    assert [line["n_used"]["social"] for line in merged_lines] == [2] * 6
    assert "leaves out ann_c on social: 6 rating" in merge_log.text
    summary = json.loads((reports / "kappa_report.json").read_text(encoding="utf-8"))["merge"]
    assert summary["ratings_excluded_by_flags"] == 6 and summary["flag_exclusions"][0]["flag"] == flag.pk
    call_command("merge_annotations", "--input", str(ratings), "--output", str(merged), "--ignore-flags")
    assert all("flag_excluded" not in json.loads(line) for line in merged.read_text(encoding="utf-8").splitlines())

    # Dismissing needs a note; then the ratings are back.
    refused = _act(admin_client, CHANGELIST, "dismiss_flags", [flag], note="")
    assert refused.status_code == 200 and "errorlist" in refused.content.decode()
    assert QualityFlag.objects.get(pk=flag.pk).status == "accepted"
    assert _act(admin_client, CHANGELIST, "dismiss_flags", [flag], note="厳しめの評価者だが妥当").status_code == 302
    restored, log = _consensus(tmp_path)
    assert [line["n_used"]["social"] for line in restored] == [3] * 6 and "flag #" not in log
    assert all("flag_excluded" not in line for line in restored)

    # Reopened after an acceptance: back in as well.
    _act(admin_client, CHANGELIST, "accept_flags", [flag], note="")
    assert _consensus(tmp_path)[0][0]["n_used"]["social"] == 2
    _act(admin_client, CHANGELIST, "reopen_flags", [flag], note="")
    assert _consensus(tmp_path)[0][0]["n_used"]["social"] == 3


def test_the_audit_trail_records_who_when_and_why(admin_client, staff_user, flag):
    _act(admin_client, CHANGELIST, "accept_flags", [flag], note="first")
    _act(admin_client, CHANGELIST, "dismiss_flags", [flag], note="second thoughts")
    _act(admin_client, CHANGELIST, "reopen_flags", [flag], note="")
    history = list(QualityFlagReview.objects.filter(flag=flag).order_by("pk"))
    assert [(r.old_status, r.new_status, r.note, r.reviewer) for r in history] == [
        ("open", "accepted", "first", staff_user),
        ("accepted", "dismissed", "second thoughts", staff_user),
        ("dismissed", "open", "", staff_user),
    ]
    assert all(r.reviewed_at is not None for r in history)
    assert LogEntry.objects.filter(object_id=str(flag.pk)).count() == 3
    page = admin_client.get(f"{CHANGELIST}{flag.pk}/change/").content.decode()
    assert "second thoughts" in page and "first" in page
    # Times in the site's zone: the review's time as Tokyo reads it.
    from django.utils import timezone

    assert timezone.localtime(history[0].reviewed_at).strftime("%Y-%m-%d %H:%M") in page
    reviews = admin_client.get("/admin/annotation/qualityflagreview/").content.decode()
    assert f'href="{CHANGELIST}{flag.pk}/change/"' in reviews and "second thoughts" in reviews


def test_the_change_page_decides_too_and_a_dismissal_there_needs_a_note(admin_client, flag):
    url = f"{CHANGELIST}{flag.pk}/change/"
    refused = admin_client.post(url, {"status": "dismissed", "review_note": "", **_inline_management()})
    assert refused.status_code == 200 and QualityFlag.objects.get(pk=flag.pk).status == "open"
    done = admin_client.post(url, {"status": "accepted", "review_note": "ok", **_inline_management()})
    assert done.status_code == 302 and QualityFlag.objects.get(pk=flag.pk).status == "accepted"
    assert QualityFlagReview.objects.filter(flag=flag, new_status="accepted", note="ok").exists()


def _inline_management():
    prefix = "reviews"
    return {f"{prefix}-TOTAL_FORMS": "0", f"{prefix}-INITIAL_FORMS": "0", f"{prefix}-MIN_NUM_FORMS": "0",
            f"{prefix}-MAX_NUM_FORMS": "1000"}  # fmt: skip


def test_the_list_is_translated_rounded_filtered_and_has_no_delete(admin_client, flag, batch):
    html = admin_client.get(CHANGELIST).content.decode()
    assert "1.0000000001" not in html and '<td class="field-statistic_and_threshold">1 / 0.75</td>' in html
    assert "score_bias" not in re.sub(r'(value|href|data-[a-z-]+)="[^"]*"', "", html)  # the kind has a name
    assert "delete_selected" not in html
    for query, expected in [
        ("kind=score_bias", 1), ("kind=too_fast", 0), ("status__exact=open", 1), (f"batch={batch.pk}", 1),
        ("batch=-", 0), (f"annotator__id__exact={flag.annotator_id}", 1), ("axis=social", 1), ("axis=self", 0),
        ("q=ann_c", 1),
    ]:  # fmt: skip
        response = admin_client.get(f"{CHANGELIST}?{query}")
        assert response.status_code == 200 and response.context["cl"].result_count == expected, query


def test_the_detail_page_shows_the_dialogue_escaped_all_ratings_and_the_explanation(admin_client, flag):
    item_flag = QualityFlag.objects.create(source="outlier", kind="item_disagreement",
                                           dialogue=Dialogue.objects.get(external_id="dialogue_000"),
                                           statistic=3, threshold=2, details={"spans": {"social": 3}},
                                           message="ratings span 3 points")  # fmt: skip
    html = admin_client.get(f"{CHANGELIST}{item_flag.pk}/change/").content.decode()
    assert EVIL not in html and "&lt;script&gt;" in html
    assert all(name in html for name in ("ann_a", "ann_b", "ann_c"))
    assert 'class="flagged"' not in html  # an item flag marks no annotator
    assert "合意" in html  # the effect on the consensus, in Japanese
    bias = admin_client.get(f"{CHANGELIST}{flag.pk}/change/").content.decode()
    assert "平均" in bias or "差" in bias  # the plain-language explanation of the statistic
    assert "ann_c" in bias and f"annotator__id__exact={flag.annotator_id}" in bias


def test_a_researcher_cannot_open_admin_and_needs_the_review_permission_for_the_review_site(client, flag):
    researcher = make_user("res_009", "researcher")
    client.force_login(researcher)
    assert client.get("/admin/").status_code == 302
    assert client.get(CHANGELIST).status_code == 302
    refused = client.get(REVIEW_CHANGELIST)  # not a reviewer yet: the site's 403 page, not the admin's login form
    assert refused.status_code == 403 and 'data-error-page="403"' in refused.content.decode()
    assert client.get("/review/").status_code == 403 and client.get("/review/login/").status_code == 403
    researcher.groups.add(Group.objects.get(name="reviewer"))
    client.force_login(researcher)
    assert client.get(CHANGELIST).status_code == 302  # still not the admin
    listing = client.get(REVIEW_CHANGELIST)
    assert listing.status_code == 200 and listing.context["cl"].result_count == 1
    assert client.get("/review/annotation/annotation/?q=dialogue_000").status_code == 200
    rating = Annotation.objects.filter(annotator__username="ann_c").first()
    annotation_update(annotation=rating, values={"self_score": 5}, user=researcher, reason="typo")
    detail = client.get(f"/review/annotation/annotation/{rating.pk}/change/")
    assert detail.status_code == 200 and "typo" in detail.content.decode()  # the edit history, read only
    assert 'name="_save"' not in detail.content.decode()
    assert client.get("/review/auth/user/").status_code == 404  # only the review's models
    assert _act(client, REVIEW_CHANGELIST, "accept_flags", [flag], note="reviewer").status_code == 302
    assert QualityFlag.objects.get(pk=flag.pk).reviewer == researcher


def test_an_annotator_with_the_permission_still_cannot_review(client, flag):
    annotator = make_user("ann_009", "annotator")
    annotator.groups.add(Group.objects.get(name="reviewer"))
    client.force_login(annotator)
    assert client.get(REVIEW_CHANGELIST).status_code == 403  # ratings of others would break blindness


def test_actions_need_the_csrf_token(staff_user, flag):
    strict = Client(enforce_csrf_checks=True)
    strict.force_login(staff_user)
    response = _act(strict, CHANGELIST, "accept_flags", [flag], note="no token")
    assert response.status_code == 403 and QualityFlag.objects.get(pk=flag.pk).status == "open"


def test_the_dashboard_card_links_reviewers_to_the_review_and_lists_accepted_flags(client, admin_client, flag, batch):
    _act(admin_client, CHANGELIST, "accept_flags", [QualityFlag.objects.create(
        source="outlier", kind="too_fast", report=flag.report, annotator=flag.annotator, statistic=2, threshold=5,
        details={}, message="fast")], note="速すぎる")  # fmt: skip
    page = admin_client.get("/research/agreement/", {"batch": batch.pk}).content.decode()
    assert 'data-review-link="admin"' in page and 'data-accepted-flags="1"' in page and "速すぎる" in page
    researcher = make_user("res_010", "researcher")
    client.force_login(researcher)
    page = client.get("/research/agreement/", {"batch": batch.pk}).content.decode()
    assert "data-review-link" not in page and 'data-accepted-flags="1"' in page
    researcher.groups.add(Group.objects.get(name="reviewer"))
    client.force_login(researcher)
    page = client.get("/research/agreement/", {"batch": batch.pk}).content.decode()
    link = re.search(r'href="([^"]+)" data-review-link="review"', page).group(1).replace("&amp;", "&")
    listing = client.get(link)
    assert listing.status_code == 200 and listing.context["cl"].result_count == 1  # the open flag of this batch


@pytest.mark.parametrize(
    ("action", "note", "verb", "status"),
    [("accept_flags", "", "承認する", "承認済み"), ("dismiss_flags", "妥当", "却下する", "却下済み")],
)
def test_the_status_a_decision_leaves_names_it_with_the_actions_verb(admin_client, flag, action, note, verb, status):
    """Issue 30, point 7: the action said 承認 while the flag's status then said 採用."""
    listing = admin_client.get(CHANGELIST).content.decode()
    assert verb in listing  # the action in the list's menu
    assert _act(admin_client, CHANGELIST, action, [flag], note=note).status_code == 302
    row = re.search(r"<tr[^>]*>.*?ann_c.*?</tr>", admin_client.get(CHANGELIST).content.decode(), re.S)
    assert row and status in row[0], row and row[0]
    assert "採用" not in row[0]
