"""A scripted OpenAI-compatible chat server on 127.0.0.1, for tests of the model path (no network).

Each POST to `/chat/completions` (or `/v1/chat/completions`) is recorded and answered by the next step of
the script: a reply (tool calls or a final text), an HTTP error, or a hang. A step may be a function of the
request body, so a script can read what the tools returned. When the script runs out, the last step
repeats. Point litellm at it with model `openai/scripted` and `api_base = server.url`.
"""

from __future__ import annotations

import itertools
import json
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

MODEL = "openai/scripted"


@dataclass
class Reply:
    """A chat completion: `text`, or tool calls as (name, arguments) pairs."""

    text: str | None = None
    calls: list[tuple[str, dict[str, Any]]] = field(default_factory=list)
    prompt_tokens: int = 100
    completion_tokens: int = 20


@dataclass
class Fail:
    """An HTTP error status with an OpenAI-style error body."""

    status: int = 500


@dataclass
class Hang:
    """No answer for `seconds` (released early when the server stops)."""

    seconds: float = 30.0


Step = Reply | Fail | Hang | Callable[[dict[str, Any]], "Reply | Fail | Hang"]


def say(text: str) -> Reply:
    """A final answer."""
    return Reply(text=text)


def call(name: str, **arguments: Any) -> Reply:
    """One tool call."""
    return Reply(calls=[(name, arguments)])


def tool_results(body: dict[str, Any]) -> list[str]:
    """The contents of the tool messages of a request, in order."""
    return [str(m.get("content")) for m in body["messages"] if m.get("role") == "tool"]


class ScriptedModel:
    """The server. `requests` holds every request body received, in order."""

    def __init__(self, script: list[Step]) -> None:
        self.script = list(script)
        self.requests: list[dict[str, Any]] = []
        self._released = threading.Event()
        self._ids = itertools.count(1)
        self._lock = threading.Lock()
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        """The base URL to give litellm as `api_base`."""
        return f"http://127.0.0.1:{self._server.server_address[1]}"

    def start(self) -> ScriptedModel:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._released.set()
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(timeout=5)

    def _next(self, body: dict[str, Any]) -> Reply | Fail | Hang:
        with self._lock:
            self.requests.append(body)
            step = self.script[min(len(self.requests), len(self.script)) - 1]
        return step(body) if callable(step) else step

    def _completion(self, body: dict[str, Any], reply: Reply) -> dict[str, Any]:
        calls = [
            {
                "id": f"call_{next(self._ids)}",
                "type": "function",
                "function": {"name": name, "arguments": json.dumps(args)},
            }
            for name, args in reply.calls
        ]
        message: dict[str, Any] = {"role": "assistant", "content": reply.text}
        if calls:
            message["tool_calls"] = calls
        return {
            "id": f"chatcmpl-{next(self._ids)}",
            "object": "chat.completion",
            "created": 1700000000,
            "model": body.get("model", "scripted"),
            "choices": [{"index": 0, "message": message, "finish_reason": "tool_calls" if calls else "stop"}],
            "usage": {
                "prompt_tokens": reply.prompt_tokens,
                "completion_tokens": reply.completion_tokens,
                "total_tokens": reply.prompt_tokens + reply.completion_tokens,
            },
        }

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        model = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802  (http.server's name)
                body = json.loads(self.rfile.read(int(self.headers.get("Content-Length") or 0)) or b"{}")
                step = model._next(body)
                if isinstance(step, Hang):
                    model._released.wait(step.seconds)
                    return
                if isinstance(step, Fail):
                    self._send(
                        step.status,
                        {"error": {"message": f"scripted failure {step.status}", "type": "server_error"}},
                    )
                    return
                self._send(200, model._completion(body, step))

            def _send(self, status: int, payload: dict[str, Any]) -> None:
                data = json.dumps(payload).encode("utf-8")
                try:
                    self.send_response(status)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(data)))
                    self.end_headers()
                    self.wfile.write(data)
                except OSError:  # the client gave up (a timeout test)
                    pass

            def log_message(self, format: str, *args: Any) -> None:  # noqa: A002  (http.server's signature)
                return

        return Handler


@contextmanager
def scripted(script: list[Step]) -> Iterator[ScriptedModel]:
    """A running ScriptedModel, stopped on exit."""
    server = ScriptedModel(script).start()
    try:
        yield server
    finally:
        server.stop()
