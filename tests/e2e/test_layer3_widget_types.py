"""The batch page lists the widget types outside the batch's catalogue with their counts, in Japanese and English."""

import json
import shutil
from pathlib import Path

import pytest

from layer3.io.imports import trials_import
from layer3.models import Batch
from layer3.runs.options import EvaluationOptions
from layer3.runs.services import layer3_run_create, layer3_run_execute
from tests.e2e.conftest import log_in, screenshot
from tests.helpers import make_user

PASSWORD = "pw-for-tests-1"
SCRIPT = "<script>alert(1)</script>"
SHOTS = Path("/tmp/shots-denom")


def spec(*components):
    widgets = [{"id": f"w{i}", "component": name, "config": {}} for i, name in enumerate(components)]
    return {"widgets": widgets, "reactiveBindings": {"bindings": []}}


@pytest.fixture
def batch(tmp_path, settings):
    settings.VAR_DIR = tmp_path
    specs = [
        spec("mind_map", "free_writing"),
        spec("custom_chart", "custom_chart", SCRIPT),
        spec("mind_map", "custom_chart"),
    ]
    rows = [
        {"id": f"t{i}", "modelConfig": "AB"[i % 2], "stage": 3, "inputText": "悩み", "generatedData": data}
        for i, data in enumerate(specs)
    ]
    path = tmp_path / "trials.jsonl"
    path.write_text("".join(json.dumps(row, ensure_ascii=False) + "\n" for row in rows), encoding="utf-8")
    trials_import(paths=[path], batch_name="widgets")
    batch = Batch.objects.get(name="widgets")
    layer3_run_execute(run=layer3_run_create(batch=batch, options=EvaluationOptions()))
    return batch


@pytest.mark.parametrize(("language", "heading"), [("ja", "Widget種別"), ("en", "Widget types")])
def test_the_batch_page_lists_the_types_outside_the_catalogue(page, live_server, batch, language, heading):
    make_user("res_w", "researcher", password=PASSWORD)
    page.context.add_cookies([{"name": "django_language", "value": language, "url": live_server.url}])
    dialogs = []
    page.on("dialog", lambda dialog: (dialogs.append(dialog.message), dialog.dismiss()))
    log_in(page, "res_w", PASSWORD)
    page.goto(f"/research/layer3/{batch.pk}/")
    section = page.locator("[data-widget-types]")
    assert heading in section.locator("h2").inner_text()
    assert "|W| = 17" in section.inner_text()
    rows = section.locator("tr[data-widget-type]")
    assert [rows.nth(i).inner_text().split("\t") for i in range(rows.count())] == [
        [SCRIPT, "1", "1"],
        ["custom_chart", "2", "3"],
    ]
    assert dialogs == []  # the type name is text, not a script
    section.scroll_into_view_if_needed()
    shot = screenshot(page, f"layer3-widget-types-{language}")
    SHOTS.mkdir(parents=True, exist_ok=True)
    shutil.copy(shot, SHOTS / shot.name)
