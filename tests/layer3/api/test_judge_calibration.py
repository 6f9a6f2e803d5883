"""GET /api/experiment/batch/<batchId>/judge-calibration (issue 18): annotation's reports as they are, or 404."""

import pytest
import yaml
from django.test import Client

from layer3.models import Batch
from tests.layer3.calibration_fixture import SCRIPT, gv_report, hostile, w2wr_report

pytestmark = pytest.mark.django_db

URL = "/api/experiment/batch/{}/judge-calibration"


@pytest.fixture
def batch():
    return Batch.objects.create(name="pilot")


@pytest.fixture
def api(client, researcher):
    client.force_login(researcher)
    return client


def test_it_answers_every_audit_newest_first_by_name_or_id(api, batch, calibration):
    calibration["pilot"] = [hostile(gv_report()), w2wr_report()]
    for batch_id in ("pilot", str(batch.pk)):
        response = api.get(URL.format(batch_id))
        assert response.status_code == 200
        body = {"batchId": str(batch.pk), "batchName": "pilot", "audits": [hostile(gv_report()), w2wr_report()]}
        assert response.json() == body
    assert SCRIPT in response.content.decode()  # JSON carries the data as it is; pages escape it


def test_a_batch_without_an_audit_answers_an_empty_list(api, batch, calibration):
    assert api.get(URL.format("pilot")).json() == {"batchId": str(batch.pk), "batchName": "pilot", "audits": []}


def test_an_unknown_batch_is_404_in_the_api_error_shape(api, batch, calibration):
    response = api.get(URL.format("nope"))
    assert response.status_code == 404
    body = response.json()
    assert body["success"] is False and "no batch named 'nope'" in body["error"] and "pilot" in body["error"]


def test_anonymous_requests_get_401_annotators_403_and_writes_405(client, annotator, batch, calibration):
    assert client.get(URL.format("pilot")).status_code == 401
    client.force_login(annotator)
    assert client.get(URL.format("pilot")).status_code == 403
    researcher_client = Client()
    from tests.helpers import make_user

    researcher_client.force_login(make_user("res_cal", "researcher"))
    assert researcher_client.post(URL.format("pilot")).status_code == 405


def test_the_openapi_schema_documents_it(api):
    schema = yaml.safe_load(api.get("/api/schema/").content)
    operation = schema["paths"]["/api/experiment/batch/{batch_id}/judge-calibration"]["get"]
    assert "judge calibration" in operation["summary"] and {"200", "401", "403", "404"} <= set(operation["responses"])
    assert "audits" in operation["description"]
