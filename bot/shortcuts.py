"""The "Ask docbot about this" shortcut on a message docbot has answered already: the person who
chose it is told, to them only, where that answer is, instead of hearing nothing (the message's
claim is final, so it is never answered twice)."""

from __future__ import annotations

import asyncio
import dataclasses
import logging

from slack_sdk.web.async_client import AsyncWebClient

from bot.deps import ListenerDeps
from bot.events import Turn
from bot.render.commands import already_answered
from bot.replies import post
from bot.store import UNPOSTED, StoreUnavailable
from bot.webapi import SLACK_CALL_ERRORS, slack_error

log = logging.getLogger("docbot.slack")


async def point_to_answer(deps: ListenerDeps, client: AsyncWebClient, turn: Turn) -> None:
    """Tell `turn.user` that `turn`'s message is answered, with a link to the reply if known."""
    try:
        record = await asyncio.to_thread(deps.store.posted_answer, turn.team, turn.channel, turn.ts)
    except StoreUnavailable:
        record = None
    permalink = None
    if record is not None and not record.reply_ts.startswith(UNPOSTED):
        permalink = await _permalink(client, record.channel, record.reply_ts)
    await post(client, dataclasses.replace(turn, ephemeral=True), already_answered(permalink))


async def _permalink(client: AsyncWebClient, channel: str, ts: str) -> str | None:
    try:
        response = await client.chat_getPermalink(channel=channel, message_ts=ts)
    except SLACK_CALL_ERRORS as exc:
        log.info("chat.getPermalink for %s/%s failed: %s", channel, ts, slack_error(exc))
        return None
    link = response.get("permalink")
    return link if isinstance(link, str) and link.startswith("https://") else None
