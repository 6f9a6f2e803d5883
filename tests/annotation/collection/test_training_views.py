"""Training pages through the test client: roles, practice with feedback, the test, researcher pages."""

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse
from django.utils import timezone, translation

from annotation.collection import gold_import, training
from annotation.collection.training import QUALIFICATION_REQUIRED_MESSAGE
from annotation.models.training import GoldItem, QualificationAttempt, TrainingAnswer
from tests.annotation.collection.test_training_services import AXES, TEST_GOLD, gold_row, store_gold, write_rows

HTMX = {"HX-Request": "true"}


@pytest.fixture
def gold(db, tmp_path):
    store_gold(tmp_path, practice=2)


@pytest.fixture
def annotator_client(client, annotator):
    client.force_login(annotator)
    return client


@pytest.fixture
def researcher_client(client, researcher):
    client.force_login(researcher)
    return client


def _scores_post(item, scores=None, confidence="1.0"):
    """What the rating component posts: the item, four scores and four confidences."""
    scores = scores or item.gold
    return {"item": item.pk, **{axis: scores[axis] for axis in AXES}, **{f"{a}_confidence": confidence for a in AXES}}


# --------------------------------------------------------------------------- roles


@pytest.mark.parametrize("name", ["gold-items", "qualification-results"])
def test_researcher_pages_refuse_annotators(annotator_client, name):
    assert annotator_client.get(reverse(f"annotation:{name}")).status_code == 403


@pytest.mark.parametrize("name", ["training", "practice", "qualification"])
def test_annotator_pages_refuse_researchers(researcher_client, name):
    assert researcher_client.get(reverse(f"annotation:{name}")).status_code == 403


def test_posts_need_a_csrf_token(annotator, gold):
    from django.test import Client

    client = Client(enforce_csrf_checks=True)
    client.force_login(annotator)
    item = GoldItem.objects.filter(set="practice").first()
    assert client.post(reverse("annotation:practice"), _scores_post(item)).status_code == 403
    assert client.post(reverse("annotation:qualification-start")).status_code == 403
    assert not TrainingAnswer.objects.exists() and not QualificationAttempt.objects.exists()


# --------------------------------------------------------------------------- start page and gating


def test_training_page_shows_the_steps_and_not_qualified(annotator_client, gold):
    response = annotator_client.get(reverse("annotation:training"))
    html = response.content.decode()
    assert response.status_code == 200
    assert 'data-qualified="false"' in html
    assert reverse("annotation:guidelines") in html and reverse("annotation:practice") in html
    assert "data-start-test" in html


def test_queue_sends_unqualified_annotators_to_training_with_a_message(annotator_client, gold):
    response = annotator_client.get("/annotate/", follow=True)
    assert response.redirect_chain[-1][0] == reverse("annotation:training")
    with translation.override("ja"):
        expected = str(QUALIFICATION_REQUIRED_MESSAGE)
    assert expected in response.content.decode()


def test_queue_opens_for_qualified_annotators(annotator_client, annotator):
    QualificationAttempt.objects.create(annotator=annotator, finished_at=timezone.now(), passed=True)
    assert annotator_client.get("/annotate/").status_code == 200


# --------------------------------------------------------------------------- practice


def test_practice_page_shows_the_next_item_with_four_radio_groups(annotator_client, gold):
    response = annotator_client.get(reverse("annotation:practice"))
    html = response.content.decode()
    assert response.status_code == 200
    assert "gold_practice_001" in html
    for axis in AXES:
        assert html.count(f'name="{axis}"') == 5
    assert 'hx-post="/training/practice/"' in html


def test_practice_post_without_js_stores_the_answer_and_redirects_to_feedback(annotator_client, annotator, gold):
    item = GoldItem.objects.get(external_id="gold_practice_001")
    mine = {"social": 1, "avoidant": 1, "mechanical": 2, "self": 1}
    response = annotator_client.post(reverse("annotation:practice"), _scores_post(item, mine))
    answer = TrainingAnswer.objects.get(annotator=annotator)
    assert response.status_code == 302
    assert response["Location"] == reverse("annotation:practice-feedback", args=[answer.pk])
    assert answer.scores == mine and answer.attempt is None and answer.gold_item == item
    html = annotator_client.get(response["Location"]).content.decode()
    assert "data-feedback" in html and item.explanation in html
    assert "<td data-mine>2</td>" in html and "<span data-gold>1</span>" in html
    assert reverse("annotation:practice") in html  # next practice item


def test_practice_post_with_htmx_returns_the_feedback_partial(annotator_client, annotator, gold):
    item = GoldItem.objects.get(external_id="gold_practice_001")
    response = annotator_client.post(reverse("annotation:practice"), _scores_post(item), headers=HTMX)
    html = response.content.decode()
    assert response.status_code == 200
    assert html.lstrip().startswith('<div id="practice-panel"')
    assert "<html" not in html
    assert "data-feedback" in html and item.explanation in html
    assert TrainingAnswer.objects.filter(annotator=annotator).count() == 1


def test_next_practice_item_via_htmx_is_the_form_partial_for_the_next_item(annotator_client, gold):
    item = GoldItem.objects.get(external_id="gold_practice_001")
    annotator_client.post(reverse("annotation:practice"), _scores_post(item))
    html = annotator_client.get(reverse("annotation:practice"), headers=HTMX).content.decode()
    assert "<html" not in html and "gold_practice_002" in html and "data-feedback" not in html


def test_practice_post_with_a_missing_score_shows_the_error_and_stores_nothing(annotator_client, gold):
    item = GoldItem.objects.get(external_id="gold_practice_001")
    data = _scores_post(item)
    del data["self"]
    response = annotator_client.post(reverse("annotation:practice"), data)
    assert response.status_code == 200
    assert 'class="axis has-error" data-axis="self"' in response.content.decode()
    assert not TrainingAnswer.objects.exists()


def test_practice_post_for_a_test_item_is_404(annotator_client, gold):
    item = GoldItem.objects.filter(set="test").first()
    assert annotator_client.post(reverse("annotation:practice"), _scores_post(item)).status_code == 404
    assert annotator_client.post(reverse("annotation:practice"), {"item": "x"}).status_code == 404
    assert not TrainingAnswer.objects.exists()


def test_feedback_of_another_annotator_is_404(annotator_client, gold):
    from tests.helpers import make_user

    other = make_user("ann_002", "annotator")
    item = GoldItem.objects.get(external_id="gold_practice_001")
    answer = training.practice_answer_submit(annotator=other, gold_item=item, scores=item.gold)
    assert annotator_client.get(reverse("annotation:practice-feedback", args=[answer.pk])).status_code == 404


def test_gold_item_text_is_escaped_everywhere(annotator_client, researcher, tmp_path, db):
    script = "<script>alert('x')</script>"
    rows = [
        gold_row(1, "practice", response=f"応答{script}", explanation=f"説明{script}", user=f"質問{script}"),
        *[gold_row(i, "test", gold) for i, gold in enumerate(TEST_GOLD, start=1)],
    ]
    gold_import.import_gold(paths=[write_rows(tmp_path / "x.jsonl", rows)])
    item = GoldItem.objects.get(set="practice")
    pages = [annotator_client.get(reverse("annotation:practice"))]
    pages.append(annotator_client.post(reverse("annotation:practice"), _scores_post(item), follow=True))
    annotator_client.force_login(researcher)
    pages.append(annotator_client.get(reverse("annotation:gold-items")))
    for response in pages:
        html = response.content.decode()
        assert script not in html
        assert "&lt;script&gt;alert(&#x27;x&#x27;)&lt;/script&gt;" in html


# --------------------------------------------------------------------------- qualification test


def test_qualification_without_an_attempt_goes_back_to_training(annotator_client, gold):
    response = annotator_client.get(reverse("annotation:qualification"))
    assert response.status_code == 302 and response["Location"] == reverse("annotation:training")


def test_starting_without_test_items_shows_an_error(annotator_client, db):
    response = annotator_client.post(reverse("annotation:qualification-start"), follow=True)
    assert response.redirect_chain[-1][0] == reverse("annotation:training")
    assert not QualificationAttempt.objects.exists()
    assert 'class="message message-error"' in response.content.decode()


def test_taking_the_test_without_js_until_passed(annotator_client, annotator, gold, settings):
    settings.TRAINING_MIN_SECONDS_PER_ITEM = 0
    response = annotator_client.post(reverse("annotation:qualification-start"))
    assert response["Location"] == reverse("annotation:qualification")
    attempt = QualificationAttempt.objects.get(annotator=annotator)
    for number, pk in enumerate(attempt.item_ids, start=1):
        page = annotator_client.get(reverse("annotation:qualification")).content.decode()
        item = GoldItem.objects.get(pk=pk)
        assert item.response_text in page and f'<progress max="{len(attempt.item_ids)}" value="{number - 1}">' in page
        assert item.explanation not in page  # no feedback during the test
        response = annotator_client.post(reverse("annotation:qualification"), _scores_post(item))
    attempt.refresh_from_db()
    assert attempt.passed is True
    assert response["Location"] == reverse("annotation:qualification-result", args=[attempt.pk])
    html = annotator_client.get(response["Location"]).content.decode()
    assert 'data-result="passed"' in html and html.count("1.000") == 4
    assert training.is_qualified(annotator)
    assert 'data-qualified="true"' in annotator_client.get(reverse("annotation:training")).content.decode()


def test_htmx_answers_swap_in_the_next_item_and_redirect_at_the_end(annotator_client, annotator, gold, settings):
    settings.TRAINING_MIN_SECONDS_PER_ITEM = 0
    annotator_client.post(reverse("annotation:qualification-start"), headers=HTMX)
    attempt = QualificationAttempt.objects.get(annotator=annotator)
    *first, last = attempt.item_ids
    for pk in first:
        response = annotator_client.post(
            reverse("annotation:qualification"),
            _scores_post(GoldItem.objects.get(pk=pk), dict.fromkeys(AXES, 3)),
            headers=HTMX,
        )
        assert response.content.decode().lstrip().startswith('<div id="test-panel"')
    response = annotator_client.post(
        reverse("annotation:qualification"),
        _scores_post(GoldItem.objects.get(pk=last), dict.fromkeys(AXES, 3)),
        headers=HTMX,
    )
    assert response["HX-Redirect"] == reverse("annotation:qualification-result", args=[attempt.pk])
    attempt.refresh_from_db()
    assert attempt.passed is False
    html = annotator_client.get(response["HX-Redirect"]).content.decode()
    assert 'data-result="failed"' in html and "data-start-test" in html  # may retake


def test_result_page_shows_undefined_kappa_with_its_reason(annotator_client, annotator, gold):
    attempt = QualificationAttempt.objects.create(
        annotator=annotator,
        finished_at=timezone.now(),
        passed=False,
        kappas={"social": 0.8, "avoidant": None, "mechanical": 0.7, "self": 0.5},
        reasons={
            "social": None,
            "avoidant": "kappa is undefined: expected disagreement is 0",
            "mechanical": None,
            "self": "kappa 0.500 is below the minimum 0.60",
        },
    )
    html = annotator_client.get(reverse("annotation:qualification-result", args=[attempt.pk])).content.decode()
    assert "expected disagreement is 0" in html
    assert 'data-axis="avoidant" class="far"' in html and 'data-axis="social" class="match"' in html


def test_results_of_others_are_hidden_from_annotators_but_shown_to_researchers(client, annotator, researcher, gold):
    from tests.helpers import make_user

    other = make_user("ann_002", "annotator")
    attempt = QualificationAttempt.objects.create(
        annotator=other,
        finished_at=timezone.now(),
        passed=True,
        kappas=dict.fromkeys(AXES, 1.0),
        reasons=dict.fromkeys(AXES),
    )
    url = reverse("annotation:qualification-result", args=[attempt.pk])
    client.force_login(annotator)
    assert client.get(url).status_code == 404
    client.force_login(researcher)
    assert client.get(url).status_code == 200


# --------------------------------------------------------------------------- researcher pages


def test_upload_imports_gold_items(researcher_client, tmp_path):
    data = write_rows(tmp_path / "g.jsonl", [gold_row(1, "practice"), gold_row(1)]).read_bytes()
    upload = SimpleUploadedFile("gold.jsonl", data, content_type="application/json")
    response = researcher_client.post(reverse("annotation:gold-items"), {"file": upload}, follow=True)
    assert response.redirect_chain[-1][0] == reverse("annotation:gold-items")
    assert GoldItem.objects.count() == 2
    assert 'data-gold-item="gold_test_001"' in response.content.decode()


def test_upload_dry_run_stores_nothing(researcher_client, tmp_path):
    upload = SimpleUploadedFile("gold.jsonl", write_rows(tmp_path / "g.jsonl", [gold_row(1)]).read_bytes())
    response = researcher_client.post(reverse("annotation:gold-items"), {"file": upload, "dry_run": "on"}, follow=True)
    assert response.status_code == 200 and not GoldItem.objects.exists()


def test_upload_with_errors_names_the_uploaded_file_line_and_path_and_stores_nothing(researcher_client, tmp_path):
    rows = [gold_row(1), gold_row(2, set="final"), "{broken"]
    upload = SimpleUploadedFile("my gold.jsonl", write_rows(tmp_path / "g.jsonl", rows).read_bytes())
    response = researcher_client.post(reverse("annotation:gold-items"), {"file": upload})
    html = response.content.decode()
    assert response.status_code == 400
    assert "my_gold.jsonl:2: $.set: must be &quot;practice&quot; or &quot;test&quot;" in html
    assert "my_gold.jsonl:3: $: invalid JSON" in html
    assert "jaiml-gold-" not in html  # not the temporary folder
    assert not GoldItem.objects.exists()


def test_upload_of_a_changed_item_needs_the_update_box(researcher_client, tmp_path):
    gold_import.import_gold(paths=[write_rows(tmp_path / "a.jsonl", [gold_row(1)])])
    changed = write_rows(tmp_path / "b.jsonl", [gold_row(1, explanation="別の説明")]).read_bytes()
    response = researcher_client.post(
        reverse("annotation:gold-items"), {"file": SimpleUploadedFile("b.jsonl", changed)}
    )
    assert response.status_code == 400 and "use --update" in response.content.decode()
    response = researcher_client.post(
        reverse("annotation:gold-items"), {"file": SimpleUploadedFile("b.jsonl", changed), "update": "on"}
    )
    assert response.status_code == 302
    assert GoldItem.objects.get().explanation == "別の説明"


def test_results_overview_lists_annotators_attempts_and_kappas(researcher_client, annotator, gold):
    from tests.helpers import make_user

    make_user("ann_002", "annotator")
    attempt = training.qualification_start(annotator=annotator)
    for pk in attempt.item_ids:
        item = GoldItem.objects.get(pk=pk)
        training.qualification_answer_submit(attempt=attempt, gold_item=item, scores=item.gold, min_seconds=0)
    html = researcher_client.get(reverse("annotation:qualification-results")).content.decode()
    assert 'data-annotator="ann_001"' in html and 'data-annotator="ann_002"' in html
    assert html.count('data-axis="social">1.000') == 1
    assert reverse("annotation:qualification-result", args=[attempt.pk]) in html
