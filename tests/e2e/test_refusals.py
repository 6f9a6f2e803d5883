"""Issue #41, points 6 and 8, in a browser as the researcher, in Japanese and English (screenshots under SHOTS_DIR):
a dashboard POST without its batch, a qualification extension past its bound, a month stored before it has
ended, and the feedback page of a name that is no annotator."""

from __future__ import annotations

import os
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from django.utils import timezone

from tests.annotation.feedback import conftest as feedback_fixtures
from tests.e2e.conftest import log_in
from tests.helpers import PASSWORD

feedback_data = feedback_fixtures.feedback_data  # ratings in February and March 2026 by ann_a..ann_d
SHOTS = Path(os.environ.get("SHOTS_DIR", Path(__file__).resolve().parents[1] / "artifacts" / "refusals"))
MARCH_20_TOKYO = datetime(2026, 3, 20, 3, 0, tzinfo=UTC)
LANGUAGES = ("ja", "en")


def _shoot(page, name: str) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / f"{name}.png"), full_page=True)


def _language(page, live_server, code: str) -> None:
    page.context.add_cookies([{"name": "django_language", "value": code, "url": live_server.url}])


def _post_form(page, action: str, fields: dict[str, str]) -> None:
    """Submit a plain form (what a stale page or a hand-made request sends) from the current page."""
    with page.expect_navigation():
        page.evaluate(
            """([action, fields]) => {
                const form = document.createElement("form");
                form.method = "post";
                form.action = action;
                const token = document.querySelector("[name=csrfmiddlewaretoken]");
                for (const [name, value] of Object.entries({csrfmiddlewaretoken: token.value, ...fields})) {
                    const input = document.createElement("input");
                    input.type = "hidden"; input.name = name; input.value = value;
                    form.appendChild(input);
                }
                document.body.appendChild(form);
                form.submit();
            }""",
            [action, fields],
        )


@pytest.fixture
def researcher_page(laptop_page, transactional_db, feedback_data, settings):
    settings.AGREEMENT_MONITOR_N_BOOT = 20
    settings.LLM_BASE_URL = "http://127.0.0.1:9/v1"  # the LLM card shows its form (nothing is sent)
    settings.LLM_MODEL = "m"
    from annotation.models import Batch
    from annotation.services import agreement_report_create

    agreement_report_create(batch=Batch.objects.get(name="fb"), n_boot=20)
    log_in(laptop_page, "res_001", PASSWORD)
    return laptop_page


@pytest.mark.parametrize("code", LANGUAGES)
def test_dashboard_posts_without_a_batch_are_refused_where_the_button_is_and_as_a_page(
    researcher_page, live_server, code
):
    page = researcher_page
    _language(page, live_server, code)
    page.goto("/research/agreement/")
    page.evaluate("document.querySelectorAll('form [name=batch]').forEach(input => input.remove())")
    page.click("[data-action=recompute]")  # HTMX: the message replaces the recompute result
    message = page.locator("#recompute-result [role=alert]")
    message.wait_for()
    expected = "項目「batch」: 指定がありません。" if code == "ja" else "Field “batch”: missing: expected a whole"
    assert expected in message.inner_text()
    page.click("[data-action=llm-estimate]")
    page.locator("[data-llm-error]").wait_for()
    assert expected in page.locator("[data-llm-error]").inner_text()
    _shoot(page, f"dashboard-missing-batch-htmx-{code}")
    _post_form(page, "/research/agreement/llm/run/", {"batch": "abc", "model": "m"})
    assert page.locator('[data-refusal="400"]').is_visible()
    text = page.locator("[data-refusal-message]").inner_text()
    assert ("'abc' でした" if code == "ja" else "got 'abc'") in text
    _shoot(page, f"dashboard-malformed-batch-page-{code}")
    page.goto("/research/agreement/")
    from annotation.models import Batch

    batch = str(Batch.objects.get(name="fb").pk)
    _post_form(page, "/research/agreement/ci-method/", {"batch": batch, "ci_method": "jackknife"})
    assert "ci_method" in page.locator("[data-refusal-message]").inner_text()
    _shoot(page, f"dashboard-bad-ci-method-page-{code}")


@pytest.mark.parametrize("code", LANGUAGES)
def test_a_qualification_extension_past_its_bound_is_refused_with_the_latest_date(
    researcher_page, live_server, feedback_data, settings, code
):
    from annotation.models import Batch, QualificationAttempt

    settings.QUALIFICATION_VALID_DAYS = 92
    annotator = feedback_data.users["ann_a"]
    QualificationAttempt.objects.create(
        annotator=annotator, finished_at=timezone.now() - timedelta(days=85), passed=True, kappas={}
    )
    page = researcher_page
    _language(page, live_server, code)
    batch = Batch.objects.get(name="fb")
    page.goto(f"/research/batches/{batch.pk}/activity/#qualification-expiries")
    form = page.locator("form[data-extend=ann_a]")
    latest = (timezone.localtime() + timedelta(days=92)).date().isoformat()
    assert form.locator("[name=until]").get_attribute("max") == latest
    form.locator("[name=until]").evaluate("input => input.removeAttribute('max')")  # past the browser's bound
    form.locator("[name=until]").fill("9999-12-31")
    form.locator("[name=reason]").fill("延長")
    with page.expect_navigation():
        form.locator("button[type=submit]").click()
    message = page.locator(".messages .message-error").inner_text()
    assert latest in message and "9999-12-31" in message and "QUALIFICATION_VALID_DAYS" in message
    page.locator("#qualification-expiries").scroll_into_view_if_needed()
    _shoot(page, f"qualification-extension-too-late-{code}")


@pytest.mark.parametrize("code", LANGUAGES)
def test_a_month_not_ended_cannot_be_stored_and_an_unknown_annotator_has_no_page(
    researcher_page, live_server, monkeypatch, code
):
    page = researcher_page
    _language(page, live_server, code)
    monkeypatch.setattr(timezone, "now", lambda: MARCH_20_TOKYO)  # the live server runs in this process
    page.goto("/feedback/2026-03/")
    assert page.locator("[data-prepare=later]").is_visible() and page.locator("[data-action=prepare]").count() == 0
    _shoot(page, f"feedback-month-not-ended-{code}")
    _post_form(page, "/feedback/2999-12/prepare/", {"next": "/feedback/2026-03/"})
    text = page.locator("[data-refusal-message]").inner_text()
    assert "2999-12" in text and "2026-02" in text
    _shoot(page, f"feedback-prepare-2999-12-{code}")
    response = page.goto("/feedback/2026-03/annotators/nobody_at_all/")
    assert response.status == 404
    _shoot(page, f"feedback-unknown-annotator-{code}")
