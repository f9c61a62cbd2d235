"""The PostgreSQL store's schema as versioned steps (bot/store/migrations.py), its version kept in
the `docbot_schema` table. Append, never edit, once released.

Replicas may start together: each step runs in its own transaction under a transaction-level
advisory lock, so exactly one applies it and the others then find it applied. The tables match
SQLite's, with PostgreSQL's types: identity ids, `user_id` (`user` is reserved), the answer as
JSONB, the lease clock as double precision epoch seconds. Its first step is SQLite's four.
"""

from __future__ import annotations

from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncConnection

from bot.store.migrations import Step, pending

# Any fixed 64-bit key, the same in every docbot: "docbots" in ASCII.
MIGRATION_LOCK = 0x646F63626F74_73

STEPS = (
    Step(
        "answers, marks and reasons with their sources, reason invitations, claims as leases",
        (
            """CREATE TABLE answers (
                id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
                team TEXT NOT NULL, channel TEXT NOT NULL, thread_ts TEXT NOT NULL,
                reply_ts TEXT NOT NULL, question_ts TEXT NOT NULL, asker TEXT NOT NULL,
                question TEXT NOT NULL, status TEXT NOT NULL, generator TEXT NOT NULL,
                answer JSONB NOT NULL, created TEXT NOT NULL,
                UNIQUE (team, channel, reply_ts)
            )""",
            "CREATE INDEX answers_thread ON answers (team, channel, thread_ts)",
            "CREATE INDEX answers_question ON answers (team, channel, question_ts)",
            """CREATE TABLE feedback (
                answer_id BIGINT NOT NULL REFERENCES answers (id) ON DELETE CASCADE,
                user_id TEXT NOT NULL, kind TEXT NOT NULL, emoji TEXT NOT NULL,
                at TEXT NOT NULL, source TEXT NOT NULL,
                PRIMARY KEY (answer_id, user_id, emoji)
            )""",
            """CREATE TABLE reasons (
                id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
                answer_id BIGINT NOT NULL REFERENCES answers (id) ON DELETE CASCADE,
                user_id TEXT NOT NULL, text TEXT NOT NULL, at TEXT NOT NULL,
                source TEXT NOT NULL, category TEXT
            )""",
            "CREATE INDEX reasons_answer ON reasons (answer_id, user_id)",
            """CREATE TABLE reason_invites (
                answer_id BIGINT NOT NULL REFERENCES answers (id) ON DELETE CASCADE,
                user_id TEXT NOT NULL, invited DOUBLE PRECISION NOT NULL,
                PRIMARY KEY (answer_id, user_id)
            )""",
            "CREATE INDEX reason_invites_invited ON reason_invites (invited)",
            """CREATE TABLE processed_events (
                event_id TEXT PRIMARY KEY, seen DOUBLE PRECISION NOT NULL,
                state TEXT NOT NULL, owner TEXT, expires DOUBLE PRECISION, reply_ts TEXT
            )""",
            "CREATE INDEX processed_events_seen ON processed_events (seen)",
            """CREATE TABLE processed_mentions (
                team TEXT NOT NULL, channel TEXT NOT NULL, ts TEXT NOT NULL,
                seen DOUBLE PRECISION NOT NULL, state TEXT NOT NULL, owner TEXT,
                expires DOUBLE PRECISION, reply_ts TEXT, payload TEXT,
                PRIMARY KEY (team, channel, ts)
            )""",
            "CREATE INDEX processed_mentions_seen ON processed_mentions (seen)",
        ),
    ),
    # "Still need help?" fires once per answer: the first press claims the row (the primary key
    # makes that atomic across replicas); a note that could not be posted gives it back.
    Step(
        "escalations: one per answer",
        (
            """CREATE TABLE escalations (
                answer_id BIGINT PRIMARY KEY REFERENCES answers (id) ON DELETE CASCADE,
                user_id TEXT NOT NULL, at TEXT NOT NULL
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
                answer_id BIGINT NOT NULL REFERENCES answers (id) ON DELETE CASCADE,
                user_id TEXT NOT NULL, at TEXT NOT NULL,
                PRIMARY KEY (team, channel, question_ts)
            )""",
            # The earliest escalation of each question is kept, if it was doubled already:
            # DISTINCT ON picks it, rather than relying on the order rows reach ON CONFLICT.
            """INSERT INTO question_escalations
                SELECT DISTINCT ON (a.team, a.channel, a.question_ts)
                    a.team, a.channel, a.question_ts, e.answer_id, e.user_id, e.at
                FROM escalations e JOIN answers a ON a.id = e.answer_id
                ORDER BY a.team, a.channel, a.question_ts, e.at, e.answer_id""",
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
                context_channel TEXT NOT NULL, seen DOUBLE PRECISION NOT NULL,
                PRIMARY KEY (team, channel, thread_ts)
            )""",
        ),
    ),
    # A note whose post may or may not have reached Slack (the answer was lost, and the thread
    # could not be read to tell) keeps its claim, marked unsure: the next press looks again.
    Step(
        "escalations: a note that may not have been posted is looked for again",
        ("ALTER TABLE question_escalations ADD COLUMN unsure BOOLEAN NOT NULL DEFAULT FALSE",),
    ),
    # A claim is a lease (contract.ESCALATION_LEASE_SECONDS): held from `claimed_at` until its
    # note is confirmed in Slack, so a claim whose process died before it knew lapses, and the
    # next press looks for the note and posts it only if it is missing. Claims made before
    # this step cannot tell a posted note from a crash, so they count as lapsed: their next
    # press looks first (and confirms the note it finds).
    Step(
        "escalations: a claim whose process died lapses, and the next press looks first",
        (
            "ALTER TABLE question_escalations "
            "ADD COLUMN claimed_at DOUBLE PRECISION NOT NULL DEFAULT 0",
            "ALTER TABLE question_escalations ADD COLUMN confirmed BOOLEAN NOT NULL DEFAULT FALSE",
        ),
    ),
    # A reaction is recorded before docbot acknowledges it (bot/marks.py): its event's claim
    # keeps the reaction, so a process killed after the ack leaves it for another to resolve.
    Step(
        "an event's claim keeps its delivery, to resolve it after a crash",
        ("ALTER TABLE processed_events ADD COLUMN payload TEXT",),
    ),
    # As SQLite's step of the same name: the latest applied event of each reaction, by time.
    Step(
        "a reaction's mark and removal count in the order they were made, on any replica",
        (
            """CREATE TABLE reaction_order (
                answer_id BIGINT NOT NULL REFERENCES answers (id) ON DELETE CASCADE,
                user_id TEXT NOT NULL, emoji TEXT NOT NULL, event_ts BIGINT NOT NULL,
                seen DOUBLE PRECISION NOT NULL,
                PRIMARY KEY (answer_id, user_id, emoji)
            )""",
            "CREATE INDEX reaction_order_seen ON reaction_order (seen)",
        ),
    ),
)
SCHEMA_VERSION = len(STEPS)


async def next_step(conn: AsyncConnection, where: str) -> bool:
    """Apply the next pending step inside the caller's transaction; False when none is left."""
    await conn.execute(text("SELECT pg_advisory_xact_lock(:key)"), {"key": MIGRATION_LOCK})
    await conn.execute(text("CREATE TABLE IF NOT EXISTS docbot_schema (version INTEGER NOT NULL)"))
    version = (await conn.execute(text("SELECT max(version) FROM docbot_schema"))).scalar()
    todo = pending(int(version or 0), STEPS, where)
    if not todo:
        return False
    for statement in STEPS[todo[0]].statements:
        await conn.execute(text(statement))
    await conn.execute(text("DELETE FROM docbot_schema"))
    await conn.execute(
        text("INSERT INTO docbot_schema (version) VALUES (:version)"), {"version": todo[0] + 1}
    )
    return True
