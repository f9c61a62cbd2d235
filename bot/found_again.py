"""Docbot's one-off posts found again in Slack by their message metadata, for when Slack's answer
to a post is lost (a timeout, a dropped connection, a 5xx) and posting again could double it:
the "Still need help?" note (bot/escalation.py) and the shared copy of an answer (bot/share.py).
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import Any

from slack_sdk.web.async_client import AsyncWebClient

from bot.replies import MESSAGE_TS, REPLY_PAGES, Unknown
from bot.webapi import SLACK_CALL_ERRORS, slack_error

log = logging.getLogger("docbot.slack")


async def find_posted(
    client: AsyncWebClient, channel: str, thread: str | None, after: str,
    event_type: str, payload: Mapping[str, Any],
) -> str | None:  # fmt: skip
    """The ts of the message in `thread` (in the channel itself when None) from message ts
    `after` on whose metadata is `event_type` with `payload`'s fields; None when there is none.

    Raises Unknown when Slack cannot be asked, or when more messages follow than REPLY_PAGES
    pages hold (logged): not seeing the message is no proof that it is missing."""
    oldest = after if MESSAGE_TS.match(after) else None
    where = f"{channel}/{thread or '(channel)'}"
    cursor: str | None = None
    for _ in range(REPLY_PAGES):
        try:
            if thread is None:
                response = await client.conversations_history(
                    channel=channel, oldest=oldest, inclusive=True, include_all_metadata=True,
                    limit=200, cursor=cursor,
                )  # fmt: skip
            else:
                response = await client.conversations_replies(
                    channel=channel, ts=thread, oldest=oldest, inclusive=True,
                    include_all_metadata=True, limit=200, cursor=cursor,
                )  # fmt: skip
        except SLACK_CALL_ERRORS as exc:
            log.warning("reading %s for a %s message failed: %s", where, event_type,
                        slack_error(exc))  # fmt: skip
            raise Unknown from exc
        for message in response.get("messages") or ():
            if _marked(message, event_type, payload):
                return str(message["ts"])
        cursor = ((response.get("response_metadata") or {}).get("next_cursor")) or None
        if cursor is None:
            return None
    log.warning("no %s message in the first %d pages of %s after %s: cannot tell whether it "
                "was posted", event_type, REPLY_PAGES, where, after)  # fmt: skip
    raise Unknown


def _marked(message: object, event_type: str, payload: Mapping[str, Any]) -> bool:
    if not isinstance(message, Mapping):
        return False
    metadata = message.get("metadata")
    if not isinstance(metadata, Mapping) or metadata.get("event_type") != event_type:
        return False
    found = metadata.get("event_payload")
    return isinstance(found, Mapping) and all(found.get(k) == v for k, v in payload.items())
