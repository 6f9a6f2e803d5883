"""Issue #44, point 3, in a browser: the error pages (403, 404, 405, 500) are the site's, in Japanese and English, and
an address left in the address bar by a POST (a refused ratings file, a rule-set comparison) opens a working page
when it is reloaded or opened again. Screenshots under /tmp/shots-errpages/."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from playwright.sync_api import expect

from annotation.models import Batch
from tests.e2e.conftest import browser_page, log_in
from tests.helpers import PASSWORD, make_user

SHOTS = Path(os.environ.get("SHOTS_DIR", "/tmp/shots-errpages"))
LANGUAGES = ("ja", "en")
TEXT = {
    "ja": {403: "アクセスできません", 404: "見つかりません", 405: "フォームから送信して開く", 500: "サーバーエラー"},
    "en": {403: "No access", 404: "Not found", 405: "reached through a form", 500: "Server error"},
}


def _shoot(page, name: str) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / f"{name}.png"), full_page=True)


@pytest.fixture
def researcher_page(browser, live_server, transactional_db, request):
    make_user("res_err", "researcher", password=PASSWORD)
    code = request.param
    with browser_page(browser, live_server, width=1280, height=720, locale="ja-JP") as page:
        page.context.add_cookies([{"name": "django_language", "value": code, "url": live_server.url}])
        log_in(page, "res_err", PASSWORD)
        yield page, code


def _expect_error_page(page, response, status: int, code: str) -> None:
    assert response.status == status
    card = page.locator(f'[data-error-page="{status}"]')
    expect(card).to_be_visible()
    assert TEXT[code][status] in card.inner_text()
    assert page.locator("html").get_attribute("lang") == code
    expect(page.locator("header.topbar .brand")).to_be_visible()  # the site around the message
    _shoot(page, f"error-{status}-{code}")


@pytest.mark.parametrize("researcher_page", LANGUAGES, indirect=True)
def test_a_page_that_is_not_there_is_the_sites_404(researcher_page):
    page, code = researcher_page
    _expect_error_page(page, page.goto("/research/no/such/page/"), 404, code)


@pytest.mark.parametrize("researcher_page", LANGUAGES, indirect=True)
def test_a_post_only_address_opened_from_the_address_bar_is_the_sites_405(researcher_page):
    page, code = researcher_page
    page.goto("/research/agreement/")
    with page.expect_navigation() as navigation:  # followed from a page of the site: a link back to it
        page.evaluate("location.href = '/research/agreement/recompute/'")
    response = navigation.value
    _expect_error_page(page, response, 405, code)
    assert response.headers["allow"] == "POST"
    back = page.locator("[data-error-page] a", has_text="元のページ" if code == "ja" else "the page you came from")
    assert back.get_attribute("href").endswith("/research/agreement/")


@pytest.mark.parametrize("researcher_page", LANGUAGES, indirect=True)
def test_the_review_site_shows_a_researcher_without_the_permission_the_sites_403(researcher_page):
    page, code = researcher_page
    _expect_error_page(page, page.goto("/review/"), 403, code)
    expect(page.locator("#id_password")).to_have_count(0)  # not the admin's login form
    assert ("レビュー権限" if code == "ja" else "review permission") in page.locator("[data-error-page]").inner_text()


@pytest.mark.parametrize("researcher_page", LANGUAGES, indirect=True)
def test_a_server_error_is_the_sites_500_without_details(researcher_page, settings):
    page, code = researcher_page
    settings.ROOT_URLCONF = "tests.core.test_error_pages"  # config.urls plus a view that raises; same process
    _expect_error_page(page, page.goto("/test-only/broken/"), 500, code)
    assert "secret detail" not in page.content()


@pytest.mark.parametrize("researcher_page", LANGUAGES, indirect=True)
def test_reloading_after_a_refused_ratings_file_lands_on_the_batch_page(researcher_page, tmp_path):
    page, code = researcher_page
    batch = Batch.objects.create(name="pilot")
    bad = tmp_path / "ratings.jsonl"
    bad.write_text('{"id": "r1", "annotator_id": \n', encoding="utf-8")
    page.goto(f"/research/batches/{batch.pk}/")
    card = page.locator('[data-card="ratings-upload"]')
    card.locator('input[name="ratings-file"]').set_input_files(str(bad))
    with page.expect_navigation():
        card.locator('button[data-action="upload-ratings"]').click()
    assert page.url.endswith(f"/research/batches/{batch.pk}/ratings/")
    expect(page.locator("#ratings-problems")).to_be_visible()
    page.reload()  # the browser sends the form again: the same refusal, on the batch page
    expect(page.locator("#ratings-problems")).to_be_visible()
    response = page.goto(page.url)  # the address opened again (a shared link, a new tab)
    assert response.status == 200 and page.url.endswith(f"/research/batches/{batch.pk}/#ratings-upload")
    expect(page.locator('[data-card="ratings-upload"] button[data-action="upload-ratings"]')).to_be_visible()
    _shoot(page, f"ratings-upload-reopened-{code}")


@pytest.mark.parametrize("researcher_page", LANGUAGES, indirect=True)
def test_reloading_a_rule_set_comparison_lands_on_the_statistics_page(researcher_page, tmp_path):
    from director.sessions.services import evaluate_line, verdict_store

    page, code = researcher_page
    verdict_store(evaluate_line(text="すごい景色ですね。", speaker="ayu", llm=False))  # a stored line to compare on
    bad = tmp_path / "rules.yaml"
    bad.write_text("version: 2\nthresholds: {}\n", encoding="utf-8")
    page.goto("/research/director/statistics/")
    page.set_input_files("#rules-file", str(bad))
    with page.expect_navigation():
        page.click("[data-action=compare]")
    assert "/research/director/statistics/compare/" in page.url
    expect(page.locator("[data-compare-error]")).to_be_visible()
    page.reload()  # the browser sends the form again: the same refusal, on the page with its form
    expect(page.locator("[data-compare-error]")).to_be_visible()
    response = page.goto(page.url.split("#")[0])  # the address opened again (a shared link, a new tab)
    assert response.status == 200 and page.url.endswith("/research/director/statistics/#compare")
    expect(page.locator("[data-action=compare]")).to_be_visible()
    _shoot(page, f"compare-reopened-{code}")
