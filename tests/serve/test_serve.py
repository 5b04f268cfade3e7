"""`git intent serve` over HTTP: a real server process on 127.0.0.1 in the repository built from the linked
fixtures. Local Host only (DNS rebinding), the per-run token on every POST (CSRF), every page reachable
from `/`, nothing from another host, a busy port named. The browser tests are in test_serve_browser.py."""

from __future__ import annotations

import http.client
import re
import socket
from collections.abc import Iterator
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import urlencode, urljoin, urlsplit

import pytest
from conftest import run_cli
from support.review_repo import (
    CHUNKING,
    S8,
    ReviewRepo,
    Site,
    build_review_repo,
    levels,
    serving,
    serving_opened,
)

from git_intent.serve.security import UNAUTHORIZED, cookie_value, host_is_local, token_matches

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> ReviewRepo:
    return build_review_repo(tmp_path_factory.mktemp("serve"))


@pytest.fixture(scope="module")
def site(built: ReviewRepo) -> Iterator[Site]:
    with serving(built) as site:
        yield site


def request(
    site: Site,
    path: str,
    *,
    method: str = "GET",
    host: str | None = None,
    body: str | None = None,
    headers: dict[str, str] | None = None,
    key: bool = True,
) -> tuple[int, dict[str, str], str]:
    """One request to `site` (with this run's key in its cookie, as a browser that opened the printed address
    sends it; none with `key` False): status, headers (lower-case names) and body."""
    where = urlsplit(site.base)
    connection = http.client.HTTPConnection(where.hostname or "", where.port, timeout=60)
    try:
        connection.putrequest(method, path, skip_host=True)
        connection.putheader("Host", host if host is not None else where.netloc)
        all_headers = ({"Cookie": site.cookie} if key else {}) | dict(headers or {})
        if body is not None:
            all_headers.setdefault("Content-Type", "application/x-www-form-urlencoded")
            all_headers["Content-Length"] = str(len(body.encode()))
        for name, value in all_headers.items():
            connection.putheader(name, value)
        connection.endheaders(body.encode() if body is not None else None)
        response = connection.getresponse()
        return response.status, {k.lower(): v for k, v in response.getheaders()}, response.read().decode()
    finally:
        connection.close()


class Links(HTMLParser):
    """Every href, src and form action of a page."""

    def __init__(self) -> None:
        super().__init__()
        self.found: list[tuple[str, str]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        for name, value in attrs:
            if name in ("href", "src", "action") and value is not None:
                self.found.append((tag, value))


def links(html: str) -> list[tuple[str, str]]:
    parser = Links()
    parser.feed(html)
    return parser.found


def test_only_local_host_names_are_served(site: Site) -> None:
    port = urlsplit(site.base).port
    for host in (
        "evil.example",
        f"evil.example:{port}",
        "localhost.evil.example",
        "127.0.0.1.evil.example",
        f"127.0.0.1:{port}@evil.example",
        "[::2]",
        "",
    ):
        status, headers, body = request(site, "/", host=host)
        assert status == 403, host
        assert body.startswith("Forbidden: git intent serve answers only requests to localhost")
        assert "default-src 'none'" in headers["content-security-policy"]
    for host in ("localhost", f"localhost:{port}", "127.0.0.1:1", "[::1]", f"[::1]:{port}", "LOCALHOST"):
        assert request(site, "/", host=host)[0] == 200, host


def routes(built: ReviewRepo) -> list[tuple[str, str]]:
    """(method, route pattern) of every route of the application, read from it (so a new route is checked
    too); the static mount as one pattern per shipped file."""
    from starlette.routing import Mount, Route

    from git_intent.git.repo import Repository
    from git_intent.serve.app import STATIC, create_app

    app = create_app(Repository(built.path), "token", "key").app  # type: ignore[attr-defined]
    found: list[tuple[str, str]] = []
    for route in app.routes:
        if isinstance(route, Mount):
            found += [("GET", f"{route.path}/{p.name}") for p in sorted(STATIC.iterdir())]
        else:
            assert isinstance(route, Route), route
            found += [(method, route.path) for method in sorted(route.methods or ())]
    return found


def concrete(pattern: str, values: dict[str, str]) -> str:
    """`pattern` (`/session/{session_id}`, `/file/{path:path}`) with each parameter given its value."""
    return re.sub(r"\{(\w+)(?::\w+)?\}", lambda m: values[m[1]], pattern)


def test_without_the_key_every_route_answers_401_and_nothing_else(built: ReviewRepo, site: Site) -> None:
    _, _, session_page = request(site, f"/session/{S8}")
    message = re.search(rf'href="/message/{S8}/([^"?#]+)"', session_page)
    form_token = re.search(r'name="token" value="([^"]+)"', session_page)
    assert message is not None and form_token is not None
    values = {"path": CHUNKING, "session_id": S8, "message_id": message[1]}
    checked = routes(built)
    assert {pattern for _, pattern in checked} >= {
        "/",
        "/file/{path:path}",
        "/session/{session_id}/fidelity",
        "/static/intent.js",
    }
    wrong = "x" * len(site.key)
    port = urlsplit(site.base).port
    for method, pattern in checked:
        folder = {"path": CHUNKING.rsplit("/", 1)[0]} if pattern.startswith("/files/") else {}
        path = concrete(pattern, values | folder)
        body = (
            urlencode({"target": "t1", "level": "auto", "token": form_token[1]}) if method == "POST" else None
        )
        for headers in (
            {},
            {"Cookie": f"git-intent-{port}={wrong}"},
            {"Cookie": f"git-intent-1={site.key}"},
            {"Authorization": f"Bearer {wrong}"},
            {"Authorization": f"Basic {site.key}"},
        ):
            status, answer, text = request(site, path, method=method, body=body, headers=headers, key=False)
            assert (status, text) == (401, "" if method == "HEAD" else UNAUTHORIZED + "\n"), (
                method,
                path,
                headers,
            )
            assert answer["www-authenticate"] == 'Bearer realm="git intent serve"'
            assert "set-cookie" not in answer
        status, _, text = request(site, f"{path}?token={wrong}", method=method, body=body, key=False)
        assert (status, text) == (401, "" if method == "HEAD" else UNAUTHORIZED + "\n"), (method, path)
        # with the key: the page itself
        status, _, text = request(site, path, method=method, body=body)
        assert status == (303 if method == "POST" else 200), (method, path)
        if pattern == "/file/{path:path}" and method == "GET":
            assert (
                "Handle single lines exceeding MaxChunkSize" in text
            )  # the transcript text kept from others
        status, _, _ = request(
            site, path, method=method, body=body, key=False, headers={"Authorization": f"Bearer {site.key}"}
        )
        assert status == (303 if method == "POST" else 200), (method, path)
    for path in ("/no/such/page", "/static/../../etc/passwd"):  # before routing: even what does not exist
        assert request(site, path, key=False)[:3:2] == (401, UNAUTHORIZED + "\n")


def test_the_printed_address_sets_the_cookie_and_goes_on_without_the_key(site: Site) -> None:
    path = f"/file/{CHUNKING}"
    status, headers, page = request(site, f"{path}?line=3&token={site.key}", key=False)
    port = urlsplit(site.base).port
    assert status == 200
    assert headers["set-cookie"] == f"git-intent-{port}={site.key}; HttpOnly; SameSite=Strict; Path=/"
    assert page == (
        f'<!doctype html><meta charset="utf-8"><meta http-equiv="refresh" '
        f'content="0;url={path}?line=3"><title>git intent</title><p><a href="{path}?line=3">Continue to '
        f"git intent serve</a></p>\n"
    )
    assert headers["cache-control"] == "no-store" and headers["referrer-policy"] == "no-referrer"
    cookie = headers["set-cookie"].split(";")[0]
    status, _, page = request(site, f"{path}?line=3", key=False, headers={"Cookie": f"theme=dark; {cookie}"})
    assert status == 200 and "Handle single lines exceeding MaxChunkSize" in page
    # a path that starts with two slashes goes on to this server's path, never to another host
    assert '="//' not in request(site, f"//evil.example/?token={site.key}", key=False)[2]
    for query in (f"token={site.key}&token={site.key}", "token="):
        assert request(site, f"/?{query}", key=False)[0] == 401, query


def test_cookie_values() -> None:
    assert cookie_value("a=1; git-intent-8=k3y ;b=2", "git-intent-8") == "k3y"
    assert cookie_value("git-intent-8=k3y; git-intent-8=k3y", "git-intent-8") is None
    assert cookie_value(None, "a") is None and cookie_value("git-intent-80=k", "git-intent-8") is None


def test_a_websocket_is_closed_before_anything() -> None:
    import asyncio

    from git_intent.serve.security import Guard

    async def app(scope: object, receive: object, send: object) -> None:
        raise AssertionError("the application was reached")

    sent: list[dict[str, object]] = []

    async def send(message: dict[str, object]) -> None:
        sent.append(message)

    async def receive() -> dict[str, object]:
        return {"type": "websocket.connect"}

    scope = {
        "type": "websocket",
        "path": "/",
        "headers": [(b"host", b"127.0.0.1")],
        "query_string": b"token=key",
    }
    asyncio.run(Guard(app, "token", "key")(scope, receive, send))  # type: ignore[arg-type]
    assert sent == [{"type": "websocket.close", "code": 1008}]


def test_a_post_needs_the_runs_token(built: ReviewRepo, site: Site) -> None:
    _, _, page = request(site, f"/session/{S8}")
    token = re.search(r'name="token" value="([^"]+)"', page)
    assert token is not None and len(token[1]) >= 32
    path = f"/session/{S8}/fidelity"
    form = {"target": "t1", "level": "placeholder"}
    assert request(site, path, method="POST", body=urlencode(form))[0] == 403
    assert request(site, path, method="POST", body=urlencode({**form, "token": "x" * 43}))[0] == 403
    assert (
        request(site, path, method="POST", body=urlencode(form), headers={"X-Intent-Token": "wrong"})[0]
        == 403
    )
    assert request(site, path, method="POST", body="", headers={"Content-Type": "text/plain"})[0] == 403
    assert levels(built) == {}  # nothing changed

    status, headers, _ = request(site, path, method="POST", body=urlencode({**form, "token": token[1]}))
    assert (status, headers["location"]) == (303, f"/session/{S8}#topic-t1")
    assert levels(built) == {"t1": "placeholder"}
    status, _, _ = request(
        site,
        path,
        method="POST",
        body=urlencode({"target": "t1", "level": "auto"}),
        headers={"X-Intent-Token": token[1]},
    )
    assert status == 303 and levels(built) == {}
    # the token is checked before routing: a POST to any path without it is refused
    assert request(site, "/no/such/page", method="POST", body="")[0] == 403


def test_every_page_is_reachable_from_the_start_page_and_nothing_comes_from_elsewhere(site: Site) -> None:
    seen: dict[str, int] = {}
    queue = ["/"]
    kinds: set[str] = set()
    while queue and len(seen) < 60:
        path = queue.pop(0)
        if path in seen:
            continue
        status, headers, body = request(site, path)
        seen[path] = status
        assert status == 200, path
        for tag, target in links(body):
            absolute = urlsplit(urljoin(site.base + path.lstrip("/"), target))
            assert absolute.netloc == urlsplit(site.base).netloc, f"{path} refers to {target}"
            kinds.add(absolute.path.split("/")[1] if "/" in absolute.path[1:] else absolute.path)
            if (
                tag == "a"
                and absolute.path.split("/")[1]
                in ("files", "file", "sessions", "session", "review", "message")
                and len(seen) + len(queue) < 60
            ):
                queue.append(absolute.path + (f"?{absolute.query}" if absolute.query else ""))
    assert {"files", "file", "session", "message", "/review", "/search", "/sessions", "static"} <= kinds
    for path in ("/search?q=chunk", "/review?range=HEAD~3..HEAD"):
        status, _, body = request(site, path)
        assert status == 200, path
        assert all(
            urlsplit(urljoin(site.base, target)).netloc == urlsplit(site.base).netloc
            for _, target in links(body)
        )
    for path in ("/static/intent.js", "/static/intent.css"):
        status, _, body = request(site, path)
        assert status == 200 and "http" not in body and "@import" not in body and "url(" not in body, path


def test_the_file_view_works_without_javascript(built: ReviewRepo, site: Site) -> None:
    path = f"/file/cmd/entire/cli/agent/chunking.go?line={built.changed_line - 1}"
    status, _, page = request(site, path)
    assert status == 200
    shown = re.findall(r'<section class="panel" id="(p\d+)">', page)  # the one panel not `hidden`
    assert len(shown) == 1
    panel = page[page.index(f'id="{shown[0]}"') :]
    panel = panel[: panel.index("</section>")]
    assert "Handle single lines exceeding MaxChunkSize" in panel
    assert '<p class="muted symbol">in <code>func ChunkJSONL</code></p>' in panel  # its symbol
    assert f'<tr id="L{built.changed_line - 1}"' in page and 'class="selected"' in page


def test_unknown_pages_and_paths_outside_the_tree_are_404(site: Site) -> None:
    for path in (
        "/file/../../etc/passwd",
        "/file/%2e%2e/%2e%2e/etc/passwd",
        "/file/no/such.go",
        "/nope",
        "/session/ffffffff-0000",
        "/files/no/such/folder/",
    ):
        assert request(site, path)[0] == 404, path


def test_a_busy_port_is_named(built: ReviewRepo) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen(1)
        port = taken.getsockname()[1]
        proc = run_cli("serve", "--port", str(port), cwd=built.path, env=built.env)
    assert proc.returncode == 1
    assert proc.stderr.splitlines()[0] == (
        f"error: Port {port} on 127.0.0.1 is already in use or not allowed; choose another with --port "
        f"(for example --port 0 for any free port)."
    )


def test_host_and_token_checks() -> None:
    assert host_is_local("localhost:8484") and host_is_local("[::1]:1") and host_is_local("127.0.0.1")
    assert not host_is_local(None) and not host_is_local("127.0.0.2") and not host_is_local("localhost:")
    assert token_matches("t0k", None, b"token=t0k&x=1", "application/x-www-form-urlencoded; charset=utf-8")
    assert not token_matches("t0k", None, b"token=t0k&token=t0k", "application/x-www-form-urlencoded")
    assert not token_matches("t0k", None, b"token=t0k", "multipart/form-data")
    assert token_matches("t0k", "t0k", b"", "")


def test_serve_is_not_imported_by_other_commands(tmp_path: Path) -> None:
    import subprocess
    import sys

    code = (
        "import sys, git_intent.cli, git_intent.review\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in ('starlette', 'uvicorn', 'jinja2')))"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=tmp_path)
    assert proc.stdout.strip() == "[]", proc.stderr


def test_without_the_serve_extra_it_says_what_to_install(repo: Path) -> None:
    import subprocess
    import sys

    code = (
        "import sys; sys.modules['uvicorn'] = None\n"
        "from git_intent.cli import main; sys.argv = ['git-intent', 'serve', '--port', '0']; main()"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=repo)
    assert proc.returncode == 1
    assert proc.stderr == (
        "error: git intent serve needs the serve extra (uvicorn is not installed).\n"
        "hint: pip install 'git-intent[serve]'\n"
    )


def test_open_hands_the_browser_a_page_only_this_user_can_read(built: ReviewRepo, tmp_path: Path) -> None:
    """A browser's arguments are public (`ps` shows them to every account): --open hands it a file of this
    user's that goes on to the address with the key, and removes it when the server stops."""
    import html
    import stat

    with serving_opened(built, tmp_path) as (site, argument):
        page = Path(urlsplit(argument).path)
        assert site.key not in argument and argument == page.as_uri() and page.name == "open.html"
        assert (stat.S_IMODE(page.stat().st_mode), stat.S_IMODE(page.parent.stat().st_mode)) == (0o600, 0o700)
        target = html.escape(site.address)
        assert page.read_text() == (
            f'<!doctype html><meta charset="utf-8"><meta http-equiv="refresh" '
            f'content="0;url={target}"><title>git intent</title><p><a href="{target}">'
            f"Open git intent serve</a></p>\n"
        )
    assert not page.parent.exists()


def test_a_credit_whose_transcript_is_gone_names_its_ids_and_links_nowhere(tmp_path: Path) -> None:
    """A note (recorded, or imported) names a session whose transcript is not on this machine: the pages say
    the ids they know and link to no message or session page, which would say "not found"."""
    import os
    import shutil
    from dataclasses import dataclass

    from git_intent.demo import run_demo

    @dataclass
    class Demo:
        path: Path
        env: dict[str, str]

    folder = tmp_path / "demo"
    run_demo(folder)
    (folder / ".git" / "claude-code-chunking.jsonl").unlink()
    shutil.rmtree(folder / ".opencode" / "intent" / "sessions")
    chunking = "cmd/entire/cli/agent/chunking.go"
    with serving(Demo(folder, dict(os.environ))) as demo:
        for page in ("/", f"/file/{chunking}", "/review?range=HEAD"):
            status, _, html = request(demo, page)
            assert status == 200, page
            assert [href for _, href in links(html) if href.startswith(("/message/", "/session/"))] == [], (
                page
            )
        _, _, html = request(demo, f"/file/{chunking}?line=85")
        assert (
            "session <code>0a0314fb-b206-450f-b895-cd5181a28ae5</code> · message "
            "<code>b2f3c599-0740-40d5-9f43-d4f2332d829c</code>"
        ) in html
        assert "Full message" not in html and "No session matches 0a0314fb" in html
        _, _, html = request(demo, "/review?range=HEAD")
        assert "<code>0a0314fb</code> (transcript not on this machine)" in html
