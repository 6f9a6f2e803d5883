"""The Director's live check (#15): a praising あゆ line is RETRY with the praise highlighted; edited, it passes."""

from tests.e2e.conftest import log_in, screenshot
from tests.helpers import make_user

PASSWORD = "pw-for-tests-1"


def test_live_check_highlights_praise_and_passes_after_editing(page, transactional_db, settings):
    settings.LLM_BASE_URL = ""
    make_user("res_dir", "researcher", password=PASSWORD)
    log_in(page, "res_dir", PASSWORD)
    page.click("[data-nav=director]")
    page.wait_for_load_state("load")  # htmx binds the form when the page has loaded; type after that, as a person does
    page.check("input[name=speaker][value=ayu]")
    page.fill("#line-text", "その考えはすごいです、本当に正しいですね。")
    page.wait_for_selector("[data-status=RETRY]")
    marked = page.locator("mark.dir-mark-RETRY").all_inner_texts()
    assert "すごい" in marked and "正しい" in marked
    assert page.locator("li[data-rule=praise]").count() == 1
    assert page.locator("[data-review=skipped]").count() == 1  # offline: the LLM stage is shown as skipped
    screenshot(page, "director-check-retry")
    page.fill("#line-text", "カフェは駅から歩いて十分ほどです。目安として覚えておくと便利ですね。")
    page.wait_for_selector("[data-status=PASS]")
    assert page.locator("mark.dir-mark-RETRY").count() == 0
    screenshot(page, "director-check-pass")


def test_the_seeds_double_negation_is_retry_and_a_litotes_is_not_in_japanese_and_english(
    page, transactional_db, settings
):
    from playwright.sync_api import expect

    settings.LLM_BASE_URL = ""
    make_user("res_neg", "researcher", password=PASSWORD)
    log_in(page, "res_neg", PASSWORD)
    for language, retry_words, warn_words in (
        ("ja", "二重否定で意図が逆転して読めます", "否定の重なった遠回しな表現"),
        ("en", "A double negation can be read with the opposite intent", "A roundabout double negative"),
    ):
        if language == "en":
            with page.expect_navigation():
                page.select_option("#language-select", "en")
        page.click("[data-nav=director]")
        page.wait_for_load_state("load")
        expect(page.locator("html")).to_have_attribute("lang", language)
        page.check("input[name=speaker][value=yana]")
        page.fill("#line-text", "えー、あゆってまだ未成年じゃない？")
        page.wait_for_selector("[data-status=RETRY]")
        assert page.locator("mark.dir-mark-RETRY").all_inner_texts() == ["未成年じゃない"]
        expect(page.locator("li[data-rule=contradiction]")).to_contain_text(retry_words)
        screenshot(page, f"director-check-double-negation-{language}")
        page.fill("#line-text", "えー、無理じゃないよ！")
        page.wait_for_selector("[data-status=WARN]")
        assert page.locator("mark.dir-mark-RETRY").count() == 0
        assert page.locator("li[data-rule=contradiction]").count() == 0
        expect(page.locator("li[data-rule=litotes]")).to_contain_text(warn_words)
        screenshot(page, f"director-check-litotes-{language}")
