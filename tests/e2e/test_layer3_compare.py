"""A researcher compares two Layer3 runs of one batch (issue 42): chooses them, reads the table, sorts the changed
trials and opens one side by side; in Japanese, then in English. Trial text stays text."""

import json
from pathlib import Path

import pytest
from django.core.management import call_command
from playwright.sync_api import expect

from layer3.demo.generator import generate_trials
from layer3.models import Batch, Layer3Run, TrialLog
from layer3.runs import services
from layer3.runs.options import EvaluationOptions
from layer3.statistics import LAYER3_METRICS
from tests.e2e.conftest import log_in
from tests.helpers import make_user

PASSWORD = "pw-for-tests-1"
SHOTS = Path("/tmp/shots-compare")
SCRIPT = "<script>window.__injected = 1</script>"


def shot(page, name: str) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / f"{name}.png"), full_page=True)


@pytest.fixture
def two_runs(settings, tmp_path, transactional_db):
    settings.VAR_DIR = tmp_path
    trials = generate_trials(15, seed=11, broken_share=0.0)
    trials[0]["inputText"] = f"転職の悩み {SCRIPT}"
    path = tmp_path / "trials.jsonl"
    path.write_text("".join(json.dumps(t, ensure_ascii=False) + "\n" for t in trials), encoding="utf-8")
    call_command("import_trials", str(path), "--batch", "cmp", "--experiment", "e42")
    batch = Batch.objects.get(name="cmp")
    for options in (EvaluationOptions(evaluate_gv=False), EvaluationOptions(judge="baseline", force=True)):
        services.layer3_run_execute(run=services.layer3_run_create(batch=batch, options=options))
        for trial in TrialLog.objects.filter(batch=batch):  # prompt v2: one binding fewer per spec
            trial.generated_data["reactiveBindings"]["bindings"] = trial.generated_data["reactiveBindings"]["bindings"][
                1:
            ]
            trial.save(update_fields=["generated_data"])
    make_user("res_cmp", "researcher", password=PASSWORD)
    return batch


def changed_metrics(page) -> list[str]:
    return [cell.split("-")[-1] for cell in page.locator("[data-changed]").evaluate_all(
        "rows => rows.map(r => r.dataset.changed)")]  # fmt: skip


def test_a_researcher_compares_two_runs_sorts_and_opens_a_pair(page, two_runs):
    batch = two_runs
    log_in(page, "res_cmp", PASSWORD)
    page.goto(f"/research/layer3/{batch.pk}/")
    expect(page.locator("html")).to_have_attribute("lang", "ja")
    page.click("[data-link=compare]")
    expect(page.locator("h1")).to_have_text("Layer3 の実行・バッチを比較")
    assert page.locator("[data-choose=run_a] option").count() == 2
    first_run, second_run = Layer3Run.objects.filter(batch=batch).order_by("pk")
    page.select_option("[data-choose=run_a]", str(first_run.pk))
    page.select_option("[data-choose=run_b]", str(second_run.pk))
    page.click("[data-action=compare]")
    page.wait_for_url(f"**run_a={first_run.pk}**")
    page.wait_for_selector("[data-table=compare-tests]")
    assert page.locator("[data-table=compare-tests] tbody tr").count() == 11 * 5
    expect(page.locator("[data-family]")).to_contain_text("Bonferroni 補正: 検定族 55 件")
    expect(page.locator("[data-row=A-GC_NC] [data-note]")).to_contain_text("差がすべて 0")
    expect(page.locator("[data-row=A-GC_EC] td").nth(1)).to_have_text("Wilcoxon 符号順位検定")
    assert page.locator("[data-row=A-GC_EC] td").nth(5).inner_text().startswith("-")  # Δ: one edge fewer
    shot(page, "compare-runs-ja")

    # The changed trials: by |Δ| first, then by metric
    assert page.locator("[data-sort=delta]").get_attribute("aria-current") == "true"
    page.click("[data-sort=metric]")
    page.wait_for_selector("[data-sort=metric][aria-current=true]")
    metrics = changed_metrics(page)
    assert metrics and metrics == sorted(metrics, key=LAYER3_METRICS.index)
    page.click("[data-sort=trial]")
    page.wait_for_selector("[data-sort=trial][aria-current=true]")
    rows = page.locator("[data-changed]").evaluate_all("rows => rows.map(r => r.dataset.changed)")
    trials = [row.rsplit("-", 1)[0] for row in rows]
    assert trials == sorted(trials) and len(set(trials)) > 1
    shot(page, "compare-changed-sorted-ja")

    # Side by side: both versions of the first trial, its script shown as text
    first = page.locator("[data-changed] [data-open-pair]").first
    first.click()
    page.wait_for_selector("[data-side=B]")
    expect(page.locator("[data-side=A] [data-concern]").first).to_contain_text(SCRIPT)
    assert page.evaluate("window.__injected") is None
    expect(page.locator("[data-side=B] [data-changed-metric=GC_EC]")).to_have_count(1)
    expect(page.locator("[data-side=A]")).to_contain_text("実行 #")
    shot(page, "compare-side-by-side-ja")

    # The same in English
    with page.expect_navigation():
        page.select_option("#language-select", "en")
    expect(page.locator("html")).to_have_attribute("lang", "en")
    expect(page.locator("h1")).to_have_text("Two versions of a trial side by side")
    shot(page, "compare-side-by-side-en")
    page.go_back()
    page.goto(page.url)  # the comparison again, now in English
    page.goto(f"/research/layer3/compare/?batch={batch.pk}")
    page.click("[data-action=compare]")
    page.wait_for_selector("[data-table=compare-tests]")
    expect(page.locator("[data-family]")).to_contain_text("Bonferroni over a family of 55 tests")
    page.click("[data-sort=metric]")
    page.wait_for_selector("[data-sort=metric][aria-current=true]")
    expect(page.locator("#changed-heading")).to_contain_text("Trials whose figure or verdicts changed")
    shot(page, "compare-runs-en")
    page.locator("[data-open-pair]").first.click()
    page.wait_for_selector("[data-side=B]")
    expect(page.locator("[data-side=A]")).to_contain_text("Figures as run #")
    assert TrialLog.objects.filter(batch=batch).count() == 15
