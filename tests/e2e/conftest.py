"""Browser tests: Python playwright driving Debian's chromium, headless, against the live server."""

import os
import shutil
from contextlib import contextmanager
from pathlib import Path

import pytest

# Playwright's sync API runs an event loop in this thread; the ORM calls made by the tests
# themselves (creating users, checking stored rows) are still plain synchronous code.
os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")

ARTIFACTS = Path(__file__).resolve().parent.parent / "artifacts"
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-dev-shm-usage"]


def _chromium_path() -> str | None:
    configured = os.environ.get("CHROMIUM_PATH")
    if configured:
        return configured if Path(configured).exists() else None
    return shutil.which("chromium") or shutil.which("chromium-browser")


def pytest_collection_modifyitems(config, items):
    for item in items:
        if "tests/e2e/" in str(item.fspath).replace(os.sep, "/"):
            item.add_marker(pytest.mark.browser)


@pytest.fixture(scope="session")
def browser():
    path = _chromium_path()
    if path is None:
        message = "Debian chromium not found (apt-get install chromium fonts-noto-cjk, or set CHROMIUM_PATH)"
        if os.environ.get("REQUIRE_BROWSER") == "1":
            pytest.fail(message)
        pytest.skip(message)
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=path, headless=True, args=CHROMIUM_ARGS)
        yield browser
        browser.close()


@contextmanager
def browser_page(browser, live_server, *, width: int, height: int, locale: str = "en-US", timeout: int = 10_000):
    """A page in a fresh browser context (its own cookies) on the live server, closed afterwards."""
    context = browser.new_context(base_url=live_server.url, locale=locale, viewport={"width": width, "height": height})
    context.set_default_timeout(timeout)
    try:
        yield context.new_page()
    finally:
        context.close()


@pytest.fixture
def page(browser, live_server):
    # An English browser locale: the UI must still default to Japanese.
    with browser_page(browser, live_server, width=1280, height=800) as page:
        yield page


@pytest.fixture
def laptop_page(browser, live_server):
    """1366x768, the laptop screen the issues check what a person sees at; a Japanese browser locale."""
    with browser_page(browser, live_server, width=1366, height=768, locale="ja-JP", timeout=15_000) as page:
        yield page


def screenshot(page, name: str) -> Path:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    path = ARTIFACTS / f"{name}.png"
    page.screenshot(path=str(path), full_page=True)
    return path


def log_in(page, username: str, password: str) -> None:
    page.goto("/login/")
    page.fill("#id_username", username)
    page.fill("#id_password", password)
    page.click("button[type=submit].primary")
    page.wait_for_load_state("networkidle")
