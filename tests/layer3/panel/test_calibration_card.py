"""The judge-calibration card on the Layer3 batch page, its downloads and the "Create audit" form (issue 18)."""

import json
import re

import pytest
from django.urls import NoReverseMatch, reverse

from layer3.models import Batch
from layer3.panel import reads
from tests.layer3.calibration_fixture import SCRIPT, gv_report, hostile, w2wr_report

pytestmark = pytest.mark.django_db


@pytest.fixture
def batch():
    return Batch.objects.create(name="pilot", experiment_id="exp-1")


@pytest.fixture
def as_researcher(client, researcher, settings):
    """A researcher reading the page in English (Japanese, the default, is checked on its own)."""
    client.force_login(researcher)
    client.cookies[settings.LANGUAGE_COOKIE_NAME] = "en"
    return client


@pytest.fixture
def create_url(monkeypatch):
    """annotation's "Create audit" view, whether or not that app offers it yet."""
    monkeypatch.setattr(reads, "audit_create_url", lambda: "/research/audits/new/")
    return "/research/audits/new/"


def page(client, batch):
    response = client.get(reverse("layer3:batch", args=[batch.pk]))
    assert response.status_code == 200
    return response.content.decode()


def card(html, kind):
    start = html.index(f'data-calibration="{kind}"')
    end = html.find("<article", start)
    return html[start : end if end != -1 else len(html)]


def text(fragment):
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", fragment))


def test_the_card_shows_the_headline_rounded_and_the_rate_correction(as_researcher, batch, calibration):
    calibration["pilot"] = [gv_report()]
    html = page(as_researcher, batch)
    gv = card(html, "gv")
    headline = text(gv[gv.index("data-headline") : gv.index("l3-cal-sub")])
    assert "κ 0.71 [0.64, 0.78]" in headline and "0.74" in headline and "0.7134" not in html
    assert "gpt-4o-mini @ layer3.gv_relevance@1" in gv
    rate = text(gv[gv.index('data-rate="usefulRate"') : gv.index("l3-cal-grid")])
    assert "62.0%" in rate and "55.0% [47.0%, 63.0%]" in rate
    progress = text(gv[gv.index("l3-cal-progress") : gv.index("data-headline")])
    assert "180 of 200 items rated, 150 complete (3 ratings per item)" in progress
    assert "510 ratings by 3 annotators: ann_001, ann_002, ann_003" in progress
    assert '<progress max="200" value="180"' in gv


def test_the_details_show_judges_people_annotators_bias_and_the_floor(as_researcher, batch, calibration):
    calibration["pilot"] = [gv_report()]
    gv = card(page(as_researcher, batch), "gv")
    judges = text(gv[gv.index("data-judges") : gv.index("data-humans")])
    assert "0.68 [0.60, 0.76]" in judges and "0.77 [0.71, 0.83]" in judges  # κ and AC2 vs the consensus
    assert "76.1% [69.4%, 82.2%]" in judges and "74.4% [67.2%, 81.0%]" in judges  # exact, reweighted
    assert "data-floor" in gv and "0.31 [0.20, 0.42]" in judges  # the offline baseline's row
    humans = text(gv[gv.index("data-humans") : gv.index("data-rate-table")])
    assert "0.73 [0.66, 0.79]" in humans and "69.3% [64.0%, 74.3%]" in humans and "ann_001 × ann_002" in humans
    annotators = gv[gv.index("data-annotators") : gv.index("data-confusion")]
    assert "0.72 [0.64, 0.80]" in text(annotators)
    assert 'title="only 1 common item(s); at least 2 needed"' in annotators  # an undefined κ says why
    bias = text(gv[gv.index("data-bias") : gv.index("data-disagreements")])
    assert "+0.14 [+0.02, +0.25]" in bias and "-0.06 [-0.17, +0.06]" in bias


def test_the_confusion_matrix_is_a_heat_map_with_counts_labels_and_a_caption(as_researcher, batch, calibration):
    calibration["pilot"] = [gv_report()]
    gv = card(page(as_researcher, batch), "gv")
    table = gv[gv.index("data-confusion") : gv.index("</table>", gv.index("data-confusion"))]
    counts = re.findall(r'class="l3-heat-cell l3-heat-(\d)( l3-heat-agree)?" data-count="(\d+)">(\d+)</td>', table)
    assert [int(c[3]) for c in counts] == [31, 8, 2, 6, 52, 11, 1, 9, 60]
    assert [bool(c[1]) for c in counts] == [True, False, False, False, True, False, False, False, True]
    assert counts[8][0] == "5" and counts[6][0] == "1"
    assert "<caption" in table and "180 in all" in table
    assert table.count("Not relevant") == 2 and table.count("Useful") == 2  # both axes, in words
    assert "Human consensus" in table and "Judge" in table


def test_a_batch_judged_offline_shows_its_baseline_judge_in_detail(as_researcher, batch, calibration):
    report = w2wr_report()
    report["baseline"], report["judges"] = {**report["judges"][0], "model": "baseline", "baseline": True}, []
    report["baseline"]["vsHumans"]["kappa"] = {"value": None, "ci": None, "reason": "no common items"}
    calibration["pilot"] = [report]
    w2wr = card(page(as_researcher, batch), "w2wr")
    assert "data-confusion" in w2wr and "data-floor" in w2wr
    assert "data-judge-reason" in w2wr and "κ is undefined: no common items" in w2wr


def test_hostile_text_is_escaped_and_the_reasoning_is_collapsible(as_researcher, batch, calibration):
    calibration["pilot"] = [hostile(gv_report())]
    html = page(as_researcher, batch)
    assert SCRIPT not in html and "<b>交渉</b>" not in html
    assert "&lt;script&gt;alert(1)&lt;/script&gt; &amp; 50% | snake_case" in html
    assert "gpt|4_o %&amp; &lt;script&gt;" in html
    disagreements = card(html, "gv")[card(html, "gv").index("data-disagreements") - 60 :]
    assert disagreements.count("<details") >= 1 and "2 items, with the judge" in disagreements
    assert 'data-disagreement="A-00003:g2"' in disagreements and "0, 0, 1" in disagreements


def test_the_newest_audit_of_each_kind_gets_a_card_and_older_ones_their_downloads(as_researcher, batch, calibration):
    calibration["pilot"] = [gv_report(audit_id=9), w2wr_report(audit_id=8), gv_report(audit_id=3)]
    html = page(as_researcher, batch)
    assert re.findall(r'data-calibration="(\w+)" data-audit="(\d+)"', html) == [("gv", "9"), ("w2wr", "8")]
    assert (
        'data-older-audit="3"' in html and reverse("layer3:calibration-download", args=[batch.pk, 3, "latex"]) in html
    )
    w2wr = card(html, "w2wr")
    assert "W2WR correctness rate" in w2wr and "data-floor" not in w2wr
    human = w2wr[w2wr.index("data-human-kappa") : w2wr.index("</strong>", w2wr.index("data-human-kappa"))]
    assert "–" in human and "no item has two or more ratings" in human  # undefined, with the reason
    for fmt in ("json", "markdown", "latex"):
        assert reverse("layer3:calibration-download", args=[batch.pk, 9, fmt]) in html


def test_without_an_audit_the_page_explains_and_offers_the_create_form(as_researcher, batch, calibration, create_url):
    html = page(as_researcher, batch)
    assert "data-calibration-empty" in html and "No judge audit of this batch yet" in html
    form = html[html.index("data-audit-form") - 80 : html.index("</form>", html.index("data-audit-form"))]
    assert f'action="{create_url}"' in form and 'method="post"' in form and "csrfmiddlewaretoken" in form
    assert 'name="batch" value="pilot"' in form
    assert '<option value="gv">' in form and '<option value="w2wr">' in form
    assert 'name="size" value="200"' in form and 'name="per_item" value="3"' in form


def test_with_audits_the_form_is_offered_again_as_a_new_audit(as_researcher, batch, calibration, create_url):
    calibration["pilot"] = [gv_report()]
    html = page(as_researcher, batch)
    assert "data-calibration-empty" not in html and "New audit" in html and f'action="{create_url}"' in html


def test_the_form_is_left_out_while_annotation_offers_no_create_view(as_researcher, batch, calibration, monkeypatch):
    def missing(name, *args, **kwargs):
        raise NoReverseMatch(name)

    monkeypatch.setattr(reads, "reverse", missing)
    assert reads.audit_create_url() is None
    html = page(as_researcher, batch)
    assert "No judge audit of this batch yet" in html and "data-audit-form" not in html


def test_the_card_is_on_the_japanese_page_too(client, researcher, batch, calibration):
    calibration["pilot"] = [gv_report()]
    client.force_login(researcher)
    html = page(client, batch)
    assert '<html lang="ja">' in html and 'data-calibration="gv"' in html and "0.71" in html


def test_downloads_serve_the_report_as_json_markdown_and_latex(as_researcher, batch, calibration):
    calibration["pilot"] = [gv_report(), w2wr_report()]
    url = reverse("layer3:calibration-download", args=[batch.pk, 7, "json"])
    response = as_researcher.get(url)
    assert response.status_code == 200 and response["Content-Type"] == "application/json"
    assert 'filename="layer3-pilot-calibration-7.json"' in response["Content-Disposition"]
    assert json.loads(response.content) == gv_report()
    markdown = as_researcher.get(reverse("layer3:calibration-download", args=[batch.pk, 5, "markdown"]))
    assert markdown["Content-Type"].startswith("text/markdown")
    assert markdown.content.decode().startswith("# Judge calibration: pilot W2WR audit")
    latex = as_researcher.get(reverse("layer3:calibration-download", args=[batch.pk, 7, "latex"]))
    assert "\\begin{tabular}" in latex.content.decode() and latex["Content-Type"] == "application/x-tex"


def test_downloads_of_an_unknown_audit_or_format_are_404(as_researcher, batch, calibration):
    calibration["pilot"] = [gv_report()]
    assert as_researcher.get(reverse("layer3:calibration-download", args=[batch.pk, 99, "json"])).status_code == 404
    assert as_researcher.get(reverse("layer3:calibration-download", args=[batch.pk, 7, "csv"])).status_code == 404
    assert as_researcher.get(reverse("layer3:calibration-download", args=[batch.pk + 1, 7, "json"])).status_code == 404


def test_annotators_get_403_and_anonymous_users_the_login_page(client, annotator, batch, calibration):
    calibration["pilot"] = [gv_report()]
    urls = [
        reverse("layer3:batch", args=[batch.pk]),
        reverse("layer3:calibration-download", args=[batch.pk, 7, "json"]),
    ]
    for url in urls:
        response = client.get(url)
        assert response.status_code == 302 and "/login/" in response["Location"], url
    client.force_login(annotator)
    for url in urls:
        assert client.get(url).status_code == 403, url


def test_an_audit_nobody_has_rated_yet_shows_its_progress_and_waits(as_researcher, batch, calibration):
    report = gv_report()
    report["audit"].update(ratings=0, ratedItems=0, completeItems=0, annotators=[])
    calibration["pilot"] = [report]
    gv = card(page(as_researcher, batch), "gv")
    assert "data-calibration-waiting" in gv and "0 of 200 items rated" in text(gv)
    assert "data-headline" not in gv and "data-judges" not in gv


def test_the_audit_time_is_shown_in_the_sites_time_zone(as_researcher, batch, calibration):
    report = gv_report()
    report["audit"]["createdAt"] = "2026-11-27T06:28:41.5+00:00"  # as annotation writes it: UTC
    calibration["pilot"] = [report]
    gv = card(page(as_researcher, batch), "gv")
    assert '<time datetime="2026-11-27T06:28:41.5+00:00">2026-11-27 15:28</time>' in gv  # Asia/Tokyo
