"""Issue 30 point 6 as a reader sees it at 1366×768: in English the guidelines page says at once that its
text is the Japanese original, and its headings and contents are in English; in Japanese there is no note."""

import re

from playwright.sync_api import expect

from tests.e2e.conftest import log_in, screenshot
from tests.helpers import PASSWORD, make_user

JAPANESE = re.compile(r"[\u3040-\u30ff\u4e00-\u9fff]")


def test_the_english_guidelines_page_says_its_text_is_the_japanese_original(laptop_page, transactional_db):
    page = laptop_page
    make_user("reader", "annotator")
    log_in(page, "reader", PASSWORD)
    page.goto("/guidelines/")
    expect(page.locator("[data-original-language-note]")).to_have_count(0)
    with page.expect_navigation():
        page.select_option("#language-select", "en")
    note = page.locator("[data-original-language-note]")
    expect(note).to_be_visible()
    assert note.bounding_box()["y"] + note.bounding_box()["height"] < 768  # seen without scrolling
    expect(note).to_contain_text("Japanese original")
    toc = page.locator("nav.guidelines-toc a").all_inner_texts()
    headings = page.locator(".guidelines-content h1, .guidelines-content h2, .guidelines-content h3").all_inner_texts()
    unquoted = [re.sub(r"“[^”]*”", "", text) for text in toc + headings]
    assert len(unquoted) > 60 and [t for t in unquoted if JAPANESE.search(t)] == []
    screenshot(page, "e_guidelines_en")
