"""The researchers' Layer3 panel: pages, fragments, the run modal's endpoints, figures; roles and escaping."""

import json

import pytest
from django.core.management import call_command
from django.urls import reverse

from layer3.demo.generator import generate_trials
from layer3.models import Batch, Layer3Run, TrialLog
from layer3.runs.options import EvaluationOptions
from layer3.runs.services import layer3_run_create, layer3_run_execute
from tests.layer3.conftest import write_trials

SCRIPT = "<script>alert(1)</script>"
NAME_XSS = "b<img src=x onerror=alert(1)>"  # a batch name holds no "/": markup that needs none
pytestmark = pytest.mark.django_db


@pytest.fixture
def batch(tmp_path, settings):
    """Twenty trials over A–E evaluated with the baseline judge; one with hostile text, one with broken data."""
    settings.VAR_DIR = tmp_path
    trials = generate_trials(20, seed=3, broken_share=0.0)
    trials[0]["inputText"] = f"転職 {SCRIPT}"
    trials[0]["generatedData"]["widgets"][0]["id"] = SCRIPT
    trials[1]["generatedData"]["reactiveBindings"]["bindings"] = [{"id": "b1", "source": "nodot", "target": "w1.x"}]
    call_command("import_trials", str(write_trials(tmp_path / "t.jsonl", trials)), "--batch", NAME_XSS)
    batch = Batch.objects.get(name=NAME_XSS)
    options = EvaluationOptions(judge="baseline", evaluate_w2wr_semantic=True)
    layer3_run_execute(run=layer3_run_create(batch=batch, options=options))
    batch.refresh_from_db()
    return batch


@pytest.fixture
def as_researcher(client, researcher):
    client.force_login(researcher)
    return client


def urls(batch):
    trial = TrialLog.objects.filter(batch=batch).order_by("external_id").first()
    return [
        reverse("layer3:batches"),
        reverse("layer3:batch", args=[batch.pk]),
        reverse("layer3:trials", args=[batch.pk]),
        reverse("layer3:trial", args=[batch.pk, trial.pk]),
        reverse("layer3:run-estimate", args=[batch.pk]),
        reverse("layer3:figure", args=[batch.pk, "w2wr-types", "svg"]),
    ]


def test_annotators_get_403_and_anonymous_users_the_login_page(client, annotator, batch):
    for url in urls(batch):
        assert client.get(url).status_code == 302, url
    client.force_login(annotator)
    for url in urls(batch):
        assert client.get(url).status_code == 403, url
    start = reverse("layer3:run-start", args=[batch.pk])
    assert client.post(start, {"evaluateComplexity": "1", "modelConfigs": "A"}).status_code == 403
    assert not Layer3Run.objects.filter(status="queued").exists()


def test_the_nav_entry_is_for_researchers_only(client, annotator, researcher):
    client.force_login(annotator)
    assert 'data-nav="layer3"' not in client.get("/").content.decode()
    client.force_login(researcher)
    assert 'data-nav="layer3"' in client.get("/").content.decode()


def test_batch_list_counts(as_researcher, batch):
    html = as_researcher.get(reverse("layer3:batches")).content.decode()
    assert NAME_XSS not in html and "b&lt;img src=x onerror=alert(1)&gt;" in html
    row = html[html.index("b&lt;img src=x") :]
    cells = [c.split(">")[-1] for c in row.split("</td>")[:6]]
    assert cells[1:5] == ["20", "5", "20", "0"]  # trials, configs, evaluated (the broken one too), not evaluated


def test_batch_page_shows_cards_bars_models_and_statistics(as_researcher, batch):
    html = as_researcher.get(reverse("layer3:batch", args=[batch.pk])).content.decode()
    assert SCRIPT not in html
    overall = batch.layer3_results
    useful = f"{100 * overall['gvContentRelevance']['usefulRate']:.1f}%"
    assert 'data-card="GV_UR"' in html and useful in html
    assert f"{100 * overall['w2wrTypeDistribution']['flowRate']:.1f}%" in html
    assert html.count('<tr><th scope="row">') >= 5  # one row per model config
    stats = [c for c in batch.layer3_statistics["layer3Comparisons"] if c["metric"] == "GV_UR"]
    assert html.count(" vs ") >= len(stats) == 10
    assert 'name="modelConfigs" value="A" checked' in html  # the modal lists the configs


def test_statistics_fragment_switches_metric_and_correction(as_researcher, batch):
    url = reverse("layer3:batch", args=[batch.pk])
    response = as_researcher.get(url, {"part": "statistics", "metric": "WS_ENT", "correction": "holm"},
                                 headers={"HX-Request": "true"})  # fmt: skip
    html = response.content.decode()
    assert 'data-statistics="WS_ENT"' in html and "<html" not in html
    assert '<option value="holm" selected>' in html
    assert as_researcher.get(url, {"metric": "NOPE"}).status_code == 404


def test_models_fragment_shows_every_metric_on_demand(as_researcher, batch):
    url = reverse("layer3:batch", args=[batch.pk])
    main = as_researcher.get(url, {"part": "models"}, headers={"HX-Request": "true"}).content.decode()
    every = as_researcher.get(
        url, {"part": "models", "columns": "all"}, headers={"HX-Request": "true"}
    ).content.decode()
    assert main.count('class="num" title=') == 5 and every.count('class="num" title=') == 11


def test_estimate_is_zero_for_the_baseline_and_names_problems(as_researcher, batch):
    url = reverse("layer3:run-estimate", args=[batch.pk])
    html = as_researcher.get(url + "?evaluateGV=1&judge=baseline&modelConfigs=A&modelConfigs=B").content.decode()
    assert "¥0" in html and "data-cost" in html
    html = as_researcher.get(url + "?modelConfigs=Q").content.decode()
    assert 'data-problem="metrics"' in html and 'data-problem="modelConfigs"' in html


def test_estimate_with_an_llm_endpoint_comes_from_the_gateway(as_researcher, batch, fake_llm):
    from layer3.runs.services import run_cost_estimate

    url = reverse("layer3:run-estimate", args=[batch.pk])
    html = as_researcher.get(url + "?evaluateGV=1&judge=llm:fake-model&modelConfigs=A&forceReEvaluate=1")
    html = html.content.decode()
    options = EvaluationOptions(judge="llm", llm_model="fake-model", model_configs=("A",), force=True)
    estimate = run_cost_estimate(batch=batch, options=options)
    assert estimate.calls > 0 and f"¥{estimate.cost_jpy:.0f}<" in html and f"{estimate.calls} " in html
    # the batch was judged by the baseline: the dialog starts with that judge, so that adding trials mixes none
    page = as_researcher.get(reverse("layer3:batch", args=[batch.pk])).content.decode()
    assert 'option value="baseline" selected' in page and 'option value="llm:fake-model">' in page


def test_starting_a_run_queues_it_and_a_second_start_shows_the_running_one(as_researcher, batch, monkeypatch):
    monkeypatch.setattr("core.tasks.run_job.delay", lambda job_id: None)  # no worker: the run stays queued
    url = reverse("layer3:run-start", args=[batch.pk])
    form = {"evaluateComplexity": "1", "evaluateGV": "1", "judge": "baseline", "modelConfigs": ["A", "B"]}
    html = as_researcher.post(url, form, headers={"HX-Request": "true"}).content.decode()
    run = Layer3Run.objects.get(status="queued")
    assert run.options["modelConfigs"] == ["A", "B"] and run.options["judge"] == "baseline" and run.job_id
    assert f'data-run="{run.pk}"' in html and "layer3-progress" in html
    again = as_researcher.post(url, form, headers={"HX-Request": "true"}).content.decode()
    assert f'data-run="{run.pk}"' in again and Layer3Run.objects.filter(status="queued").count() == 1
    page = as_researcher.get(reverse("layer3:batch", args=[batch.pk])).content.decode()
    assert f'data-run="{run.pk}"' in page  # the page follows the run in flight
    cancel = reverse("layer3:run-cancel", args=[batch.pk, run.pk])
    assert as_researcher.post(cancel, headers={"HX-Request": "true"}).status_code == 200
    run.refresh_from_db()
    assert run.status == "cancelled"


def test_a_refused_run_names_the_fields_and_stores_nothing(as_researcher, batch):
    url = reverse("layer3:run-start", args=[batch.pk])
    response = as_researcher.post(url, {"modelConfigs": "Z"}, headers={"HX-Request": "true"})
    assert response["HX-Retarget"] == "#run-problems"
    html = response.content.decode()
    assert 'data-problem="metrics"' in html and 'data-problem="modelConfigs"' in html
    llm = as_researcher.post(url, {"evaluateGV": "1", "judge": "llm:gpt-4o", "modelConfigs": "A"})
    assert llm.status_code == 400  # no endpoint configured: no LLM model is accepted
    assert not Layer3Run.objects.filter(status="queued").exists()


def test_starting_needs_csrf(client, researcher, batch):
    from django.test import Client

    csrf_client = Client(enforce_csrf_checks=True)
    csrf_client.force_login(researcher)
    url = reverse("layer3:run-start", args=[batch.pk])
    assert csrf_client.post(url, {"evaluateComplexity": "1", "modelConfigs": "A"}).status_code == 403


def test_trials_list_filters(as_researcher, batch):
    url = reverse("layer3:trials", args=[batch.pk])
    html = as_researcher.get(url, {"only": "errors"}).content.decode()
    assert "reactiveBindings.bindings[0].source" in html and html.count('scope="row"><a') == 1
    html = as_researcher.get(url, {"model": "B"}).content.decode()
    assert html.count('scope="row"><a') == TrialLog.objects.filter(batch=batch, model_config="B").count()
    assert as_researcher.get(url, {"model": "nope"}).status_code == 404


def test_trial_drill_down_escapes_data_and_judge_text(as_researcher, batch):
    trial = TrialLog.objects.get(batch=batch, input_text__contains="script")
    metrics = trial.layer3_metrics
    metrics["generatedValueRelevance"]["itemEvaluations"][0]["reasoning"] = f"judge says {SCRIPT}"
    TrialLog.objects.filter(pk=trial.pk).update(layer3_metrics=metrics)
    html = as_researcher.get(reverse("layer3:trial", args=[batch.pk, trial.pk])).content.decode()
    assert SCRIPT not in html and "judge says &lt;script&gt;" in html
    assert "<svg" in html and 'data-table="gv-items"' in html and 'data-table="w2wr-bindings"' in html
    assert "style=" not in html.split("<main", 1)[1]
    binding = metrics["w2wrSemanticCorrectness"]["bindingEvaluations"][0]
    assert f"<code>{binding['sourceWidget']}.{binding['sourcePort']}</code>" in html


def test_trial_with_broken_data_shows_the_json_path(as_researcher, batch):
    trial = TrialLog.objects.get(batch=batch, layer3_metrics__has_key="error")
    html = as_researcher.get(reverse("layer3:trial", args=[batch.pk, trial.pk])).content.decode()
    assert "data-trial-error" in html and "generatedData.reactiveBindings.bindings[0].source" in html
    other = Batch.objects.create(name="other")
    assert as_researcher.get(reverse("layer3:trial", args=[other.pk, trial.pk])).status_code == 404


@pytest.mark.parametrize(("name", "fmt", "media", "magic"), [
    ("model-comparison", "svg", "image/svg+xml", b"<?xml"),
    ("w2wr-types", "png", "image/png", b"\x89PNG"),
    ("model-comparison", "pdf", "application/pdf", b"%PDF"),
])  # fmt: skip
def test_figures_download(as_researcher, batch, name, fmt, media, magic):
    url = reverse("layer3:figure", args=[batch.pk, name, fmt])
    response = as_researcher.get(url, {"metric": "W2WR_CR", "lang": "en"})
    assert response.status_code == 200 and response["Content-Type"] == media
    assert response.content.startswith(magic)
    assert "attachment" in response["Content-Disposition"] and f".{fmt}" in response["Content-Disposition"]
    assert "<script>" not in response["Content-Disposition"]


def test_without_a_cjk_font_the_page_and_the_figure_file_say_the_figures_are_in_english(
    as_researcher, batch, monkeypatch
):
    """Issue 30 point 8: Japanese figures silently came out in English."""
    from layer3.figures import fonts
    from layer3.figures.render import NO_CJK_FONT_NOTE

    page = as_researcher.get(reverse("layer3:batch", args=[batch.pk])).content.decode()
    assert "data-figures-in-english" not in page  # the font is there (added by file when the cache lacked it)
    monkeypatch.setattr(fonts, "find_cjk_font", lambda: None)
    page = as_researcher.get(reverse("layer3:batch", args=[batch.pk])).content.decode()
    assert "data-figures-in-english" in page and "fonts-noto-cjk" in page and "英語で描かれます" in page
    svg = as_researcher.get(reverse("layer3:figure", args=[batch.pk, "w2wr-types", "svg"]), {"lang": "ja"})
    assert NO_CJK_FONT_NOTE in svg.content.decode()
    as_researcher.cookies["django_language"] = "en"
    page = as_researcher.get(reverse("layer3:batch", args=[batch.pk])).content.decode()
    assert "data-figures-in-english" not in page  # English figures need no CJK font


def test_figure_arguments_are_checked(as_researcher, batch):
    assert as_researcher.get(reverse("layer3:figure", args=[batch.pk, "pie", "svg"])).status_code == 404
    assert as_researcher.get(reverse("layer3:figure", args=[batch.pk, "w2wr-types", "gif"])).status_code == 404
    url = reverse("layer3:figure", args=[batch.pk, "w2wr-types", "svg"])
    assert as_researcher.get(url, {"lang": "de"}).status_code == 404
    empty = Batch.objects.create(name="empty")
    assert as_researcher.get(reverse("layer3:figure", args=[empty.pk, "w2wr-types", "svg"])).status_code == 404


def test_export_links_download_from_the_api(as_researcher, batch):
    html = as_researcher.get(reverse("layer3:batch", args=[batch.pk])).content.decode()
    for fmt in ("json", "csv", "markdown", "latex"):
        assert f'data-export="{fmt}"' in html
    response = as_researcher.get(f"/api/experiment/batch/{batch.pk}/layer3-export?format=json")
    document = json.loads(b"".join(response.streaming_content))
    assert (document["batchId"], document["batchName"]) == (str(batch.pk), batch.name)
