"""The monthly page and the overview in a browser at 1366x768, Japanese and English (screenshots under SHOTS_DIR)."""

from __future__ import annotations

import os
from pathlib import Path

from tests.annotation.feedback import conftest as feedback_fixtures
from tests.e2e.conftest import log_in
from tests.helpers import PASSWORD

feedback_data = feedback_fixtures.feedback_data  # the fixture month of the feedback tests
SHOTS = Path(os.environ.get("SHOTS_DIR", Path(__file__).resolve().parents[1] / "artifacts" / "feedback"))


def _shoot(page, name: str) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / f"{name}.png"))
    page.screenshot(path=str(SHOTS / f"{name}-full.png"), full_page=True)


def _one_line_top_bar(page) -> bool:
    """Every link of the researcher's navigation sits on the same line at 1366 px."""
    return len({round(box["y"]) for box in (a.bounding_box() for a in page.locator("nav.mainnav a").all())}) == 1


def _switch_to_english(page) -> None:
    with page.expect_navigation():
        page.select_option("#language-select", "en")


def test_an_annotator_reads_their_month_in_japanese_and_english(laptop_page, transactional_db, feedback_data, settings):
    settings.AGREEMENT_MONITOR_N_BOOT = 200
    page = laptop_page
    log_in(page, "ann_a", PASSWORD)
    page.click("[data-nav=my-feedback]")
    page.goto("/feedback/?month=2026-03")
    assert page.locator("h1").inner_text().startswith("月次フィードバック")
    assert page.locator("[data-table=axes] tbody tr").count() == 4
    assert page.locator("[data-table=pairs] tbody tr").count() == 3
    assert page.locator("[data-table=flags] [data-flag]").count() == 1
    assert page.locator("[data-table=trend] tbody tr").count() == 2
    _shoot(page, "monthly-page-ja")
    _switch_to_english(page)
    assert page.locator("h1").inner_text().startswith("Monthly feedback")
    _shoot(page, "monthly-page-en")


def test_a_researcher_prepares_the_overview_and_sees_the_heat_maps_coloured(
    laptop_page,
    transactional_db,
    feedback_data,
    settings,
):
    settings.AGREEMENT_MONITOR_N_BOOT = 200
    page = laptop_page
    log_in(page, "res_001", PASSWORD)
    page.goto("/feedback/?month=2026-03")
    assert page.locator("[data-source=live]").is_visible()
    page.click("[data-action=prepare]")
    page.wait_for_selector("[data-source=prepared]")
    assert page.locator("[data-table=overview] tbody tr").count() == 4
    assert page.locator("table.heatmap").count() == 4
    cell = page.locator("table.heatmap td.cell:not(.diag):not(.undefined)").first
    assert cell.evaluate("c => c.style.backgroundColor") != ""  # page.js applied the server's colours
    _shoot(page, "overview-ja")
    assert _one_line_top_bar(page)
    _switch_to_english(page)
    assert _one_line_top_bar(page)
    _shoot(page, "overview-en")
    page.click("[data-download=print]")
    page.wait_for_selector("[data-print]")
    page.emulate_media(media="print")
    assert not page.locator("[data-print]").is_visible()
    _shoot(page, "overview-print-en")
