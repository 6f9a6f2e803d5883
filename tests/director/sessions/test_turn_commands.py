"""director_session and director_turn from the command line, against the fake OpenAI server."""

import pytest
from django.core.management import CommandError, call_command

from director.models import DirectorSession, UtteranceAttempt
from tests.director.sessions.test_turns import PASSING_AYU, PASSING_YANA, RETRY_LINE, Director, review
from tests.fakes.openai_server import Reply
from tests.llm.conftest import fake_llm  # noqa: F401

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def by_speaker(fake_llm):  # noqa: F811
    """Lines by whoever is asked for (やなの次の一言 / あゆの次の一言); reviews all 4."""
    director = Director(fake_llm)

    def reply(request):
        user = request["messages"][1]["content"]
        if "脚本家" in request["messages"][0]["content"]:
            if director.lines:
                return Reply.json({"line": director.lines.pop(0)})
            return Reply.json({"line": PASSING_YANA if "やなの次の一言" in user else PASSING_AYU})
        return review(4, 4, 4, 4, 4)

    fake_llm.default_reply = reply
    return director


def test_a_whole_dialogue_is_printed_as_it_goes(by_speaker, capsys):
    by_speaker.lines.append(RETRY_LINE)  # the first line is a RETRY, regenerated
    call_command("director_session", "--scene", "雨の日曜日、二人で家にいる", "--turns", "4")
    out = capsys.readouterr().out
    session = DirectorSession.objects.get()
    assert session.state["turn"] == 4 and out.count("→ turn") == 4
    assert "#1 RETRY" in out and "#2 PASS" in out and "setting" in out
    speakers = list(UtteranceAttempt.objects.filter(shown=True).order_by("turn").values_list("speaker", flat=True))
    assert speakers == ["yana", "ayu", "yana", "ayu"]


def test_one_turn_with_a_given_line(by_speaker, capsys):
    session = DirectorSession.objects.create(
        scene="s", speakers=["ayu", "yana"], state={}, rules_version="x", rules_hash="y"
    )
    call_command("director_turn", "--session", str(session.pk), "--text", PASSING_AYU)
    assert "#1 PASS" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["director_turn", "--session", "999"], "no session 999"),
        (["director_session", "--scene", "s", "--speakers", "yana,taro"], "taro"),
        (["director_session", "--scene", "s", "--turns", "0"], "--turns"),
        (["director_session", "--scene", "s", "--max-retries", "11"], "max_retries"),
    ],
)
def test_bad_input_is_named(by_speaker, args, message):
    with pytest.raises(CommandError, match=message):
        call_command(*args)


def test_without_an_endpoint_a_dialogue_cannot_be_generated(settings):
    settings.LLM_BASE_URL = ""
    with pytest.raises(CommandError, match="LLM_BASE_URL"):
        call_command("director_session", "--scene", "s")
