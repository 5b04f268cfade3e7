"""The guard in front of every request of `git intent serve`: local Host only, this run's key on every
request, a per-run token on every POST, and headers that keep pages from loading or framing anything else.

127.0.0.1 is open to every account of the machine, and the pages quote transcripts unredacted: the key (a
random secret made at start, in the address serve prints and `--open` opens) admits a browser, which then
keeps it in an HttpOnly, SameSite=Strict cookie; anything without it gets 401 and one sentence, before
routing, whatever the path (pages, static files, forms). A page on another site can make a browser send
requests to 127.0.0.1 (CSRF), and a hostile DNS name can be re-pointed at 127.0.0.1 after the page loads
(DNS rebinding); the Host check stops the second, the SameSite cookie and the form token (which only pages
served here carry) the first. Plain ASGI, so it sees every request before routing and needs no
form-parsing library.
"""

from __future__ import annotations

import re
import secrets
from collections.abc import Awaitable, Callable, MutableMapping
from html import escape
from typing import Any
from urllib.parse import parse_qs, parse_qsl, quote, urlencode

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

LOCAL_NAMES = frozenset({"localhost", "127.0.0.1", "[::1]"})
TOKEN_FIELD = "token"
TOKEN_HEADER = b"x-intent-token"
KEY_PARAMETER = "token"  # `?token=KEY` in the address serve prints, as Jupyter's servers name theirs
UNAUTHORIZED = (
    "Unauthorized: this view is private to whoever started git intent serve; open the address it printed "
    "(it carries this run's key), or start it again with --open."
)
MAX_BODY = 1 << 20  # bytes of a POST body: the forms here send a few dozen
SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})
_HOST = re.compile(r"^(\[[0-9a-f:.]+\]|[a-z0-9.-]+)(?::(\d{1,5}))?$")
HEADERS = [
    (
        b"content-security-policy",
        b"default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; form-action 'self'; "
        b"base-uri 'none'; frame-ancestors 'none'; connect-src 'self'",
    ),
    (b"x-content-type-options", b"nosniff"),
    (b"x-frame-options", b"DENY"),
    (b"referrer-policy", b"no-referrer"),
    (b"cache-control", b"no-store"),
]


def host_is_local(host: str | None) -> bool:
    """Whether a Host header names this machine: `localhost`, `127.0.0.1` or `[::1]`, any port."""
    match = _HOST.match((host or "").strip().lower())
    return bool(match) and match is not None and match[1] in LOCAL_NAMES


def same_secret(given: str | None, expected: str) -> bool:
    """Whether `given` is `expected`, compared in constant time (`secrets.compare_digest`); None never is."""
    return given is not None and secrets.compare_digest(given.encode("utf-8"), expected.encode("utf-8"))


def token_matches(expected: str, header: str | None, body: bytes, content_type: str) -> bool:
    """Whether a POST carries `expected`: in the `X-Intent-Token` header, or as the `token` field of an
    urlencoded form body. Compared in constant time."""
    given = header
    if given is None and content_type.split(";")[0].strip() == "application/x-www-form-urlencoded":
        values = parse_qs(body.decode("utf-8", "replace")).get(TOKEN_FIELD, [])
        given = values[0] if len(values) == 1 else None
    return same_secret(given, expected)


def cookie_name(scope: Scope) -> str:
    """The key's cookie for the port serving `scope`: a browser keeps cookies per host, not per port, so two
    servers on 127.0.0.1 each keep their own."""
    server = scope.get("server") or ("", 0)
    return f"git-intent-{server[1]}"


def cookie_value(header: str | None, name: str) -> str | None:
    """The value of cookie `name` in a `Cookie` header (`a=1; b=2`), None when absent or given twice."""
    values = [
        v.strip() for k, _, v in (c.partition("=") for c in (header or "").split(";")) if k.strip() == name
    ]
    return values[0] if len(values) == 1 else None


class Guard:
    """ASGI middleware: 403 for a non-local Host (every request); 401 for a request without the run's `key`
    (cookie, `Authorization: Bearer KEY`, or `?token=KEY`, which on a GET answers with the cookie and a page
    that goes on to the same address without the key); 403 for a POST (any method that is not GET, HEAD or
    OPTIONS) without the run's form `token`; 413 for a body over 1 MiB; security headers on every response;
    WebSockets refused (no route takes one). A checked body is handed on unchanged."""

    def __init__(self, app: ASGIApp, token: str, key: str) -> None:
        self.app = app
        self.token = token
        self.key = key

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "websocket":
            await send({"type": "websocket.close", "code": 1008})
            return
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = {k.lower(): v.decode("latin-1") for k, v in scope.get("headers", [])}
        if not host_is_local(headers.get(b"host")):
            await _plain(
                send,
                403,
                "Forbidden: git intent serve answers only requests to localhost, 127.0.0.1 or [::1].",
            )
            return
        query = parse_qsl(scope.get("query_string", b"").decode("latin-1"), keep_blank_values=True)
        in_query = [value for name, value in query if name == KEY_PARAMETER]
        key_in_query = len(in_query) == 1 and same_secret(in_query[0], self.key)
        if key_in_query and scope["method"] in ("GET", "HEAD"):
            await _admit(send, scope, [(n, v) for n, v in query if n != KEY_PARAMETER], self.key)
            return
        bearer = headers.get(b"authorization", "")
        if not (
            key_in_query
            or same_secret(cookie_value(headers.get(b"cookie"), cookie_name(scope)), self.key)
            or (bearer[:7].lower() == "bearer " and same_secret(bearer[7:].strip(), self.key))
        ):
            await _plain(send, 401, UNAUTHORIZED, [(b"www-authenticate", b'Bearer realm="git intent serve"')])
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
            if not token_matches(
                self.token, headers.get(TOKEN_HEADER), body, headers.get(b"content-type", "")
            ):
                await _plain(
                    send,
                    403,
                    "Forbidden: this form is not from this run of git intent serve (missing or wrong "
                    "token); reload the page and try again.",
                )
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
            message["headers"] = [
                *message.get("headers", []),
                *[(k, v) for k, v in HEADERS if k not in names],
            ]
        await send(message)

    return wrapped


async def _plain(send: Send, status: int, text: str, extra: list[tuple[bytes, bytes]] | None = None) -> None:
    await _with_headers(send)(
        {
            "type": "http.response.start",
            "status": status,
            "headers": [(b"content-type", b"text/plain; charset=utf-8"), *(extra or [])],
        }
    )
    await send({"type": "http.response.body", "body": (text + "\n").encode("utf-8")})


async def _admit(send: Send, scope: Scope, query: list[tuple[str, str]], key: str) -> None:
    """The answer to the address with the key: the cookie, and a page that goes on to the same address without
    the key. A page, not a 303: a SameSite=Strict cookie is not sent along a redirect that a page of another
    site (the `--open` file, a link in a chat) started, and the page's own navigation starts here."""
    path = "/" + quote(scope.get("path", "/")).lstrip("/")  # one leading slash: never `//host`
    target = escape(path + (f"?{urlencode(query)}" if query else ""))
    body = (
        f'<!doctype html><meta charset="utf-8"><meta http-equiv="refresh" '
        f'content="0;url={target}"><title>git intent</title><p><a href="{target}">Continue to git intent '
        f"serve</a></p>\n"
    )
    cookie = f"{cookie_name(scope)}={key}; HttpOnly; SameSite=Strict; Path=/"
    await _with_headers(send)(
        {
            "type": "http.response.start",
            "status": 200,
            "headers": [
                (b"content-type", b"text/html; charset=utf-8"),
                (b"set-cookie", cookie.encode("latin-1")),
            ],
        }
    )
    await send({"type": "http.response.body", "body": body.encode("utf-8")})
