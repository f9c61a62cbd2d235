"""`AnswerStore` on one SQLite file, the embedded default: WAL, schema in sqlite_schema.py.

Safe to share between the threads of one process, and between processes on one host (each write
is an IMMEDIATE transaction).
"""

from __future__ import annotations

import sqlite3
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from bot.store import reaction_order
from bot.store import sqlite_answers as answers
from bot.store import sqlite_escalations as escalations
from bot.store import sqlite_ledger as ledger
from bot.store import sqlite_marks as marks
from bot.store import sqlite_reasons as reasons
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
    check_reason,
    check_staged,
    group_reasons,
)
from bot.store.event_ledger import Claim, ClaimKey, EventKey, Resumable
from bot.store.sqlite_schema import open_store_file

_ANSWER_FIELDS = (
    "id", "team", "channel", "thread_ts", "reply_ts", "question_ts", "asker", "question",
    "answer_json", "created",
)  # fmt: skip
_ANSWER_COLUMNS = ", ".join(_ANSWER_FIELDS)


class SQLiteAnswerStore:
    """`AnswerStore` on one SQLite file; safe to share between the threads of one process."""

    def __init__(
        self,
        path: Path,
        *,
        clock: Callable[[], float] = time.time,
        event_retention_seconds: float = EVENT_RETENTION_SECONDS,
        reason_window_seconds: float = REASON_WINDOW_SECONDS,
        lease_seconds: float = LEASE_SECONDS,
    ) -> None:
        self._path = path
        self._clock = clock
        self._lease = lease_seconds
        self._retention = event_retention_seconds
        self._reason_window = reason_window_seconds
        self._lock = threading.Lock()
        self._last_prune = float("-inf")
        self._conn = open_store_file(path)
        with self._write():
            self._prune_if_due()

    @property
    def path(self) -> Path:
        return self._path

    # --- event ledger --------------------------------------------------------------------

    def claim(self, key: ClaimKey, owner: str, payload: str | None = None) -> Claim:
        with self._write() as conn:
            self._prune_if_due()
            return ledger.claim(conn, key, owner, self._clock(), self._lease, payload)

    def resumable(
        self, window_seconds: float, limit: int, unsure_window_seconds: float | None = None
    ) -> tuple[Resumable, ...]:
        unsure = window_seconds if unsure_window_seconds is None else unsure_window_seconds
        with self._read() as conn:
            return ledger.resumable(conn, self._clock(), window_seconds, limit, unsure)

    def renew(self, key: ClaimKey, owner: str) -> bool:
        with self._write() as conn:
            return ledger.renew(conn, key, owner, self._clock(), self._lease)

    def begin_post(self, key: ClaimKey, owner: str) -> bool:
        with self._write() as conn:
            return ledger.begin_post(conn, key, owner, self._clock(), self._lease)

    def finish(self, key: ClaimKey, reply_ts: str | None = None) -> None:
        with self._write() as conn:
            ledger.finish(conn, key, reply_ts)

    def release(self, key: ClaimKey, owner: str) -> None:
        with self._write() as conn:
            ledger.release(conn, key, owner, self._clock())

    def defer(
        self, key: ClaimKey, owner: str, seconds: float, within_seconds: float,
        unsure_within_seconds: float | None = None,
    ) -> bool:  # fmt: skip
        unsure = within_seconds if unsure_within_seconds is None else unsure_within_seconds
        with self._write() as conn:
            until = self._clock() + seconds
            return ledger.defer(conn, key, owner, until, within_seconds, unsure)

    # --- answer log ----------------------------------------------------------------------

    def save_answer(self, record: AnswerRecord) -> int:
        with self._write() as conn:
            return answers.save(conn, record, str(self._path))

    def stage_answer(self, record: AnswerRecord) -> int:
        check_staged(record, str(self._path))
        with self._write() as conn:
            return answers.stage(conn, record)

    def mark_posted(self, team: str, channel: str, question_ts: str, reply_ts: str) -> bool:
        with self._write() as conn:
            return answers.mark_posted(conn, team, channel, question_ts, reply_ts)

    def find_answer(self, team: str, channel: str, reply_ts: str) -> AnswerRecord | None:
        with self._read() as conn:
            row = conn.execute(
                f"SELECT {_ANSWER_COLUMNS} FROM answers "
                "WHERE team = ? AND channel = ? AND reply_ts = ?",
                (team, channel, reply_ts),
            ).fetchone()
        return None if row is None else answer_record(row, str(self._path))

    def posted_answer(self, team: str, channel: str, question_ts: str) -> AnswerRecord | None:
        with self._read() as conn:
            row = conn.execute(
                f"SELECT {_ANSWER_COLUMNS} FROM answers "
                "WHERE team = ? AND channel = ? AND question_ts = ? AND reply_ts NOT LIKE ? "
                "ORDER BY id LIMIT 1",
                (team, channel, question_ts, f"{UNPOSTED}%"),
            ).fetchone()
        return None if row is None else answer_record(row, str(self._path))

    def thread_questions(self, team: str, channel: str, thread_ts: str) -> tuple[str, ...]:
        with self._read() as conn:
            rows = conn.execute(
                "SELECT question FROM answers WHERE team = ? AND channel = ? AND thread_ts = ? "
                "ORDER BY id",
                (team, channel, thread_ts),
            ).fetchall()
        return tuple(row[0] for row in rows)

    def recent_answers(self, team: str, asker: str, limit: int) -> tuple[AnswerRecord, ...]:
        with self._read() as conn:
            rows = conn.execute(
                f"SELECT {_ANSWER_COLUMNS} FROM answers WHERE team = ? AND asker = ? "
                "ORDER BY id DESC LIMIT ?",
                (team, asker, limit),
            ).fetchall()
        return tuple(answer_record(row, str(self._path)) for row in rows)

    def set_thread_context(
        self, team: str, channel: str, thread_ts: str, context_channel: str, seen: float
    ) -> None:
        values = {"team": team, "channel": channel, "thread_ts": thread_ts, "seen": seen}
        with self._write() as conn:
            conn.execute(SET_THREAD_CONTEXT_SQL, {**values, "context": context_channel})

    def thread_context(self, team: str, channel: str, thread_ts: str) -> str | None:
        values = {"team": team, "channel": channel, "thread_ts": thread_ts}
        with self._read() as conn:
            row = conn.execute(THREAD_CONTEXT_SQL, values).fetchone()
        return None if row is None else str(row[0])

    # --- feedback ------------------------------------------------------------------------

    def add_feedback(
        self, answer_id: int, user: str, kind: str, emoji: str, at: str, *, event_ts: str = ""
    ) -> bool:
        """Record a reaction; False when this user's `emoji` on this answer is already recorded,
        or a later event of it was applied (contract.FeedbackLog)."""
        check_kind(kind)
        with self._write() as conn:
            self._require_answer(conn, answer_id)
            if not marks.latest(conn, answer_id, user, emoji, event_ts, self._clock()):
                return False
            return marks.add(conn, answer_id, user, kind, emoji, at)

    def remove_feedback(self, answer_id: int, user: str, emoji: str, *, event_ts: str = "") -> bool:
        """Retract a reaction; False when there was nothing to retract (remembered by its event
        time all the same), or a later event of it was applied (contract.FeedbackLog).

        Retracting the user's last wrong-mark on the answer also withdraws the invitation to
        say why: their next reply in the thread is a question again.
        """
        with self._write() as conn:
            self._require_answer(conn, answer_id)
            if not marks.latest(conn, answer_id, user, emoji, event_ts, self._clock()):
                return False
            return marks.remove(conn, answer_id, user, emoji)

    def has_feedback(self, answer_id: int, user: str, emoji: str) -> bool:
        with self._read() as conn:
            return marks.has(conn, answer_id, user, emoji)

    def wrong_count(self, answer_id: int) -> int:
        """How many people marked the answer wrong (two wrong-emoji from one person count once)."""
        with self._read() as conn:
            row = conn.execute(
                "SELECT COUNT(DISTINCT user) FROM feedback WHERE answer_id = ? AND kind = 'wrong'",
                (answer_id,),
            ).fetchone()
        return int(row[0])

    def toggle_mark(
        self, answer_id: int, user: str, kind: str, at: str, *, once: EventKey | None = None
    ) -> Toggled:
        """A feedback button pressed: the user's one button mark becomes `kind`, or is retracted
        when it was `kind` already (pressing again takes it back). The mark afterwards; with
        `once`, at most once per press (contract.FeedbackLog)."""
        check_kind(kind)
        with self._write() as conn:
            self._require_answer(conn, answer_id)
            if once is not None and not ledger.settle_once(conn, once, self._clock()):
                return Toggled(marks.button_mark(conn, answer_id, user), repeat=True)
            return Toggled(marks.toggle(conn, answer_id, user, kind, at))

    def add_reason(
        self, answer_id: int, user: str, text: str, at: str, *, source: str = "thread",
        category: str | None = None, once: EventKey | None = None,
    ) -> bool:  # fmt: skip
        """Store what `user` said was wrong; this answers their invitation, if any. With
        `once`, at most once per submission (contract.FeedbackLog)."""
        check_reason(source, category)
        with self._write() as conn:
            self._require_answer(conn, answer_id)
            if once is not None and not ledger.settle_once(conn, once, self._clock()):
                return False
            conn.execute(
                "INSERT INTO reasons (answer_id, user, text, at, source, category) "
                "VALUES (?, ?, ?, ?, ?, ?)",
                (answer_id, user, text, at, source, category),
            )
            conn.execute(
                "DELETE FROM reason_invites WHERE answer_id = ? AND user = ?", (answer_id, user)
            )
            return True

    def claim_escalation(self, answer_id: int, user: str, at: str) -> bool:
        with self._write() as conn:
            self._require_answer(conn, answer_id)
            return escalations.claim(conn, answer_id, user, at, self._clock())

    def confirm_escalation(self, answer_id: int) -> None:
        with self._write() as conn:
            escalations.confirm(conn, answer_id)

    def release_escalation(self, answer_id: int) -> None:
        with self._write() as conn:
            escalations.release(conn, answer_id)

    def doubt_escalation(self, answer_id: int) -> None:
        with self._write() as conn:
            escalations.doubt(conn, answer_id)

    def recheck_escalation(
        self, answer_id: int, lease_seconds: float = ESCALATION_LEASE_SECONDS
    ) -> AnswerRecord | None:
        with self._write() as conn:
            return escalations.recheck(
                conn, answer_id, self._clock(), lease_seconds, _ANSWER_COLUMNS, str(self._path)
            )

    def escalation_pending(self, answer_id: int) -> bool:
        with self._read() as conn:
            return escalations.pending(conn, answer_id)

    def invite_reason(self, answer_id: int, user: str) -> None:
        """Remember that `user`, having marked the answer wrong, was asked to say why; a new
        invitation on the same answer restarts the window."""
        with self._write() as conn:
            self._require_answer(conn, answer_id)
            reasons.invite(conn, answer_id, user, self._clock())

    def pending_reason(self, team: str, channel: str, thread_ts: str, user: str) -> int | None:
        """The answer in this thread that `user` marked wrong and was invited to explain, and
        has not explained yet (the latest invitation first); None when there is none in the
        reason window."""
        cutoff = self._clock() - self._reason_window
        with self._read() as conn:
            return reasons.pending(conn, team, channel, thread_ts, user, cutoff)

    def reason_given(
        self, team: str, channel: str, thread_ts: str, user: str, text: str
    ) -> int | None:
        with self._read() as conn:
            return reasons.given(conn, team, channel, thread_ts, user, text)

    def feedback_entries(self, wrong_only: bool) -> tuple[FeedbackEntry, ...]:
        """Every recorded reaction joined with its answer and reasons, oldest first."""
        where = "WHERE f.kind = 'wrong'" if wrong_only else ""
        columns = ", ".join(f"a.{field}" for field in _ANSWER_FIELDS)
        with self._read() as conn:
            rows = conn.execute(
                f"SELECT f.kind, f.emoji, f.user, f.at, f.source, {columns} FROM feedback f "
                f"JOIN answers a ON a.id = f.answer_id {where} ORDER BY f.at, a.id, f.user"
            ).fetchall()
            reasons = group_reasons(
                conn.execute(
                    "SELECT answer_id, user, text, at, source, category FROM reasons "
                    "ORDER BY at, id"
                )
            )
        return tuple(
            FeedbackEntry(
                answer_id=row[5], kind=row[0], emoji=row[1], user=row[2], at=row[3],
                record=answer_record(row[5:], str(self._path)),
                reasons=reasons.get((row[5], row[2]), ()),
                source=row[4],
            )
            for row in rows
        )  # fmt: skip

    def ping(self) -> None:
        with self._read() as conn:
            conn.execute("SELECT 1").fetchone()

    def close(self) -> None:
        with self._lock:
            self._conn.close()

    @contextmanager
    def _read(self) -> Iterator[sqlite3.Connection]:
        with self._lock, self._translated():
            yield self._conn

    @contextmanager
    def _write(self) -> Iterator[sqlite3.Connection]:
        """One IMMEDIATE transaction: committed on success, rolled back on any error."""
        with self._lock, self._translated():
            self._conn.execute("BEGIN IMMEDIATE")
            try:
                yield self._conn
            except BaseException:
                self._conn.execute("ROLLBACK")
                raise
            self._conn.execute("COMMIT")

    @contextmanager
    def _translated(self) -> Iterator[None]:
        try:
            yield
        except sqlite3.Error as exc:
            raise StoreError(
                f"{self._path}: the answer store failed ({exc}). If the disk is full or the "
                "file is damaged, fix it or move it aside; docbot creates a new one."
            ) from exc

    def _prune_if_due(self) -> None:
        now = self._clock()
        if now - self._last_prune < PRUNE_EVERY_SECONDS:
            return
        cutoff = now - self._retention
        ledger.prune(self._conn, cutoff)
        self._conn.execute(
            "DELETE FROM reason_invites WHERE invited < ?", (now - self._reason_window,)
        )
        untold = {"cutoff": now - THREAD_CONTEXT_RETENTION_SECONDS}
        self._conn.execute(PRUNE_THREAD_CONTEXTS_SQL, untold)
        self._conn.execute(reaction_order.PRUNE_SQL, {"cutoff": cutoff})
        self._last_prune = now

    def _require_answer(self, conn: sqlite3.Connection, answer_id: int) -> None:
        if conn.execute("SELECT 1 FROM answers WHERE id = ?", (answer_id,)).fetchone() is None:
            raise StoreError(f"{self._path}: no answer with id {answer_id} is stored.")
