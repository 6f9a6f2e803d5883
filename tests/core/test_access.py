"""Every page and API needs a login; role pages need the role."""

import pytest
from django.urls import URLPattern, URLResolver, get_resolver

# Views reachable without logging in, on purpose.
PUBLIC = {"login", "healthz", "favicon", "set_language", "admin:login", "admin:logout", "admin:password_reset",
          "review:login", "review:logout"}  # fmt: skip
ADMIN_SITES = ("/admin/", "/review/")  # Django admin sites: their own login page


def _all_patterns(resolver=None, prefix="", namespace=""):
    resolver = resolver or get_resolver()
    for pattern in resolver.url_patterns:
        if isinstance(pattern, URLResolver):
            ns = f"{namespace}{pattern.namespace}:" if pattern.namespace else namespace
            yield from _all_patterns(pattern, prefix + str(pattern.pattern), ns)
        elif isinstance(pattern, URLPattern):
            yield prefix + str(pattern.pattern), f"{namespace}{pattern.name}" if pattern.name else None


def _concrete(route: str) -> str:
    """A URL for a route with converters filled in with plausible values."""
    import re

    route = route.replace("^", "").replace("$", "").replace("\\Z", "").replace("\\", "")
    route = re.sub(r"<uuid:\w+>", "00000000-0000-0000-0000-000000000000", route)
    route = re.sub(r"<(int|id|path):\w+>", "1", route)
    route = re.sub(r"<(str|slug)?:?\w+>", "x", route)
    route = re.sub(r"\(\?P<\w+>[^)]*\)", "1", route)
    return "/" + route


@pytest.mark.django_db
def test_every_non_public_url_redirects_anonymous_users_to_login_or_refuses_the_api(client):
    checked = 0
    for route, name in _all_patterns():
        if name in PUBLIC or ("(?P<" in route and route.startswith(("admin/", "review/"))):
            continue
        url = _concrete(route)
        response = client.get(url)
        if url.startswith("/api/"):
            assert response.status_code == 401, url
        elif url.startswith(ADMIN_SITES):
            assert response.status_code in (302, 404), url
            if response.status_code == 302:
                assert "login/?next=" in response["Location"], url
        else:
            assert response.status_code == 302, f"{url} answered {response.status_code} to an anonymous user"
            assert response["Location"].startswith("/login/?next="), url
        checked += 1
    assert checked >= 8


def test_anonymous_user_is_redirected_to_login_with_next(client, db):
    response = client.get("/system/")
    assert response.status_code == 302
    assert response["Location"] == "/login/?next=/system/"


def test_annotator_gets_403_on_researcher_page(client, annotator):
    client.force_login(annotator)
    response = client.get("/system/")
    assert response.status_code == 403
    assert "研究者" in response.content.decode()  # names the role that is needed


def test_annotator_gets_403_on_researcher_api(client, annotator):
    client.force_login(annotator)
    response = client.get("/api/schema/")
    assert response.status_code == 403
    assert b"researcher role" in response.content


def test_user_without_role_gets_403_on_researcher_page(client, outsider):
    client.force_login(outsider)
    assert client.get("/system/").status_code == 403


def test_researcher_reaches_researcher_page_and_api(client, researcher):
    client.force_login(researcher)
    assert client.get("/system/").status_code == 200
    assert client.get("/api/schema/").status_code == 200


def test_staff_user_is_admin_and_researcher(client, staff_user):
    client.force_login(staff_user)
    assert client.get("/system/").status_code == 200
    assert client.get("/admin/").status_code == 200


def test_annotator_cannot_open_admin(client, annotator):
    client.force_login(annotator)
    response = client.get("/admin/")
    assert response.status_code == 302
    assert "/admin/login/" in response["Location"]


def test_api_me_names_the_roles(client, researcher):
    client.force_login(researcher)
    response = client.get("/api/v1/me/")
    assert response.status_code == 200
    assert response.json() == {"username": "res_001", "roles": ["researcher"], "language": "ja"}


def test_navigation_matches_the_role(client, annotator, researcher):
    client.force_login(annotator)
    page = client.get("/").content.decode()
    assert 'data-nav="home"' in page and 'data-nav="system"' not in page and 'data-nav="admin"' not in page
    client.force_login(researcher)
    page = client.get("/").content.decode()
    assert 'data-nav="system"' in page and 'data-nav="admin"' not in page


def test_login_page_logs_in_and_out(client, annotator):
    response = client.post("/login/", {"username": "ann_001", "password": "pw-for-tests-1"})
    assert response.status_code == 302 and response["Location"] == "/"
    assert client.get("/").status_code == 200
    assert client.post("/logout/").status_code == 302
    assert client.get("/").status_code == 302


def test_login_with_wrong_password_shows_error(client, annotator):
    response = client.post("/login/", {"username": "ann_001", "password": "wrong"})
    assert response.status_code == 200
    assert "ユーザー名とパスワードが一致しません" in response.content.decode()


@pytest.mark.django_db
@pytest.mark.parametrize("method", ["get", "post"])
def test_api_answers_anonymous_requests_with_401_and_a_challenge(client, method):
    for url in ("/api/v1/me/", "/api/schema/"):
        response = getattr(client, method)(url)
        assert response.status_code == 401, url
        assert response["WWW-Authenticate"] == 'Session realm="api", login="/login/"'
