"""Where each intervention came from, on the session and live-check pages; the changed settings on the
compare page and in its report."""

import pytest
import yaml
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse
from django.utils import translation

from director.models import UtteranceAttempt
from director.pages.labels import origin_label
from director.rules.ruleset import CHARACTERS_DIR
from director.sessions.services import evaluate_line, session_create, turn_run, verdict_store
from tests.director.rules.helpers import default_data
from tests.director.sessions.test_turns import PASSING_AYU, RETRY_LINE, WARN_AYU, Director, review
from tests.llm.conftest import fake_llm  # noqa: F401 - the fake OpenAI endpoint

pytestmark = pytest.mark.django_db


@pytest.fixture
def as_researcher(client, researcher):
    client.force_login(researcher)
    return client


def label(source: str) -> str:
    with translation.override("ja"):
        return origin_label(source)


def test_the_session_page_says_where_each_intervention_came_from(as_researcher, fake_llm):  # noqa: F811
    Director(fake_llm).reviews.append(review(4, 4, 3, 3, 4))
    session = session_create(scene="s", speakers=("ayu", "yana"))
    outcome = turn_run(session_id=session.pk, text=WARN_AYU)
    assert outcome.accepted
    html = as_researcher.get(reverse("director:session", args=[session.pk])).content.decode()
    assert "data-interventions" in html
    for source in ("rule:praise", "review:connection", "review:density"):
        assert f'data-source="{source}"' in html and f"({label(source)})" in html, source
    assert "情報密度" in label("review:density") and "praise" in label("rule:praise")
    assert "情報密度: density 3" in html


def test_interventions_stored_as_plain_texts_show_an_unknown_origin(as_researcher, settings):
    settings.LLM_BASE_URL = ""
    session = session_create(scene="s", speakers=("ayu", "yana"), llm_review=False)
    turn_run(session_id=session.pk, text=WARN_AYU)
    attempt = UtteranceAttempt.objects.get(session=session, shown=True)
    attempt.state_after = {**attempt.state_after, "interventions": {"ayu": ["<b>短く</b>。"]}}
    attempt.save(update_fields=["state_after"])
    html = as_researcher.get(reverse("director:session", args=[session.pk])).content.decode()
    assert 'data-source=""' in html and f"({label('')})" in html
    assert "&lt;b&gt;短く&lt;/b&gt;。" in html and "<b>短く</b>" not in html
    assert label("") == label("other:thing") != label("rule:praise")


def test_the_live_check_lists_what_the_next_turn_would_get(as_researcher, settings):
    settings.LLM_BASE_URL = ""
    url = reverse("director:check-verdict")
    html = as_researcher.post(url, {"text": WARN_AYU, "speaker": "ayu"}).content.decode()
    assert 'data-source="rule:praise"' in html and f"({label('rule:praise')})" in html
    html = as_researcher.post(url, {"text": RETRY_LINE, "speaker": "ayu"}).content.decode()
    assert "data-interventions" in html and "data-source=" not in html


def _candidate(change) -> SimpleUploadedFile:
    data = default_data()
    change(data)
    return SimpleUploadedFile("candidate.yaml", yaml.safe_dump(data, allow_unicode=True).encode())


def _stricter(data):
    data["session"]["max_interventions"] = 3
    data["praise"]["evaluation_words"].append("<b>最高</b>")
    ayu = yaml.safe_load((CHARACTERS_DIR / "ayu.yaml").read_text(encoding="utf-8"))
    data["characters"] = {"ayu": {**ayu, "persona": ayu["persona"] + "少し皮肉屋。"}}


def test_the_compare_page_lists_the_changed_settings_escaped(as_researcher):
    verdict_store(evaluate_line(text=PASSING_AYU, speaker="ayu", llm=False))
    url = reverse("director:stats-compare")
    html = as_researcher.post(url, {"rules": _candidate(_stricter)}).content.decode()
    assert 'data-settings="3"' in html
    assert 'data-path="session.max_interventions" data-kind="value"' in html and "5 → 3" in html
    assert 'data-path="characters.ayu.persona" data-kind="text"' in html
    assert 'data-path="praise.evaluation_words" data-kind="items"' in html
    assert "&lt;b&gt;最高&lt;/b&gt;" in html and "<b>最高</b>" not in html
    report = as_researcher.post(url, {"rules": _candidate(_stricter), "download": "1"}).content.decode()
    assert "## Changed settings" in report
    assert "- session.max\\_interventions: 5 → 3" in report and "- characters.ayu.persona: changed" in report
    assert "added \\<b\\>最高\\</b\\>" in report and "<b>" not in report
    same = as_researcher.post(url, {"rules": _candidate(lambda data: None)}).content.decode()
    assert 'data-settings="0"' in same and "data-path=" not in same
