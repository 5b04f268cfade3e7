"""The session index and search: migrations, incremental ingest, rebuild, FTS5 consistency, ranked and
filtered search, and hostile query text — on real repositories with real Claude Code and Codex transcripts
written into the isolated $CLAUDE_CONFIG_DIR and $CODEX_HOME."""

from __future__ import annotations

import json
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import pytest
from sqlite_utils import Database
from support import CORPUS, ClaudeSession, Clock, CodexSession

from git_intent.git.repo import Repository
from git_intent.index import MIGRATIONS, index_path, ingest, load, migrate, migrations, open_index
from git_intent.index.search import fts_query, query_words, search

CLAUDE_START = datetime(2026, 3, 1, 9, 0, tzinfo=timezone.utc)
CODEX_START = datetime(2026, 3, 5, 9, 0, tzinfo=timezone.utc)
CHUNKER = (
    'def chunk_text(text, budget):\n    """Split text into pieces of at most budget characters."""\n'
    "    return [text[i:i + budget] for i in range(0, len(text), budget)]\n"
)


class Scenario:
    """A Claude Code session in the repository: a prompt, a reply, a Write and an Edit of src/chunker.py."""

    def __init__(self, repo: Path) -> None:
        self.repo = repo
        self.claude = ClaudeSession(cwd=repo, clock=Clock(CLAUDE_START))
        self.prompt = self.claude.prompt(
            "Split long transcripts into chunks under the token budget; never drop a user turn."
        )
        self.say = self.claude.say("I will add a chunker module with a zebrafish argument.")
        self.write = self.claude.write("Creating the chunker.", repo / "src" / "chunker.py", CHUNKER)
        self.edit = self.claude.edit(
            "Renaming the helper.", repo / "src" / "chunker.py", "def chunk_text", "def split_budgeted"
        )
        self.transcript = self.claude.save()
        self.ids = [r["uuid"] for r in self.claude.records]

    def ref(self, message_id: str) -> str:
        return f"{self.claude.session_id}:{message_id}"


@pytest.fixture
def scenario(repo: Path) -> Scenario:
    return Scenario(repo.resolve())


def rows(db: Database, table: str, *columns: str) -> list[tuple[Any, ...]]:
    return [
        tuple(r)
        for r in db.execute(f"SELECT {', '.join(columns)} FROM {table} ORDER BY {', '.join(columns)}")
    ]


def snapshot(repo: Repository) -> dict[str, list[tuple[Any, ...]]]:
    """Every stored row except the surrogate ids, and the FTS5 index checked against its content."""
    db = open_index(repo)
    try:
        for table in ("messages", "edits"):
            # 'integrity-check' with rank 1 compares an external-content index with its content table.
            db.execute(f"INSERT INTO {table}_fts ({table}_fts, rank) VALUES ('integrity-check', 1)")
        return {
            "sessions": rows(
                db,
                "sessions",
                "agent",
                "session_id",
                "cwd",
                "started_at",
                "ended_at",
                "messages",
                "edits",
                "transcript",
            ),
            "messages": rows(
                db,
                "messages",
                "agent",
                "session_id",
                "message_id",
                "ordinal",
                "role",
                "timestamp",
                "is_prompt",
                "is_summary",
                "tools",
                "text",
                "digest",
            ),
            "edits": rows(
                db,
                "edits",
                "agent",
                "session_id",
                "ordinal",
                "message_id",
                "call_id",
                "path",
                "tool",
                "kind",
                "timestamp",
                "added",
            ),
            "touches": rows(db, "touches", "agent", "session_id", "message_id", "path", "rpath"),
            "fts": rows(
                db,
                "messages_fts JOIN messages m ON m.id = messages_fts.rowid WHERE messages_fts MATCH "
                "'budget OR chunker OR zebrafish OR results'",
                "m.message_id",
            ),
        }
    finally:
        db.close()


# --- migrations -----------------------------------------------------------------------------------------


def test_open_index_is_wal_in_the_common_dir_and_migrations_are_idempotent(
    repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    r = Repository(repo)
    assert index_path(r) == repo.resolve() / ".git" / "intent" / "index.db"
    db = open_index(r)
    assert db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert db.execute("PRAGMA synchronous").fetchone()[0] == 1  # NORMAL
    names = [m.__name__ for m in MIGRATIONS]
    assert [row[0] for row in db.execute("SELECT name FROM _migrations ORDER BY rowid")] == names
    schema = db.execute("SELECT type, name, sql FROM sqlite_master ORDER BY name").fetchall()
    assert migrate(db) == []
    db.close()
    db = open_index(r)
    assert db.execute("SELECT type, name, sql FROM sqlite_master ORDER BY name").fetchall() == schema
    assert db.execute("SELECT count(*) FROM _migrations").fetchone()[0] == len(names)

    def m999_notes(db: Database) -> None:
        db.execute("CREATE TABLE extra (x TEXT)")

    monkeypatch.setattr(migrations, "MIGRATIONS", [*MIGRATIONS, m999_notes])
    assert migrate(db) == ["m999_notes"]
    assert migrate(db) == []
    assert [row[0] for row in db.execute("SELECT name FROM _migrations ORDER BY rowid")] == [
        *names,
        "m999_notes",
    ]
    db.close()


# --- ingest ---------------------------------------------------------------------------------------------


def test_ingest_stores_messages_edits_and_touched_paths(scenario: Scenario) -> None:
    r = Repository(scenario.repo)
    calls: list[tuple[int, int]] = []
    result = ingest(r, progress=lambda done, total: calls.append((done, total)))
    assert (result.transcripts, result.sessions, result.messages_added, result.edits_added) == (1, 1, 6, 2)
    assert calls == [(1, 1)]
    sid, chunker = scenario.claude.session_id, str(scenario.repo / "src" / "chunker.py")
    db = open_index(r)
    assert rows(db, "messages", "ordinal", "message_id", "role", "is_prompt", "tools") == [
        (0, scenario.ids[0], "user", 1, ""),
        (1, scenario.ids[1], "assistant", 0, ""),
        (2, scenario.ids[2], "assistant", 0, "Write"),
        (3, scenario.ids[3], "tool", 0, ""),
        (4, scenario.ids[4], "assistant", 0, "Edit"),
        (5, scenario.ids[5], "tool", 0, ""),
    ]
    assert rows(db, "edits", "ordinal", "message_id", "tool", "path") == [
        (0, scenario.write, "Write", chunker),
        (1, scenario.edit, "Edit", chunker),
    ]
    assert rows(db, "edits", "added")[0][0] == CHUNKER.rstrip("\n")
    assert rows(db, "touches", "message_id", "path") == sorted(
        [(scenario.write, chunker), (scenario.edit, chunker)]
    )
    assert rows(db, "sessions", "agent", "session_id", "messages", "edits", "transcript", "started_at") == [
        ("claude-code", sid, 6, 2, str(scenario.transcript), "2026-03-01T09:00:00.007000+00:00")
    ]
    assert rows(db, "transcripts", "path", "agent", "size", "offset") == [
        (
            str(scenario.transcript),
            "claude-code",
            scenario.transcript.stat().st_size,
            scenario.transcript.stat().st_size,
        )
    ]
    # Tool-call arguments are stored readable (no JSON escapes gluing letters onto words).
    text = db.execute("SELECT text FROM messages WHERE message_id = ?", [scenario.write]).fetchone()[0]
    assert text.startswith(f"Creating the chunker.\n\nWrite\nfile_path: {chunker}\ncontent: def chunk_text(")
    db.close()


def test_incremental_ingest_skips_unchanged_and_writes_only_the_appended_message(scenario: Scenario) -> None:
    r = Repository(scenario.repo)
    ingest(r)
    again = ingest(r)  # nothing changed: not a transcript parsed, nothing written
    assert (again.transcripts, again.sessions, again.sessions_skipped, again.rows_written) == (0, 0, 0, 0)
    assert load.unchanged(r)
    db = open_index(r)
    before = rows(db, "messages", "id", "message_id")
    db.close()

    new = scenario.claude.say("Done: the budget check now also covers tool results.")
    scenario.claude.save()
    grown = ingest(r)
    assert (
        grown.sessions,
        grown.messages_added,
        grown.messages_removed,
        grown.edits_added,
        grown.edits_removed,
    ) == (1, 1, 0, 0, 0)
    db = open_index(r)
    after = rows(db, "messages", "id", "message_id")
    assert after[:6] == before  # the six stored rows were not rewritten
    assert [m for _, m in after[6:]] == [new]
    assert db.execute("SELECT messages FROM sessions").fetchone()[0] == 7
    db.close()
    assert [h.show for h in search(r, "covers tool results")][:1] == [scenario.ref(new)]
    snapshot(r)  # the FTS index matches its content


def test_an_unchanged_index_is_known_without_parsing_a_transcript(
    scenario: Scenario, monkeypatch: pytest.MonkeyPatch
) -> None:
    r = Repository(scenario.repo)
    assert not load.unchanged(r)  # no index yet
    ingest(r)
    import git_intent.sessions.discovery as discovery

    def no_parse(*_: Any, **__: Any) -> Any:
        raise AssertionError("an unchanged index parsed the transcripts")

    with monkeypatch.context() as patched:
        patched.setattr(discovery, "candidate_sessions", no_parse)
        assert ingest(r).rows_written == 0
    scenario.claude.say("One more word.")
    scenario.claude.save()
    assert not load.unchanged(r)  # a transcript grew: ingest reads again
    assert ingest(r).messages_added == 1 and load.unchanged(r)


def test_an_index_with_a_backup_copy_of_its_session_is_known_unchanged(scenario: Scenario) -> None:
    """`record` keeps a copy of every credited session in the backup: two files, one merged session. Both are
    recorded, so the next search parses nothing (before, only the copy the session was
    indexed from was, and `unchanged` was never true in real use)."""
    from git_intent.sessions.backup import session_copy_path

    r = Repository(scenario.repo)
    copy = session_copy_path(r, "claude-code", scenario.claude.session_id)
    assert copy is not None
    copy.parent.mkdir(parents=True, exist_ok=True)
    copy.write_bytes(scenario.transcript.read_bytes())
    ingest(r)
    assert load.unchanged(r)
    scenario.claude.say("One more word.")
    scenario.claude.save()
    assert not load.unchanged(r)


def test_a_changed_message_is_replaced_in_rows_and_full_text_index(scenario: Scenario) -> None:
    r = Repository(scenario.repo)
    ingest(r)
    record = next(rec for rec in scenario.claude.records if rec["uuid"] == scenario.say)
    record["message"]["content"][0]["text"] = "I will add a chunker module with a platypus argument."
    scenario.claude.save()
    result = ingest(r)
    assert (result.messages_added, result.messages_removed, result.edits_added, result.edits_removed) == (
        1,
        1,
        0,
        0,
    )
    assert search(r, "zebrafish") == []
    assert [h.show for h in search(r, "platypus")] == [scenario.ref(scenario.say)]
    snapshot(r)


def test_rebuild_equals_incremental_and_deleting_the_index_loses_nothing(scenario: Scenario) -> None:
    r = Repository(scenario.repo)
    ingest(r)
    scenario.claude.say("Done: the budget check now also covers tool results.")
    scenario.claude.save()
    ingest(r)
    incremental = snapshot(r)
    assert len(incremental["messages"]) == 7 and len(incremental["edits"]) == 2
    found = [h.show for h in search(r, "budget")]

    rebuilt = ingest(r, rebuild=True)
    assert (rebuilt.messages_added, rebuilt.edits_added, rebuilt.sessions_skipped) == (7, 2, 0)
    assert snapshot(r) == incremental
    assert [h.show for h in search(r, "budget")] == found

    for path in index_path(r).parent.glob("index.db*"):
        path.unlink()
    fresh = ingest(r)
    assert (fresh.messages_added, fresh.edits_added) == (7, 2)
    assert snapshot(r) == incremental
    assert [h.show for h in search(r, "budget")] == found


def test_sessions_whose_transcripts_are_gone_are_removed(scenario: Scenario) -> None:
    r = Repository(scenario.repo)
    ingest(r)
    scenario.transcript.unlink()
    result = ingest(r)
    assert result.sessions_removed == 1
    state = snapshot(r)
    assert (state["sessions"], state["messages"], state["edits"], state["touches"], state["fts"]) == (
        [],
        [],
        [],
        [],
        [],
    )
    assert search(r, "budget") == []
    db = open_index(r)
    assert rows(db, "transcripts", "path") == []
    db.close()


def test_an_ingest_cut_off_before_the_fts_build_is_completed_by_the_next(
    scenario: Scenario, monkeypatch: pytest.MonkeyPatch
) -> None:
    r = Repository(scenario.repo)

    def crash(self: object) -> None:
        raise KeyboardInterrupt

    with monkeypatch.context() as patch:
        patch.setattr(load._Ingest, "_index_fts", crash)
        with pytest.raises(KeyboardInterrupt):
            ingest(r)
    assert search(r, "never drop a user turn") == []  # rows stored, not yet in the FTS index
    result = ingest(r)
    assert (result.sessions, result.messages_added, result.messages_removed) == (1, 0, 0)
    assert [h.show for h in search(r, "never drop a user turn")][:1] == [scenario.ref(scenario.prompt)]
    assert len(snapshot(r)["messages"]) == 6


def test_explicit_sessions_are_ingested_without_pruning_the_others(scenario: Scenario) -> None:
    from git_intent.sessions.discovery import read_transcript

    r = Repository(scenario.repo)
    codex = CodexSession(cwd=scenario.repo, clock=Clock(CODEX_START))
    codex.prompt("Fix the stripes renderer")
    path = codex.save()
    first = ingest(r, read_transcript(path))
    assert (first.sessions, first.messages_added) == (1, 1)
    second = ingest(r, read_transcript(scenario.transcript))
    assert (second.sessions, second.sessions_removed, second.messages_added) == (1, 0, 6)
    assert [row[0] for row in snapshot(r)["sessions"]] == ["claude-code", "codex"]


def test_of_two_copies_of_a_session_the_longest_wins_without_flipping(
    scenario: Scenario, tmp_path: Path
) -> None:
    from git_intent.sessions.discovery import read_transcript

    r = Repository(scenario.repo)
    copy = tmp_path / "copy" / scenario.transcript.name  # an older, shorter copy of the same session
    copy.parent.mkdir()
    copy.write_text("".join(scenario.transcript.read_text().splitlines(keepends=True)[:3]))
    short, full = read_transcript(copy)[0], read_transcript(scenario.transcript)[0]
    assert (short.session_id, len(short.messages), len(full.messages)) == (full.session_id, 3, 6)
    first = ingest(r, [short, full])
    assert (first.sessions, first.sessions_skipped, first.messages_added) == (1, 1, 6)
    for order in ([short, full], [full, short]):
        again = ingest(r, order)
        assert (again.sessions_skipped, again.rows_written, again.messages_removed) == (2, 0, 0)
    assert snapshot(r)["sessions"][0][7] == str(scenario.transcript)


# --- search ---------------------------------------------------------------------------------------------


def test_search_finds_exact_and_fuzzy_matches_with_their_ids(scenario: Scenario) -> None:
    r = Repository(scenario.repo)
    ingest(r)
    hits = search(r, "never drop a user turn")
    top = hits[0]
    assert (top.agent, top.session_id, top.message_id, top.role, top.show) == (
        "claude-code",
        scenario.claude.session_id,
        scenario.prompt,
        "user",
        scenario.ref(scenario.prompt),
    )
    assert top.timestamp == datetime(2026, 3, 1, 9, 0, 0, 7000, tzinfo=timezone.utc)
    assert "never drop a user turn" in top.snippet
    assert top.score == max(h.score for h in hits)

    # A misspelt word matches the indexed term spelled closest to it, ranked below an exact match.
    typo = search(r, "transcirpts")
    assert typo[0].show == scenario.ref(scenario.prompt)
    assert 0 < typo[0].score < top.score
    # Words of the query in another order, one of them inflected differently (porter stemming).
    assert [h.show for h in search(r, "turns dropped")][:1] == [scenario.ref(scenario.prompt)]
    # Text only an edit wrote (the Edit's new_string): the hit is the message that made the edit.
    assert search(r, "split_budgeted")[0].show == scenario.ref(scenario.edit)


def test_search_filters_by_agent_since_and_file(scenario: Scenario) -> None:
    r = Repository(scenario.repo)
    codex = CodexSession(cwd=scenario.repo, clock=Clock(CODEX_START))
    codex_prompt = codex.prompt("Make the chunker budget renderer print stripes")
    stripes = scenario.repo / "src" / "stripes.py"
    patch = codex.apply_patch({stripes: "def render_stripes(budget):\n    return '=' * budget\n"})
    codex.save()
    ingest(r)
    everything = {h.show for h in search(r, "budget")}
    claude = {scenario.ref(i) for i in (scenario.prompt, scenario.write)}
    codex_refs = {f"{codex.session_id}:{i}" for i in (codex_prompt, patch)}
    assert claude | codex_refs <= everything

    assert {h.show for h in search(r, "budget", agent="codex")} == codex_refs
    assert {h.agent for h in search(r, "budget", agent="claude-code")} == {"claude-code"}
    assert search(r, "budget", agent="cursor") == []
    assert {h.show for h in search(r, "budget", since=datetime(2026, 3, 3))} == codex_refs  # naive: UTC
    assert search(r, "budget", since=datetime(2027, 1, 1, tzinfo=timezone.utc)) == []

    assert [h.show for h in search(r, "budget", file="src/stripes.py")] == [f"{codex.session_id}:{patch}"]
    assert [h.show for h in search(r, "budget", file=str(stripes))] == [f"{codex.session_id}:{patch}"]
    assert search(r, "budget", file="ripes.py") == []  # a suffix counts only at a '/' boundary
    # The Edit's new_string "split_budgeted" stems to "budget" too.
    assert {h.show for h in search(r, "budget", file="chunker.py")} == {
        scenario.ref(scenario.write),
        scenario.ref(scenario.edit),
    }
    # Fewer exact hits than the limit: messages matching any word follow, scored lower.
    found = search(r, "split_budgeted", file="./src/chunker.py")
    assert [h.show for h in found] == [scenario.ref(scenario.edit), scenario.ref(scenario.write)]
    assert found[0].score > found[1].score
    assert search(r, "budget", file="chunker.py", agent="codex") == []


HOSTILE = [
    '"',
    "NEAR(",
    "*",
    "-",
    ":",
    "^",
    "(",
    ")",
    "{",
    "+",
    "AND",
    "OR",
    "NOT",
    '"budget',
    'budget"',
    "NEAR(budget chunks, 2)",
    "budget*",
    "-budget",
    "text:budget",
    "budget AND",
    "NOT budget",
    "^budget",
    "(budget",
    "{text}: budget",
    "budget NEAR",
    "'; DROP TABLE messages; --",
    "budget\x00",
    "",
    "   ",
    "\u00e9\u00e8 budget",
    "b" * 5000,
]


@pytest.mark.parametrize("query", HOSTILE)
def test_hostile_queries_return_results_or_none_but_never_raise(scenario: Scenario, query: str) -> None:
    r = Repository(scenario.repo)
    ingest(r)
    hits = search(r, query)
    if "budget" in query:
        assert scenario.ref(scenario.prompt) in {h.show for h in hits}
    elif not any(c.isalnum() for c in query):
        assert hits == []
    assert snapshot(r)["sessions"]  # the tables are intact


def test_query_escaping_leaves_only_quoted_words() -> None:
    words = query_words('foo "bar" NEAR(x -y:z) * - : read_transcript')
    assert words == [["foo"], ["bar"], ["near", "x"], ["y", "z"], ["read", "transcript"]]
    assert fts_query(words) == '"foo" AND "bar" AND "near x" AND "y z" AND "read transcript"'
    assert fts_query([["a"], ["b"]], "OR") == '"a" OR "b"'


def test_search_of_an_empty_index_finds_nothing(repo: Path) -> None:
    assert search(Repository(repo), "anything") == []
    assert search(Repository(repo), "anything", limit=0) == []


def test_ingest_result_is_json_serialisable(scenario: Scenario) -> None:
    result = ingest(Repository(scenario.repo))
    assert json.loads(result.model_dump_json())["messages_added"] == 6


def test_search_scores_only_candidates_that_can_enter_the_answer(
    repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Re-ranking stops once no later candidate (by bm25) can reach the `limit`-th score;
    the answer equals the one from scoring every candidate."""
    from rapidfuzz import fuzz

    from git_intent.core.values import Message, Part, Session
    from git_intent.index import search as search_module

    filler = "lorem ipsum dolor sit amet consectetur adipiscing elit sed do eiusmod tempor "
    messages = [
        Message(
            message_id=f"m{i:03d}",
            role="assistant",
            timestamp=datetime(2026, 3, 1, tzinfo=timezone.utc),
            parts=(Part(kind="text", text=f"zebra crossing {i} " * (1 + i % 3) + filler * (i % 40)),),
        )
        for i in range(300)
    ]
    session = Session(
        agent="claude-code",
        session_id="s-300",
        transcript=repo / "none.jsonl",
        cwd=str(repo),
        messages=messages,
        edits=[],
    )
    r = Repository(repo)
    ingest(r, [session])
    scored: list[str] = []
    align = fuzz.partial_ratio_alignment

    def counting(query: str, text: str, *args: Any, **kwargs: Any) -> Any:
        scored.append(text)
        return align(query, text, *args, **kwargs)

    monkeypatch.setattr(search_module.fuzz, "partial_ratio_alignment", counting)
    pruned = search(r, "zebra crossing", limit=5)
    pruned_count = len(scored)
    monkeypatch.setattr(search_module._Search, "_floor", lambda self: float("-inf"))
    scored.clear()
    every = search(r, "zebra crossing", limit=5)
    assert len(scored) == 300
    assert [h.model_dump() for h in pruned] == [h.model_dump() for h in every]
    assert len(pruned) == 5 and pruned_count <= 60


def test_typo_search_reads_the_vocabulary_again_after_the_index_changed(scenario: Scenario) -> None:
    """The terms of a two-letter range are cached with the FTS5 index version they were read under
    (index/terms.py): a term indexed later is found as a near spelling too."""
    from git_intent.core.values import Message, Part, Session

    r = Repository(scenario.repo)
    ingest(r)
    assert search(r, "transcirpts")[0].show == scenario.ref(scenario.prompt)
    db = open_index(r)
    try:
        assert "transcript" in [t for (t,) in db.execute("SELECT term FROM fts_terms WHERE prefix = 'tr'")]
    finally:
        db.close()
    later = Session(
        agent="codex",
        session_id="later",
        transcript=scenario.repo / "later.jsonl",
        cwd=str(scenario.repo),
        messages=[
            Message(
                message_id="m1",
                role="user",
                timestamp=CODEX_START,
                parts=(Part(kind="text", text="Trampolines everywhere."),),
            )
        ],
        edits=[],
    )
    ingest(r, [later])
    assert [h.show for h in search(r, "trampolinez")] == ["later:m1"]


def test_rows_are_tuples_in_column_order_with_the_digests_earlier_versions_stored() -> None:
    """Rows became tuples inserted with positional parameters. Their values and digests are the
    ones the dict rows of earlier versions stored (these literals come from that code), so an index written
    before still sees an unchanged message as unchanged and rewrites nothing."""
    from git_intent.core.values import AddedLine, Edit, Message, Part, Session
    from git_intent.index import rows

    when = datetime(2026, 3, 1, 9, 0, 5, tzinfo=timezone.utc)
    call = Part(
        kind="tool_call",
        tool="Edit",
        call_id="c1",
        text=json.dumps({"file_path": "/w/src/chunker.py", "old_string": "a", "new_string": "b"}),
    )
    session = Session(
        agent="claude-code",
        session_id="s-1",
        transcript=Path("/t/s-1.jsonl"),
        cwd="/w",
        messages=[
            Message(
                message_id="m1",
                role="user",
                timestamp=when,
                is_prompt=True,
                parts=(Part(kind="text", text="Split the chunker"),),
            ),
            Message(message_id="m2", role="assistant", parts=(Part(kind="text", text="Editing."), call)),
        ],
        edits=[
            Edit(
                path="/w/src/chunker.py",
                tool="Edit",
                message_id="m2",
                call_id="c1",
                timestamp=when,
                new_text="b",
                added=(AddedLine(text="b", line=3),),
            )
        ],
    )
    stamp = "2026-03-01T09:00:05.000000+00:00"
    assert rows.session_rows(session) == (
        [
            (
                "claude-code",
                "s-1",
                "m1",
                0,
                "user",
                stamp,
                1,
                0,
                "",
                "Split the chunker",
                "6b5411e3b83e6250a2c66ebd",
            ),
            (
                "claude-code",
                "s-1",
                "m2",
                1,
                "assistant",
                None,
                0,
                0,
                "Edit",
                "Editing.\n\nEdit\nfile_path: /w/src/chunker.py\nold_string: a\nnew_string: b",
                "43c93b92c2df41e9b349fcfd",
            ),
        ],
        [
            (
                "claude-code",
                "s-1",
                0,
                "m2",
                "c1",
                "/w/src/chunker.py",
                "Edit",
                "update",
                stamp,
                "b",
                "445ab6baa16ef4df72cb4f0d",
            )
        ],
        [("claude-code", "s-1", "m2", "/w/src/chunker.py", "yp.reknuhc/crs/w/")],
    )
    assert [len(row) for row in rows.session_rows(session)[0]] == [len(rows.MESSAGE_COLUMNS)] * 2


def test_search_over_fixture_transcripts_finds_what_the_dict_rows_found(repo: Path) -> None:
    """The answers below are the ones the build before tuple rows gave on the Claude Code and
    Codex fixture transcripts (exact, typo and two-word queries); an ingest that stores other text, or an
    index shaped otherwise, fails here first (bench/index_throughput.py --compare checks 200 more)."""
    from git_intent.sessions.discovery import read_transcript

    # The fixtures of that build: the moved-file excerpt (about checkpoints and git notes) came later.
    later = {"entire-cli__7e72a8d8fdb8__moved-file-excerpt.jsonl"}
    sessions = [
        s
        for agent in ("claude-code", "codex")
        for path in sorted((CORPUS / "transcripts" / agent).glob("*.jsonl"))
        if path.name not in later
        for s in read_transcript(path)
    ]
    r = Repository(repo)
    ingest(r, sessions)
    claude, codex = "019d7e3d-0164-79d1-af76-e4ee6689b94f", "019fc8be-3658-7ca3-9e29-000000000000"
    expected = {
        "redact secrets": [
            "cb947e5b-246e-4253-a953-631f7e464c6b:f249dbbc-deb2-4b2e-b65d-82605a6c5174",
            f"{claude}:r410",
            f"{claude}:r411",
        ],
        "pytest fixture": [f"{codex}:r103", f"{codex}:r28", f"{claude}:r699"],
        # third since the `/goal` excerpt was added: "<command-message>goal</command-message>… make commits …"
        "commit message": [
            "198393f2-22db-477b-ac77-1825bea883ae:3e5c0942-5da9-4e4a-9f45-5f5b400293f9",
            f"{claude}:r626",
            "1e0a84da-d36b-4e8a-925c-b32310479358:e58aa06f-2651-48db-a1a4-0eb494e92d9d",
        ],
        "conifg": [
            "130d7b7e-5801-4345-9bd6-f32fd9b8429b:a507e8d8-e10b-420d-9f85-cbe94fa9e665",
            f"{claude}:r285",
            f"{claude}:r281",
        ],
        "git notes": [f"{claude}:r321", f"{claude}:r540", f"{claude}:r504"],
    }
    assert {query: [hit.show for hit in search(r, query, limit=3)] for query in expected} == expected
