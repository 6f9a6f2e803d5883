"""Swagger UI and Redoc load from this site alone: every request elsewhere is blocked and none is made."""

from urllib.parse import urlparse

from tests.e2e.conftest import ARTIFACTS, log_in, screenshot
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
    # Redoc's side menu shows its "by Redocly" logo, served by this site (it came from cdn.redoc.ly, which the
    # policy blocked): nothing is blocked and no request leaves the site (issue 30 point 9).
    logo = page.locator("img[alt='redocly logo']")
    logo.wait_for(state="attached")
    assert urlparse(logo.get_attribute("src")).hostname is None  # a path on this site
    page.wait_for_function("() => document.querySelector(\"img[alt='redocly logo']\").naturalWidth > 0")
    assert external == [] and violations == [], (external, violations)


def test_a_researcher_opens_the_api_docs_from_the_navigation_at_1366x768(browser, live_server, transactional_db):
    """Issue 30 point 9: the navigation links to the docs; Redoc loads with no CSP violation, nothing from outside."""
    make_user("res_nav", "researcher", password=PASSWORD)
    context = browser.new_context(base_url=live_server.url, locale="ja-JP", viewport={"width": 1366, "height": 768})
    context.set_default_timeout(20_000)
    page = context.new_page()
    try:
        external, violations = [], []
        page.route("**/*", lambda r: r.continue_() if urlparse(r.request.url).hostname in ("localhost", "127.0.0.1")
                   else (external.append(r.request.url), r.abort()))  # fmt: skip
        page.on("console", lambda m: violations.append(m.text) if "Content Security Policy" in m.text else None)
        log_in(page, "res_nav", PASSWORD)
        link = page.locator("nav.mainnav [data-nav=api-docs]")
        assert link.inner_text() == "API" and link.is_visible()
        screenshot(page, "e_nav_api_docs_ja")
        with page.expect_navigation():
            page.select_option("#language-select", "en")
        assert page.locator("nav.mainnav [data-nav=api-docs]").inner_text() == "API docs"
        screenshot(page, "e_nav_api_docs_en")
        page.goto("/account/tokens/")
        page.click("[data-api-docs-links] a[href='/api/redoc/']")
        page.wait_for_selector("h1")
        page.wait_for_function("() => document.querySelector(\"img[alt='redocly logo']\")?.naturalWidth > 0")
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(ARTIFACTS / "e_redoc.png"))  # the viewport: the page is ~30,000 px long
        page.get_by_text("/api/director/check").first.scroll_into_view_if_needed()
        page.locator("[data-section-id*='director'] >> text=Request Body schema").first.scroll_into_view_if_needed()
        page.screenshot(path=str(ARTIFACTS / "e_redoc_director_check.png"))
        assert external == [] and violations == [], (external, violations)
    finally:
        context.close()
