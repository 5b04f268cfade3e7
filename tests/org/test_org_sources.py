"""What `org sync` takes as a source: URLs keyed without credentials, local paths, `@FILE` lists."""

from __future__ import annotations

from pathlib import Path

import pytest
from support import git

from git_intent.core.errors import IntentError
from git_intent.org.sources import Source, expand_sources, parse_source, shown


@pytest.mark.parametrize(
    ("given", "key", "name"),
    [
        ("https://github.com/Acme/API.git", "https://github.com/Acme/API", "API"),
        ("https://user:t0ken@GitHub.com:8443/acme/api/", "https://github.com:8443/acme/api", "api"),
        ("ssh://git@github.com/acme/web.git", "ssh://github.com/acme/web", "web"),
        ("git@github.com:acme/web.git", "ssh://github.com/acme/web", "web"),
        ("git://example.org/tools", "git://example.org/tools", "tools"),
    ],
)
def test_a_url_is_keyed_without_credentials_or_dot_git(given: str, key: str, name: str) -> None:
    source = parse_source(given)
    assert (source.url, source.key, source.name, source.local) == (given, key, name, False)
    assert "t0ken" not in source.mirror_name and source.mirror_name.endswith(".git")


def test_a_path_and_a_file_url_are_local_and_absolute(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    repo = tmp_path / "my repo"
    repo.mkdir()
    git(repo, "init", "-q")
    monkeypatch.chdir(tmp_path)
    assert parse_source("my repo") == Source(str(repo), str(repo), "my repo", True)
    assert parse_source(repo.as_uri()) == Source(repo.as_uri(), repo.as_uri(), "my repo", True)
    assert parse_source("my repo").mirror_name.startswith("my_repo-")


@pytest.mark.parametrize(
    ("given", "sentence"),
    [
        ("--upload-pack=touch /tmp/x", "'--upload-pack=touch /tmp/x' is not a repository URL or path."),
        (
            "ext::sh -c touch% /tmp/x",
            "'ext::sh -c touch% /tmp/x' is not a repository URL or path.",
        ),
        (
            "u@-oProxyCommand=x:a/b",
            "u@-oProxyCommand=x:a/b is neither a repository URL nor an existing path.",
        ),
        ("ftp://example.org/x.git", "ftp://example.org/x.git uses ftp://, which org sync does not fetch."),
        ("ftp://u:secret@example.org/x", "ftp://example.org/x uses ftp://, which org sync does not fetch."),
    ],
)
def test_anything_else_is_one_sentence(given: str, sentence: str) -> None:
    with pytest.raises(IntentError) as raised:
        parse_source(given)
    assert str(raised.value) == sentence


def test_a_list_file_names_sources_in_order_once(tmp_path: Path) -> None:
    listing = tmp_path / "repos.txt"
    listing.write_text(
        "# the team's repositories\nhttps://h/a.git\n\n  ../b  \nhttps://h/a.git\n", encoding="utf-8"
    )
    assert expand_sources(["x", f"@{listing}", "x", str(listing)]) == ["x", "https://h/a.git", "../b"]
    with pytest.raises(IntentError, match=r"^The list of sources .*missing.txt cannot be read"):
        expand_sources([f"@{tmp_path / 'missing.txt'}"])
    assert shown("https://me:pw@h/a.git") == "https://h/a.git"
