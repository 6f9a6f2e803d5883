from django.core.management import call_command

from core.demo import credentials_path
from tests.e2e.conftest import log_in, screenshot
from tests.helpers import make_user


def test_demo_annotator_logs_in_and_sees_japanese_home_with_annotator_navigation(page, settings, transactional_db):
    settings.DEBUG = True  # load_demo is a demo-mode command
    call_command("load_demo")
    import json

    password = json.loads(credentials_path().read_text())["annotator1"]

    page.goto("/")
    assert "/login/" in page.url
    log_in(page, "annotator1", password)

    assert page.url.endswith("/")
    assert page.locator("html").get_attribute("lang") == "ja"
    assert "ようこそ、annotator1 さん" in page.locator("h1").inner_text()
    nav = page.locator("nav.mainnav a")
    assert nav.all_inner_texts() == [
        "ホーム",
        "アノテーション",
        "トレーニング",
        "自分の評価",
        "フィードバック",
        "ガイドライン",
    ]
    assert page.locator("[data-nav=system]").count() == 0
    screenshot(page, "home-annotator")


def test_researcher_sees_researcher_navigation_and_can_switch_to_english(page, transactional_db):
    make_user("res_e2e", "researcher", password="pw-for-tests-1")
    log_in(page, "res_e2e", "pw-for-tests-1")

    assert page.locator("nav.mainnav a").all_inner_texts() == [
        "ホーム",
        "ガイドライン",
        "バッチ",
        "一致率",
        "フィードバック",
        "正解データ",
        "Layer3",
        "ディレクター",
        "システム状態",
        "API",
    ]
    with page.expect_navigation():
        page.select_option("#language-select", "en")
    assert page.locator("html").get_attribute("lang") == "en"
    assert page.locator("nav.mainnav a").all_inner_texts() == [
        "Home",
        "Guidelines",
        "Batches",
        "Agreement",
        "Feedback",
        "Gold items",
        "Layer3",
        "Director",
        "System status",
        "API docs",
    ]

    page.click("[data-nav=system]")
    assert page.locator("h1").inner_text() == "System status"
    screenshot(page, "system-researcher")


def test_annotator_sees_403_page_on_researcher_page(page, transactional_db):
    make_user("ann_e2e", "annotator", password="pw-for-tests-1")
    log_in(page, "ann_e2e", "pw-for-tests-1")
    response = page.goto("/system/")
    assert response.status == 403
    assert "アクセスできません" in page.locator("h1").inner_text()
