"""The Director's pages (#15): live check, sessions, statistics; roles, escaping, CSV."""

import csv
import io

import pytest
from django.urls import reverse

from director.sessions.services import evaluate_line, session_create, turn_run, verdict_store

pytestmark = pytest.mark.django_db
SCRIPT = "<script>alert(1)</script>"
PRAISE = "その考えはすごいです、本当に正しいですね。"


@pytest.fixture
def as_researcher(client, researcher):
    client.force_login(researcher)
    return client


def pages():
    return [reverse("director:check"), reverse("director:sessions"), reverse("director:stats"),
            reverse("director:stats-csv")]  # fmt: skip


def test_pages_are_for_researchers(client, annotator):
    for url in pages():
        assert client.get(url).status_code == 302
    client.force_login(annotator)
    for url in pages():
        assert client.get(url).status_code == 403
    assert client.post(reverse("director:check-verdict"), {"text": "x", "speaker": "ayu"}).status_code == 403


def test_live_check_highlights_the_praise_and_says_the_llm_was_skipped(as_researcher, settings):
    settings.LLM_BASE_URL = ""
    html = as_researcher.post(reverse("director:check-verdict"), {"text": PRAISE, "speaker": "ayu"}).content.decode()
    assert 'data-status="RETRY"' in html and '<mark class="dir-mark dir-mark-RETRY"' in html
    assert ">すごい</mark>" in html and 'data-rule="praise"' in html
    assert 'data-review="skipped"' in html  # a RETRY by the rules: the LLM is not asked
    assert "ハードルールが RETRY と判定したため、LLM には問い合わせていません" in html  # in the page language
    passing = "カフェは駅から歩いて十分ほどです。目安として覚えておくと便利ですね。"
    html = as_researcher.post(reverse("director:check-verdict"), {"text": passing, "speaker": "ayu"}).content.decode()
    assert 'data-status="PASS"' in html and 'data-review="skipped"' in html
    assert "LLM エンドポイント（LLM_BASE_URL）が設定されていません" in html


def test_live_check_escapes_the_text_and_names_bad_history(as_researcher):
    html = as_researcher.post(reverse("director:check-verdict"), {"text": SCRIPT, "speaker": "yana"}).content.decode()
    assert SCRIPT not in html and "&lt;script&gt;" in html
    html = as_researcher.post(
        reverse("director:check-verdict"), {"text": "x", "speaker": "yana", "history": "やな: ok\nno colon"}
    ).content.decode()
    assert "data-verdict-error" in html and "2" in html
    html = as_researcher.post(reverse("director:check-verdict"), {"text": "x", "speaker": "taro"}).content.decode()
    assert "data-verdict-error" in html


def test_live_check_with_history_shows_the_topic_loop(as_researcher):
    history = "あゆ: カフェは静かですね。落ち着きますね。\nやな: カフェはいいよね！"
    form = {"text": "カフェは駅から近いです。便利ですね。", "speaker": "ayu", "history": history}
    html = as_researcher.post(reverse("director:check-verdict"), form).content.decode()
    assert 'data-rule="topic_loop_turns"' in html


def test_session_page_folds_attempts_and_shows_the_state(as_researcher, settings):
    settings.LLM_BASE_URL = ""
    session = session_create(scene=f"雨 {SCRIPT}", speakers=("ayu", "yana"), llm_review=False)
    texts = ["私たちは別居しているので、週末だけ会います。そうですね。", "カフェは駅から近いです。便利ですね。"]
    outcome = turn_run(session_id=session.pk, texts=texts)
    assert outcome.verdicts[0].status == "RETRY" and outcome.accepted
    html = as_researcher.get(reverse("director:session", args=[session.pk])).content.decode()
    assert SCRIPT not in html and "&lt;script&gt;" in html
    assert 'data-attempt="1"' in html and 'data-attempt="2"' in html and "カフェ" in html
    assert "dir-state" in html


def test_statistics_and_csv(as_researcher):
    for text, speaker in [(PRAISE, "ayu"), ("えー、ほんと？ 行ってみたいかも！", "yana"), ("=HYPERLINK(1)", "yana")]:
        verdict_store(evaluate_line(text=text, speaker=speaker, llm=False))
    html = as_researcher.get(reverse("director:stats")).content.decode()
    assert "praise" in html and "dir-shares" in html
    body = as_researcher.get(reverse("director:stats-csv")).content.decode("utf-8-sig")
    rows = list(csv.reader(io.StringIO(body)))
    assert rows[0][:3] == ["group", "key", "total"] and rows[1][:3] == ["overall", "all", "3"]
    assert any(row[:2] == ["rule", "praise"] for row in rows)


def test_comparing_a_candidate_rule_set_shows_the_transitions(as_researcher):
    from django.core.files.uploadedfile import SimpleUploadedFile

    from director.rules.ruleset import DEFAULT_RULE_SET, default_rule_set

    for text, speaker in [(PRAISE, "ayu"), ("すごい景色ですね。つまり、駅から近いです。", "ayu")]:
        verdict_store(evaluate_line(text=text, speaker=speaker, llm=False))
    version = default_rule_set().version
    yaml = DEFAULT_RULE_SET.read_text(encoding="utf-8").replace(
        f'version: "{version}"', f'version: "{version}-lenient"'
    )
    yaml = yaml.replace("evaluation_words: [すごい, ", "evaluation_words: [")
    url = reverse("director:stats-compare")
    response = as_researcher.post(url, {"rules": SimpleUploadedFile("lenient.yaml", yaml.encode())})
    html = response.content.decode()
    assert response.status_code == 200 and "data-transitions" in html and f"{version}-lenient" in html
    assert 'data-changed="2" data-lines="2"' in html
    report = as_researcher.post(url, {"rules": SimpleUploadedFile("lenient.yaml", yaml.encode()), "download": "1"})
    assert report["Content-Type"].startswith("text/markdown") and b"# Director replay" in report.content
    bad = as_researcher.post(url, {"rules": SimpleUploadedFile("bad.yaml", b"version: 2\nthresholds: {}\n")})
    assert (
        bad.status_code == 400 and "bad.yaml" in bad.content.decode() and "data-compare-error" in bad.content.decode()
    )


def test_comparing_two_uploaded_rule_sets(as_researcher):
    from django.core.files.uploadedfile import SimpleUploadedFile

    from director.rules.ruleset import DEFAULT_RULE_SET, default_rule_set

    verdict_store(evaluate_line(text=PRAISE, speaker="ayu", llm=False))
    shipped = DEFAULT_RULE_SET.read_text(encoding="utf-8")
    version = f'version: "{default_rule_set().version}"'
    old = shipped.replace(version, 'version: "old"')
    new = shipped.replace(version, 'version: "new"')
    response = as_researcher.post(reverse("director:stats-compare"), {
        "rules": SimpleUploadedFile("new.yaml", new.encode()),
        "baseline": SimpleUploadedFile("old.yaml", old.encode()),
    })  # fmt: skip
    html = response.content.decode()
    assert "old.yaml" in html and "new.yaml" in html and 'data-changed="0" data-lines="1"' in html


def test_switching_the_language_on_a_comparison_goes_back_to_the_statistics_page(as_researcher):
    from django.core.files.uploadedfile import SimpleUploadedFile

    from director.rules.ruleset import DEFAULT_RULE_SET

    stats = reverse("director:stats")
    response = as_researcher.post(
        reverse("director:stats-compare"),
        {"rules": SimpleUploadedFile("same.yaml", DEFAULT_RULE_SET.read_bytes())},
        HTTP_REFERER=f"http://testserver{stats}",
    )
    assert f'name="next" type="hidden" value="http://testserver{stats}"' in response.content.decode()
    switched = as_researcher.post(reverse("set_language"), {"language": "en", "next": f"http://testserver{stats}"})
    assert switched.status_code == 302 and switched["Location"].endswith(stats)
    assert as_researcher.get(switched["Location"]).status_code == 200
