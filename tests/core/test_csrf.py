import re

from django.test import Client


def test_post_without_csrf_token_is_refused(researcher):
    client = Client(enforce_csrf_checks=True)
    client.force_login(researcher)
    response = client.post("/system/worker-check/", headers={"HX-Request": "true"})
    assert response.status_code == 403
    assert "CSRF" in response.content.decode()


def test_htmx_post_with_the_page_token_is_accepted(researcher, monkeypatch):
    monkeypatch.setattr("core.tasks.run_job.delay", lambda job_id: None)
    client = Client(enforce_csrf_checks=True)
    client.force_login(researcher)
    page = client.get("/system/").content.decode()
    token = re.search(r"hx-headers='\{\"X-CSRFToken\": \"([^\"]+)\"\}'", page).group(1)
    response = client.post("/system/worker-check/", headers={"HX-Request": "true", "X-CSRFToken": token})
    assert response.status_code == 200


def test_get_is_not_allowed_on_post_only_views(client, researcher):
    client.force_login(researcher)
    assert client.get("/system/worker-check/").status_code == 405
