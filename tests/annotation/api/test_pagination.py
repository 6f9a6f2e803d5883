"""Keyset pages of the annotation API's lists (issue 31): ``{next, previous, results}``, ``?cursor=`` from the links,
no ``COUNT(*)``, no page numbers, and any cursor the API did not give out is a 400 naming ``cursor``."""

from __future__ import annotations

from datetime import timedelta
from urllib.parse import parse_qs, urlsplit

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from annotation.axes import AXES
from annotation.models import Annotation
from core.api_pagination import PAGE_NUMBERS_GONE
from tests.annotation.api.support import API, make_batch, walk
from tests.helpers import make_user

pytestmark = pytest.mark.django_db

LISTS = ["annotations/", "batches/", "flags/", "jobs/", "reports/"]


def _ratings(batch, annotators, *, at=None, seconds=None) -> list[Annotation]:
    """One rating per (dialogue, annotator), every one changed at ``at`` (ties) unless None."""
    values = {f"{axis}_score": 3 for axis in AXES} | {f"{axis}_confidence": 0.9 for axis in AXES}
    rows = [
        Annotation(dialogue=item, annotator=user, updated_at=at or timezone.now(), seconds_spent=seconds, **values)
        for item in batch.dialogues.order_by("pk")
        for user in annotators
    ]
    return Annotation.objects.bulk_create(rows)


def _cursor(url: str) -> str:
    return parse_qs(urlsplit(url).query)["cursor"][0]


def test_rows_changed_at_the_same_moment_come_once_each_newest_change_first(res):
    """A bulk import gives thousands of ratings one timestamp: the id breaks the tie; nothing repeats or is missed."""
    batch = make_batch("tie", n_items=7)
    same = timezone.now() - timedelta(hours=1)
    _ratings(batch, [make_user("a1", "annotator"), make_user("a2", "annotator")], at=same)
    later = _ratings(make_batch("later", n_items=2), [make_user("a3", "annotator")])
    expected = list(Annotation.objects.order_by("-updated_at", "-pk").values_list("pk", flat=True))
    assert expected[:2] == sorted((r.pk for r in later), reverse=True)
    for size in (1, 2, 3, 16):
        assert [r["id"] for r in walk(res, f"{API}annotations/?page_size={size}")] == expected
    only_batch = [r["id"] for r in walk(res, f"{API}annotations/?batch={batch.pk}&page_size=4")]
    assert only_batch == [pk for pk in expected if pk not in {r.pk for r in later}]


def test_previous_links_walk_back_through_the_same_pages(res):
    batch = make_batch("b", n_items=5)
    _ratings(batch, [make_user("a1", "annotator")], at=timezone.now())
    pages, url = [], f"{API}annotations/?page_size=2&batch={batch.pk}"
    while url:
        body = res.get(url).json()
        pages.append([r["id"] for r in body["results"]])
        url = body["next"]
    assert [len(page) for page in pages] == [2, 2, 1]
    back, body = [], res.get(f"{API}annotations/?page_size=2&batch={batch.pk}").json()
    while body["next"]:
        body = res.get(body["next"]).json()
    while True:
        back.insert(0, [r["id"] for r in body["results"]])
        if body["previous"] is None:
            break
        body = res.get(body["previous"]).json()
        assert f"batch={batch.pk}" in (body["next"] or "") and "page_size=2" in body["next"]
    assert back == pages


def test_the_links_keep_the_filters_and_the_first_page_has_no_previous(res):
    batch = make_batch("b", n_items=3)
    _ratings(batch, [make_user("a1", "annotator")])
    body = res.get(f"{API}annotations/?batch={batch.pk}&source=web&page_size=2").json()
    assert body["previous"] is None and len(body["results"]) == 2
    query = parse_qs(urlsplit(body["next"]).query)
    assert query["batch"] == [str(batch.pk)] and query["source"] == ["web"] and query["page_size"] == ["2"]
    last = res.get(body["next"]).json()
    assert last["next"] is None and len(last["results"]) == 1 and last["previous"]


@pytest.mark.parametrize("path", LISTS)
def test_page_numbers_are_refused_with_what_replaced_them(res, path):
    response = res.get(f"{API}{path}?page=2")
    assert response.status_code == 400
    body = response.json()
    assert body["field"] == "page" and body["errors"][0]["message"] == PAGE_NUMBERS_GONE
    assert "cursor" in body["error"] and "next" in body["error"]


@pytest.mark.parametrize("size", ["0", "1001", "-1", "abc", "1.5", "9" * 30])
def test_a_page_size_outside_1_to_1000_is_a_400_naming_the_range(res, size):
    response = res.get(f"{API}annotations/?page_size={size}")
    body = response.json()
    assert response.status_code == 400 and body["field"] == "page_size"
    assert " 1 " in body["error"] and "1000" in body["error"]  # the range, in the site's language


def test_a_page_of_1000(res):
    batch = make_batch("big", n_items=250)
    _ratings(batch, [make_user(f"a{i}", "annotator") for i in range(5)])  # 1,250 ratings
    first = res.get(f"{API}annotations/?page_size=1000&batch={batch.pk}").json()
    assert len(first["results"]) == 1000 and len(res.get(first["next"]).json()["results"]) == 250


def test_no_count_and_a_fixed_number_of_queries_whatever_the_page_size(res):
    batch = make_batch("b", n_items=40)
    _ratings(batch, [make_user("a1", "annotator"), make_user("a2", "annotator")])
    counts = []
    for size in (5, 50):  # 80 ratings: both have a second page
        with CaptureQueriesContext(connection) as queries:
            body = res.get(f"{API}annotations/?batch={batch.pk}&page_size={size}").json()
            res.get(body["next"])
        assert not any("COUNT(" in q["sql"].upper() for q in queries.captured_queries)
        counts.append(len(queries.captured_queries))
    assert counts[0] == counts[1]


def test_a_cursor_of_another_list_or_a_changed_one_is_a_400(res):
    batch = make_batch("b", n_items=3)
    _ratings(batch, [make_user("a1", "annotator")])
    ratings_next = res.get(f"{API}annotations/?page_size=1").json()["next"]
    token = _cursor(ratings_next)
    for wrong in (f"{API}batches/?cursor={token}", f"{API}flags/?cursor={token}",
                  f"{API}annotations/?cursor={token[:-1]}{'A' if token[-1] != 'A' else 'B'}",
                  f"{API}annotations/?cursor={token[1:]}"):  # fmt: skip
        response = res.get(wrong)
        assert response.status_code == 400, wrong
        assert response.json()["field"] == "cursor" and response.json()["error"].startswith("cursor: ")
    assert res.get(ratings_next).status_code == 200


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.one_of(st.text(max_size=300), st.binary(max_size=120).map(lambda b: b.hex()), st.just(".eJyLVg==:x:y")))
def test_any_forged_cursor_is_a_400_never_a_500(res, forged):
    response = res.get(f"{API}annotations/", {"cursor": forged})
    assert response.status_code == 400 and response.json()["field"] == "cursor"  # empty too (issue 41)


def test_cursor_and_page_size_are_in_the_schema_of_every_list():
    from drf_spectacular.generators import SchemaGenerator

    schema = SchemaGenerator().get_schema(request=None, public=True)
    for path in LISTS:
        parameters = {p["name"]: p for p in schema["paths"][f"{API}{path}"]["get"]["parameters"]}
        assert "page" not in parameters and parameters["cursor"]["schema"]["type"] == "string"
        assert parameters["page_size"]["schema"] == {"type": "integer", "minimum": 1, "maximum": 1000, "default": 50}
        page = schema["paths"][f"{API}{path}"]["get"]["responses"]["200"]["content"]["application/json"]["schema"]
        name = page["$ref"].rsplit("/", 1)[-1]
        assert set(schema["components"]["schemas"][name]["properties"]) == {"next", "previous", "results"}
