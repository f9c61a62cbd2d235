""" "Still need help?" notes found again in Slack: each note carries its question in its message
metadata, so when Slack's answer to the post is lost (a timeout, a dropped connection, a 5xx)
docbot can read the conversation and tell whether the owners were asked, instead of guessing.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import Any

from slack_sdk.web.async_client import AsyncWebClient

from bot.replies import MESSAGE_TS, REPLY_PAGES, Unknown, answer_thread
from bot.store import AnswerRecord
from bot.webapi import SLACK_CALL_ERRORS, slack_error

log = logging.getLogger("docbot.slack")

NOTE_EVENT_TYPE = "docbot_escalation"


def note_metadata(record: AnswerRecord) -> dict[str, Any]:
    """The metadata of the note asking for help with `record`'s question: the question, which
    every copy of the answer shares (one note per question), and the answer pressed."""
    return {
        "event_type": NOTE_EVENT_TYPE,
        "event_payload": {"question_ts": record.question_ts, "answer_id": record.id},
    }


async def note_posted(client: AsyncWebClient, record: AnswerRecord) -> bool:
    """Whether the note for `record`'s question is where it is posted: the answer's thread, or
    the channel itself for a private `/docbot` answer, which is in no thread.

    Raises Unknown when Slack cannot be asked, or when more messages follow the answer than
    REPLY_PAGES pages hold (logged): not seeing the note is no proof it is missing."""
    thread = answer_thread(record)
    oldest = record.reply_ts if MESSAGE_TS.match(record.reply_ts) else None
    cursor: str | None = None
    for _ in range(REPLY_PAGES):
        try:
            if thread is None:
                response = await client.conversations_history(
                    channel=record.channel, oldest=oldest, inclusive=True,
                    include_all_metadata=True, limit=200, cursor=cursor,
                )  # fmt: skip
            else:
                response = await client.conversations_replies(
                    channel=record.channel, ts=thread, oldest=oldest, inclusive=True,
                    include_all_metadata=True, limit=200, cursor=cursor,
                )  # fmt: skip
        except SLACK_CALL_ERRORS as exc:
            log.warning(
                "reading %s/%s failed: %s; cannot tell whether the escalation of answer %s was "
                "posted", record.channel, thread or "(channel)", slack_error(exc), record.id,
            )  # fmt: skip
            raise Unknown from exc
        messages = response.get("messages") or ()
        if any(_asks_about(message, record.question_ts) for message in messages):
            return True
        cursor = ((response.get("response_metadata") or {}).get("next_cursor")) or None
        if cursor is None:
            return False
    log.warning("the escalation of answer %s was not in the first %d pages after it; cannot "
                "tell whether it was posted", record.id, REPLY_PAGES)  # fmt: skip
    raise Unknown


def _asks_about(message: object, question_ts: str) -> bool:
    if not isinstance(message, Mapping):
        return False
    metadata = message.get("metadata")
    if not isinstance(metadata, Mapping) or metadata.get("event_type") != NOTE_EVENT_TYPE:
        return False
    payload = metadata.get("event_payload")
    return isinstance(payload, Mapping) and payload.get("question_ts") == question_ts
