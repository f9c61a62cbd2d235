"""`AnswerStore` on a PostgreSQL server, for several `docbot serve` replicas sharing one store.

Selected by DOCBOT_DATABASE_URL or `database_url:` in docbot.yml (bot/store/select.py). The
connection, its pool and its failures are postgres_engine.py's; the ledger's statements
postgres_ledger.py's; the schema postgres_schema.py's. Every method is one transaction.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Any

from sqlalchemy import text as sql
from sqlalchemy.ext.asyncio import AsyncConnection

from bot.store import postgres_escalations as escalations
from bot.store import postgres_feedback as feedback
from bot.store import postgres_ledger as ledger
from bot.store import reaction_order
from bot.store.answer_sql import MARK_POSTED_SQL, answer_values, mark_posted_values, restaged
from bot.store.contract import (
    ESCALATION_LEASE_SECONDS,
    EVENT_RETENTION_SECONDS,
    LEASE_SECONDS,
    PRUNE_EVERY_SECONDS,
    PRUNE_THREAD_CONTEXTS_SQL,
    REASON_WINDOW_SECONDS,
    SET_THREAD_CONTEXT_SQL,
    THREAD_CONTEXT_RETENTION_SECONDS,
    THREAD_CONTEXT_SQL,
    UNPOSTED,
    AnswerRecord,
    FeedbackEntry,
    StoreError,
    Toggled,
    answer_record,
    check_kind,
    check_staged,
)
from bot.store.event_ledger import Claim, ClaimKey, EventKey, Resumable
from bot.store.postgres_engine import Database, database_url
from bot.store.postgres_schema import next_step

_ANSWER_COLUMNS = ", ".join(feedback.ANSWER_COLUMNS)
_INSERT = (
    "INSERT INTO answers (team, channel, thread_ts, reply_ts, question_ts, asker, question, "
    "status, generator, answer, created) VALUES (:team, :channel, :thread_ts, :reply_ts, "
    ":question_ts, :asker, :question, :status, :generator, CAST(:answer AS JSONB), :created)"
)
_Row = tuple[Any, ...]


class PostgresAnswerStore:
    """`AnswerStore` on PostgreSQL; safe to share between threads, and between processes."""

    def __init__(
        self,
        url: str,
        *,
        clock: Callable[[], float] = time.time,
        event_retention_seconds: float = EVENT_RETENTION_SECONDS,
        reason_window_seconds: float = REASON_WINDOW_SECONDS,
        lease_seconds: float = LEASE_SECONDS,
        pool_size: int = 5,
        timeout_seconds: float = 5.0,
    ) -> None:
        self._db = Database(database_url(url), pool_size=pool_size, timeout_seconds=timeout_seconds)
        self._clock = clock
        self._lease = lease_seconds
        self._retention = event_retention_seconds
        self._reason_window = reason_window_seconds
        self._prune_lock = threading.Lock()
        self._last_prune = float("-inf")
        try:
            while self._db.run(lambda conn: next_step(conn, self._db.shown)):
                pass
            self._prune_if_due()
        except BaseException:
            self._db.close()
            raise

    @property
    def where(self) -> str:
        """The server and database, password masked: for log lines."""
        return self._db.shown

    # --- event ledger --------------------------------------------------------------------

    def claim(self, key: ClaimKey, owner: str, payload: str | None = None) -> Claim:
        self._prune_if_due()
        now = self._clock()
        return self._db.run(lambda c: ledger.claim(c, key, owner, now, self._lease, payload))

    def resumable(
        self, window_seconds: float, limit: int, unsure_window_seconds: float | None = None
    ) -> tuple[Resumable, ...]:
        now = self._clock()
        unsure = window_seconds if unsure_window_seconds is None else unsure_window_seconds
        return self._db.run(lambda c: ledger.resumable(c, now, window_seconds, limit, unsure))

    def renew(self, key: ClaimKey, owner: str) -> bool:
        expires = self._clock() + self._lease
        return self._db.run(lambda c: ledger.renew(c, key, owner, expires))

    def begin_post(self, key: ClaimKey, owner: str) -> bool:
        expires = self._clock() + self._lease
        return self._db.run(lambda c: ledger.begin_post(c, key, owner, expires))

    def finish(self, key: ClaimKey, reply_ts: str | None = None) -> None:
        self._db.run(lambda c: ledger.finish(c, key, reply_ts))

    def release(self, key: ClaimKey, owner: str) -> None:
        now = self._clock()
        self._db.run(lambda c: ledger.release(c, key, owner, now))

    def defer(
        self, key: ClaimKey, owner: str, seconds: float, within_seconds: float,
        unsure_within_seconds: float | None = None,
    ) -> bool:  # fmt: skip
        until = self._clock() + seconds
        unsure = within_seconds if unsure_within_seconds is None else unsure_within_seconds
        return self._db.run(lambda c: ledger.defer(c, key, owner, until, within_seconds, unsure))

    # --- answer log ----------------------------------------------------------------------

    def save_answer(self, record: AnswerRecord) -> int:
        statement = sql(f"{_INSERT} ON CONFLICT DO NOTHING RETURNING id")

        async def save(conn: AsyncConnection) -> int | None:
            return (await conn.execute(statement, answer_values(record))).scalar()

        answer_id = self._db.run(save)
        if answer_id is None:
            raise StoreError(
                f"{self.where}: an answer for reply {record.reply_ts} in channel "
                f"{record.channel} is already stored; each reply is saved once."
            )
        return int(answer_id)

    def stage_answer(self, record: AnswerRecord) -> int:
        check_staged(record, self.where)
        statement = sql(f"{_INSERT} {restaged('answer')}")

        async def stage(conn: AsyncConnection) -> int:
            return int((await conn.execute(statement, answer_values(record))).scalar_one())

        return self._db.run(stage)

    def mark_posted(self, team: str, channel: str, question_ts: str, reply_ts: str) -> bool:
        marked = mark_posted_values(team, channel, question_ts, reply_ts)

        async def mark(conn: AsyncConnection) -> bool:
            return (await conn.execute(sql(MARK_POSTED_SQL), marked)).rowcount == 1

        return self._db.run(mark)

    def find_answer(self, team: str, channel: str, reply_ts: str) -> AnswerRecord | None:
        row = self._first(
            f"SELECT {_ANSWER_COLUMNS} FROM answers "
            "WHERE team = :team AND channel = :channel AND reply_ts = :reply_ts",
            {"team": team, "channel": channel, "reply_ts": reply_ts},
        )
        return None if row is None else answer_record(row, self.where)

    def posted_answer(self, team: str, channel: str, question_ts: str) -> AnswerRecord | None:
        row = self._first(
            f"SELECT {_ANSWER_COLUMNS} FROM answers WHERE team = :team AND channel = :channel "
            "AND question_ts = :question_ts AND reply_ts NOT LIKE :unposted ORDER BY id LIMIT 1",
            {"team": team, "channel": channel, "question_ts": question_ts,
             "unposted": f"{UNPOSTED}%"},
        )  # fmt: skip
        return None if row is None else answer_record(row, self.where)

    def recent_answers(self, team: str, asker: str, limit: int) -> tuple[AnswerRecord, ...]:
        rows = self._all(
            f"SELECT {_ANSWER_COLUMNS} FROM answers WHERE team = :team AND asker = :asker "
            "ORDER BY id DESC LIMIT :limit",
            {"team": team, "asker": asker, "limit": limit},
        )
        return tuple(answer_record(row, self.where) for row in rows)

    def thread_questions(self, team: str, channel: str, thread_ts: str) -> tuple[str, ...]:
        rows = self._all(
            "SELECT question FROM answers WHERE team = :team AND channel = :channel "
            "AND thread_ts = :thread_ts ORDER BY id",
            {"team": team, "channel": channel, "thread_ts": thread_ts},
        )
        return tuple(str(row[0]) for row in rows)

    def set_thread_context(
        self, team: str, channel: str, thread_ts: str, context_channel: str, seen: float
    ) -> None:
        values = {"team": team, "channel": channel, "thread_ts": thread_ts, "seen": seen}
        statement = sql(SET_THREAD_CONTEXT_SQL)
        self._db.run(lambda c: c.execute(statement, {**values, "context": context_channel}))

    def thread_context(self, team: str, channel: str, thread_ts: str) -> str | None:
        values = {"team": team, "channel": channel, "thread_ts": thread_ts}
        row = self._first(THREAD_CONTEXT_SQL, values)
        return None if row is None else str(row[0])

    # --- feedback (postgres_feedback.py) ------------------------------------------------

    def add_feedback(
        self, answer_id: int, user: str, kind: str, emoji: str, at: str, *, event_ts: str = ""
    ) -> bool:
        """Record a reaction; False when this user's `emoji` on this answer is already recorded,
        or a later event of it was applied (contract.FeedbackLog)."""
        check_kind(kind)
        now = self._clock()

        async def add(conn: AsyncConnection) -> bool:
            await feedback.require_answer(conn, answer_id, self.where)
            if not await feedback.latest(conn, answer_id, user, emoji, event_ts, now):
                return False
            return await feedback.add_mark(conn, answer_id, user, kind, emoji, at)

        return self._db.run(add)

    def remove_feedback(self, answer_id: int, user: str, emoji: str, *, event_ts: str = "") -> bool:
        """Retract a reaction; False when there was nothing to retract (remembered by its event
        time all the same), or a later event of it was applied (contract.FeedbackLog).
        Retracting the user's last wrong-mark on the answer also withdraws the invitation."""
        now = self._clock()

        async def remove(conn: AsyncConnection) -> bool:
            await feedback.require_answer(conn, answer_id, self.where)
            if not await feedback.latest(conn, answer_id, user, emoji, event_ts, now):
                return False
            return await feedback.remove_mark(conn, answer_id, user, emoji)

        return self._db.run(remove)

    def has_feedback(self, answer_id: int, user: str, emoji: str) -> bool:
        return self._db.run(lambda c: feedback.has_mark(c, answer_id, user, emoji))

    def wrong_count(self, answer_id: int) -> int:
        """How many people marked the answer wrong (two wrong-emoji from one person count once)."""
        row = self._first(
            "SELECT COUNT(DISTINCT user_id) FROM feedback WHERE answer_id = :id AND kind = 'wrong'",
            {"id": answer_id},
        )
        return 0 if row is None else int(row[0])

    def toggle_mark(
        self, answer_id: int, user: str, kind: str, at: str, *, once: EventKey | None = None
    ) -> Toggled:
        """A feedback button pressed: the user's one button mark becomes `kind`, or is retracted
        when it was `kind` already (pressing again takes it back). The mark afterwards; with
        `once`, at most once per press (contract.FeedbackLog)."""
        check_kind(kind)
        now = self._clock()

        async def toggle(conn: AsyncConnection) -> Toggled:
            await feedback.require_answer(conn, answer_id, self.where)
            if once is not None and not await ledger.settle_once(conn, once, now):
                return Toggled(await feedback.button_mark(conn, answer_id, user), repeat=True)
            return Toggled(await feedback.toggle_mark(conn, answer_id, user, kind, at))

        return self._db.run(toggle)

    def add_reason(
        self, answer_id: int, user: str, text: str, at: str, *, source: str = "thread",
        category: str | None = None, once: EventKey | None = None,
    ) -> bool:  # fmt: skip
        """Store what `user` said was wrong; this answers their invitation, if any. With
        `once`, at most once per submission (contract.FeedbackLog)."""
        now = self._clock()

        async def add(conn: AsyncConnection) -> bool:
            await feedback.require_answer(conn, answer_id, self.where)
            if once is not None and not await ledger.settle_once(conn, once, now):
                return False
            await feedback.add_reason(conn, answer_id, user, text, at, source, category)
            return True

        return self._db.run(add)

    def claim_escalation(self, answer_id: int, user: str, at: str) -> bool:
        now = self._clock()

        async def claim(conn: AsyncConnection) -> bool:
            await feedback.require_answer(conn, answer_id, self.where)
            return await escalations.claim(conn, answer_id, user, at, now)

        return self._db.run(claim)

    def confirm_escalation(self, answer_id: int) -> None:
        self._db.run(lambda c: escalations.confirm(c, answer_id))

    def release_escalation(self, answer_id: int) -> None:
        self._db.run(lambda c: escalations.release(c, answer_id))

    def doubt_escalation(self, answer_id: int) -> None:
        self._db.run(lambda c: escalations.doubt(c, answer_id))

    def recheck_escalation(
        self, answer_id: int, lease_seconds: float = ESCALATION_LEASE_SECONDS
    ) -> AnswerRecord | None:
        now = self._clock()
        return self._db.run(
            lambda c: escalations.recheck(c, answer_id, now, lease_seconds, self.where)
        )

    def escalation_pending(self, answer_id: int) -> bool:
        return self._db.run(lambda c: escalations.pending(c, answer_id))

    def invite_reason(self, answer_id: int, user: str) -> None:
        """Remember that `user`, having marked the answer wrong, was asked to say why; a new
        invitation on the same answer restarts the window."""
        now = self._clock()

        async def invite(conn: AsyncConnection) -> None:
            await feedback.require_answer(conn, answer_id, self.where)
            await feedback.invite(conn, answer_id, user, now)

        self._db.run(invite)

    def pending_reason(self, team: str, channel: str, thread_ts: str, user: str) -> int | None:
        """The answer in this thread that `user` marked wrong and was invited to explain, and
        has not explained yet (the latest invitation first); None when there is none in the
        reason window."""
        row = self._first(
            "SELECT a.id FROM answers a JOIN reason_invites i ON i.answer_id = a.id "
            "WHERE a.team = :team AND a.channel = :channel AND a.thread_ts = :thread_ts "
            "AND i.user_id = :user AND i.invited >= :cutoff "
            "ORDER BY i.invited DESC, a.id DESC LIMIT 1",
            {"team": team, "channel": channel, "thread_ts": thread_ts, "user": user,
             "cutoff": self._clock() - self._reason_window},
        )  # fmt: skip
        return None if row is None else int(row[0])

    def reason_given(
        self, team: str, channel: str, thread_ts: str, user: str, text: str
    ) -> int | None:
        row = self._first(
            "SELECT r.answer_id FROM reasons r JOIN answers a ON a.id = r.answer_id "
            "WHERE a.team = :team AND a.channel = :channel AND a.thread_ts = :thread_ts "
            "AND r.user_id = :user AND r.text = :text AND r.source = 'thread' "
            "ORDER BY r.id DESC LIMIT 1",
            {"team": team, "channel": channel, "thread_ts": thread_ts, "user": user,
             "text": text},
        )  # fmt: skip
        return None if row is None else int(row[0])

    def feedback_entries(self, wrong_only: bool) -> tuple[FeedbackEntry, ...]:
        """Every recorded mark joined with its answer and reasons, oldest first."""
        return self._db.run(lambda c: feedback.entries(c, wrong_only, self.where))

    def ping(self) -> None:
        self._first("SELECT 1", {})

    def close(self) -> None:
        self._db.close()

    # --- helpers -------------------------------------------------------------------------

    def _first(self, statement: str, values: dict[str, Any]) -> _Row | None:
        async def read(conn: AsyncConnection) -> _Row | None:
            row = (await conn.execute(sql(statement), values)).first()
            return None if row is None else tuple(row)

        return self._db.run(read)

    def _all(self, statement: str, values: dict[str, Any]) -> list[_Row]:
        async def read(conn: AsyncConnection) -> list[_Row]:
            return [tuple(row) for row in await conn.execute(sql(statement), values)]

        return self._db.run(read)

    def _prune_if_due(self) -> None:
        """Forget old claims and lapsed invitations, at most once an hour per process."""
        now = self._clock()
        with self._prune_lock:
            if now - self._last_prune < PRUNE_EVERY_SECONDS:
                return
            self._last_prune = now

        async def prune(conn: AsyncConnection) -> None:
            await ledger.prune(conn, now - self._retention)
            await conn.execute(
                sql("DELETE FROM reason_invites WHERE invited < :cutoff"),
                {"cutoff": now - self._reason_window},
            )
            untold = {"cutoff": now - THREAD_CONTEXT_RETENTION_SECONDS}
            await conn.execute(sql(PRUNE_THREAD_CONTEXTS_SQL), untold)
            await conn.execute(sql(reaction_order.PRUNE_SQL), {"cutoff": now - self._retention})

        self._db.run(prune)
