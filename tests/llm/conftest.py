import pytest

from tests.fakes.openai_server import FakeOpenAI

SECRET = "sk-test-SECRET-key-0123456789"
PRICES = {"fake-model": {"input_usd": 1.0, "output_usd": 2.0, "input_jpy": 150.0, "output_jpy": 300.0}}


@pytest.fixture
def fake_llm(settings):
    """A fake OpenAI endpoint on 127.0.0.1, configured as the project's LLM endpoint."""
    with FakeOpenAI() as server:
        settings.LLM_BASE_URL = server.base_url
        settings.LLM_API_KEY = SECRET
        settings.LLM_MODEL = "fake-model"
        settings.LLM_PRICES = PRICES
        settings.LLM_BACKOFF_SECONDS = 0.01
        settings.LLM_MAX_RETRIES = 3
        settings.LLM_TIMEOUT_SECONDS = 5.0
        settings.LLM_MAX_CONCURRENCY = 16
        settings.LLM_REQUESTS_PER_MINUTE = 0
        settings.LLM_JSON_MODE = "json_schema"
        yield server
