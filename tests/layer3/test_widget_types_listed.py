"""The batch's widget types outside its catalogue, with counts, in every export, the API results and the panel."""

import csv
import io
import json

import pytest
import yaml
from django.urls import reverse

from layer3.exports.files import export_file
from layer3.io.imports import trials_import
from layer3.models import Batch
from layer3.runs.options import EvaluationOptions
from layer3.runs.services import layer3_run_create, layer3_run_execute

pytestmark = pytest.mark.django_db

SCRIPT = "<script>alert(1)</script>"
CATALOGUE = ["timeline", "checklist", *(f"type_{i}" for i in range(13))]
OUTSIDE = [
    {"type": SCRIPT, "trials": 1, "widgets": 1},
    {"type": "custom_chart", "trials": 2, "widgets": 3},
]


def spec(*components):
    widgets = [{"id": f"w{i}", "component": name, "config": {}} for i, name in enumerate(components)]
    return {"widgets": widgets, "reactiveBindings": {"bindings": []}}


@pytest.fixture
def batch(tmp_path, settings):
    settings.VAR_DIR = tmp_path
    catalogue = tmp_path / "catalogue.json"
    catalogue.write_text(json.dumps(CATALOGUE), encoding="utf-8")
    specs = [
        spec("timeline", "checklist"),
        spec("custom_chart", "custom_chart", SCRIPT),
        spec("timeline", "custom_chart"),
    ]
    rows = [
        {"id": f"t{i}", "modelConfig": "AB"[i % 2], "stage": 3, "inputText": "悩み", "generatedData": data}
        for i, data in enumerate(specs)
    ]
    path = tmp_path / "trials.jsonl"
    path.write_text("".join(json.dumps(row, ensure_ascii=False) + "\n" for row in rows), encoding="utf-8")
    trials_import(paths=[path], batch_name="b", catalogue_path=catalogue)
    batch = Batch.objects.get(name="b")
    layer3_run_execute(run=layer3_run_create(batch=batch, options=EvaluationOptions()))
    batch.refresh_from_db()
    return batch


@pytest.fixture
def as_researcher(client, researcher):
    client.force_login(researcher)
    return client


def text_of(batch, fmt):
    return "".join(export_file(batch, fmt=fmt).chunks)


def test_the_batch_records_its_types_outside_the_catalogue(batch):
    assert sorted(batch.widget_types_seen, key=lambda e: e["type"]) == OUTSIDE
    assert batch.widget_types_seen == sorted(batch.widget_types_seen, key=lambda e: e["type"])


def test_the_json_export_and_the_api_results_carry_the_widget_types(batch, as_researcher):
    expected = {"catalogueSize": 15, "availableWidgetCount": 17, "outOfCatalogue": OUTSIDE}
    assert json.loads(text_of(batch, "json"))["widgetTypes"] == expected
    body = as_researcher.get(f"/api/experiment/batch/{batch.pk}/layer3-results").json()
    assert body["data"]["widgetTypes"] == expected
    assert body["data"]["overall"]["widgetDiversity"]["availableWidgetCount"] == 17


def test_the_openapi_schema_documents_the_widget_types(as_researcher):
    schema = yaml.safe_load(as_researcher.get("/api/schema/").content)
    components = schema["components"]["schemas"]
    assert "widgetTypes" in components["Results"]["properties"]
    assert set(components["WidgetTypes"]["properties"]) == {"catalogueSize", "availableWidgetCount", "outOfCatalogue"}
    assert set(components["OutOfCatalogueType"]["properties"]) == {"type", "trials", "widgets"}
    assert {"widgetTypesAdded", "recomputed"} <= set(components["Uploaded"]["properties"])


def test_every_csv_row_carries_the_batch_s_count_and_types(batch):
    rows = list(csv.DictReader(io.StringIO(text_of(batch, "csv").lstrip("\ufeff"))))
    assert len(rows) == 3
    assert {row["batch_availableWidgetCount"] for row in rows} == {"17"}
    assert {row["batch_outOfCatalogue"] for row in rows} == {json.dumps(OUTSIDE, ensure_ascii=False)}
    assert [row["diversity_availableWidgetCount"] for row in rows] == ["17"] * 3


def test_markdown_lists_the_types_with_counts_escaped(batch):
    text = text_of(batch, "markdown")
    assert "## Widget types (\\|W\\| of the widget entropy)" in text
    assert "\\|W\\| = 17 for every trial: the catalogue's 15 types and the 2 its trials use outside it" in text
    assert "| custom\\_chart | 2 | 3 |" in text
    assert SCRIPT not in text and "alert(1)" in text  # the markup is escaped, the name still readable


def test_latex_lists_the_types_with_counts_escaped(batch):
    text = text_of(batch, "latex")
    assert "Widget types outside the catalogue" in text and "$|W|$ = 17 for every trial" in text
    assert "custom\\_chart & 2 & 3 \\\\" in text
    assert "\\textless{}script\\textgreater{}alert(1)\\textless{}/script\\textgreater{} & 1 & 1 \\\\" in text


def test_a_batch_without_types_outside_says_its_w_is_the_catalogue(tmp_path, settings):
    settings.VAR_DIR = tmp_path
    path = tmp_path / "t.jsonl"
    path.write_text(json.dumps({"id": "t0", "modelConfig": "A", "stage": 3, "inputText": "", "generatedData": spec(
        "mind_map", "free_writing")}) + "\n", encoding="utf-8")  # fmt: skip
    trials_import(paths=[path], batch_name="plain")
    batch = Batch.objects.get(name="plain")
    layer3_run_execute(run=layer3_run_create(batch=batch, options=EvaluationOptions()))
    batch.refresh_from_db()
    assert "\\|W\\| = 15 for every trial: the catalogue's types; no trial uses another." in text_of(batch, "markdown")
    assert "$|W|$ = 15 for every trial" in text_of(batch, "latex")
    assert json.loads(text_of(batch, "json"))["widgetTypes"]["outOfCatalogue"] == []


@pytest.mark.parametrize(
    ("language", "heading", "note"),
    [
        ("ja", "Widget種別（Widgetエントロピーの |W|）", "|W| = 17 で正規化されます"),
        ("en", "Widget types (|W| of the widget entropy)", "normalised by |W| = 17"),
    ],
)
def test_the_batch_page_lists_the_types_with_counts_and_escapes_them(batch, as_researcher, language, heading, note):
    as_researcher.cookies["django_language"] = language
    page = as_researcher.get(reverse("layer3:batch", args=[batch.pk]), HTTP_ACCEPT_LANGUAGE=language)
    text = page.content.decode()
    assert page.status_code == 200
    assert heading in text and note in text
    assert SCRIPT not in text and "<code>&lt;script&gt;alert(1)&lt;/script&gt;</code>" in text
    row = '<th scope="row"><code>custom_chart</code></th><td class="num">2</td><td class="num">3</td>'
    assert f"<tr data-widget-type>{row}</tr>" in text
