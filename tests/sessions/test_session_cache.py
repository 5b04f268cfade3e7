"""The session cache: a transcript blame and show read again is parsed once per version of the
file; what comes back from the cache equals a fresh parse on every fixture, a changed file is parsed again,
a damaged cache file is parsed over, and the cache is private."""

from __future__ import annotations

import json
import os
import shutil
import stat
from pathlib import Path

import pytest
from conftest import CORPUS
from support import fixture_transcripts, git, run_cli

from git_intent.adapters import ADAPTERS, FILE_SCOPED, claude_code, sniff
from git_intent.demo import run_demo
from git_intent.git.repo import Repository
from git_intent.sessions import parse_cache
from git_intent.sessions.discovery import find_session, read_transcript

BIG = CORPUS / "transcripts" / "claude-code" / "entire-cli__a6e4c2a0fbd1__compaction.jsonl"


@pytest.fixture(autouse=True)
def fresh_memo(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(parse_cache, "_memo", type(parse_cache._memo)())


@pytest.mark.parametrize("path", list(fixture_transcripts()), ids=lambda p: str(p.relative_to(CORPUS)))
def test_a_session_loaded_from_the_disk_cache_equals_a_fresh_parse(
    path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(parse_cache, "DISK_MIN_BYTES", 0)
    fresh = read_transcript(path)
    assert read_transcript(path, keep=True) == fresh  # parsed, then written
    stored = list(parse_cache.cache_folder().glob("*.pickle")) if parse_cache.cache_folder().is_dir() else []
    if sniff(path).NAME not in FILE_SCOPED:  # OpenCode's stores read other files: never kept
        assert stored == [] and not parse_cache._memo
        return
    parse_cache._memo.clear()
    loaded = parse_cache._load(_only_key())
    assert loaded is not None  # the equality below is the file's, not the memo's
    assert loaded == fresh
    assert [(e.before, e.after) for s in loaded for e in s.edits] == [
        (e.before, e.after) for s in fresh for e in s.edits
    ]


def test_the_built_ins_kept_without_import_are_those_that_read_their_file_alone() -> None:
    assert FILE_SCOPED == {name for name, adapter in ADAPTERS.items() if adapter.file_scoped}


def test_a_transcript_is_parsed_once_until_it_changes(tmp_path: Path, reads: list[Path]) -> None:
    path = tmp_path / "session.jsonl"
    shutil.copyfile(BIG, path)
    first = read_transcript(path, "claude-code", keep=True)
    parse_cache._memo.clear()  # a new process: the disk cache answers
    assert read_transcript(path, "claude-code", keep=True) == first
    assert reads == [path]

    with path.open("a", encoding="utf-8") as handle:  # the agent goes on
        handle.write(
            '{"type":"user","sessionId":"x","uuid":"u-new","timestamp":"2026-01-22T20:00:00Z",'
            '"message":{"role":"user","content":"one more thing"}}\n'
        )
    grown = read_transcript(path, "claude-code", keep=True)
    assert reads == [path, path]
    assert len(grown[0].messages) == len(first[0].messages) + 1


def test_a_damaged_cache_file_is_parsed_over_and_the_cache_is_private(
    tmp_path: Path, reads: list[Path]
) -> None:
    path = tmp_path / "session.jsonl"
    shutil.copyfile(BIG, path)
    fresh = read_transcript(path, "claude-code", keep=True)
    stored = parse_cache.cache_folder() / f"{_only_key()}.pickle"
    stored.write_bytes(stored.read_bytes()[: stored.stat().st_size // 2])  # torn
    parse_cache._memo.clear()
    assert read_transcript(path, "claude-code", keep=True) == fresh
    assert len(reads) == 2
    assert stat.S_IMODE(stored.stat().st_mode) == 0o600
    assert stat.S_IMODE(parse_cache.cache_folder().stat().st_mode) == 0o700
    assert stat.S_IMODE(parse_cache.cache_folder().parent.stat().st_mode) == 0o700


def test_the_cache_keeps_the_files_used_last_and_leaves_no_partial_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(parse_cache, "KEEP_FILES", 2)
    paths = []
    for number in range(3):
        paths.append(tmp_path / f"s{number}.jsonl")
        shutil.copyfile(BIG, paths[-1])
        read_transcript(paths[-1], "claude-code", keep=True)
        if number == 0:
            first = _only_key()
            os.utime(parse_cache.cache_folder() / f"{first}.pickle", ns=(1, 1))  # written long ago ...
        if number == 1:
            (second,) = {p.stem for p in parse_cache.cache_folder().glob("*.pickle")} - {first}
            os.utime(parse_cache.cache_folder() / f"{second}.pickle", ns=(2, 2))  # written after the first
            parse_cache._memo.clear()
            read_transcript(paths[0], "claude-code", keep=True)  # ... but read again now
    kept = {p.stem for p in parse_cache.cache_folder().glob("*.pickle")}
    assert len(kept) == 2 and first in kept and second not in kept

    def full_disk(*_: object) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(parse_cache.os, "replace", full_disk)
    grown = tmp_path / "s3.jsonl"
    shutil.copyfile(BIG, grown)
    assert read_transcript(grown, "claude-code", keep=True) == read_transcript(grown)
    assert sorted(p.name for p in parse_cache.cache_folder().iterdir()) == sorted(f"{k}.pickle" for k in kept)


def test_a_changed_parser_never_reads_an_old_parse(tmp_path: Path, reads: list[Path]) -> None:
    path = tmp_path / "session.jsonl"
    shutil.copyfile(BIG, path)
    read_transcript(path, "claude-code", keep=True)
    module = Path(claude_code.__file__)
    before = module.stat()
    os.utime(module, ns=(before.st_atime_ns, before.st_mtime_ns + 1_000_000_000))  # an edit, or an upgrade
    parse_cache.parser_fingerprint.cache_clear()
    parse_cache._memo.clear()
    try:
        read_transcript(path, "claude-code", keep=True)
    finally:
        os.utime(module, ns=(before.st_atime_ns, before.st_mtime_ns))
        parse_cache.parser_fingerprint.cache_clear()
    assert reads == [path, path]


def test_blame_reads_its_session_from_the_cache_on_its_second_call(
    tmp_path: Path, reads: list[Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(parse_cache, "DISK_MIN_BYTES", 0)  # the demo's transcript is a small one
    demo = run_demo(keep=tmp_path / "demo")
    line = demo.answer.lines[0]
    assert line.attribution is not None
    repo = Repository(demo.repo)
    shutil.rmtree(parse_cache.cache_folder())  # the demo's own blame kept it already
    parse_cache._memo.clear()
    reads.clear()
    first = find_session(repo, line.attribution.session_id, "claude-code", exact=True)
    parse_cache._memo.clear()  # as a new process would start
    second = find_session(repo, line.attribution.session_id, "claude-code", exact=True)
    assert first == second
    assert [p.parent.name for p in reads] == ["claude-code"]  # the backup copy, parsed once
    # The CLI, in processes of its own, answers as before and leaves the work tree clean.
    for _ in range(2):
        out = run_cli("blame", f"{line.path}:{line.line}", "--json", cwd=demo.repo)
        assert out.returncode == 0 and f'"session_id": "{line.attribution.session_id}"' in out.stdout
    assert git(demo.repo, "status", "--porcelain") == ""


def test_a_cache_file_others_could_write_is_never_unpickled(tmp_path: Path, reads: list[Path]) -> None:
    """Pickles run code when loaded (the cache is pickled for speed): only this user's 0600 files are
    read."""
    path = tmp_path / "session.jsonl"
    shutil.copyfileobj(BIG.open("rb"), path.open("wb"))
    fresh = read_transcript(path, "claude-code", keep=True)
    stored = parse_cache.cache_folder() / f"{_only_key()}.pickle"
    stored.write_bytes(b"cos\nsystem\n(S'touch planted'\ntR.")  # a pickle that runs a command
    os.chmod(stored, 0o644)  # as a file someone else could have written
    parse_cache._memo.clear()
    assert read_transcript(path, "claude-code", keep=True) == fresh
    assert len(reads) == 2 and not (tmp_path / "planted").exists() and not Path("planted").exists()
    # Nor one reached through a link (the planted file itself 0600), nor any in a folder others may write to.
    bait = tmp_path / "bait.pickle"
    bait.write_bytes(b"cos\nsystem\n(S'touch planted'\ntR.")
    os.chmod(bait, 0o600)
    stored.unlink()
    stored.symlink_to(bait)
    parse_cache._memo.clear()
    assert read_transcript(path, "claude-code", keep=True) == fresh and len(reads) == 3
    assert not stored.is_symlink()  # written over, whole, by this parse
    os.chmod(parse_cache.cache_folder(), 0o777)
    parse_cache._memo.clear()
    assert read_transcript(path, "claude-code", keep=True) == fresh and len(reads) == 4
    assert not (tmp_path / "planted").exists() and not Path("planted").exists()


def _only_key() -> str:
    (file,) = parse_cache.cache_folder().glob("*.pickle")
    return file.stem


def test_path_names_the_session_cache(repo: Path, isolated_env: Path) -> None:
    out = run_cli("path", "--json", cwd=repo)
    assert out.returncode == 0
    assert json.loads(out.stdout)["session_cache"] == str(isolated_env / ".cache" / "git-intent" / "sessions")
    text = run_cli("path", cwd=repo).stdout
    assert f"sessions   {isolated_env / '.cache' / 'git-intent' / 'sessions'}" in text
