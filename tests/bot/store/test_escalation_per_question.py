"""One escalation per question, across every stored copy of its answer: a `/docbot` answer
shared in the channel is a second row with the question's ts, and either row's "Still need
help?" claims the same escalation, on every backend and across processes."""

from __future__ import annotations

import asyncio
import contextlib
import json
import sqlite3
from pathlib import Path

import asyncpg

from bot.store import PostgresAnswerStore, SQLiteAnswerStore
from bot.store.sqlite_schema import STEPS, script
from tests.bot.store.conftest import Backend, FakeClock, answer, shared_question
from tests.bot.store.escalation_checks import postgres_before_step

ONE_PER_QUESTION_STEP = "escalations: one per question, whichever copy of its answer is pressed"


def test_a_shared_copy_of_an_answer_is_escalated_once_with_it(
    backend: Backend, clock: FakeClock
) -> None:
    first, second, original, copy, other = shared_question(backend, clock)
    assert first.claim_escalation(original, "U2", "t1") is True
    assert second.claim_escalation(copy, "U3", "t2") is False
    assert first.claim_escalation(other, "U3", "t3") is True  # a different question
    second.release_escalation(copy)  # the note could not be posted: any copy may try again
    assert first.claim_escalation(copy, "U3", "t4") is True
    assert second.claim_escalation(original, "U2", "t5") is False


def test_sqlite_upgrade_keeps_each_questions_earliest_escalation(tmp_path: Path) -> None:
    """A file from before this step may hold two escalations of one question (its private and
    its shared row): the upgrade keeps the earliest, and neither row can be escalated again."""
    path = tmp_path / "answers.sqlite3"
    steps = [step.why for step in STEPS]
    before = steps.index(ONE_PER_QUESTION_STEP)
    stored = json.dumps(answer("q?").to_dict())
    with contextlib.closing(sqlite3.connect(path)) as conn, conn:
        conn.executescript(script(before))
        conn.executemany(
            "INSERT INTO answers (id, team, channel, thread_ts, reply_ts, question_ts, asker, "
            "question, status, generator, answer_json, created) VALUES "
            "(?, 'T1', 'C1', ?, ?, '1.0', 'U1', 'q?', 'answered', 'extractive', ?, 't')",
            [(1, "1.0", "2.0", stored), (2, "5.0", "5.0", stored)],  # private, shared copy
        )
        conn.executemany(
            "INSERT INTO escalations (answer_id, user, at) VALUES (?, ?, ?)",
            [(2, "U3", "2026-10-03T10:05:00"), (1, "U2", "2026-10-03T10:01:00")],
        )
    store = SQLiteAnswerStore(path)
    assert store.claim_escalation(1, "U4", "t1") is False
    assert store.claim_escalation(2, "U4", "t2") is False
    store.close()
    with contextlib.closing(sqlite3.connect(path)) as conn:
        rows = conn.execute("SELECT answer_id, user FROM question_escalations").fetchall()
    assert rows == [(1, "U2")]


def test_postgres_upgrade_keeps_each_questions_earliest_escalation(postgres_url: str) -> None:
    """The same upgrade on PostgreSQL: a database one step behind, its question escalated on
    both rows, keeps the earliest."""

    async def fill(conn: asyncpg.Connection) -> None:
        await conn.executemany(
            "INSERT INTO answers (team, channel, thread_ts, reply_ts, question_ts, asker, "
            "question, status, generator, answer, created) VALUES "
            "('T1', 'C1', $1, $2, '1.0', 'U1', 'q?', 'answered', 'extractive', '{}', 't')",
            [("1.0", "2.0"), ("5.0", "5.0")],  # the private answer, its shared copy
        )
        await conn.executemany(
            "INSERT INTO escalations (answer_id, user_id, at) VALUES ($1, $2, $3)",
            [(2, "U3", "2026-10-03T10:05:00"), (1, "U2", "2026-10-03T10:01:00")],
        )

    postgres_before_step(postgres_url, ONE_PER_QUESTION_STEP, fill)
    store = PostgresAnswerStore(postgres_url)
    try:
        assert store.claim_escalation(1, "U4", "t1") is False
        assert store.claim_escalation(2, "U4", "t2") is False
    finally:
        store.close()

    async def kept() -> list[tuple[int, str]]:
        conn = await asyncpg.connect(postgres_url)
        try:
            rows = await conn.fetch("SELECT answer_id, user_id FROM question_escalations")
        finally:
            await conn.close()
        return [(int(row[0]), str(row[1])) for row in rows]

    assert asyncio.run(kept()) == [(1, "U2")]
