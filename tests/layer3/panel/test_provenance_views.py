"""The batch page names its judges, refuses to blend them, and the run dialog says what a run keeps and replaces."""

import pytest
from django.core.management import call_command
from django.urls import reverse
from django.utils import translation

from layer3.demo.generator import generate_trials
from layer3.models import Batch, TrialLog
from layer3.panel.messages import problem_text, statistics_reason_text
from layer3.runs.options import EvaluationOptions
from layer3.runs.services import batch_results_refresh, layer3_run_create, layer3_run_execute
from tests.layer3.conftest import write_trials

pytestmark = pytest.mark.django_db
BASELINE_GV = "baseline:baseline-tfidf@1:layer3.gv_relevance@1"
OTHER_GV = {"kind": "llm", "model": "gpt-4o", "prompt": "layer3.gv_relevance@1"}


@pytest.fixture
def batch(tmp_path, settings):
    settings.VAR_DIR = tmp_path
    call_command("import_trials", str(write_trials(tmp_path / "t.jsonl", generate_trials(20, seed=5))), "--batch", "b")
    return Batch.objects.get(name="b")


@pytest.fixture
def page(client, researcher):
    client.force_login(researcher)
    return client


def run(batch, **options):
    layer3_run_execute(run=layer3_run_create(batch=batch, options=EvaluationOptions(**options)))
    batch.refresh_from_db()


def relabel(config: str, judge: dict):
    """What another judge's run would have stored for ``config``'s GV blocks (no LLM needed to test the page)."""
    for trial in TrialLog.objects.filter(model_config=config, layer3_metrics__has_key="generatedValueRelevance"):
        trial.layer3_metrics["generatedValueRelevance"]["judge"] = judge
        trial.save(update_fields=["layer3_metrics"])


def test_a_batch_never_evaluated_opens_the_dialog_with_the_seed_s_defaults(page, batch):
    html = page.get(reverse("layer3:batch", args=[batch.pk])).content.decode()
    assert 'name="evaluateComplexity" value="1" checked' in html
    assert 'name="evaluateGV" value="1" data-judged>' in html  # the judged metrics start unticked


def test_an_evaluated_batch_opens_the_dialog_with_what_it_has_ticked_and_its_judge_chosen(page, batch):
    run(batch, judge="baseline")
    html = page.get(reverse("layer3:batch", args=[batch.pk])).content.decode()
    assert 'name="evaluateGV" value="1" data-judged checked' in html
    assert 'name="evaluateW2WRSemantic" value="1" data-judged>' in html  # never judged: not ticked
    assert '<option value="baseline" selected>' in html


def test_the_estimate_counts_per_metric_what_is_computed_kept_and_replaced(page, batch):
    run(batch, judge="baseline", model_configs=("A", "B"))
    url = reverse("layer3:run-estimate", args=[batch.pk])
    query = "?evaluateComplexity=1&evaluateGV=1&judge=baseline" + "".join(f"&modelConfigs={c}" for c in "ABCDE")
    html = page.get(url + query).content.decode()
    row = html[html.index('data-plan-row="evaluateGV"') :]
    cells = [row.split(f"data-{verb}>")[1].split("<")[0].strip() for verb in ("compute", "keep", "replace")]
    a_and_b = TrialLog.objects.filter(model_config__in="AB", stage=3).exclude(layer3_metrics__has_key="error").count()
    others = TrialLog.objects.filter(model_config__in="CDE", stage=3).count()
    assert cells == [str(others), str(a_and_b), "0"]


def test_replacing_another_judge_s_verdicts_is_warned_in_the_page_s_language(page, batch, settings):
    run(batch, judge="baseline")
    relabel("A", OTHER_GV)
    url = reverse("layer3:run-estimate", args=[batch.pk])
    query = "?evaluateGV=1&judge=baseline&forceReEvaluate=1" + "".join(f"&modelConfigs={c}" for c in "ABCDE")
    html = page.get(url + query).content.decode()
    assert "data-plan-notes" in html and "llm:gpt-4o:layer3.gv_relevance@1（" in html and "置き換えます" in html
    page.cookies[settings.LANGUAGE_COOKIE_NAME] = "en"
    html = page.get(url + query).content.decode()
    assert "this run replaces the verdicts of llm:gpt-4o:layer3.gv_relevance@1 (" in html


def test_a_config_judged_by_two_judges_is_marked_and_never_compared(page, batch):
    run(batch, judge="baseline")
    first = TrialLog.objects.filter(model_config="A", layer3_metrics__has_key="generatedValueRelevance").first()
    first.layer3_metrics["generatedValueRelevance"]["judge"] = OTHER_GV
    first.save(update_fields=["layer3_metrics"])
    batch_results_refresh(batch=batch)
    html = page.get(reverse("layer3:batch", args=[batch.pk]), {"metric": "GV_UR"}).content.decode()
    a_row = html[html.index('<tr><th scope="row">A</th>') :].split("</tr>")[0]
    assert "†" in a_row and "data-judge-notes" in html
    assert "モデル A は複数の判定モデル" in html  # the statistics table says why A is not tested, in Japanese
    card = html[html.index('data-card="GV_UR"') :].split("</li>")[0]
    assert "合算しません" in card and BASELINE_GV.split(":")[0] in card


def test_statistics_reasons_and_run_problems_read_in_the_viewer_s_language():
    row = {
        "reason": "model A was judged by x and model B by y; figures of different judges are not compared",
        "reasonCode": "different_judges",
        "reasonParams": {"modelA": "A", "modelB": "B", "judgeA": "llm:m:p@1", "judgeB": "baseline:b@1:p@1"},
    }
    with translation.override("ja"):
        assert statistics_reason_text(row) == (
            "モデル A の判定は llm:m:p@1、モデル B の判定は baseline:b@1:p@1 です。判定モデルが異なる値は比較しません"
        )
        empty = {"reasonCode": "empty_group", "reasonParams": {"models": ["C"], "unit": "judged_items"}}
        assert statistics_reason_text(empty) == "モデル C に判定済みの generatedValue 項目がありません"
        unknown = {"reason": "something new", "reasonCode": "new_code", "reasonParams": {}}
        assert statistics_reason_text(unknown) == "something new"
        gave_up = "the judge gave no verdict for 3 GV items after the retries (first: error: APITimeoutError: x)"
        assert problem_text("judge", gave_up).startswith(
            "再試行しても判定モデルが GV の 3 項目に判定を返しませんでした"
        )
    with translation.override("en"):
        assert statistics_reason_text(row) == row["reason"].replace(" x ", " llm:m:p@1 ").replace(
            "by y", "by baseline:b@1:p@1"
        )


def test_a_judge_label_breaks_after_its_colons_and_stays_escaped():
    from layer3.templatetags.layer3_text import label_breaks

    assert label_breaks("llm:<script>x</script>:p@1") == "llm:<wbr>&lt;script&gt;x&lt;/script&gt;:<wbr>p@1"
    assert label_breaks(None) == ""
