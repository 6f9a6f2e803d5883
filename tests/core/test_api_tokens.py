"""Personal API tokens: created on the user's page (key shown once), used by scripts, revoked; the API docs."""

import re

import pytest
from django.test import Client

from core.models import ApiToken

pytestmark = pytest.mark.django_db


def create(client, name="export script") -> str:
    html = client.post("/account/tokens/", {"name": name}).content.decode()
    return re.search(r"data-token-key>([^<]+)<", html).group(1)


def test_a_token_is_shown_once_and_only_its_digest_is_stored(client, researcher):
    client.force_login(researcher)
    key = create(client)
    token = ApiToken.objects.get()
    assert key.startswith("jaiml_") and key not in (token.digest, token.prefix) and key.startswith(token.prefix)
    page = client.get("/account/tokens/")
    assert key not in page.content.decode() and page["Cache-Control"] == "private, no-store"


def test_scripts_use_the_token_with_the_users_roles_and_no_csrf(client, researcher, annotator):
    client.force_login(researcher)
    key = create(client)
    script = Client(enforce_csrf_checks=True)
    assert script.get("/api/director/verdicts", headers={"Authorization": f"Token {key}"}).status_code == 200
    posted = script.post("/api/director/check", {"text": "えー、ほんと？", "speaker": "yana"},
                         content_type="application/json", headers={"Authorization": f"Bearer {key}"})  # fmt: skip
    assert posted.status_code == 200
    assert ApiToken.objects.get().last_used_at is not None
    client.force_login(annotator)
    annotator_key = create(client, "mine")
    assert script.get("/api/director/verdicts", headers={"Authorization": f"Token {annotator_key}"}).status_code == 403


def test_revoked_unknown_and_malformed_tokens_are_refused_with_401(client, researcher):
    client.force_login(researcher)
    key = create(client)
    token = ApiToken.objects.get()
    client.post(f"/account/tokens/{token.pk}/revoke/")
    script = Client()
    for header in (f"Token {key}", "Token jaiml_nope", "Token a b", "Token"):
        response = script.get("/api/director/verdicts", headers={"Authorization": header})
        assert response.status_code == 401, header


def test_one_cannot_revoke_another_users_token(client, researcher, annotator):
    client.force_login(researcher)
    create(client)
    token = ApiToken.objects.get()
    client.force_login(annotator)
    client.post(f"/account/tokens/{token.pk}/revoke/")
    token.refresh_from_db()
    assert token.revoked_at is None


def test_a_token_needs_a_name_and_the_page_needs_a_login(client, researcher):
    assert client.get("/account/tokens/").status_code == 302
    client.force_login(researcher)
    html = client.post("/account/tokens/", {"name": "  "}).content.decode()
    assert 'role="alert"' in html and not ApiToken.objects.exists()


def test_the_api_docs_are_served_from_this_site_for_researchers(client, researcher, annotator):
    client.force_login(annotator)
    assert client.get("/api/docs/").status_code == 403
    client.force_login(researcher)
    for url in ("/api/docs/", "/api/docs/?script=", "/api/redoc/"):
        response = client.get(url)
        assert response.status_code == 200, url
        body = response.content.decode()
        assert not re.search(r"https?://(?!localhost|testserver)", body), url  # no CDN, no web fonts
    assert "'unsafe-inline'" in client.get("/api/docs/")["Content-Security-Policy"].split("style-src")[1]
    assert "script-src 'self'" in client.get("/api/docs/")["Content-Security-Policy"]


def test_the_schema_generates_without_warnings(tmp_path):
    from django.core.management import call_command

    call_command("spectacular", "--validate", "--fail-on-warn", "--file", str(tmp_path / "schema.yaml"))
    schema = (tmp_path / "schema.yaml").read_text(encoding="utf-8")
    assert "tokenAuth" in schema and "sessionAuth" in schema


def test_researchers_find_the_api_docs_as_links_in_the_navigation_and_on_the_tokens_page(client, researcher, annotator):
    """Issue 30 point 9: the docs were plain text on the tokens page and not in the navigation."""
    client.force_login(researcher)
    tokens = client.get("/account/tokens/").content.decode()
    assert 'href="/api/redoc/"' in tokens and 'href="/api/docs/"' in tokens
    assert 'data-nav="api-docs"' in tokens and "/api/docs/ (Swagger UI)" not in tokens
    client.force_login(annotator)
    tokens = client.get("/account/tokens/").content.decode()
    assert 'data-nav="api-docs"' not in tokens and 'href="/api/redoc/"' not in tokens


def test_redoc_s_script_is_the_sidecar_bundle_with_its_logo_served_here(client, researcher):
    client.force_login(researcher)
    page = client.get("/api/redoc/").content.decode()
    assert '<script src="/api/redoc/redoc.standalone.js">' in page
    response = client.get("/api/redoc/redoc.standalone.js")
    script = response.content.decode()
    assert response.status_code == 200 and response["Content-Type"].startswith("text/javascript")
    assert "cdn.redoc.ly" not in script and '"/static/img/redoc-logo-mini.svg"' in script
    assert len(script) > 500_000  # the whole bundle
    assert client.get("/api/redoc/redoc.standalone.js", headers={"If-None-Match": response["ETag"]}).status_code == 304
