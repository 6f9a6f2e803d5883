"""The Director's REST API (issue #15; researcher role, in the OpenAPI schema).

``POST check`` judges one line (± history, ± the LLM review) and answers the stored verdict, the line's
leading topic and ``interventions``: what the line, were it accepted in a session, would queue for its
speaker's next prompt, ``[{"text", "source"}]`` (``rule:…``, ``history:…``, ``review:<aspect>``; none for
a RETRY); ``POST sessions`` creates a session;
``GET sessions/<id>`` returns it with every turn's attempts; ``POST sessions/<id>/turns`` runs the
retry loop; ``GET verdicts`` lists stored verdicts, filtered and paginated. Errors answer
``{"success": false, "error", "detail", "problems", "field"?}`` in the reader's language
(``director.api.refusals``).
"""

from __future__ import annotations

from django.db.models import Q
from drf_spectacular.utils import extend_schema
from rest_framework import status
from rest_framework.decorators import api_view, parser_classes, permission_classes
from rest_framework.response import Response

from core import api_query
from core.api_pagination import StrictPageNumberPagination
from core.api_parsers import StrictJSONParser
from core.api_schema import error_responses
from core.permissions import IsResearcher
from director.api import refusals
from director.api.refusals import refused
from director.api.requests import RequestError, parse_check, parse_session, parse_turn
from director.api.schemas import (
    VERDICT_FILTERS,
    CheckAnswerSerializer,
    DirectorCheckRequestSerializer,
    DirectorSessionRequestSerializer,
    DirectorTurnRequestSerializer,
    SessionAnswerSerializer,
    TurnAnswerSerializer,
    VerdictPageSerializer,
    character_ids,
)
from director.api.shapes import attempt_dict, session_dict, verdict_dict
from director.models import DirectorSession, RetryVerdict, UtteranceAttempt
from director.rules import UnknownCharacter
from director.rules.ruleset import default_rule_set
from director.sessions.services import (
    GenerationUnavailable,
    TurnConflict,
    check_line,
    session_create,
    turn_run,
    verdict_store,
)


@extend_schema(summary="Judge one line (hard rules, the history's WARNs, optionally the LLM review)",
               request=DirectorCheckRequestSerializer, responses={200: CheckAnswerSerializer})  # fmt: skip
@api_view(["POST"])
@permission_classes([IsResearcher])
@parser_classes([StrictJSONParser])
def check(request):
    try:
        data = parse_check(request.data, characters=default_rule_set().characters)
        evaluation = check_line(**data)
    except RequestError as exc:
        return refused(exc)
    except UnknownCharacter as exc:
        return refused(refusals.unknown_speaker(exc, refusals.check_speaker_field(exc, data)))
    stored = verdict_store(evaluation)
    return Response({
        "success": True, "verdict": verdict_dict(stored), "topic": evaluation.topic,
        "interventions": [entry.to_dict() for entry in evaluation.interventions],
    })  # fmt: skip


@extend_schema(
    summary="Create a Director session",
    request=DirectorSessionRequestSerializer,
    responses={201: SessionAnswerSerializer},
)
@api_view(["POST"])
@permission_classes([IsResearcher])
@parser_classes([StrictJSONParser])
def sessions(request):
    try:
        data = parse_session(request.data, characters=character_ids())
        session = session_create(**data, user=request.user)
    except RequestError as exc:
        return refused(exc)
    except UnknownCharacter as exc:
        return refused(refusals.unknown_speaker(exc, "speakers"))
    except ValueError as exc:
        return refused(refusals.services_refusal(exc, "speakers"))
    return Response({"success": True, "session": session_dict(session, [])}, status=201)


@extend_schema(
    summary="A Director session with every turn's attempts and verdicts", responses={200: SessionAnswerSerializer}
)
@api_view(["GET"])
@permission_classes([IsResearcher])
def session_detail(request, session_id: int):
    session = DirectorSession.objects.filter(pk=session_id).first()
    if session is None:
        return refused(refusals.missing_session(session_id), status.HTTP_404_NOT_FOUND)
    attempts = UtteranceAttempt.objects.filter(session=session).select_related("verdict").order_by("turn", "number")
    return Response({"success": True, "session": session_dict(session, attempts)})


@extend_schema(summary="Run one turn: generate (or judge the given text), regenerate on RETRY, store every attempt",
               request=DirectorTurnRequestSerializer,
               responses={200: TurnAnswerSerializer, **error_responses(409)})  # fmt: skip
@api_view(["POST"])
@permission_classes([IsResearcher])
@parser_classes([StrictJSONParser])
def turns(request, session_id: int):
    session = DirectorSession.objects.filter(pk=session_id).only("speakers").first()
    if session is None:
        return refused(refusals.missing_session(session_id), status.HTTP_404_NOT_FOUND)
    try:
        data = parse_turn(request.data, characters=default_rule_set().characters)
        outcome = turn_run(session_id=session_id, **data)
    except RequestError as exc:
        return refused(exc)
    except UnknownCharacter as exc:
        return refused(refusals.unknown_speaker(exc, "speaker"))
    except GenerationUnavailable:
        return refused(refusals.generation_unavailable())
    except TurnConflict:
        return refused(refusals.turn_conflict(session_id, data["expected_turn"]), status.HTTP_409_CONFLICT)
    except ValueError as exc:
        return refused(refusals.services_refusal(exc, "speaker", speakers=session.speakers))
    shown = outcome.shown
    return Response({
        "success": True,
        "turn": outcome.turn,
        "speaker": outcome.speaker,
        "attempts": [attempt_dict(a, v) for a, v in zip(outcome.attempts, outcome.verdicts, strict=True)],
        "shownAttempt": shown.number if shown else None,
        "shownText": shown.text if shown else None,
        "accepted": outcome.accepted,
        "flag": outcome.flag or None,
        "reason": outcome.reason,
        "stateBefore": outcome.state_before,
        "stateAfter": outcome.state_after,
    })  # fmt: skip


class VerdictPages(StrictPageNumberPagination):
    """50 per page; ``pageSize`` from 1 to 500, anything else a 400 (not DRF's silent default or cap)."""

    page_size = 50
    page_size_query_param = "pageSize"
    max_page_size = 500


@extend_schema(
    summary="Stored verdicts, newest first",
    parameters=api_query.parameters(*VERDICT_FILTERS, *VerdictPages().query_params()),
    responses={200: VerdictPageSerializer, **error_responses(404)},
)
@api_view(["GET"])
@permission_classes([IsResearcher])
def verdicts(request):
    paginator = VerdictPages()
    try:
        filters = api_query.read_query(request.query_params, *VERDICT_FILTERS, *paginator.query_params())
    except api_query.QueryRefused as exc:
        return refused(RequestError(exc.name, exc.template, **exc.params), query=True)
    rows = RetryVerdict.objects.order_by("-created_at", "-pk")
    if filters["status"] is not None:
        rows = rows.filter(status=filters["status"])
    if filters["rule"] is not None:
        rows = rows.filter(rules__contains=[filters["rule"]]) if _json_contains() else rows.filter(
            Q(rules__icontains=f'"{filters["rule"]}"'))  # fmt: skip
    if filters["speaker"] is not None:
        rows = rows.filter(speaker=filters["speaker"])
    if filters["session"] is not None:
        rows = rows.filter(session_id=filters["session"])
    if filters["since"] is not None:
        rows = rows.filter(created_at__gte=filters["since"])
    page = paginator.paginate_queryset(rows, request)
    return paginator.get_paginated_response([verdict_dict(v) for v in page])


def _json_contains() -> bool:
    from django.db import connection

    return connection.features.supports_json_field_contains
