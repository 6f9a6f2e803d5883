"""The Director API's refusals in the reader's language, in the shape of the whole ``/api/`` (``core.api_errors``).

``{"success": false, "error", "detail", "problems": [{"path", "message"}], "field"?}``: ``error`` and
``detail`` read ``field: message``; ``field`` is this API's own key (``history[0].text``, ``status``),
``path`` the same place as the rest of ``/api/`` writes it (``$.history[0].text``, ``?status``).

Every refusal is a ``RequestError`` (an English template and its parameters): the parsing's
(``director.api.requests``), and those made here from the errors of the rules and of the sessions'
services, whose messages are English text. The template is translated when the response is made;
the parameters (field names, accepted values, speakers, turns) are filled in afterwards, untranslated.
"""

from __future__ import annotations

from django.utils.translation import gettext, gettext_noop
from rest_framework.response import Response

from core.api_errors import error_body
from director.api.requests import RequestError
from director.models import DirectorSession
from director.rules import UnknownCharacter
from director.sessions.state import SessionState

NO_SESSION = gettext_noop("no session %(id)s")
UNKNOWN_SPEAKER = gettext_noop("unknown speaker %(speaker)s; known: %(known)s")
TWO_SPEAKERS = gettext_noop("two different characters, e.g. yana and ayu")
SESSION_SPEAKERS = gettext_noop("this session's characters are %(speakers)s")
AT_TURN = gettext_noop("the session is at turn %(turn)s, not %(expected)s")
STORED_MEANWHILE = gettext_noop("another turn of this session was stored meanwhile; ask for the next turn again")
NO_GENERATION = gettext_noop("generating lines needs an LLM endpoint (LLM_BASE_URL); give the line as text")


def refused(exc: RequestError, status: int = 400, *, query: bool = False) -> Response:
    """The response refusing ``exc``; ``query``: its field is a query parameter, not a place in the body."""
    message = exc.translated(gettext)
    field = exc.field
    if not field:
        path = None
    elif query:
        path = f"?{field}"
    else:
        path = "$" if field == "$" else f"$.{field}"
    body = error_body(f"{field}: {message}" if field else message, [{"path": path, "message": message}])
    if field:
        body["field"] = field
    return Response(body, status=status)


def missing_session(session_id: int) -> RequestError:
    return RequestError(None, NO_SESSION, id=session_id)


def unknown_speaker(exc: UnknownCharacter, field: str) -> RequestError:
    known = ", ".join(f"{key} ({', '.join(names)})" if names else key for key, names in exc.known.items())
    return RequestError(field, UNKNOWN_SPEAKER, speaker=repr(exc.speaker), known=known or "-")


def check_speaker_field(exc: UnknownCharacter, data: dict) -> str:
    """Where the unknown speaker of a check was given: ``speaker``, or the first history line naming it."""
    if exc.speaker != data["speaker"]:
        for index, (name, _text) in enumerate(data["history"]):
            if name == exc.speaker:
                return f"history[{index}].speaker"
    return "speaker"


def services_refusal(exc: ValueError, field: str, *, speakers=()) -> RequestError:
    """A ``ValueError`` of ``director.sessions.services``, whose English message reads ``<field>: <problem>``.

    The problems the API can meet are known by their field (``speakers``: the same character twice;
    ``speaker``: not one of the session's ``speakers``); any other is refused as it reads, under ``field``.
    """
    name = str(exc).partition(": ")[0]
    if name == "speakers":
        return RequestError("speakers", TWO_SPEAKERS)
    if name == "speaker" and speakers:
        return RequestError("speaker", SESSION_SPEAKERS, speakers=", ".join(speakers))
    return RequestError(field, str(exc))


def turn_conflict(session_id: int, expected_turn: int | None) -> RequestError:
    """A ``TurnConflict``: the turn the session is at now, when the client said which one it expected."""
    state = DirectorSession.objects.filter(pk=session_id).values_list("state", flat=True).first()
    turn = SessionState.from_dict(state or {}).turn
    if expected_turn is not None and expected_turn != turn:
        return RequestError(None, AT_TURN, turn=turn, expected=expected_turn)
    return RequestError(None, STORED_MEANWHILE)


def generation_unavailable() -> RequestError:
    return RequestError("text", NO_GENERATION)
