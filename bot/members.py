"""Whether a person is a member of a channel, asked of Slack (conversations.members): the check
behind "Still need help?" (bot/escalation.py) and behind an assistant thread reading the docs of
the channel its person is looking at (bot/thread_context.py). Any doubt says no."""

from __future__ import annotations

import logging

from slack_sdk.web.async_client import AsyncWebClient

from bot.webapi import SLACK_CALL_ERRORS, slack_error

log = logging.getLogger("docbot.slack")

# conversations.members pages read before giving up (fail closed): 1,000 members each.
MEMBER_PAGES = 20


async def is_member(client: AsyncWebClient, channel: str, user: str, refused: str) -> bool:
    """Whether `user` is a member of `channel`; False when Slack cannot say (fail closed), and
    then the log line ends with `refused`, what docbot does not do because of it."""
    cursor: str | None = None
    for _ in range(MEMBER_PAGES):
        try:
            response = await client.conversations_members(
                channel=channel, limit=1000, cursor=cursor
            )
        except SLACK_CALL_ERRORS as exc:
            log.warning("conversations.members on %s failed: %s; %s", channel, slack_error(exc),
                        refused)  # fmt: skip
            return False
        if user in (response.get("members") or ()):
            return True
        cursor = (response.get("response_metadata") or {}).get("next_cursor") or None
        if cursor is None:
            return False
    return False
