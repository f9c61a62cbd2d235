"""What only the SQLite backend has: its file, WAL, the query plans, and the migrations that
upgrade a file written by an earlier docbot in place."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterator
from pathlib import Path

import pytest

from bot.store import (
    LEASE_SECONDS,
    REASON_WINDOW_SECONDS,
    Claim,
    EventKey,
    MentionKey,
    SQLiteAnswerStore,
    StoreError,
)
from bot.store.sqlite_reasons import PENDING_REASON_SQL, REASON_GIVEN_SQL
from bot.store.sqlite_schema import SCHEMA_VERSION, script
from retrieval.errors import DocbotError
from tests.bot.store.conftest import FakeClock, answer, marked_wrong, record


@pytest.fixture
def sqlite_store(tmp_path: Path) -> Iterator[SQLiteAnswerStore]:
    store = SQLiteAnswerStore(tmp_path / "state" / "answers.sqlite3")
    yield store
    store.close()


@pytest.mark.parametrize("query", [PENDING_REASON_SQL, REASON_GIVEN_SQL])
def test_sqlite_reason_queries_use_indexes(sqlite_store: SQLiteAnswerStore, query: str) -> None:
    conn = sqlite3.connect(sqlite_store.path)
    plan = conn.execute(f"EXPLAIN QUERY PLAN {query}", ("T1",) * 5).fetchall()
    conn.close()
    steps = [row[3] for row in plan]
    assert any("answers_thread" in step for step in steps), steps
    assert not [step for step in steps if step.startswith("SCAN")], steps


def test_sqlite_upgrades_a_version_1_file_keeping_awaited_reasons(tmp_path: Path) -> None:
    """A file written before invitations were stored: wrong-marks awaiting a reason become
    invitations dated by their mark, so the upgrade (itself a restart) loses none."""
    path = tmp_path / "s.db"
    conn = sqlite3.connect(path)
    conn.executescript(script(1))
    stored = json.dumps(answer("q?").to_dict())
    conn.executemany(
        "INSERT INTO answers (id, team, channel, thread_ts, reply_ts, question_ts, asker, "
        "question, status, generator, answer_json, created) VALUES "
        "(?, 'T1', 'C1', '1.0', ?, '1.0', 'U1', 'q?', 'answered', 'extractive', ?, 't')",
        [(1, "2.0", stored), (2, "3.0", stored)],
    )
    conn.execute(
        "INSERT INTO feedback (answer_id, user, kind, emoji, at) VALUES "
        "(1, 'U2', 'wrong', 'x', '2026-10-03T11:00:00+00:00'),"  # awaiting U2's reason
        "(2, 'U3', 'wrong', 'x', '2026-10-03T11:00:00+00:00'),"  # U3 already explained
        "(2, 'U4', 'helpful', 'tada', '2026-10-03T11:00:00+00:00')"
    )
    conn.execute("INSERT INTO reasons (answer_id, user, text, at) VALUES (2, 'U3', 'why', 't')")
    conn.commit()
    conn.close()

    mark = 1_791_025_200.0  # 2026-10-03T11:00:00Z
    store = SQLiteAnswerStore(path, clock=FakeClock(mark + 3600))
    assert store.pending_reason("T1", "C1", "1.0", "U2") == 1
    assert store.pending_reason("T1", "C1", "1.0", "U3") is None
    assert store.pending_reason("T1", "C1", "1.0", "U4") is None
    assert store.wrong_count(1) == 1 and store.find_answer("T1", "C1", "3.0") is not None
    store.close()
    late = SQLiteAnswerStore(path, clock=FakeClock(mark + REASON_WINDOW_SECONDS + 1))
    assert late.pending_reason("T1", "C1", "1.0", "U2") is None  # dated by its mark
    late.close()


def test_sqlite_uses_wal_and_records_the_schema_version(tmp_path: Path) -> None:
    path = tmp_path / "s.db"
    SQLiteAnswerStore(path).close()
    conn = sqlite3.connect(path)
    assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
    conn.close()
    reopened = SQLiteAnswerStore(path)  # migrating an up-to-date file is a no-op
    assert reopened.claim(EventKey("Ev1"), "1:a") is Claim.NEW
    reopened.close()


def test_sqlite_refuses_a_newer_schema_naming_the_file(tmp_path: Path) -> None:
    path = tmp_path / "s.db"
    conn = sqlite3.connect(path)
    conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
    conn.close()
    with pytest.raises(StoreError, match="newer than this docbot") as info:
        SQLiteAnswerStore(path)
    assert str(path) in str(info.value)


def test_sqlite_translates_a_corrupt_file_into_a_store_error(tmp_path: Path) -> None:
    path = tmp_path / "s.db"
    path.write_bytes(b"this is not a database" * 100)
    with pytest.raises(DocbotError, match="cannot open the answer store") as info:
        SQLiteAnswerStore(path)
    assert isinstance(info.value, StoreError)
    assert str(path) in str(info.value)


def test_sqlite_after_close_raises_a_store_error(sqlite_store: SQLiteAnswerStore) -> None:
    sqlite_store.close()
    with pytest.raises(StoreError, match=r"answers\.sqlite3"):
        sqlite_store.claim(EventKey("Ev1"), "1:a")


def _version_2_file(path: Path) -> None:
    """A file as docbot wrote it before claims were leases: one answered mention, one event."""
    conn = sqlite3.connect(path)
    conn.executescript(script(2))
    conn.execute("INSERT INTO processed_events (event_id, seen) VALUES ('EvOld', 999000.0)")
    conn.execute(
        "INSERT INTO processed_mentions (team, channel, ts, seen) "
        "VALUES ('T1', 'C1', '1.0', 999000.0)"
    )
    conn.commit()
    conn.close()


def test_sqlite_upgrades_a_version_2_file_keeping_its_claims_final(tmp_path: Path) -> None:
    """Claims made before leases were final at once; after the upgrade they are done, so no
    redelivery is answered twice, and new claims are leases."""
    path = tmp_path / "s.db"
    _version_2_file(path)
    clock = FakeClock()
    store = SQLiteAnswerStore(path, clock=clock)
    clock.now += LEASE_SECONDS * 10
    assert store.claim(EventKey("EvOld"), "1:a") is Claim.DONE
    assert store.claim(MentionKey("T1", "C1", "1.0"), "1:a") is Claim.DONE
    new = MentionKey("T1", "C1", "2.0")
    assert store.claim(new, "1:a") is Claim.NEW
    clock.now += LEASE_SECONDS + 1
    assert store.claim(new, "2:b") is Claim.TAKEN_OVER
    store.close()
    conn = sqlite3.connect(path)
    assert conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
    conn.close()


def test_sqlite_prunes_lapsed_invitations(tmp_path: Path) -> None:
    clock = FakeClock()
    store = SQLiteAnswerStore(tmp_path / "s.db", clock=clock)
    marked_wrong(store)
    clock.now += REASON_WINDOW_SECONDS + 1
    store.claim(EventKey("Ev1"), "1:a")  # due for pruning: the lapsed invitation is deleted
    store.close()
    conn = sqlite3.connect(tmp_path / "s.db")
    assert conn.execute("SELECT COUNT(*) FROM reason_invites").fetchone()[0] == 0
    conn.close()


def test_sqlite_a_damaged_stored_answer_is_a_store_error_naming_the_row(tmp_path: Path) -> None:
    store = SQLiteAnswerStore(tmp_path / "s.db")
    answer_id = store.save_answer(record())
    conn = sqlite3.connect(tmp_path / "s.db")
    conn.execute('UPDATE answers SET answer_json = \'{"status": "maybe"}\'')
    conn.commit()
    conn.close()
    with pytest.raises(StoreError, match=f"answer {answer_id}: a stored answer cannot be read"):
        store.find_answer("T1", "C1", "2.0")
    store.close()
