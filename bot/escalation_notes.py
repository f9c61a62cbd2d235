""" "Still need help?" notes found again in Slack: each note carries its question in its message
metadata, so when Slack's answer to the post is lost (a timeout, a dropped connection, a 5xx)
docbot can read the conversation and tell whether the owners were asked, instead of guessing.
"""

from __future__ import annotations

from typing import Any

from slack_sdk.web.async_client import AsyncWebClient

from bot.replies import answer_thread, find_posted, has_metadata
from bot.store import AnswerRecord

NOTE_EVENT_TYPE = "docbot_escalation"


def note_metadata(record: AnswerRecord) -> dict[str, Any]:
    """The metadata of the note asking for help with `record`'s question: the question, which
    every copy of the answer shares (one note per question), and the answer pressed."""
    return {
        "event_type": NOTE_EVENT_TYPE,
        "event_payload": {"question_ts": record.question_ts, "answer_id": record.id},
    }


async def posted_note(client: AsyncWebClient, record: AnswerRecord) -> str | None:
    """The ts of the note for `record`'s question where it is posted: after the answer in its
    thread, or in the channel itself for a private `/docbot` answer, which is in no thread;
    None when it is not there. Raises replies.Unknown when Slack cannot tell (see
    replies.find_posted)."""
    return await find_posted(
        client, record.channel, answer_thread(record), record.reply_ts,
        has_metadata(NOTE_EVENT_TYPE, {"question_ts": record.question_ts}),
        f"the escalation note for answer {record.id}",
    )  # fmt: skip
