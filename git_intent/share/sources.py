"""Where `git intent fetch` reads records from: a configured remote, or a URL or path such as a contributor's
fork, which needs no `git remote add`.

A remote's records are tracked under its name (`refs/notes/remotes/<name>/...`) and its branches arrive as
`git fetch` brings them (its configured refspecs). A URL or path that some remote of this clone already has
is that remote. Any other is tracked under a name made from the URL (its host and path, without user or
password, then 8 hex digits of its SHA-1, so two forks never share refs) and its branches are kept in
`refs/intent/forks/<name>/<branch>`: out of `git branch -r`, but here, so the commits a maintainer
squash-merged or rebase-merged from that fork can be matched to the fork's records and carried
(`capture.landed`). Those refs are never pruned: a fork's branch deleted after the merge keeps its commits.
"""

from __future__ import annotations

import hashlib
import os
import re
from dataclasses import dataclass

from ..core.errors import ShareError
from ..git.repo import Repository

FORKS = "refs/intent/forks"
_SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*://")
_SCP = re.compile(r"^(?:[^@/:]+@)?[^/:]+:")  # user@host:path, as git reads it (no slash before the colon)


@dataclass(frozen=True)
class FetchSource:
    """One place to fetch from: `location` is what git is given (a remote's name, a URL, an absolute path),
    `name` the component of the refs that track it, `shown` how a person is told of it (a URL without
    its user and password), `branches` the refspecs that bring its branches here."""

    location: str
    name: str
    shown: str
    branches: tuple[str, ...]


def remote_source(repo: Repository, remote: str) -> FetchSource:
    """The configured remote `remote` (checked by the caller), with its own fetch refspecs."""
    specs = repo.git("config", "--get-all", f"remote.{remote}.fetch", check=False).split()
    return FetchSource(location=remote, name=remote, shown=remote, branches=tuple(specs))


def fetch_source(repo: Repository, given: str) -> FetchSource:
    """`given` as a remote name, else as a URL (`https://…`, `ssh://…`, `user@host:path`) or a path to a
    repository (relative to the current directory). Raises ShareError when it is none of them."""
    if repo.succeeds("remote", "get-url", "--end-of-options", given):
        return remote_source(repo, given)
    if _SCHEME.match(given) or (_SCP.match(given) and not os.path.exists(given)):
        url = given
    elif os.path.isdir(given):
        url = os.path.abspath(given)
    else:
        raise ShareError(
            f"{given!r} is neither a remote of this repository nor a URL or path of a repository.",
            hint="Pass a remote (`git remote -v` lists them), a fork's URL, or a path: git intent fetch URL",
        )
    for remote, remote_url in _remote_urls(repo).items():
        local = os.path.abspath(os.path.join(repo.root, remote_url))  # a path is relative to the work tree
        if url == remote_url or (not _SCHEME.match(remote_url) and url == local):
            return remote_source(repo, remote)
    name = url_name(url)
    return FetchSource(
        location=url,
        name=name,
        shown=_without_credentials(url),
        branches=(f"+refs/heads/*:{FORKS}/{name}/*",),
    )


def url_name(url: str) -> str:
    """The ref component that tracks `url`: its host and path (letters, digits, `_` and `-`; at most the last
    40), `-`, then the first 8 hex digits of the SHA-1 of the URL without credentials."""
    plain = _without_credentials(url)
    words = re.sub(r"[^A-Za-z0-9_]+", "-", _SCHEME.sub("", plain).removesuffix(".git")).strip("-")
    digest = hashlib.sha1(plain.encode("utf-8", "surrogateescape")).hexdigest()[:8]
    return f"{words[-40:].lstrip('-') or 'fork'}-{digest}"


def _without_credentials(url: str) -> str:
    """`https://user:token@host/x` -> `https://host/x`; other URLs and paths unchanged."""
    return re.sub(r"^([A-Za-z][A-Za-z0-9+.-]*://)[^/@]*@", r"\1", url)


def _remote_urls(repo: Repository) -> dict[str, str]:
    """{remote: its fetch URL} of every configured remote."""
    out = repo.git("config", "--get-regexp", r"^remote\..*\.url$", check=False)
    urls: dict[str, str] = {}
    for line in out.splitlines():
        key, _, value = line.partition(" ")
        urls.setdefault(key.removeprefix("remote.").removesuffix(".url"), value)
    return urls
