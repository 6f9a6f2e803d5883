"""A real HTTP test double of the OpenAI Chat Completions API (stdlib only, never touches the internet).

The official ``openai`` SDK talks to it over plain HTTP on 127.0.0.1, so tests and benchmarks exercise the
real client stack (httpx transport, retries, timeouts, error mapping) without a network or an API key::

    import openai
    from tests.fakes.openai_server import FakeOpenAI, Reply

    with FakeOpenAI(latency=0.05) as server:
        server.script(Reply.json({"score": 1}), Reply.rate_limited(retry_after=2), Reply.hang(5))
        client = openai.OpenAI(api_key="sk-test", base_url=server.base_url, max_retries=0)
        client.chat.completions.create(model="m", messages=[{"role": "user", "content": "hi"}])
        assert server.requests[0]["headers"]["authorization"] == "Bearer sk-test"

How a chat-completion request is answered:

1. A body that is not valid JSON gets a 400.
2. With ``json_schema=False`` (``json_object=False``) a request whose ``response_format.type`` is
   ``"json_schema"`` (``"json_object"``) gets a 400 with param ``"response_format"``, as from a provider
   that lacks structured outputs. Such rejections consume no scripted reply.
3. Otherwise the next :class:`Reply` queued with :meth:`FakeOpenAI.script` is used (FIFO, one per request);
   when the queue is empty, ``default_reply(request_json)`` or the built-in default
   ``Reply.json({"score": 2, "label": "useful", "reasoning": "fake judge"})``.
4. The handler thread sleeps ``latency + reply.delay`` seconds (requests run concurrently, one thread each),
   then sends ``reply.body`` verbatim if given, an OpenAI-style error body for a status >= 400, or a standard
   ``chat.completion``. A successful reply whose ``content`` is None carries the default reply's content,
   so ``Reply(delay=1)`` and ``Reply.hang(1)`` answer "normally", only late.

Token usage is deterministic unless ``Reply.usage`` overrides it: prompt_tokens = max(1, characters of all
message contents // 2), completion_tokens = max(1, len(content) // 2).

Every request (any path, including rejected ones) is recorded in :attr:`FakeOpenAI.requests` as
``{"path", "method", "json", "headers", "at"}`` with lower-case header names and ``at`` the
``time.monotonic()`` of its arrival (body read); a chat completion also gets ``status`` (of its answer)
and ``answered`` (the time its answer was sent). :attr:`FakeOpenAI.max_in_flight` is the largest number
of chat completions being handled at once (from arrival to answer sent).
"""

from __future__ import annotations

import contextlib
import json
import socket
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

__all__ = ["DEFAULT_ANSWER", "FakeOpenAI", "Reply"]

DEFAULT_ANSWER: dict[str, Any] = {"score": 2, "label": "useful", "reasoning": "fake judge"}

_REASONS = {
    400: "Bad Request",
    401: "Unauthorized",
    403: "Forbidden",
    404: "Not Found",
    409: "Conflict",
    422: "Unprocessable Entity",
    429: "Too Many Requests",
    500: "Internal Server Error",
    502: "Bad Gateway",
    503: "Service Unavailable",
    504: "Gateway Timeout",
}


def _error_body(message: str, type_: str, param: str | None = None, code: str | None = None) -> dict[str, Any]:
    return {"error": {"message": message, "type": type_, "param": param, "code": code}}


def _format_seconds(seconds: float) -> str:
    return str(int(seconds)) if float(seconds).is_integer() else str(seconds)


@dataclass
class Reply:
    """One scripted answer to a chat-completion request."""

    content: str | None = None
    status: int = 200
    headers: dict[str, str] = field(default_factory=dict)
    delay: float = 0.0
    body: dict | str | None = None
    usage: tuple[int, int] | None = None

    @classmethod
    def json(cls, obj: Any, **kw: Any) -> Reply:
        """A successful answer whose assistant content is ``obj`` serialised as JSON."""
        return cls(content=json.dumps(obj, ensure_ascii=False), **kw)

    @classmethod
    def rate_limited(cls, retry_after: float | None = 1) -> Reply:
        """429 with an OpenAI-style error body, and a ``Retry-After`` header unless ``retry_after`` is None."""
        headers = {} if retry_after is None else {"Retry-After": _format_seconds(retry_after)}
        body = _error_body(
            "Rate limit reached for requests (fake). Please try again later.",
            "requests",
            code="rate_limit_exceeded",
        )
        return cls(status=429, headers=headers, body=body)

    @classmethod
    def server_error(cls, status: int = 500) -> Reply:
        """A 5xx (by default 500) with an OpenAI-style error body."""
        body = _error_body("The server had an error while processing your request (fake).", "server_error")
        return cls(status=status, body=body)

    @classmethod
    def bad_request(cls, message: str = "Invalid request (fake).", param: str | None = None) -> Reply:
        """400 with ``{"error": {"message", "type": "invalid_request_error", "param", "code": None}}``."""
        return cls(status=400, body=_error_body(message, "invalid_request_error", param=param))

    @classmethod
    def hang(cls, seconds: float, **kw: Any) -> Reply:
        """Sleep ``seconds`` before answering normally (to provoke client timeouts)."""
        return cls(delay=seconds, **kw)

    @classmethod
    def malformed(cls, text: str = "not json at all") -> Reply:
        """200 whose assistant content is ``text`` (by default not JSON), for parser error paths."""
        return cls(content=text)


def _message_chars(messages: Any) -> int:
    if not isinstance(messages, list):
        return 0
    total = 0
    for message in messages:
        content = message.get("content") if isinstance(message, dict) else None
        if isinstance(content, str):
            total += len(content)
        elif isinstance(content, list):
            for part in content:
                if isinstance(part, dict) and isinstance(part.get("text"), str):
                    total += len(part["text"])
    return total


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    block_on_close = False
    allow_reuse_address = True
    request_queue_size = 256  # many simultaneous connects must not overflow the listen backlog

    def __init__(self, fake: FakeOpenAI) -> None:
        self.fake = fake
        super().__init__(("127.0.0.1", 0), _Handler)

    def handle_error(self, request, client_address) -> None:
        # A client that timed out or went away mid-answer is expected here; keep test output clean.
        pass


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = "FakeOpenAI/1.0"
    sys_version = ""
    server: _Server

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def setup(self) -> None:
        super().setup()
        # Headers and body go out as two writes; without this, Nagle + delayed ACK add ~40 ms per answer.
        self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.server.fake._track(self.connection, add=True)

    def finish(self) -> None:
        try:
            super().finish()
        finally:
            self.server.fake._track(self.connection, add=False)

    def do_GET(self) -> None:
        self.server.fake._handle(self)

    do_POST = do_PUT = do_PATCH = do_DELETE = do_HEAD = do_OPTIONS = do_GET

    def read_body(self) -> bytes:
        if "chunked" in (self.headers.get("Transfer-Encoding") or "").lower():
            chunks = []
            while True:
                size = int(self.rfile.readline().split(b";")[0].strip() or b"0", 16)
                if size == 0:
                    while self.rfile.readline() not in (b"\r\n", b"\n", b""):
                        pass
                    return b"".join(chunks)
                chunks.append(self.rfile.read(size))
                self.rfile.readline()
        length = int(self.headers.get("Content-Length") or 0)
        return self.rfile.read(length) if length > 0 else b""

    def send(self, status: int, body: dict | str | bytes, headers: dict[str, str] | None = None) -> None:
        if isinstance(body, dict):
            data = json.dumps(body, ensure_ascii=False).encode()
        elif isinstance(body, str):
            data = body.encode()
        else:
            data = body
        self.send_response(status, _REASONS.get(status))
        names = {name.lower() for name in headers or {}}
        if "content-type" not in names:
            self.send_header("Content-Type", "application/json")
        for name, value in (headers or {}).items():
            if name.lower() != "content-length":
                self.send_header(name, value)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(data)
        self.wfile.flush()


class FakeOpenAI:
    """A local OpenAI-compatible server; see the module docstring."""

    def __init__(
        self,
        *,
        latency: float = 0.0,
        model: str = "fake-model",
        default_reply: Callable[[dict], Reply] | None = None,
        json_schema: bool = True,
        json_object: bool = True,
    ) -> None:
        self.latency = latency
        self.model = model
        self.default_reply = default_reply
        self.json_schema = json_schema
        self.json_object = json_object
        self._lock = threading.Lock()
        self._queue: deque[Reply] = deque()
        self._requests: list[dict[str, Any]] = []
        self._counter = 0
        self._in_flight = 0
        self._max_in_flight = 0
        self._connections: set[socket.socket] = set()
        self._stopping = threading.Event()
        self._server: _Server | None = None
        self._thread: threading.Thread | None = None

    # -- lifecycle -------------------------------------------------------------------------------------------

    def start(self) -> FakeOpenAI:
        """Bind 127.0.0.1 on a free port and serve in a daemon thread."""
        if self._server is not None:
            return self
        self._stopping.clear()
        self._server = _Server(self)
        self._thread = threading.Thread(
            target=self._server.serve_forever, kwargs={"poll_interval": 0.05}, name="FakeOpenAI", daemon=True
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        """Shut down promptly: wakes sleeping handlers and closes open connections."""
        server, thread = self._server, self._thread
        if server is None:
            return
        self._stopping.set()
        server.shutdown()
        server.server_close()
        with self._lock:
            connections = list(self._connections)
        for conn in connections:
            with contextlib.suppress(OSError):
                conn.shutdown(socket.SHUT_RDWR)
        if thread is not None:
            thread.join(timeout=5)
        self._server = self._thread = None

    def __enter__(self) -> FakeOpenAI:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    @property
    def port(self) -> int:
        if self._server is None:
            raise RuntimeError("FakeOpenAI is not started")
        return self._server.server_address[1]

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    # -- scripting and inspection ----------------------------------------------------------------------------

    def script(self, *replies: Reply) -> None:
        """Queue replies, consumed one per chat-completion request in order."""
        with self._lock:
            self._queue.extend(replies)

    @property
    def pending(self) -> int:
        """Scripted replies not yet consumed."""
        with self._lock:
            return len(self._queue)

    @property
    def requests(self) -> list[dict[str, Any]]:
        """A snapshot of the recorded requests: ``{"path", "method", "json", "headers"}`` each."""
        with self._lock:
            return list(self._requests)

    @property
    def max_in_flight(self) -> int:
        """The most chat completions handled at once since the start (or the last :meth:`reset`)."""
        with self._lock:
            return self._max_in_flight

    @property
    def request_count(self) -> int:
        with self._lock:
            return len(self._requests)

    def reset(self) -> None:
        """Forget recorded requests and drop scripted replies."""
        with self._lock:
            self._requests.clear()
            self._queue.clear()
            self._max_in_flight = self._in_flight

    # -- request handling (handler threads) ------------------------------------------------------------------

    def _track(self, conn: socket.socket, *, add: bool) -> None:
        with self._lock:
            if add:
                self._connections.add(conn)
            else:
                self._connections.discard(conn)

    def _handle(self, handler: _Handler) -> None:
        path = handler.path.split("?", 1)[0].rstrip("/") or "/"
        method = handler.command
        raw = handler.read_body()
        payload: Any = None
        invalid = False
        if raw:
            try:
                payload = json.loads(raw)
            except ValueError:
                invalid = True
        record = {
            "path": path,
            "method": method,
            "json": payload,
            "headers": {name.lower(): value for name, value in handler.headers.items()},
            "at": time.monotonic(),
        }
        with self._lock:
            self._requests.append(record)

        if method == "POST" and path == "/v1/chat/completions":
            if invalid or not isinstance(payload, dict):
                handler.send(
                    400, _error_body("We could not parse the JSON body of your request.", "invalid_request_error")
                )
                return
            with self._lock:
                self._in_flight += 1
                self._max_in_flight = max(self._max_in_flight, self._in_flight)
            try:
                record["status"] = self._chat(handler, payload)
            finally:
                with self._lock:
                    self._in_flight -= 1
                    record["answered"] = time.monotonic()
        elif method == "GET" and path == "/v1/models":
            handler.send(
                200,
                {"object": "list", "data": [{"id": self.model, "object": "model", "created": 0, "owned_by": "fake"}]},
            )
        else:
            handler.send(404, _error_body(f"Unknown request URL: {method} {path}.", "invalid_request_error"))

    def _chat(self, handler: _Handler, request: dict[str, Any]) -> int | None:
        """Answer one chat completion; returns the status sent (None: dropped unanswered)."""
        response_format = request.get("response_format")
        kind = response_format.get("type") if isinstance(response_format, dict) else None
        if (kind == "json_schema" and not self.json_schema) or (kind == "json_object" and not self.json_object):
            message = f"Invalid parameter: 'response_format' of type '{kind}' is not supported with this model."
            handler.send(400, Reply.bad_request(message, param="response_format").body)
            return 400

        with self._lock:
            reply = self._queue.popleft() if self._queue else None
            self._counter += 1
            number = self._counter
        if reply is None:
            reply = self._default(request)

        delay = self.latency + reply.delay
        if delay > 0 and self._stopping.wait(delay):
            handler.close_connection = True  # stopped while sleeping: drop the request unanswered
            return None

        if reply.body is not None:
            handler.send(reply.status, reply.body, reply.headers)
            return reply.status
        if reply.status >= 400:
            body = _error_body(
                f"Fake error {reply.status}.", "server_error" if reply.status >= 500 else "invalid_request_error"
            )
            handler.send(reply.status, body, reply.headers)
            return reply.status

        content = reply.content if reply.content is not None else self._default(request).content
        if reply.usage is not None:
            prompt_tokens, completion_tokens = reply.usage
        else:
            prompt_tokens = max(1, _message_chars(request.get("messages")) // 2)
            completion_tokens = max(1, len(content or "") // 2)
        body = {
            "id": f"chatcmpl-fake-{number}",
            "object": "chat.completion",
            "created": int(time.time()),
            "model": request.get("model") or self.model,
            "choices": [
                {
                    "index": 0,
                    "message": {"role": "assistant", "content": content},
                    "finish_reason": "stop",
                }
            ],
            "usage": {
                "prompt_tokens": prompt_tokens,
                "completion_tokens": completion_tokens,
                "total_tokens": prompt_tokens + completion_tokens,
            },
        }
        handler.send(reply.status, body, reply.headers)
        return reply.status

    def _default(self, request: dict[str, Any]) -> Reply:
        if self.default_reply is not None:
            return self.default_reply(request)
        return Reply.json(DEFAULT_ANSWER)
