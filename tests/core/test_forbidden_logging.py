"""A 403 is one WARNING line (method, path, user id, reason) without a traceback; real errors keep theirs (issue 27)."""

import logging
import sys

import pytest
from django.contrib.auth.models import AnonymousUser
from django.test import Client, RequestFactory

from core.api_tokens import token_create

pytestmark = pytest.mark.django_db


def warnings_of(caplog) -> list[logging.LogRecord]:
    return [record for record in caplog.records if record.levelno >= logging.WARNING]


def assert_one_line(caplog, *parts: str) -> str:
    records = warnings_of(caplog)
    assert len(records) == 1, [record.getMessage() for record in records]
    record = records[0]
    assert record.levelno == logging.WARNING and record.exc_info is None and not record.exc_text
    message = record.getMessage()
    assert "\n" not in message and "Traceback" not in caplog.text
    for part in parts:
        assert part in message, (part, message)
    return message


def test_a_page_for_another_role_logs_one_line_without_a_traceback(caplog, annotator):
    client = Client()
    client.force_login(annotator)
    caplog.clear()
    with caplog.at_level(logging.INFO):
        assert client.get("/research/layer3/").status_code == 403
    message = assert_one_line(caplog, "GET /research/layer3/", f"user {annotator.pk}")
    assert message.split(": ", 2)[-1].strip(), message  # a reason, whatever the language of the page


def test_an_api_refusal_logs_one_line_with_the_apis_reason(caplog, annotator):
    _token, key = token_create(user=annotator, name="script")
    with caplog.at_level(logging.INFO):
        response = Client().post("/api/director/check", {}, headers={"Authorization": f"Token {key}"})
    assert response.status_code == 403
    body = response.json()
    reason = body.get("error") or body["detail"]  # whatever the API's refusal says, the log line says it too
    assert_one_line(caplog, "POST /api/director/check", f"user {annotator.pk}", f": {reason}")


def test_a_401_is_left_as_django_logs_it(caplog):
    with caplog.at_level(logging.INFO):
        response = Client().get("/api/experiment/batch/b/layer3-results", headers={"Authorization": "Token x"})
    assert response.status_code == 401
    assert [record.getMessage() for record in warnings_of(caplog)] == [
        "Unauthorized: /api/experiment/batch/b/layer3-results"
    ]


def log_permission_denied(caplog, path: str, reason: str) -> None:
    """What Django logs for a ``PermissionDenied`` raised by a view of ``path``, for an anonymous user."""
    from django.core.exceptions import PermissionDenied

    request = RequestFactory().get(path)
    request.user = AnonymousUser()
    try:
        raise PermissionDenied(reason)
    except PermissionDenied:
        exc_info = sys.exc_info()
    with caplog.at_level(logging.INFO):
        logging.getLogger("django.request").warning(
            "Forbidden (Permission denied): %s", request.path, exc_info=exc_info,
            extra={"status_code": 403, "request": request},
        )  # fmt: skip


def test_control_characters_of_the_path_and_the_reason_stay_on_one_line(caplog):
    log_permission_denied(caplog, "/x%0Ay/", "no\nentry")
    message = assert_one_line(caplog, "GET /x\\ny/", "user anonymous", "no\\nentry")
    assert message.startswith("Forbidden: ")


def test_a_server_error_keeps_its_traceback(caplog):
    request = RequestFactory().get("/boom/")
    try:
        raise RuntimeError("boom")
    except RuntimeError:
        exc_info = sys.exc_info()
    with caplog.at_level(logging.INFO):
        logging.getLogger("django.request").error(
            "Internal Server Error: %s", request.path, exc_info=exc_info,
            extra={"status_code": 500, "request": request},
        )  # fmt: skip
    (record,) = caplog.records
    assert record.exc_info is not None and "Traceback" in caplog.text and "RuntimeError: boom" in caplog.text


def test_a_second_filter_on_the_logger_keeps_the_reason(caplog):
    """Celery's worker sets Django up again, which configures logging again: ``dictConfig`` adds the logger's
    filters a second time (it replaces handlers, not filters). The second pass must not drop the reason."""
    from core.logging import ForbiddenOneLineFilter

    logger = logging.getLogger("django.request")
    extra_filter = ForbiddenOneLineFilter()
    logger.addFilter(extra_filter)
    try:
        log_permission_denied(caplog, "/twice/", "not yours")
    finally:
        logger.removeFilter(extra_filter)
    assert_one_line(caplog, "GET /twice/", "user anonymous", ": not yours")
