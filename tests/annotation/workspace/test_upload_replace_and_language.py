"""The batch page's upload: replacing changed dialogues (even rated ones), and problems in the reader's language."""

import pytest

from annotation.models import Dialogue, DialogueRevision, QualityFlag
from core.job_runner import job_run
from core.models import Job
from tests.annotation.conftest import dialogue
from tests.annotation.workspace.test_uploads import BAD_ROWS, _create, _file, _large

pytestmark = pytest.mark.django_db


def _add(client, batch, rows, **options):
    return client.post(f"/research/batches/{batch.pk}/", {"file": _file(rows), **options})


def _japanese(client):
    client.cookies["django_language"] = "ja"
    return client


def test_problems_read_in_japanese_by_default(researcher_client):
    html = _create(_japanese(researcher_client), BAD_ROWS).content.decode()
    assert "必須項目がありません" in html  # $.response missing
    assert "JSON として不正です" in html  # the broken line
    assert "-3 から 3 まで（0 を除く）のターン位置" in html  # turn 0
    assert "missing required field" not in html


def test_a_job_s_problems_read_in_the_language_of_whoever_looks(researcher_client, batch, monkeypatch):
    _large(monkeypatch)
    response = _add(researcher_client, batch, [dialogue(40), *BAD_ROWS])
    job_run(job_id=Job.objects.get().pk)
    assert "missing required field" in researcher_client.get(response["Location"]).content.decode()
    assert "必須項目がありません" in _japanese(researcher_client).get(response["Location"]).content.decode()


def test_a_changed_dialogue_is_a_problem_that_names_the_page_s_option(researcher_client, batch):
    changed = dialogue(3, user="書き換えた質問")
    response = _add(researcher_client, batch, [changed])
    html = response.content.decode()
    assert response.status_code == 400
    assert "use the option “Replace dialogues whose text changed” to replace it" in html
    assert "--update" not in html
    ja = _add(_japanese(researcher_client), batch, [changed]).content.decode()
    assert "置き換えるにはオプション「テキストが変わった対話を置き換える」を使ってください" in ja
    assert Dialogue.objects.get(external_id="dialogue_003").user_text == "質問 3"


def test_replacing_changes_an_unrated_dialogue_and_keeps_its_old_text(researcher_client, batch):
    response = _add(researcher_client, batch, [dialogue(3, user="書き換えた質問"), dialogue(30)], update="on")
    assert response.status_code == 302
    item = Dialogue.objects.get(external_id="dialogue_003")
    assert item.user_text == "書き換えた質問"
    assert DialogueRevision.objects.get(dialogue=item).user_text == "質問 3"
    page = researcher_client.get(response["Location"]).content.decode()
    assert "1 dialogues imported into batch ws. 1 changed dialogues were replaced (their old texts are kept)." in page


def test_a_rated_dialogue_changes_only_with_the_second_option_and_its_ratings_are_flagged(researcher_client, batch):
    changed = dialogue(0, response="書き換えた応答")
    refused = _add(researcher_client, batch, [changed], update="on")
    assert refused.status_code == 400
    hint = "has 3 rating(s) of its present text; add the option “… even those already rated”"
    assert hint in refused.content.decode()
    assert Dialogue.objects.get(external_id="dialogue_000").response_text != "書き換えた応答"

    assert _add(researcher_client, batch, [changed], update="on", force_text_change="on").status_code == 302
    item = Dialogue.objects.get(external_id="dialogue_000")
    assert item.response_text == "書き換えた応答"
    assert QualityFlag.objects.filter(dialogue=item, kind="text_changed").count() == 3


def test_the_second_option_alone_is_refused_beside_its_box(researcher_client, batch):
    response = _add(researcher_client, batch, [dialogue(0, response="x")], force_text_change="on")
    html = response.content.decode()
    assert response.status_code == 200 and "Choose “Replace dialogues whose text changed” as well." in html
    assert Dialogue.objects.get(external_id="dialogue_000").response_text != "x"


def test_a_large_file_s_job_replaces_as_chosen(researcher_client, batch, monkeypatch):
    _large(monkeypatch)
    rows = [dialogue(3, user="書き換えた質問"), *(dialogue(i) for i in range(40, 44))]
    _add(researcher_client, batch, rows, update="on")
    job = Job.objects.get()
    assert job.params["update"] is True and job.params["force_text_change"] is False
    job_run(job_id=job.pk)
    job.refresh_from_db()
    assert job.status == Job.Status.SUCCEEDED and job.result["updated"] == 1 and job.result["created"] == 4
    assert Dialogue.objects.get(external_id="dialogue_003").user_text == "書き換えた質問"


def test_the_options_are_on_the_page(researcher_client, batch):
    html = researcher_client.get(f"/research/batches/{batch.pk}/").content.decode()
    assert 'name="update"' in html and 'name="force_text_change"' in html


def test_a_repeated_id_points_at_the_user_s_file_not_the_server_s_copy(researcher_client, batch, settings):
    response = _add(researcher_client, batch, [dialogue(50), dialogue(51), dialogue(50)])
    html = response.content.decode()
    assert "duplicate id &#x27;dialogue_050&#x27; (first at dialogues.jsonl:1)" in html
    assert str(settings.VAR_DIR) not in html and "uploads/dialogues" not in html


def test_the_summary_of_a_replacement_alone_names_the_batch_and_runs_on_in_japanese(researcher_client, batch):
    response = _add(_japanese(researcher_client), batch, [dialogue(3, user="書き換えた質問"), dialogue(1)], update="on")
    page = researcher_client.get(response["Location"]).content.decode()
    assert (
        "バッチ ws の変更された対話 1 件を置き換えました（旧テキストは保存されています）。1 件は登録済みのため" in page
    )
