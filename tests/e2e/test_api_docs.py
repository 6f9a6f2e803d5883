"""Swagger UI and Redoc load from this site alone: every request elsewhere is blocked and none is made."""

from urllib.parse import urlparse

from tests.e2e.conftest import log_in, screenshot
from tests.helpers import make_user

PASSWORD = "pw-for-tests-1"


def test_swagger_ui_and_redoc_load_with_no_external_request(page, transactional_db):
    make_user("res_docs", "researcher", password=PASSWORD)
    log_in(page, "res_docs", PASSWORD)
    external = []

    def route(route):
        host = urlparse(route.request.url).hostname
        if host in ("localhost", "127.0.0.1"):
            route.continue_()
        else:
            external.append(route.request.url)
            route.abort()

    page.route("**/*", route)
    violations = []
    page.on("console", lambda m: violations.append(m.text) if "Content Security Policy" in m.text else None)
    page.goto("/api/docs/")
    page.wait_for_selector(".opblock-tag", timeout=20_000)  # the operations, grouped, rendered from the schema
    assert page.get_by_text("/api/director/check", exact=True).count() >= 1
    screenshot(page, "api-docs-swagger")
    page.goto("/api/redoc/")
    page.wait_for_selector("h1", timeout=20_000)
    assert "JAIML research API" in page.locator("h1").first.inner_text()
    screenshot(page, "api-docs-redoc")
    # Redoc's side menu asks for its "by Redocly" logo from cdn.redoc.ly; the policy blocks it before any
    # request is made (the route above saw none). Nothing else may be blocked.
    unexpected = [v for v in violations if "cdn.redoc.ly/redoc/logo-mini.svg" not in v]
    assert external == [] and unexpected == [], (external, unexpected)
