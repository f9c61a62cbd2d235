"""What both backends' answer logs share: an answers row's statement parameters, and marking a
staged answer posted (bot/store/contract.py stage_answer, mark_posted). Named parameters.
"""

from __future__ import annotations

from typing import Any

from bot.store.contract import AnswerRecord, answer_json, staged_reply_ts

# Not when the reply is stored already (a row of its own): the marked row would clash with it.
MARK_POSTED_SQL = (
    "UPDATE answers SET reply_ts = :reply_ts WHERE team = :team AND channel = :channel "
    "AND reply_ts = :staged AND NOT EXISTS (SELECT 1 FROM answers WHERE team = :team "
    "AND channel = :channel AND reply_ts = :reply_ts)"
)
# The columns a staged answer answered again replaces; its row, and so its id, stays.
RESTAGED_COLUMNS = ("thread_ts", "asker", "question", "status", "generator", "created")


def answer_values(record: AnswerRecord) -> dict[str, Any]:
    """The parameters of an answers row: its columns by name, the answer as JSON text."""
    answer = record.answer
    return {
        "team": record.team, "channel": record.channel, "thread_ts": record.thread_ts,
        "reply_ts": record.reply_ts, "question_ts": record.question_ts, "asker": record.asker,
        "question": record.question, "status": answer.status.value,
        "generator": answer.generator, "answer": answer_json(answer), "created": record.created,
    }  # fmt: skip


def mark_posted_values(team: str, channel: str, question_ts: str, reply_ts: str) -> dict[str, str]:
    return {"team": team, "channel": channel, "reply_ts": reply_ts,
            "staged": staged_reply_ts(question_ts)}  # fmt: skip


def restaged(answer_column: str) -> str:
    """The ON CONFLICT clause of staging an answer: the row's columns from the new answer."""
    columns = (*RESTAGED_COLUMNS, answer_column)
    updates = ", ".join(f"{c} = excluded.{c}" for c in columns)
    return f"ON CONFLICT (team, channel, reply_ts) DO UPDATE SET {updates} RETURNING id"
