"""The scope of a question in an assistant thread (docbot's side panel, a thread of the person's
DM with docbot): the channel the person is looking at (bot/assistant.py remembers it from
`assistant_thread_started` and `assistant_thread_context_changed`) when they are a member of it,
else the DM's own scope.

The answer goes to the person's DM only, and a member of the channel could ask there anyway, so
reading that channel's collections shows them nothing they cannot read. Whether they are a
member is asked of Slack each time (fail closed): joining or leaving a channel counts at once.
"""

from __future__ import annotations

import asyncio
import logging

from slack_sdk.web.async_client import AsyncWebClient

from bot.deps import ListenerDeps
from bot.events import Turn
from bot.failures import log_failure
from bot.live import Live
from bot.members import is_member
from retrieval.scopes import Scope

log = logging.getLogger("docbot.slack")


async def question_scope(
    deps: ListenerDeps, live: Live, client: AsyncWebClient, turn: Turn
) -> Scope:
    """What `turn` may read: its conversation's scope, or, in an assistant thread looking at a
    channel its asker is a member of, that channel's scope exactly as a mention there gets."""
    seen = await _looking_at(deps, turn)
    if seen is not None:
        refused = f"the DM's own scope is used for {turn.event_id}"
        scope = await member_channel_scope(live, client, turn.team, turn.user, seen, refused)
        if scope is not None:
            log.info("event %s: assistant thread looking at %s, a channel of its asker",
                     turn.event_id, seen)  # fmt: skip
            return scope
    return await live.policy.scope_for(
        turn.team, turn.channel, turn.channel_type, ext_shared=turn.ext_shared
    )


async def member_channel_scope(
    live: Live, client: AsyncWebClient, team: str, user: str, channel: str, refused: str
) -> Scope | None:
    """`channel`'s scope exactly as a mention there gets it, when `user` is a member of it;
    None when they are not or Slack cannot say (bot/members.py logs `refused` then)."""
    if not await is_member(client, channel, user, refused):
        return None
    return await live.policy.scope_for(team, channel, None)


async def _looking_at(deps: ListenerDeps, turn: Turn) -> str | None:
    """The other channel this DM thread's person is looking at; None when there is none."""
    if turn.channel_type != "im" or not turn.in_thread or turn.ephemeral:
        return None
    try:
        seen = await asyncio.to_thread(
            deps.store.thread_context, turn.team, turn.channel, turn.reply_thread
        )
    except Exception:
        log_failure(log, "reading the context of assistant thread %s failed", turn.reply_thread)
        return None
    return seen if seen and seen != turn.channel else None
