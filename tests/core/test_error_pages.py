"""Issue #44, point 3: error pages of the site (403, 404, 405, 500) in its style and language; the API keeps JSON."""

from __future__ import annotations

import pytest
from django.test import Client
from django.urls import path

import config.urls
from tests.helpers import make_user

pytestmark = pytest.mark.django_db


def _broken_view(request):
    raise RuntimeError("secret detail of the server")


urlpatterns = [path("test-only/broken/", _broken_view), *config.urls.urlpatterns]


@pytest.fixture
def researcher_client(researcher):
    client = Client(raise_request_exception=False)
    client.force_login(researcher)
    return client


def _in(client, settings, code: str) -> Client:
    client.cookies[settings.LANGUAGE_COOKIE_NAME] = code
    return client


@pytest.mark.parametrize(("code", "title"), [("ja", "フォームから送信して開く"), ("en", "reached through a form")])
def test_a_get_of_a_post_only_page_is_a_405_page_of_the_site_keeping_the_allow_header(
    researcher_client, settings, code, title
):
    response = _in(researcher_client, settings, code).get("/research/agreement/recompute/")
    html = response.content.decode()
    assert response.status_code == 405 and response["Allow"] == "POST"
    assert 'data-error-page="405"' in html and title in html and 'class="topbar"' in html
    assert f'lang="{code}"' in html


def test_a_405_links_back_to_the_page_it_came_from_on_this_site_only(researcher_client):
    back = researcher_client.get("/research/agreement/recompute/", HTTP_REFERER="http://testserver/research/")
    assert 'href="http://testserver/research/"' in back.content.decode()
    away = researcher_client.get("/research/agreement/recompute/", HTTP_REFERER="https://evil.example/")
    assert "evil.example" not in away.content.decode()


def test_the_api_keeps_its_json_405(researcher_client):
    response = researcher_client.post("/api/experiment/batch/pilot/judge-calibration")
    assert response.status_code == 405 and response["Content-Type"].startswith("application/json")
    assert response.json()["success"] is False


@pytest.mark.parametrize(("code", "text"), [("ja", "見つかりません"), ("en", "Not found")])
def test_a_404_is_the_site_page(researcher_client, settings, code, text):
    response = _in(researcher_client, settings, code).get("/no/such/page/")
    html = response.content.decode()
    assert response.status_code == 404 and 'data-error-page="404"' in html and text in html
    assert 'class="topbar"' in html


@pytest.mark.parametrize(("code", "text"), [("ja", "サーバーエラー"), ("en", "Server error")])
def test_a_500_is_the_site_page_in_the_language_in_effect_without_details(researcher_client, settings, code, text):
    settings.ROOT_URLCONF = __name__
    response = _in(researcher_client, settings, code).get("/test-only/broken/")
    html = response.content.decode()
    assert response.status_code == 500 and 'data-error-page="500"' in html and text in html
    assert f'lang="{code}"' in html and 'class="topbar"' in html and "secret detail" not in html


@pytest.mark.parametrize(
    ("code", "text"), [("ja", "品質フラグのレビューにはレビュー権限が必要です"), ("en", "needs the review permission")]
)
def test_the_review_site_refuses_a_signed_in_researcher_without_the_permission_with_the_403_page(
    researcher_client, settings, code, text
):
    for url in ("/review/", "/review/login/?next=/review/", "/review/annotation/qualityflag/"):
        response = _in(researcher_client, settings, code).get(url)
        html = response.content.decode()
        assert response.status_code == 403, url
        assert 'data-error-page="403"' in html and text in html and 'id="id_password"' not in html


def test_the_review_site_still_sends_an_anonymous_visitor_to_its_login_form(client):
    response = client.get("/review/")
    assert response.status_code == 302 and response["Location"].startswith("/review/login/?next=")
    assert client.get(response["Location"]).status_code == 200


def test_a_reviewer_still_opens_the_review_site(client):
    from django.contrib.auth.models import Group

    reviewer = make_user("res_rev", "researcher")
    reviewer.groups.add(Group.objects.get(name="reviewer"))
    client.force_login(reviewer)
    assert client.get("/review/").status_code == 200
