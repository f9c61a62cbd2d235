"""The SQLite store's schema as versioned steps (bot/store/migrations.py), its version kept in
`PRAGMA user_version`. Append, never edit, once released. Also how the file is opened: WAL,
foreign keys, the busy timeout, then the pending steps."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from bot.store.contract import StoreError
from bot.store.migrations import Step, pending

STEPS = (
    Step(
        "answers, feedback, reasons and the claims ledger",
        (
            """CREATE TABLE answers (
                id INTEGER PRIMARY KEY,
                team TEXT NOT NULL, channel TEXT NOT NULL, thread_ts TEXT NOT NULL,
                reply_ts TEXT NOT NULL, question_ts TEXT NOT NULL, asker TEXT NOT NULL,
                question TEXT NOT NULL, status TEXT NOT NULL, generator TEXT NOT NULL,
                answer_json TEXT NOT NULL, created TEXT NOT NULL,
                UNIQUE (team, channel, reply_ts)
            )""",
            "CREATE INDEX answers_thread ON answers (team, channel, thread_ts)",
            """CREATE TABLE feedback (
                answer_id INTEGER NOT NULL REFERENCES answers (id) ON DELETE CASCADE,
                user TEXT NOT NULL, kind TEXT NOT NULL, emoji TEXT NOT NULL, at TEXT NOT NULL,
                PRIMARY KEY (answer_id, user, emoji)
            )""",
            """CREATE TABLE reasons (
                id INTEGER PRIMARY KEY,
                answer_id INTEGER NOT NULL REFERENCES answers (id) ON DELETE CASCADE,
                user TEXT NOT NULL, text TEXT NOT NULL, at TEXT NOT NULL
            )""",
            "CREATE INDEX reasons_answer ON reasons (answer_id, user)",
            "CREATE TABLE processed_events (event_id TEXT PRIMARY KEY, seen REAL NOT NULL)",
            "CREATE INDEX processed_events_seen ON processed_events (seen)",
            """CREATE TABLE processed_mentions (
                team TEXT NOT NULL, channel TEXT NOT NULL, ts TEXT NOT NULL, seen REAL NOT NULL,
                PRIMARY KEY (team, channel, ts)
            )""",
            "CREATE INDEX processed_mentions_seen ON processed_mentions (seen)",
        ),
    ),
    # `invited` is the store's clock (epoch seconds). Wrong-marks still awaiting a reason when a
    # file is upgraded become invitations dated by their mark, so an upgrade (itself a restart)
    # loses none.
    Step(
        "invitations to say what was wrong outlive a restart",
        (
            """CREATE TABLE reason_invites (
                answer_id INTEGER NOT NULL REFERENCES answers (id) ON DELETE CASCADE,
                user TEXT NOT NULL, invited REAL NOT NULL,
                PRIMARY KEY (answer_id, user)
            )""",
            "CREATE INDEX reason_invites_invited ON reason_invites (invited)",
            """INSERT INTO reason_invites (answer_id, user, invited)
                SELECT f.answer_id, f.user, MIN((julianday(f.at) - 2440587.5) * 86400.0)
                FROM feedback f
                WHERE f.kind = 'wrong' AND julianday(f.at) IS NOT NULL AND NOT EXISTS (
                    SELECT 1 FROM reasons r WHERE r.answer_id = f.answer_id AND r.user = f.user
                )
                GROUP BY f.answer_id, f.user""",
        ),
    ),
    # A claim recorded before this step was final the moment it was made, so it stays done: the
    # upgrade answers nothing twice. New claims always set `state`; the default is only for the
    # rows already there. A mention's `payload` is the message itself, so a run that never
    # finished can be resumed.
    Step(
        "claims are leases (bot/store/contract.py EventLedger)",
        (
            "ALTER TABLE processed_events ADD COLUMN state TEXT NOT NULL DEFAULT 'done'",
            "ALTER TABLE processed_events ADD COLUMN owner TEXT",
            "ALTER TABLE processed_events ADD COLUMN expires REAL",
            "ALTER TABLE processed_events ADD COLUMN reply_ts TEXT",
            "ALTER TABLE processed_mentions ADD COLUMN state TEXT NOT NULL DEFAULT 'done'",
            "ALTER TABLE processed_mentions ADD COLUMN owner TEXT",
            "ALTER TABLE processed_mentions ADD COLUMN expires REAL",
            "ALTER TABLE processed_mentions ADD COLUMN reply_ts TEXT",
            "ALTER TABLE processed_mentions ADD COLUMN payload TEXT",
            "CREATE INDEX answers_question ON answers (team, channel, question_ts)",
        ),
    ),
    # Everything stored before this step came from a reaction or a thread reply.
    Step(
        "marks and reasons say where they came from (contract.py MARK_SOURCES, REASON_SOURCES)",
        (
            "ALTER TABLE feedback ADD COLUMN source TEXT NOT NULL DEFAULT 'reaction'",
            "ALTER TABLE reasons ADD COLUMN source TEXT NOT NULL DEFAULT 'thread'",
            "ALTER TABLE reasons ADD COLUMN category TEXT",
        ),
    ),
    # "Still need help?" fires once per answer: the first press claims the row (the primary key
    # makes that atomic across processes); a note that could not be posted gives it back.
    Step(
        "escalations: one per answer",
        (
            """CREATE TABLE escalations (
                answer_id INTEGER PRIMARY KEY REFERENCES answers (id) ON DELETE CASCADE,
                user TEXT NOT NULL, at TEXT NOT NULL
            )""",
        ),
    ),
    Step(
        "a person's recent questions, for App Home",
        ("CREATE INDEX answers_asker ON answers (team, asker, id)",),
    ),
    # One escalation per question, not per stored row: a shared `/docbot` answer is a second row
    # of the same answer (its question_ts kept), and pressing either must not ask the owners twice.
    Step(
        "escalations: one per question, whichever copy of its answer is pressed",
        (
            """CREATE TABLE question_escalations (
                team TEXT NOT NULL, channel TEXT NOT NULL, question_ts TEXT NOT NULL,
                answer_id INTEGER NOT NULL REFERENCES answers (id) ON DELETE CASCADE,
                user TEXT NOT NULL, at TEXT NOT NULL,
                PRIMARY KEY (team, channel, question_ts)
            )""",
            # The earliest escalation of each question is kept, if it was doubled already.
            """INSERT OR IGNORE INTO question_escalations
                SELECT a.team, a.channel, a.question_ts, e.answer_id, e.user, e.at
                FROM escalations e JOIN answers a ON a.id = e.answer_id
                ORDER BY e.at, e.answer_id""",
            "DROP TABLE escalations",
        ),
    ),
    # An assistant thread (the DM's side panel) follows the channel its person is looking at
    # (assistant_thread_started, assistant_thread_context_changed): kept here, not in Slack's
    # message metadata as Bolt's default store does, because a new thread has no docbot message
    # to carry it, and every replica must see it. `seen` is Slack's event_ts: the later event
    # wins, whichever arrives first.
    Step(
        "assistant threads: the channel each one is looking at",
        (
            """CREATE TABLE thread_contexts (
                team TEXT NOT NULL, channel TEXT NOT NULL, thread_ts TEXT NOT NULL,
                context_channel TEXT NOT NULL, seen REAL NOT NULL,
                PRIMARY KEY (team, channel, thread_ts)
            )""",
        ),
    ),
    # A note whose post may or may not have reached Slack (the answer was lost, and the thread
    # could not be read to tell) keeps its claim, marked unsure: the next press looks again.
    Step(
        "escalations: a note that may not have been posted is looked for again",
        ("ALTER TABLE question_escalations ADD COLUMN unsure INTEGER NOT NULL DEFAULT 0",),
    ),
    # A claim is a lease (contract.ESCALATION_LEASE_SECONDS): held from `claimed_at` until its
    # note is confirmed in Slack, so a claim whose process died before it knew lapses, and the
    # next press looks for the note and posts it only if it is missing. Claims made before
    # this step cannot tell a posted note from a crash, so they count as lapsed: their next
    # press looks first (and confirms the note it finds).
    Step(
        "escalations: a claim whose process died lapses, and the next press looks first",
        (
            "ALTER TABLE question_escalations ADD COLUMN claimed_at REAL NOT NULL DEFAULT 0",
            "ALTER TABLE question_escalations ADD COLUMN confirmed INTEGER NOT NULL DEFAULT 0",
        ),
    ),
    # A reaction is recorded before docbot acknowledges it (bot/marks.py): its event's claim
    # keeps the reaction, so a process killed after the ack leaves it for another to resolve.
    Step(
        "an event's claim keeps its delivery, to resolve it after a crash",
        ("ALTER TABLE processed_events ADD COLUMN payload TEXT",),
    ),
    # A reaction's events count in the order Slack made them (bot/store/reaction_order.py): the
    # latest applied event's time per person, answer and emoji, so a mark kept pending by one
    # replica and resolved after its removal, resolved by another, does not count. `event_ts`
    # is Slack's event time in microseconds; `seen` the store's clock, for pruning.
    Step(
        "a reaction's mark and removal count in the order they were made, on any replica",
        (
            """CREATE TABLE reaction_order (
                answer_id INTEGER NOT NULL REFERENCES answers (id) ON DELETE CASCADE,
                user_id TEXT NOT NULL, emoji TEXT NOT NULL, event_ts INTEGER NOT NULL,
                seen REAL NOT NULL,
                PRIMARY KEY (answer_id, user_id, emoji)
            )""",
            "CREATE INDEX reaction_order_seen ON reaction_order (seen)",
        ),
    ),
)
SCHEMA_VERSION = len(STEPS)


def open_store_file(path: Path) -> sqlite3.Connection:
    """The store's one connection to `path` (created if missing), at SCHEMA_VERSION."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        # One connection guarded by a lock (bot/store/sqlite.py): SQLite serialises writers
        # anyway, and the Slack app runs its handlers on a few threads of one process.
        conn = sqlite3.connect(path, check_same_thread=False, isolation_level=None)
        conn.execute("PRAGMA journal_mode = WAL")
        # In WAL mode NORMAL stays consistent and survives an app crash; only a power cut can
        # lose the last commits, which costs a possible repeated answer, not corruption.
        conn.execute("PRAGMA synchronous = NORMAL")
        conn.execute("PRAGMA foreign_keys = ON")
        conn.execute("PRAGMA busy_timeout = 5000")
        migrate(conn, path)
    except (sqlite3.Error, OSError) as exc:
        raise StoreError(
            f"{path}: cannot open the answer store ({exc}). Check that the state_dir in "
            "docbot.yml is writable and that the file is a docbot SQLite database."
        ) from exc
    return conn


def migrate(conn: sqlite3.Connection, path: Path) -> None:
    """Bring the file at `path` to SCHEMA_VERSION, one transaction per step."""
    version = int(conn.execute("PRAGMA user_version").fetchone()[0])
    for index in pending(version, STEPS, str(path)):
        conn.execute("BEGIN IMMEDIATE")
        try:
            for statement in STEPS[index].statements:
                conn.execute(statement)
            conn.execute(f"PRAGMA user_version = {index + 1}")
        except BaseException:
            conn.execute("ROLLBACK")
            raise
        conn.execute("COMMIT")


def script(versions: int) -> str:
    """The first `versions` steps as one script, for tests that build an old file by hand."""
    statements = [s for step in STEPS[:versions] for s in step.statements]
    return ";\n".join([*statements, f"PRAGMA user_version = {versions}"]) + ";"
