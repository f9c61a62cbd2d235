"""The SQLite answer store: de-duplication across restarts, answers, feedback and its errors."""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from bot.store import (
    _MIGRATIONS,
    _PENDING_REASON_SQL,
    EVENT_RETENTION_SECONDS,
    REASON_WINDOW_SECONDS,
    SCHEMA_VERSION,
    AnswerRecord,
    AnswerStore,
    SQLiteAnswerStore,
    StoreError,
)
from grounding.answer import Answer, AnswerStatus, Claim, Omitted, Retrieved, Source, Usage
from retrieval.errors import DocbotError
from retrieval.scopes import ConversationKind, Scope


class FakeClock:
    def __init__(self, now: float = 1_000_000.0) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


def _answer(question: str = "how do I roll back?") -> Answer:
    return Answer(
        status=AnswerStatus.ANSWERED,
        question=question,
        scope=Scope("T1", "C1", ConversationKind.CHANNEL, ("handbook",)),
        claims=(Claim("Run `make rollback`.", (1,)),),
        sources=(
            Source(
                1,
                "handbook",
                "deploy.md",
                "Rollback",
                40,
                52,
                "https://x/deploy.md#L40",
                "chunk-a",
                "2026-10-02",
            ),
        ),
        retrieved=(Retrieved("chunk-a", "deploy.md", 7.25, "handbook"),),
        omitted=(Omitted("chunk-b", "budget"),),
        generator="extractive",
        usage=Usage(12, 3),
        timings_ms={"retrieve": 1.5},
    )


def _record(reply_ts: str = "2.0", thread_ts: str = "1.0", question: str = "q?") -> AnswerRecord:
    return AnswerRecord(
        team="T1", channel="C1", thread_ts=thread_ts, reply_ts=reply_ts, question_ts=thread_ts,
        asker="U1", question=question, answer=_answer(question).to_dict(),
        created="2026-10-03T10:00:00+00:00",
    )  # fmt: skip


@pytest.fixture
def store(tmp_path: Path) -> Iterator[SQLiteAnswerStore]:
    store = SQLiteAnswerStore(tmp_path / "state" / "answers.sqlite3")
    yield store
    store.close()


def test_store_conforms_to_the_protocol(store: SQLiteAnswerStore) -> None:
    seam: AnswerStore = store  # mypy checks the structural match
    assert seam.thread_questions("T1", "C1", "1.0") == ()


def test_store_claim_event_only_once_across_restarts(tmp_path: Path) -> None:
    path = tmp_path / "answers.sqlite3"
    first = SQLiteAnswerStore(path)
    assert first.claim_event("Ev1") is True
    assert first.claim_event("Ev1") is False
    assert first.claim_event("Ev2") is True
    first.close()
    again = SQLiteAnswerStore(path)
    assert again.claim_event("Ev1") is False
    again.close()


def test_store_claim_mention_keys_on_team_channel_and_ts(store: SQLiteAnswerStore) -> None:
    assert store.claim_mention("T1", "C1", "1.0") is True
    assert store.claim_mention("T1", "C1", "1.0") is False
    assert store.claim_mention("T1", "C2", "1.0") is True
    assert store.claim_mention("T2", "C1", "1.0") is True


def test_store_claim_event_is_atomic_across_threads(store: SQLiteAnswerStore) -> None:
    results: list[bool] = []
    barrier = threading.Barrier(8)

    def claim() -> None:
        barrier.wait()
        results.append(store.claim_event("EvRace"))

    threads = [threading.Thread(target=claim) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(results) == [False] * 7 + [True]


def test_store_prunes_processed_ids_after_retention(tmp_path: Path) -> None:
    clock = FakeClock()
    store = SQLiteAnswerStore(tmp_path / "s.db", clock=clock)
    assert store.claim_event("Ev1") and store.claim_mention("T1", "C1", "1.0")
    clock.now += 3600  # retried an hour later: still a duplicate
    assert not store.claim_event("Ev1") and not store.claim_mention("T1", "C1", "1.0")
    clock.now += EVENT_RETENTION_SECONDS + 1
    assert store.claim_event("Ev1") is True
    assert store.claim_mention("T1", "C1", "1.0") is True


def test_store_save_and_find_answer_round_trip(store: SQLiteAnswerStore) -> None:
    record = _record()
    answer_id = store.save_answer(record)
    found = store.find_answer("T1", "C1", "2.0")
    assert found is not None
    assert found.id == answer_id
    assert found.answer == _answer("q?").to_dict()
    assert found.answer["retrieved"][0]["score"] == 7.25
    assert found.answer["sources"][0]["chunk_id"] == "chunk-a"
    assert (found.team, found.asker, found.question, found.created) == (
        "T1", "U1", "q?", record.created,
    )  # fmt: skip
    assert store.find_answer("T1", "C1", "9.9") is None
    assert store.find_answer("T2", "C1", "2.0") is None


def test_store_save_answer_twice_for_one_reply_is_an_error(store: SQLiteAnswerStore) -> None:
    store.save_answer(_record())
    with pytest.raises(StoreError, match="already stored"):
        store.save_answer(_record())


def test_store_thread_questions_oldest_first_and_per_thread(store: SQLiteAnswerStore) -> None:
    store.save_answer(_record("2.0", "1.0", "first?"))
    store.save_answer(_record("3.0", "1.0", "second?"))
    store.save_answer(_record("5.0", "4.0", "other thread?"))
    assert store.thread_questions("T1", "C1", "1.0") == ("first?", "second?")
    assert store.thread_questions("T1", "C2", "1.0") == ()


def test_store_feedback_is_idempotent_and_retractable(store: SQLiteAnswerStore) -> None:
    answer_id = store.save_answer(_record())
    assert store.add_feedback(answer_id, "U2", "wrong", "x", "t1") is True
    assert store.add_feedback(answer_id, "U2", "wrong", "x", "t2") is False
    assert store.add_feedback(answer_id, "U2", "wrong", "-1", "t3") is True
    assert store.add_feedback(answer_id, "U3", "wrong", "x", "t4") is True
    assert store.add_feedback(answer_id, "U4", "helpful", "tada", "t5") is True
    assert store.wrong_count(answer_id) == 2  # U2's two emoji are one person
    assert store.remove_feedback(answer_id, "U3", "x") is True
    assert store.remove_feedback(answer_id, "U3", "x") is False
    assert store.wrong_count(answer_id) == 1
    assert store.remove_feedback(answer_id, "U2", "x") and store.remove_feedback(
        answer_id, "U2", "-1"
    )
    assert store.wrong_count(answer_id) == 0


def test_store_feedback_entries_join_answer_and_reasons(store: SQLiteAnswerStore) -> None:
    first = store.save_answer(_record("2.0", question="first?"))
    second = store.save_answer(_record("3.0", question="second?"))
    store.add_feedback(first, "U2", "wrong", "x", "2026-10-03T11:00:00")
    store.add_feedback(second, "U3", "helpful", "white_check_mark", "2026-10-03T12:00:00")
    store.add_reason(first, "U2", "the command was renamed", "2026-10-03T11:01:00")
    store.add_reason(first, "U9", "someone else's reason", "2026-10-03T11:02:00")

    everything = store.feedback_entries(wrong_only=False)
    assert [(e.answer_id, e.kind, e.user) for e in everything] == [
        (first, "wrong", "U2"), (second, "helpful", "U3"),
    ]  # fmt: skip
    wrong = store.feedback_entries(wrong_only=True)
    assert len(wrong) == 1
    entry = wrong[0]
    assert entry.record.question == "first?" and entry.emoji == "x"
    assert entry.record.answer["claims"][0]["text"] == "Run `make rollback`."
    assert [(r.user, r.text) for r in entry.reasons] == [("U2", "the command was renamed")]


def _marked_wrong(store: SQLiteAnswerStore, user: str = "U2", reply_ts: str = "2.0") -> int:
    """An answer in thread 1.0 that `user` marked wrong and was invited to explain."""
    answer_id = store.save_answer(_record(reply_ts))
    store.add_feedback(answer_id, user, "wrong", "x", "2026-10-03T11:00:00+00:00")
    store.invite_reason(answer_id, user)
    return answer_id


def test_store_pending_reason_survives_a_restart_until_given(tmp_path: Path) -> None:
    path = tmp_path / "answers.sqlite3"
    first = SQLiteAnswerStore(path)
    answer_id = _marked_wrong(first)
    assert first.pending_reason("T1", "C1", "1.0", "U2") == answer_id
    first.close()

    again = SQLiteAnswerStore(path)  # a restart: a new store on the same file
    assert again.pending_reason("T1", "C1", "1.0", "U2") == answer_id
    for other in (("T1", "C1", "1.0", "U3"), ("T1", "C1", "9.0", "U2"),
                  ("T1", "C2", "1.0", "U2"), ("T2", "C1", "1.0", "U2")):  # fmt: skip
        assert again.pending_reason(*other) is None
    again.add_reason(answer_id, "U2", "the command was renamed", "2026-10-03T11:05:00+00:00")
    assert again.pending_reason("T1", "C1", "1.0", "U2") is None  # the next reply is a question
    again.close()

    last = SQLiteAnswerStore(path)
    assert last.pending_reason("T1", "C1", "1.0", "U2") is None
    (entry,) = last.feedback_entries(wrong_only=True)
    assert [r.text for r in entry.reasons] == ["the command was renamed"]
    last.close()


def test_store_pending_reason_lapses_after_the_window(tmp_path: Path) -> None:
    clock = FakeClock()
    store = SQLiteAnswerStore(tmp_path / "s.db", clock=clock)
    answer_id = _marked_wrong(store)
    clock.now += REASON_WINDOW_SECONDS - 1
    assert store.pending_reason("T1", "C1", "1.0", "U2") == answer_id
    clock.now += 2
    assert store.pending_reason("T1", "C1", "1.0", "U2") is None
    store.claim_event("Ev1")  # due for pruning: the lapsed invitation is deleted
    store.close()
    conn = sqlite3.connect(tmp_path / "s.db")
    assert conn.execute("SELECT COUNT(*) FROM reason_invites").fetchone()[0] == 0
    conn.close()


def test_store_pending_reason_is_the_latest_unexplained_answer(tmp_path: Path) -> None:
    clock = FakeClock()
    store = SQLiteAnswerStore(tmp_path / "s.db", clock=clock)
    first = _marked_wrong(store, reply_ts="2.0")
    clock.now += 60
    second = _marked_wrong(store, reply_ts="3.0")
    assert store.pending_reason("T1", "C1", "1.0", "U2") == second
    store.add_reason(second, "U2", "outdated", "2026-10-03T11:05:00+00:00")
    assert store.pending_reason("T1", "C1", "1.0", "U2") == first
    clock.now += 60
    store.invite_reason(first, "U3")  # another person's invitation is theirs alone
    assert store.pending_reason("T1", "C1", "1.0", "U2") == first
    store.close()


def test_store_retracting_the_last_wrong_mark_withdraws_the_invitation(
    store: SQLiteAnswerStore,
) -> None:
    answer_id = _marked_wrong(store)
    store.add_feedback(answer_id, "U2", "wrong", "-1", "t")
    store.add_feedback(answer_id, "U2", "helpful", "tada", "t")
    assert store.add_feedback(answer_id, "U3", "wrong", "x", "t")
    store.remove_feedback(answer_id, "U2", "x")
    assert store.pending_reason("T1", "C1", "1.0", "U2") == answer_id  # :-1: still says wrong
    store.remove_feedback(answer_id, "U2", "-1")
    assert store.pending_reason("T1", "C1", "1.0", "U2") is None  # despite U3's mark
    store.add_feedback(answer_id, "U2", "wrong", "x", "t")  # marked again: invited again
    store.invite_reason(answer_id, "U2")
    assert store.pending_reason("T1", "C1", "1.0", "U2") == answer_id


def test_store_invite_reason_needs_a_stored_answer(store: SQLiteAnswerStore) -> None:
    with pytest.raises(StoreError, match="no answer with id 999"):
        store.invite_reason(999, "U2")


def test_store_pending_reason_query_uses_indexes(store: SQLiteAnswerStore) -> None:
    conn = sqlite3.connect(store.path)
    plan = conn.execute(f"EXPLAIN QUERY PLAN {_PENDING_REASON_SQL}", ("T1",) * 5).fetchall()
    conn.close()
    steps = [row[3] for row in plan]
    assert any("answers_thread" in step for step in steps), steps
    assert not [step for step in steps if step.startswith("SCAN")], steps


def test_store_upgrades_a_version_1_file_keeping_awaited_reasons(tmp_path: Path) -> None:
    """A file written before invitations were stored: wrong-marks awaiting a reason become
    invitations dated by their mark, so the upgrade (itself a restart) loses none."""
    path = tmp_path / "s.db"
    conn = sqlite3.connect(path)
    conn.executescript(_MIGRATIONS[0] + "PRAGMA user_version = 1;")
    conn.execute(
        "INSERT INTO answers (id, team, channel, thread_ts, reply_ts, question_ts, asker, "
        "question, status, generator, answer_json, created) VALUES "
        "(1, 'T1', 'C1', '1.0', '2.0', '1.0', 'U1', 'q?', 'answered', 'extractive', '{}', 't'),"
        "(2, 'T1', 'C1', '1.0', '3.0', '1.0', 'U1', 'q?', 'answered', 'extractive', '{}', 't')"
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


def test_store_rejects_unknown_kind_and_answer(store: SQLiteAnswerStore) -> None:
    answer_id = store.save_answer(_record())
    with pytest.raises(StoreError, match="kind 'meh'"):
        store.add_feedback(answer_id, "U2", "meh", "x", "t")
    with pytest.raises(StoreError, match="no answer with id 999"):
        store.add_feedback(999, "U2", "wrong", "x", "t")
    with pytest.raises(StoreError, match="no answer with id 999"):
        store.add_reason(999, "U2", "why", "t")


def test_store_uses_wal_and_records_the_schema_version(tmp_path: Path) -> None:
    path = tmp_path / "s.db"
    SQLiteAnswerStore(path).close()
    conn = sqlite3.connect(path)
    assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
    conn.close()
    reopened = SQLiteAnswerStore(path)  # migrating an up-to-date file is a no-op
    assert reopened.claim_event("Ev1") is True
    reopened.close()


def test_store_refuses_a_newer_schema_naming_the_file(tmp_path: Path) -> None:
    path = tmp_path / "s.db"
    conn = sqlite3.connect(path)
    conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
    conn.close()
    with pytest.raises(StoreError, match="newer than this docbot") as info:
        SQLiteAnswerStore(path)
    assert str(path) in str(info.value)


def test_store_translates_a_corrupt_file_into_a_store_error(tmp_path: Path) -> None:
    path = tmp_path / "s.db"
    path.write_bytes(b"this is not a database" * 100)
    with pytest.raises(DocbotError, match="cannot open the answer store") as info:
        SQLiteAnswerStore(path)
    assert isinstance(info.value, StoreError)
    assert str(path) in str(info.value)


def test_store_after_close_raises_a_store_error(store: SQLiteAnswerStore) -> None:
    store.close()
    with pytest.raises(StoreError, match=r"answers\.sqlite3"):
        store.claim_event("Ev1")


def test_store_claim_event_once_between_two_connections(tmp_path: Path) -> None:
    # Two stores on one file stand in for two processes sharing it.
    path = tmp_path / "s.db"
    stores = [SQLiteAnswerStore(path), SQLiteAnswerStore(path)]
    results: list[bool] = []
    barrier = threading.Barrier(8)

    def claim(store: SQLiteAnswerStore) -> None:
        barrier.wait()
        results.append(store.claim_event("EvShared"))

    threads = [threading.Thread(target=claim, args=(stores[i % 2],)) for i in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(results) == [False] * 7 + [True]
