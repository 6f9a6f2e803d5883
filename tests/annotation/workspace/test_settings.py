"""A batch's settings: quota, spread, status and who may work on it, as the queue then applies them."""

import pytest

from annotation.collection.queue import assignment_next
from annotation.models import Batch
from tests.helpers import make_qualified_annotator, make_user

pytestmark = pytest.mark.django_db


def _settings(batch, **changes) -> dict:
    data = {
        "status": batch.status, "annotations_per_item": batch.annotations_per_item,
        "disagreement_spread": batch.disagreement_spread, "guidelines_version": batch.guidelines_version,
        "description": batch.description, "restricted": str(batch.restricted),
    }  # fmt: skip
    data.update(changes)
    return data


def _url(batch) -> str:
    return f"/research/batches/{batch.pk}/settings/"


def test_the_form_explains_each_status_and_lists_the_annotator_accounts(researcher_client, batch):
    make_qualified_annotator("person_1")
    html = researcher_client.get(_url(batch)).content.decode()
    assert "A paused batch hands out nothing" in html
    assert 'value="paused"' in html and 'value="closed"' in html
    assert "person_1" in html
    assert "ann_a" not in html  # accounts made by an import cannot log in, so they are not offered


def test_quota_spread_version_and_description_are_saved(researcher_client, batch):
    response = researcher_client.post(_url(batch), _settings(
        batch, annotations_per_item="5", disagreement_spread="3", guidelines_version="v3", description="新しい説明"
    ))  # fmt: skip
    assert response.status_code == 302 and response["Location"] == f"/research/batches/{batch.pk}/"
    batch.refresh_from_db()
    assert (batch.annotations_per_item, batch.disagreement_spread, batch.guidelines_version, batch.description) == (
        5, 3, "v3", "新しい説明",
    )  # fmt: skip


@pytest.mark.parametrize(
    ("field", "value", "message"),
    [
        ("annotations_per_item", "0", "Ensure this value is greater than or equal to 1."),
        ("disagreement_spread", "5", "Ensure this value is less than or equal to 4."),
        ("status", "archived", "Select a valid choice."),
    ],
)
def test_bad_values_are_refused_beside_their_field(researcher_client, batch, field, value, message):
    response = researcher_client.post(_url(batch), _settings(batch, **{field: value}))
    html = response.content.decode()
    assert response.status_code == 200
    field_html = html[html.index(f'data-field="{field}"') :]
    assert message in field_html[: field_html.index("</div>") if field != "status" else field_html.index("</fieldset>")]
    batch.refresh_from_db()
    assert batch.annotations_per_item == 3 and batch.status == Batch.Status.OPEN


def test_a_paused_batch_hands_out_nothing(researcher_client, batch):
    annotator = make_qualified_annotator("person_1")
    researcher_client.post(_url(batch), _settings(batch, status="paused"))
    batch.refresh_from_db()
    assert batch.status == Batch.Status.PAUSED
    assert assignment_next(batch=batch, annotator=annotator) is None
    researcher_client.post(_url(batch), _settings(batch, status="open"))
    batch.refresh_from_db()
    assert assignment_next(batch=batch, annotator=annotator) is not None


def test_only_the_chosen_annotators_get_items(researcher_client, batch):
    chosen, other = make_qualified_annotator("person_1"), make_qualified_annotator("person_2")
    response = researcher_client.post(
        _url(batch), {**_settings(batch, restricted="True", annotations_per_item="1"), "annotators": [chosen.pk]}
    )
    assert response.status_code == 302
    batch.refresh_from_db()
    assert batch.restricted and list(batch.annotators.all()) == [chosen]
    assert assignment_next(batch=batch, annotator=other) is None
    assert assignment_next(batch=batch, annotator=chosen).dialogue.batch == batch


def test_choosing_nobody_is_refused(researcher_client, batch):
    make_qualified_annotator("person_1")
    response = researcher_client.post(_url(batch), _settings(batch, restricted="True"))
    assert "Choose at least one annotator" in response.content.decode()
    batch.refresh_from_db()
    assert not batch.restricted


def test_every_qualified_annotator_again_opens_the_batch_to_all(researcher_client, batch):
    chosen, other = make_qualified_annotator("person_1"), make_qualified_annotator("person_2")
    batch.restricted = True
    batch.save()
    batch.annotators.set([chosen])
    researcher_client.post(_url(batch), {**_settings(batch, restricted="False"), "annotators": [chosen.pk]})
    batch.refresh_from_db()
    assert not batch.restricted
    assert assignment_next(batch=batch, annotator=other) is not None


def test_a_researcher_account_cannot_be_chosen(researcher_client, batch):
    outsider = make_user("res_other", "researcher")
    response = researcher_client.post(_url(batch), {**_settings(batch, restricted="True"), "annotators": [outsider.pk]})
    assert "Select a valid choice" in response.content.decode()
    assert not batch.annotators.exists()


# --- issue 30, point 3: a quota over the chosen annotators ------------------------------------------------------


def test_a_quota_over_the_chosen_annotators_is_not_saved_without_an_explicit_yes(researcher_client, batch):
    chosen = make_qualified_annotator("person_1")
    data = {**_settings(batch, restricted="True", annotations_per_item="2"), "annotators": [chosen.pk]}
    response = researcher_client.post(_url(batch), data)
    html = response.content.decode()
    assert response.status_code == 200
    quota_field = html[html.index('data-field="annotations_per_item"') :]
    assert "Each item needs 2 ratings but only 1 annotator is chosen" in quota_field[: quota_field.index("</div>")]
    assert 'data-warning="quota-confirm"' in html and 'name="confirm_quota"' in html
    batch.refresh_from_db()
    assert not batch.restricted and batch.annotations_per_item == 3  # nothing saved

    response = researcher_client.post(_url(batch), {**data, "confirm_quota": "on"})
    assert response.status_code == 302
    batch.refresh_from_db()
    assert batch.restricted and batch.annotations_per_item == 2 and list(batch.annotators.all()) == [chosen]
    # Saved that way, the batch page and the settings page keep saying it never completes.
    for url in (f"/research/batches/{batch.pk}/", _url(batch)):
        page = researcher_client.get(url).content.decode()
        assert 'data-warning="quota"' in page and "each item needs 2 ratings but only 1 annotator is chosen" in page


def test_enough_chosen_annotators_or_an_open_batch_need_no_confirmation(researcher_client, batch):
    one, two = make_qualified_annotator("person_1"), make_qualified_annotator("person_2")
    ok = {**_settings(batch, restricted="True", annotations_per_item="2"), "annotators": [one.pk, two.pk]}
    assert researcher_client.post(_url(batch), ok).status_code == 302
    open_to_all = {**_settings(batch, restricted="False", annotations_per_item="5"), "annotators": [one.pk]}
    assert researcher_client.post(_url(batch), open_to_all).status_code == 302
    assert 'data-warning="quota"' not in researcher_client.get(f"/research/batches/{batch.pk}/").content.decode()
