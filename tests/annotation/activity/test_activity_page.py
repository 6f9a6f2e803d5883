"""The activity page: the plot and the tables show the same numbers; roles; escaping; time zone; empty state."""

import re
from datetime import timedelta
from html.parser import HTMLParser

import pytest
from django.contrib.auth.models import User

from annotation.activity.selectors import batch_activity
from annotation.models import Annotation, Batch

pytestmark = pytest.mark.django_db


def url(batch) -> str:
    return f"/research/batches/{batch.pk}/activity/"


@pytest.fixture
def researcher_client(client, researcher):
    client.force_login(researcher)
    client.cookies["django_language"] = "en"  # assert on the English msgids whatever the catalogue holds
    return client


class _Collector(HTMLParser):
    """Plot points (annotator, day, n) and the per-day table's cells (annotator column, day, n)."""

    def __init__(self):
        super().__init__()
        self.series, self.points, self.columns, self.cells, self.summary = None, [], [], [], {}
        self._in, self._row, self._col, self._text, self._summary_row = None, None, 0, "", None

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "g" and "data-annotator" in a:
            self.series = a["data-annotator"]
        elif tag == "rect" and self.series is not None and "data-n" in a:
            self.points.append((self.series, a["data-day"], int(a["data-n"])))
        elif tag == "table":
            self._in = "per-day" if "per-day-table" in a.get("class", "") else a.get("class")
        elif tag == "tr" and self._in == "per-day":
            self._row, self._col = a.get("data-day"), 0
        elif tag == "tr" and "data-annotator" in a:
            self._summary_row = a["data-annotator"]
        elif tag in ("td", "th") and self._in == "per-day":
            self._text = ""
        elif tag == "td" and self._summary_row and "data-col" in a:
            self._text, self._col_name = "", a["data-col"]

    def handle_data(self, data):
        self._text += data

    def handle_endtag(self, tag):
        if tag == "svg":
            self.series = None
        elif tag == "table":
            self._in = None
        elif tag == "tr":
            self._summary_row = None
        elif tag == "th" and self._in == "per-day" and self._row is None:
            self.columns.append(self._text.strip())
        elif tag == "td" and self._in == "per-day" and self._row:
            self._col += 1
            if self._col <= len(self.columns) - 2:
                self.cells.append((self.columns[self._col], self._row, int(self._text)))
        elif tag == "td" and self._summary_row:
            self.summary.setdefault(self._summary_row, {})[self._col_name] = " ".join(self._text.split())


def _parse(html: str) -> _Collector:
    collector = _Collector()
    collector.feed(html)
    return collector


def test_plot_and_tables_show_the_same_numbers(researcher_client, activity_batch, today):
    response = researcher_client.get(url(activity_batch))
    assert response.status_code == 200
    page = _parse(response.content.decode())
    d = today - timedelta(days=3)
    expected = {
        ("ann_a", d, 1), ("ann_a", d + timedelta(days=1), 5), ("ann_b", d, 3), ("ann_b", d + timedelta(days=2), 3),
        ("ann_c", d + timedelta(days=1), 4),
    }  # fmt: skip
    expected = {(name, day.isoformat(), n) for name, day, n in expected}
    assert set(page.points) == expected
    assert {cell for cell in page.cells if cell[2]} == expected
    assert len(page.cells) == 3 * 30  # every day of the window, zeros included
    # The context's plot and table are built from one Activity.
    activity, plot = response.context["activity"], response.context["plot"]
    for annotator, row in zip(activity.annotators, plot["rows"], strict=True):
        assert row["name"] == annotator.name and row["total"] == annotator.in_window
        assert [bar["n"] for bar in row["bars"]] == [n for n in annotator.per_day if n]


def test_the_summary_table_shows_the_hand_computed_numbers(researcher_client, activity_batch, today):
    html = researcher_client.get(url(activity_batch)).content.decode()
    summary = _parse(html).summary
    assert (
        summary["ann_a"]["total"] == "6" and summary["ann_c"]["total"] == "5" and summary["ann_c"]["in-window"] == "4"
    )
    assert summary["ann_a"]["median-seconds"] == "25.0 (n=4)" and summary["ann_c"]["median-seconds"] == "—"
    assert summary["ann_a"]["skip-rate"] == "33.3% (2/6)" and summary["ann_b"]["skip-rate"] == "0.0% (0/6)"
    assert summary["ann_c"]["skip-rate"] == "—"
    rows = {a.name: a for a in batch_activity(batch=activity_batch, today=today).annotators}
    for name, row in rows.items():
        assert summary[name]["kappa-mean"].startswith(f"{row.kappa_mean:.3f} ")
        for k in row.kappa_axes:
            assert summary[name][f"kappa-{k.axis}"] == f"{k.value:.3f}"
    assert re.search(r'data-col="kappa-avoidant"[^>]*>', html)
    assert 'class="num kappa kappa-low" data-col="kappa-avoidant">0.097<' in html  # ann_c, under 0.60


def test_times_are_shown_in_tokyo(researcher_client, activity_batch, today):
    html = researcher_client.get(url(activity_batch)).content.decode()
    d1 = today - timedelta(days=2)
    # ann_a's last rating is at 10:00 Tokyo (01:00 UTC); ann_c's at 23:59 Tokyo (14:59 UTC).
    assert f">{d1:%Y-%m-%d} 10:00</time>" in html and f">{d1:%Y-%m-%d} 23:59</time>" in html
    assert f'datetime="{d1:%Y-%m-%d}T10:00:00+09:00"' in html
    assert "01:00</time>" not in html and "14:59</time>" not in html
    assert "days as counted in Asia/Tokyo" in html


def test_it_links_back_to_the_batch_and_the_dashboard(researcher_client, activity_batch):
    html = researcher_client.get(url(activity_batch)).content.decode()
    assert f'<a href="/research/batches/{activity_batch.pk}/" data-link="batch">' in html
    assert f'<a href="/research/agreement/?batch={activity_batch.pk}" data-link="dashboard">' in html


def test_a_batch_without_ratings_says_so_instead_of_drawing_an_empty_chart(researcher_client, db):
    batch = Batch.objects.create(name="empty")
    html = researcher_client.get(url(batch)).content.decode()
    assert "Nobody has rated an item of this batch yet" in html
    assert "<svg" not in html.split("<main", 1)[1] and "activity-table" not in html


def test_an_old_batch_says_which_thirty_days_it_shows(researcher_client, activity_batch):
    Annotation.objects.filter(dialogue__batch=activity_batch).update(created_at="2024-05-01T03:00:00Z")
    html = researcher_client.get(url(activity_batch)).content.decode()
    assert 'data-window="shifted"' in html and "2024-04-02 to 2024-05-01" in html
    assert len(_parse(html).points) == 3  # each annotator's one day


def test_usernames_are_escaped_everywhere(researcher_client, activity_batch):
    User.objects.filter(username="ann_b").update(username='<script>alert("x")</script>')
    html = researcher_client.get(url(activity_batch)).content.decode()
    assert "<script>alert" not in html
    escaped = "&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;"
    assert escaped in html.split('<svg class="activity-plot"')[1].split("</svg>")[0]
    assert html.count(escaped) >= 6  # plot row, its label and bar titles, summary row, per-day column


def test_batch_names_are_escaped(researcher_client, activity_batch):
    Batch.objects.filter(pk=activity_batch.pk).update(name="<b>bold</b>")
    html = researcher_client.get(url(activity_batch)).content.decode()
    assert "<b>bold</b>" not in html and "&lt;b&gt;bold&lt;/b&gt;" in html


def test_it_is_for_researchers_only(client, annotator, outsider, activity_batch):
    for user in (annotator, outsider):
        client.force_login(user)
        assert client.get(url(activity_batch)).status_code == 403


def test_anonymous_users_go_to_the_login_page(client, activity_batch):
    response = client.get(url(activity_batch))
    assert response.status_code == 302 and response["Location"] == f"/login/?next={url(activity_batch)}"


def test_unknown_batches_are_404_and_posts_are_refused(researcher_client, activity_batch):
    assert researcher_client.get("/research/batches/999999/activity/").status_code == 404
    assert researcher_client.post(url(activity_batch)).status_code == 405


def test_the_page_is_japanese_by_default(client, researcher, activity_batch):
    client.force_login(researcher)
    html = client.get(url(activity_batch)).content.decode()
    assert '<html lang="ja">' in html and "一致率ダッシュボード" in html and "アノテーター" in html
