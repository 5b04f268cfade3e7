"""The guard in front of every request of `git intent serve`: local Host only, a per-run token on every
POST, and headers that keep pages from loading or framing anything else.

A page on another site can make a browser send requests to 127.0.0.1 (CSRF), and a hostile DNS name can
be re-pointed at 127.0.0.1 after the page loads (DNS rebinding); the Host check stops the second, the
token (which only pages served here carry) the first. Plain ASGI, so it sees every request before
routing and needs no form-parsing library.
"""

from __future__ import annotations

import hmac
import re
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any
from urllib.parse import parse_qs

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

LOCAL_NAMES = frozenset({"localhost", "127.0.0.1", "[::1]"})
TOKEN_FIELD = "token"
TOKEN_HEADER = b"x-intent-token"
MAX_BODY = 1 << 20  # bytes of a POST body: the forms here send a few dozen
SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})
_HOST = re.compile(r"^(\[[0-9a-f:.]+\]|[a-z0-9.-]+)(?::(\d{1,5}))?$")
HEADERS = [
    (b"content-security-policy", b"default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; "
                                 b"form-action 'self'; base-uri 'none'; frame-ancestors 'none'; connect-src 'self'"),
    (b"x-content-type-options", b"nosniff"),
    (b"x-frame-options", b"DENY"),
    (b"referrer-policy", b"no-referrer"),
    (b"cache-control", b"no-store"),
]


def host_is_local(host: str | None) -> bool:
    """Whether a Host header names this machine: `localhost`, `127.0.0.1` or `[::1]`, any port."""
    match = _HOST.match((host or "").strip().lower())
    return bool(match) and match is not None and match[1] in LOCAL_NAMES


def token_matches(expected: str, header: str | None, body: bytes, content_type: str) -> bool:
    """Whether a POST carries `expected`: in the `X-Intent-Token` header, or as the `token` field of an
    urlencoded form body. Compared in constant time."""
    given = header
    if given is None and content_type.split(";")[0].strip() == "application/x-www-form-urlencoded":
        values = parse_qs(body.decode("utf-8", "replace")).get(TOKEN_FIELD, [])
        given = values[0] if len(values) == 1 else None
    return given is not None and hmac.compare_digest(given.encode("utf-8"), expected.encode("utf-8"))


class Guard:
    """ASGI middleware: 403 for a non-local Host (every request) and for a POST (any method that is not
    GET, HEAD or OPTIONS) without the run's token; 413 for a body over 1 MiB; security headers on every
    response. A checked body is handed on unchanged."""

    def __init__(self, app: ASGIApp, token: str) -> None:
        self.app = app
        self.token = token

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = {k.lower(): v.decode("latin-1") for k, v in scope.get("headers", [])}
        if not host_is_local(headers.get(b"host")):
            await _plain(send, 403, "Forbidden: git intent serve answers only requests to localhost, "
                                    "127.0.0.1 or [::1].")
            return
        if scope["method"] not in SAFE_METHODS:
            body = b""
            while True:
                message = await receive()
                body += message.get("body", b"")
                if len(body) > MAX_BODY:
                    await _plain(send, 413, "The request body is too large.")
                    return
                if not message.get("more_body", False):
                    break
            if not token_matches(self.token, headers.get(TOKEN_HEADER), body, headers.get(b"content-type", "")):
                await _plain(send, 403, "Forbidden: this form is not from this run of git intent serve "
                                        "(missing or wrong token); reload the page and try again.")
                return
            receive = _replay(body, receive)
        await self.app(scope, receive, _with_headers(send))


def _replay(body: bytes, then: Receive) -> Receive:
    """A `receive` that hands on the body already read, then waits on the real one (a disconnect)."""
    sent = False

    async def receive() -> Message:
        nonlocal sent
        if sent:
            return await then()
        sent = True
        return {"type": "http.request", "body": body, "more_body": False}

    return receive


def _with_headers(send: Send) -> Send:
    async def wrapped(message: Message) -> None:
        if message["type"] == "http.response.start":
            names = {k.lower() for k, _ in message.get("headers", [])}
            message["headers"] = [*message.get("headers", []), *[(k, v) for k, v in HEADERS if k not in names]]
        await send(message)

    return wrapped


async def _plain(send: Send, status: int, text: str) -> None:
    await _with_headers(send)({"type": "http.response.start", "status": status,
                               "headers": [(b"content-type", b"text/plain; charset=utf-8")]})
    await send({"type": "http.response.body", "body": (text + "\n").encode("utf-8")})
