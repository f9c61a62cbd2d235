"""An escalation claim is a lease: held from its press until its note is confirmed in Slack, so a
claim whose process died before it knew lapses, and exactly one later press, on any copy of the
answer and in any process, takes it over to look for the note; a confirmed claim is final. On
every backend, and for claims made before the lease existed (they count as lapsed)."""

from __future__ import annotations

import contextlib
import json
import sqlite3
from pathlib import Path

import asyncpg

from bot.store import (
    ESCALATION_LEASE_SECONDS,
    PostgresAnswerStore,
    SQLiteAnswerStore,
    sqlite_schema,
)
from tests.bot.store.conftest import Backend, FakeClock, answer, record, shared_question
from tests.bot.store.escalation_checks import postgres_before_step, rechecks_at_once

LEASE_STEP = "escalations: a claim whose process died lapses, and the next press looks first"


def test_an_unconfirmed_claim_lapses_and_is_taken_over_once(
    backend: Backend, clock: FakeClock
) -> None:
    first, second, original, copy, other = shared_question(backend, clock)
    assert first.claim_escalation(original, "U2", "t1") is True  # then its process was killed
    clock.now += ESCALATION_LEASE_SECONDS - 1
    assert second.recheck_escalation(copy) is None  # still its holder's
    assert second.escalation_pending(copy) is True
    assert first.escalation_pending(other) is False  # another question: nothing claimed
    clock.now += 1
    taken = second.recheck_escalation(copy)  # through the other copy, in the other process
    assert taken is not None and (taken.id, taken.reply_ts) == (original, "2.0")
    assert first.recheck_escalation(original) is None  # taken once: held again from now
    assert second.claim_escalation(copy, "U3", "t2") is False
    clock.now += ESCALATION_LEASE_SECONDS  # the taker died too: the next press takes it
    assert first.recheck_escalation(original) is not None
    second.confirm_escalation(copy)  # the note was found in Slack (or posted now)
    assert first.escalation_pending(original) is False
    clock.now += 100 * ESCALATION_LEASE_SECONDS
    assert first.recheck_escalation(original) is None  # a confirmed claim is final
    assert second.claim_escalation(copy, "U3", "t3") is False


def test_the_lease_is_the_callers(backend: Backend, clock: FakeClock) -> None:
    """docbot.yml's `feedback.escalation_lease_seconds` is passed by the press that checks."""
    store = backend.open(clock)
    answer_id = store.save_answer(record())
    assert store.claim_escalation(answer_id, "U2", "t1") is True
    clock.now += 10
    assert store.recheck_escalation(answer_id, 11) is None
    assert store.recheck_escalation(answer_id, 10) is not None


def test_a_doubted_claim_is_taken_at_once_and_a_confirmed_one_never(
    backend: Backend, clock: FakeClock
) -> None:
    store = backend.open(clock)
    answer_id = store.save_answer(record())
    assert store.claim_escalation(answer_id, "U2", "t1") is True
    store.doubt_escalation(answer_id)
    assert store.recheck_escalation(answer_id) is not None  # unsure: no need to wait
    store.doubt_escalation(answer_id)
    store.confirm_escalation(answer_id)  # a later look found the note: no longer unsure
    assert store.recheck_escalation(answer_id) is None


def test_concurrent_presses_take_a_lapsed_claim_once(backend: Backend, clock: FakeClock) -> None:
    stores = [backend.open(clock) for _ in range(4)]
    answer_id = stores[0].save_answer(record())
    assert stores[0].claim_escalation(answer_id, "U2", "t1") is True
    clock.now += ESCALATION_LEASE_SECONDS + 1
    assert sorted(rechecks_at_once(stores, answer_id)) == [False, False, False, True]


def _stored_answer() -> str:
    return json.dumps(answer("q?").to_dict())


def test_sqlite_claims_from_before_the_lease_count_as_lapsed(tmp_path: Path) -> None:
    """A claim written before this step may be a posted note or a crash's leftover: the next
    press takes it at once and looks for the note, instead of saying "already asked" forever."""
    path = tmp_path / "answers.sqlite3"
    before = [step.why for step in sqlite_schema.STEPS].index(LEASE_STEP)
    with contextlib.closing(sqlite3.connect(path)) as conn, conn:
        conn.executescript(sqlite_schema.script(before))
        conn.execute(
            "INSERT INTO answers (id, team, channel, thread_ts, reply_ts, question_ts, asker, "
            "question, status, generator, answer_json, created) VALUES "
            "(1, 'T1', 'C1', '1.0', '2.0', '1.0', 'U1', 'q?', 'not_found', 'extractive', ?, 't')",
            (_stored_answer(),),
        )
        conn.execute(
            "INSERT INTO question_escalations (team, channel, question_ts, answer_id, user, at) "
            "VALUES ('T1', 'C1', '1.0', 1, 'U2', '2026-10-03T10:01:00')"
        )
    store = SQLiteAnswerStore(path, clock=FakeClock())
    assert store.claim_escalation(1, "U3", "t1") is False
    assert store.escalation_pending(1) is True
    taken = store.recheck_escalation(1)
    assert taken is not None and taken.id == 1
    store.close()


def test_postgres_claims_from_before_the_lease_count_as_lapsed(postgres_url: str) -> None:
    async def fill(conn: asyncpg.Connection) -> None:
        await conn.execute(
            "INSERT INTO answers (team, channel, thread_ts, reply_ts, question_ts, asker, "
            "question, status, generator, answer, created) VALUES "
            "('T1', 'C1', '1.0', '2.0', '1.0', 'U1', 'q?', 'not_found', 'extractive', $1, 't')",
            _stored_answer(),
        )
        await conn.execute(
            "INSERT INTO question_escalations (team, channel, question_ts, answer_id, "
            "user_id, at) VALUES ('T1', 'C1', '1.0', 1, 'U2', '2026-10-03T10:01:00')"
        )

    postgres_before_step(postgres_url, LEASE_STEP, fill)
    store = PostgresAnswerStore(postgres_url, clock=FakeClock())
    try:
        assert store.claim_escalation(1, "U3", "t1") is False
        assert store.escalation_pending(1) is True
        taken = store.recheck_escalation(1)
        assert taken is not None and taken.id == 1
    finally:
        store.close()
