"""Layer3 in Django admin: staff can look at batches, trials and runs; data text is escaped; nothing is editable."""

import pytest
from django.core.management import call_command

from layer3.models import Layer3Run, TrialLog
from tests.layer3.conftest import write_trials

pytestmark = pytest.mark.django_db


@pytest.fixture
def evaluated(tmp_path, settings):
    from layer3.demo.generator import generate_trials

    settings.VAR_DIR = tmp_path
    trials = generate_trials(5, seed=1, broken_share=0.0)
    trials[0]["inputText"] = "<script>alert('concern')</script>"
    call_command(
        "import_trials", str(write_trials(tmp_path / "t.jsonl", trials)), "--batch", "<i onmouseover=alert(1)>batch"
    )
    call_command("evaluate_layer3", "<i onmouseover=alert(1)>batch")


@pytest.mark.parametrize("model", ["batch", "triallog", "layer3run"])
def test_staff_see_the_lists_with_data_text_escaped(client, staff_user, evaluated, model):
    client.force_login(staff_user)
    response = client.get(f"/admin/layer3/{model}/")
    assert response.status_code == 200
    assert b"<i onmouseover=alert(1)>batch" not in response.content


def test_a_trial_page_escapes_its_concern_and_offers_no_save(client, staff_user, evaluated):
    client.force_login(staff_user)
    trial = TrialLog.objects.get(external_id="A-00000")
    response = client.get(f"/admin/layer3/triallog/{trial.pk}/change/")
    assert response.status_code == 200
    assert b"<script>alert" not in response.content and b"&lt;script&gt;alert" in response.content
    assert b'name="_save"' not in response.content
    run = Layer3Run.objects.get()
    assert client.post(f"/admin/layer3/layer3run/{run.pk}/change/", {"status": "failed"}).status_code == 403


def test_researchers_and_annotators_do_not_get_into_admin(client, researcher, annotator, evaluated):
    for user in (researcher, annotator):
        client.force_login(user)
        assert client.get("/admin/layer3/triallog/").status_code == 302


def test_a_run_page_lists_its_own_problems_escaped(client, staff_user, tmp_path, settings):
    from layer3.demo.generator import generate_trials

    settings.VAR_DIR = tmp_path
    trials = generate_trials(5, seed=1, broken_share=0.0)
    trials[1]["id"] = "<i>broken</i>"
    trials[1]["generatedData"] = {"widgets": "<script>x</script>"}
    call_command("import_trials", str(write_trials(tmp_path / "t.jsonl", trials)), "--batch", "b")
    call_command("evaluate_layer3", "b")
    client.force_login(staff_user)
    run = Layer3Run.objects.get()
    html = client.get(f"/admin/layer3/layer3run/{run.pk}/change/").content.decode()
    assert "&lt;i&gt;broken&lt;/i&gt;" in html and "generatedData.widgets" in html and "<i>broken" not in html
