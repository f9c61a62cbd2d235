"""Release notes compete for a question's hits under a cap, so they cannot fill the packet.

Old versions' notes name the settings the reference pages document, so a question about how a
setting is now used to get only notes. `search_all` (the real index over fixture docs) keeps at
most `release_note_cap` hits from files or sections named for a version, filling the rest from
further down the ranking; a question about a release still gets its notes first.
"""

from __future__ import annotations

import pytest

from grounding.retriever import cap_release_notes, search_all
from retrieval.chunks import Chunk, Hit
from retrieval.config import load_config
from retrieval.index import Index, build_index
from retrieval.release_notes import chunk_is_release_note, is_release_note
from retrieval.scopes import ConversationKind, Scope, resolve_scope

REFERENCE = """\
# Sessions

Sessions keep a visitor's state between requests. The session cookie lasts as long as
SESSION_COOKIE_AGE says, counted in seconds.
"""


def release(version: str) -> str:
    return (
        f"# Docs 1.{version} release notes\n\n"
        f"SESSION_COOKIE_AGE cookie age session: in 1.{version} the SESSION_COOKIE_AGE "
        "session cookie age setting changed again; SESSION_COOKIE_AGE session cookie.\n"
    )


@pytest.fixture(scope="module")
def indexed(tmp_path_factory: pytest.TempPathFactory) -> tuple[Index, Scope]:
    root = tmp_path_factory.mktemp("release-notes")
    docs = root / "docs"
    (docs / "releases").mkdir(parents=True)
    (docs / "sessions.md").write_text(REFERENCE, encoding="utf-8")
    for version in range(4):
        (docs / "releases" / f"1.{version}.md").write_text(release(str(version)), "utf-8")
    (docs / "CHANGES.md").write_text(
        "# Changes\n\n## 2.0.1 (May 2026)\n\nSESSION_COOKIE_AGE session cookie age fixed.\n",
        encoding="utf-8",
    )
    config_file = root / "docbot.yml"
    config_file.write_text(
        "state_dir: state\nteams: [T1]\ncollections:\n  - name: docs\n    path: docs\n",
        encoding="utf-8",
    )
    config = load_config(config_file)
    build_index(config)
    return Index.load(config), resolve_scope(config, "T1", "C1", ConversationKind.CHANNEL)


QUESTION = "what is the session cookie age"


def test_without_a_cap_release_notes_fill_the_hits(indexed: tuple[Index, Scope]) -> None:
    index, scope = indexed
    hits = search_all(index, [QUESTION], scope, 3, release_note_cap=None)
    assert len(hits) == 3
    assert all(chunk_is_release_note(hit.chunk) for hit in hits)  # the fixture's premise


def test_a_cap_leaves_room_for_the_reference_page(indexed: tuple[Index, Scope]) -> None:
    index, scope = indexed
    hits = search_all(index, [QUESTION, "session cookie age"], scope, 3, release_note_cap=1)
    paths = [hit.chunk.path for hit in hits]
    assert "sessions.md" in paths
    # Only one other hit exists, so the third place goes back to the next release note.
    assert sum(chunk_is_release_note(hit.chunk) for hit in hits) == 2
    assert [hit.rank for hit in hits] == [1, 2, 3]


def test_a_question_about_a_release_still_gets_its_note(indexed: tuple[Index, Scope]) -> None:
    index, scope = indexed
    capped = search_all(index, ["what changed in 1.3"], scope, 3, release_note_cap=1)
    uncapped = search_all(index, ["what changed in 1.3"], scope, 3, release_note_cap=None)
    assert capped[0].chunk == uncapped[0].chunk
    assert chunk_is_release_note(capped[0].chunk)


def _hit(path: str, rank: int, *headings: str) -> Hit:
    chunk = Chunk(
        chunk_id=f"{path}-{rank}", collection="docs", path=path, heading_path=headings,
        start_line=1, end_line=2, text="text", digest=f"d{rank}", updated="2026-01-01",
    )  # fmt: skip
    return Hit(chunk, 1.0 / rank, rank)


def test_cap_keeps_rank_order_and_counts_version_headed_sections() -> None:
    hits = [
        _hit("releases/4.2.txt", 1),
        _hit("CHANGES.md", 2, "Changes", "1.4.0 (May 2025)"),
        _hit("ref/settings.txt", 3, "Settings"),
        _hit("whatsnew/3.11.rst", 4),
        _hit("topics/http.txt", 5),
    ]
    kept = cap_release_notes(hits, 3, 1)
    assert [h.chunk.path for h in kept] == [
        "releases/4.2.txt",
        "ref/settings.txt",
        "topics/http.txt",
    ]
    assert [h.rank for h in kept] == [1, 2, 3]
    assert [h.chunk.path for h in cap_release_notes(hits, 3, 0)] == [
        "releases/4.2.txt",  # no third other hit: the best note past the cap comes back
        "ref/settings.txt",
        "topics/http.txt",
    ]
    assert [h.chunk.path for h in cap_release_notes(hits, 2, 0)] == [
        "ref/settings.txt",
        "topics/http.txt",
    ]
    assert cap_release_notes(hits, 2, 9) == tuple(hits[:2])


def test_a_version_inside_a_name_is_not_a_release_note() -> None:
    assert not is_release_note("http2.md", ("HTTP/1.1 and HTTP/2",))
    assert not is_release_note("library/sqlite3.rst", ("DB-API 2.0 interface",))
    assert is_release_note("releases/2.1.txt", ())
    assert is_release_note("CHANGES.md", ("[v2.0.1] - 2025-05-01",))
