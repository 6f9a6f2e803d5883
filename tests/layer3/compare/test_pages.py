"""The comparison page and the side-by-side page: researchers only, both kinds, escaping, refusals."""

import pytest
from django.core.management import call_command
from django.urls import reverse

from layer3.models import Batch, Layer3Run, TrialLog
from tests.layer3.compare.runs import run

pytestmark = pytest.mark.django_db
URL = "/research/layer3/compare/"


@pytest.fixture
def page(researcher_client):
    return researcher_client


def test_two_runs_show_the_table_the_family_and_the_changed_trials(page, batch):
    first, second = run(batch, evaluate_gv=False), run(batch, judge="baseline", force=True)
    response = page.get(URL, {"kind": "runs", "run_a": first.pk, "run_b": second.pk, "batch": batch.pk})
    text = response.content.decode()
    assert response.status_code == 200
    assert text.count('data-row="') == 55 and "data-family" in text and "data-open-pair" in text
    assert f"/api/experiment/batch/{batch.pk}/runs/{first.pk}/compare/{second.pk}?format=csv" in text


def test_a_batch_with_one_finished_run_says_how_to_get_a_second(page, batch):
    run(batch)
    assert 'data-note="one-run"' in page.get(URL, {"batch": batch.pk}).content.decode()
    run(batch, force=True)
    assert 'data-note="one-run"' not in page.get(URL, {"batch": batch.pk}).content.decode()


def test_a_run_without_snapshot_is_said(page, batch):
    old = Layer3Run.objects.create(batch=batch, options={}, status="succeeded")
    new = run(batch)
    text = page.get(URL, {"run_a": old.pk, "run_b": new.pk}).content.decode()
    assert "data-snapshot-missing" in text


def test_runs_of_two_batches_are_refused_naming_the_field(page, batch):
    other = Batch.objects.create(name="other")
    elsewhere = Layer3Run.objects.create(batch=other, options={}, status="succeeded")
    response = page.get(URL, {"run_a": run(batch).pk, "run_b": elsewhere.pk})
    assert response.status_code == 400 and 'data-refused="runB"' in response.content.decode()


def test_two_batches_and_script_in_trial_text_is_escaped(page, batch, trials_file):
    call_command("import_trials", str(trials_file), "--batch", "v2", "--experiment", "exp-1")
    v2 = Batch.objects.get(name="v2")
    TrialLog.objects.filter(batch=v2, external_id="A-00000").update(input_text="<script>alert(1)</script>")
    TrialLog.objects.filter(batch=batch).update(layer3_metrics={"graphComplexity": {"nodeCount": 3}})
    TrialLog.objects.filter(batch=v2).update(layer3_metrics={"graphComplexity": {"nodeCount": 4}})
    text = page.get(URL, {"kind": "batches", "batch_a": batch.pk, "batch_b": v2.pk, "sort": "trial"}).content.decode()
    assert "data-changed=" in text
    a = TrialLog.objects.get(batch=batch, external_id="A-00000")
    b = TrialLog.objects.get(batch=v2, external_id="A-00000")
    side = page.get(reverse("layer3:compare-trial", args=[a.pk, b.pk])).content.decode()
    assert "<script>alert(1)</script>" not in side and "&lt;script&gt;alert(1)&lt;/script&gt;" in side
    assert 'data-changed-metric="GC_NC"' in side


def test_the_side_by_side_reads_each_runs_snapshot(page, batch):
    first, second = run(batch, evaluate_gv=False), run(batch, judge="baseline", force=True)
    trial = TrialLog.objects.get(batch=batch, external_id="A-00000")
    url = reverse("layer3:compare-trial", args=[trial.pk, trial.pk])
    text = page.get(url, {"run_a": first.pk, "run_b": second.pk}).content.decode()
    assert 'data-changed-metric="GV_CR"' in text and text.count('data-side="') == 2
    other = Batch.objects.create(name="other")
    elsewhere = Layer3Run.objects.create(batch=other, options={}, status="succeeded")
    assert page.get(url, {"run_a": elsewhere.pk}).status_code == 404


def test_researchers_only_and_links_from_the_layer3_pages(client, annotator, researcher, batch):
    client.force_login(annotator)
    assert client.get(URL).status_code == 403
    client.force_login(researcher)
    assert 'data-link="compare"' in client.get("/research/layer3/").content.decode()
    assert f"{URL}?batch={batch.pk}" in client.get(f"/research/layer3/{batch.pk}/").content.decode()
    assert client.get(URL, {"kind": "nope"}).status_code == 404
    assert client.get(URL, {"batch": "99999"}).status_code == 404
