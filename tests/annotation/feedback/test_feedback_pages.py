"""The monthly feedback pages: who sees what, what the page shows, CSV export, escaping, storing a month."""

from __future__ import annotations

import csv
import io
from datetime import date

import pytest
from django.urls import reverse

from annotation.feedback.selectors import compute_month_with_trend

N_BOOT = 200


@pytest.fixture(autouse=True)
def _few_replicates(settings):
    settings.AGREEMENT_MONITOR_N_BOOT = N_BOOT


def page(name: str, year: int = 2026, month: int = 3) -> str:
    return reverse("annotation:feedback-annotator", args=[year, month, name])


def overview(name: str = "feedback-overview", year: int = 2026, month: int = 3) -> str:
    return reverse(f"annotation:{name}", args=[year, month])


def test_an_annotator_sees_their_own_page_with_the_engines_figures(client, feedback_data):
    client.force_login(feedback_data.users["ann_a"])
    response = client.get(page("ann_a"))
    assert response.status_code == 200
    expected = compute_month_with_trend(date(2026, 3, 1), n_boot=N_BOOT)["people"]["ann_a"]
    rows = {row["axis"]: row for row in response.context["axis_rows"]}
    for axis, row in rows.items():
        assert row["vs_consensus"]["kappa"] == pytest.approx(expected["axes"][axis]["vs_consensus"]["kappa"], abs=1e-9)
        assert row["bias"]["mean"] == pytest.approx(expected["axes"][axis]["bias"]["mean"], abs=1e-9)
    html = response.content.decode()
    assert f"{expected['axes']['social']['vs_consensus']['kappa']:.3f}" in html
    assert "talk about praise" in html  # the March flag's review
    assert f'data-flag="{feedback_data.flag_march.pk}"' in html
    assert f'data-flag="{feedback_data.flag_february.pk}"' not in html  # raised in February
    assert 'data-source="live"' in html  # not prepared yet: computed now


def test_another_annotators_page_does_not_exist_for_an_annotator(client, feedback_data):
    client.force_login(feedback_data.users["ann_a"])
    assert client.get(page("ann_b")).status_code == 404
    assert client.get(page("nobody_at_all")).status_code == 404
    for name in ("feedback-overview", "feedback-print", "feedback-csv"):
        assert client.get(overview(name)).status_code == 403
    assert client.post(overview("feedback-prepare")).status_code == 403


def test_a_researcher_sees_every_annotators_page_and_the_overview(client, feedback_data):
    client.force_login(feedback_data.researcher)
    for name in feedback_data.users:
        assert client.get(page(name)).status_code == 200
    response = client.get(overview())
    assert response.status_code == 200
    assert [row["name"] for row in response.context["rows"]] == ["ann_a", "ann_b", "ann_c", "ann_d"]
    html = response.content.decode()
    assert html.count('class="heatmap"') == 4  # one heat map per axis, the dashboard's partial
    assert client.get(overview("feedback-print")).status_code == 200


def test_anonymous_visitors_are_sent_to_the_login_page(client, feedback_data):
    for url in (page("ann_a"), overview(), overview("feedback-csv"), reverse("annotation:feedback")):
        response = client.get(url)
        assert response.status_code == 302 and response["Location"].startswith(reverse("login"))


def test_a_user_without_a_role_is_refused(client, feedback_data, outsider):
    client.force_login(outsider)
    assert client.get(reverse("annotation:feedback")).status_code == 403
    assert client.get(page("nobody")).status_code == 404


def test_the_feedback_link_opens_the_overview_for_researchers_and_ones_own_page_for_annotators(client, feedback_data):
    client.force_login(feedback_data.researcher)
    assert client.get(reverse("annotation:feedback") + "?month=2026-03")["Location"] == overview()
    client.force_login(feedback_data.users["ann_b"])
    assert client.get(reverse("annotation:feedback") + "?month=2026-03&annotator=ann_a")["Location"] == page("ann_b")


def test_the_navigation_shows_each_role_its_feedback_link(client, feedback_data):
    client.force_login(feedback_data.users["ann_a"])
    html = client.get(page("ann_a")).content.decode()
    assert 'data-nav="my-feedback"' in html and 'data-nav="feedback"' not in html
    client.force_login(feedback_data.researcher)
    html = client.get(overview()).content.decode()
    assert 'data-nav="feedback"' in html and 'data-nav="my-feedback"' not in html


SCRIPT = "<script>alert('feedback')</script>"


def test_an_item_text_with_a_script_tag_is_shown_escaped(client, feedback_data):
    from annotation.models import Dialogue

    client.force_login(feedback_data.users["ann_a"])
    top = client.get(page("ann_a")).context["differences"][0]["item"]
    Dialogue.objects.filter(external_id=top).update(user_text=f"{SCRIPT} 質問")
    response = client.get(page("ann_a"))
    html = response.content.decode()
    assert SCRIPT not in html
    assert "&lt;script&gt;alert(&#x27;feedback&#x27;)&lt;/script&gt;" in html


def test_the_csv_neutralises_a_formula_in_an_annotator_name(client, feedback_data):
    from annotation.models import Annotation

    feedback_data.users["ann_d"].username = '=HYPERLINK("http://x")'
    feedback_data.users["ann_d"].save()
    client.force_login(feedback_data.researcher)
    response = client.get(overview("feedback-csv"))
    assert response.status_code == 200 and response["Content-Type"].startswith("text/csv")
    rows = list(csv.reader(io.StringIO(response.content.decode("utf-8-sig"))))
    names = [row[1] for row in rows[1:]]
    assert names == ['\'=HYPERLINK("http://x")', "ann_a", "ann_b", "ann_c"]
    assert all(not cell.lstrip().startswith(("=", "+", "@")) for row in rows for cell in row)
    header = rows[0]
    a = dict(zip(header, rows[2], strict=True))
    assert int(a["ratings"]) == Annotation.objects.filter(annotator__username="ann_a", created_at__month=3).count()
    assert a["flags"] == "1" and a["flags_accepted"] == "1"


def test_storing_a_month_by_hand_keeps_one_row_and_the_page_then_reads_it(client, feedback_data):
    from annotation.models import MonthlyFeedback

    client.force_login(feedback_data.researcher)
    for _ in range(2):
        response = client.post(overview("feedback-prepare"), {"next": overview()})
        assert response.status_code == 302 and response["Location"] == overview()
    row = MonthlyFeedback.objects.get()
    assert row.month == date(2026, 3, 1) and row.prepared_by == feedback_data.researcher
    html = client.get(overview()).content.decode()
    assert 'data-source="prepared"' in html


def test_a_month_without_ratings_says_so(client, feedback_data):
    client.force_login(feedback_data.researcher)
    response = client.get(overview(year=2025, month=11))
    assert response.status_code == 200 and 'data-empty="month"' in response.content.decode()
    assert client.get(overview(year=2025, month=13)).status_code == 404


def test_the_pages_and_the_csv_say_how_the_intervals_were_computed_and_how_often_they_cover(client, feedback_data):
    """Seed 000 B.3.2 reports state their method: percentile bootstrap over items, its replicates and level, and
    the simulated coverage of such an interval for two columns at the month's median number of items."""
    from annotation.aggregation.agreement.coverage import Design, sets_for, simulate_coverage
    from annotation.feedback.selectors import ci_design
    from annotation.feedback.services import feedback_month_prepare
    from annotation.models import MonthlyFeedback

    content = compute_month_with_trend(date(2026, 3, 1), n_boot=N_BOOT)
    design = ci_design(content)
    sizes = sorted(
        f["vs_consensus"]["n_items"] for p in content["people"].values() for f in p["axes"].values()
    )  # fmt: skip
    assert design == Design(n_items=int(sizes[len(sizes) // 2]), n_raters=2, raters_per_item=2, n_boot=N_BOOT)
    expected = simulate_coverage(design, n_sets=sets_for(design.n_items)).as_json()
    assert content["ci_coverage"]["percentile"] == expected

    client.cookies["django_language"] = "en"
    client.force_login(feedback_data.researcher)
    for url in (overview(), page("ann_a")):
        html = client.get(url).content.decode()
        assert f'data-ci-replicates="{N_BOOT}"' in html and 'data-ci-method="percentile"' in html
        assert "percentile bootstrap" in html and "resampling unit: items" in html
        assert f'data-ci-coverage="{expected["rate"]:.4f}"' in html
    rows = list(csv.reader(io.StringIO(client.get(overview("feedback-csv")).content.decode("utf-8-sig"))))
    first = dict(zip(rows[0], rows[1], strict=True))
    assert (first["ci_method"], first["ci_replicates"], first["ci_unit"]) == ("percentile", str(N_BOOT), "items")
    assert float(first["ci_coverage"]) == expected["rate"] and "Simulated coverage" in first["ci_statement"]

    # A prepared month keeps its coverage: the page reads it from the stored row, with no new simulation.
    feedback_month_prepare(month=date(2026, 3, 1))
    assert MonthlyFeedback.objects.get().content["ci_coverage"]["percentile"] == expected
