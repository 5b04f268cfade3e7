"""What `org sync` is given: sources (remote URLs, local paths, `@FILE` lists), each with the stable key the
store files its rows under, and the folder that keeps the bare mirrors.

A key never holds a credential: `https://user:token@host/a/b.git` is keyed, shown and reported as
`https://host/a/b`, so neither the store nor a failure line repeats the token.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import unquote, urlsplit

from ..core.errors import IntentError
from ..sessions.parse_cache import cache_root

# `user@host:path` (git's scp-like syntax for ssh): no scheme, a colon before any slash.
# The host starts with a letter or digit (never an ssh option), the path never with `:` (git's
# `transport::address` syntax runs a remote helper, `ext::` a command).
_SCP = re.compile(r"^(?:[A-Za-z0-9._~-]+@)?(?P<host>[A-Za-z0-9][A-Za-z0-9.-]*):(?P<path>(?![:/]{2}|:).+)$")
_SCHEMES = ("https", "http", "ssh", "git", "file")


@dataclass(frozen=True)
class Source:
    """One repository to sync: `url` is what git fetches from (a URL as given, or an absolute local path),
    `key` the store's stable name for it, `name` its short display name, `local` whether it is on this
    machine (a path or a file:// URL: the mirror may then ask the local upload-pack for a partial fetch)."""

    url: str
    key: str
    name: str
    local: bool

    @property
    def mirror_name(self) -> str:
        """The mirror's folder name under the cache: a digest of the key (no path or URL text reaches the
        file system) and the short name, made safe."""
        digest = hashlib.sha256(self.key.encode("utf-8")).hexdigest()[:16]
        return f"{re.sub(r'[^A-Za-z0-9._-]', '_', self.name)[:40]}-{digest}.git"


def org_cache() -> Path:
    """`${XDG_CACHE_HOME:-~/.cache}/git-intent/org`: the mirrors and the default store (not created here)."""
    return cache_root() / "org"


def default_store() -> Path:
    """The SQLite file `org` commands use without `--db`: `org.db` in `org_cache()`."""
    return org_cache() / "org.db"


def parse_source(given: str) -> Source:
    """The `Source` a command-line word names: a URL (https, http, ssh, git, file, or `user@host:path`) or
    a path to a local git repository (its work tree or git directory).

    Raises IntentError (one sentence) when it is neither, or a URL of another scheme."""
    text = given.strip()
    if not text or text.startswith("-") or ("::" in text and "://" not in text):
        raise IntentError(f"{given!r} is not a repository URL or path.")
    if "://" in text:
        parts = urlsplit(text)
        scheme = parts.scheme.lower()
        if scheme not in _SCHEMES:
            raise IntentError(
                f"{_without_credentials(text)} uses {scheme}://, which org sync does not fetch."
            )
        if scheme == "file":
            path = Path(unquote(parts.path)).resolve()
            return Source(url=path.as_uri(), key=path.as_uri(), name=_short(path.name), local=True)
        host = (parts.hostname or "").lower()
        port = f":{parts.port}" if parts.port else ""
        path_text = parts.path.rstrip("/").removesuffix(".git")
        key = f"{scheme}://{host}{port}{path_text}"
        return Source(url=text, key=key, name=_short(path_text.rsplit("/", 1)[-1] or host), local=False)
    scp = _SCP.match(text)
    if scp and not Path(text).exists():
        path_text = "/" + scp["path"].lstrip("/").rstrip("/").removesuffix(".git")
        key = f"ssh://{scp['host'].lower()}{path_text}"
        return Source(url=text, key=key, name=_short(path_text.rsplit("/", 1)[-1]), local=False)
    path = Path(text).expanduser().resolve()
    if not path.exists():
        raise IntentError(f"{given} is neither a repository URL nor an existing path.")
    return Source(url=str(path), key=str(path), name=_short(path.name.removesuffix(".git")), local=True)


def expand_sources(words: Iterable[str]) -> list[str]:
    """The sources `words` name, in order and without repeats: `@FILE` (or a word naming a plain file
    that is not a repository) is replaced by its lines; blank lines and `#` comments are skipped.

    Raises IntentError when a listed file cannot be read."""
    found: list[str] = []
    for word in words:
        listing = Path(word[1:]) if word.startswith("@") else Path(word)
        if word.startswith("@") or (listing.is_file() and not _is_git_dir(listing)):
            try:
                text = listing.read_text(encoding="utf-8")
            except (OSError, UnicodeDecodeError) as exc:
                raise IntentError(f"The list of sources {listing} cannot be read ({exc}).") from exc
            found += [s for line in text.splitlines() if (s := line.strip()) and not s.startswith("#")]
        else:
            found.append(word)
    return list(dict.fromkeys(found))


def shown(source: str) -> str:
    """`source` as it may be printed: a URL without its user name or password."""
    return _without_credentials(source)


def _without_credentials(text: str) -> str:
    return re.sub(r"(?<=://)[^/@\s]*@", "", text)


def _short(name: str) -> str:
    return name.removesuffix(".git") or "repository"


def _is_git_dir(path: Path) -> bool:
    # a `.git` file of a linked worktree or submodule names a repository; a list never starts so
    return path.name == ".git"
