"""llm_ping against the fake endpoint; llm_prompts keeps released prompt versions unchanged."""

import json

import pytest
from django.core.management import CommandError, call_command

from llm import prompts
from llm.management.commands.llm_prompts import recorded_versions
from llm.prompts import Prompt, version_problems
from tests.fakes.openai_server import FakeOpenAI

pytestmark = pytest.mark.django_db


def test_llm_ping_prints_model_latency_and_json_mode(fake_llm, capsys):
    call_command("llm_ping")
    out = capsys.readouterr().out
    assert "model:     fake-model" in out and "latency:" in out and " ms" in out
    assert "JSON mode works: yes (json_schema)" in out
    assert "sk-test" not in out


def test_llm_ping_reports_the_fallback_when_json_schema_is_refused(settings, capsys):
    with FakeOpenAI(json_schema=False, default_reply=lambda request: _ok()) as server:
        settings.LLM_BASE_URL, settings.LLM_MODEL = server.base_url, "local-model"
        call_command("llm_ping")
    out = capsys.readouterr().out
    assert "JSON mode json_schema  no (BadRequestError" in out
    assert "JSON mode works: yes (json_object)" in out


def _ok():
    from tests.fakes.openai_server import Reply

    return Reply.json({"ok": True})


def test_llm_ping_explains_a_missing_or_dead_endpoint(settings):
    settings.LLM_BASE_URL = ""
    with pytest.raises(CommandError, match="LLM_BASE_URL is not set"):
        call_command("llm_ping")
    settings.LLM_BASE_URL, settings.LLM_MODEL, settings.LLM_TIMEOUT_SECONDS = "http://127.0.0.1:9/v1", "m", 2.0
    with pytest.raises(CommandError, match="did not answer"):
        call_command("llm_ping")


def test_every_released_prompt_is_recorded_unchanged():
    library = [p for p in prompts.all_prompts() if not p.name.startswith("tests.")]
    assert {p.ref for p in library} >= {"layer3.gv_relevance@1", "layer3.w2wr_semantic@1", "director.review@1"}
    assert version_problems(library, recorded_versions()) == []
    call_command("llm_prompts", "--check")


def test_a_changed_text_under_the_same_version_is_caught():
    base = prompts.get("layer3.gv_relevance@1")
    edited = Prompt(base.name, base.version, base.system, base.user + "\n追加の指示", base.schema)
    problems = version_problems([edited], recorded_versions())
    assert problems == ["layer3.gv_relevance@1 changed after it was recorded: give the new text a new version"]
    assert json.loads(json.dumps(recorded_versions()))  # the file is plain JSON
