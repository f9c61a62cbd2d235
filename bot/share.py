""" "Share in channel" under a private `/docbot` answer: posts that same stored answer in the
channel, once, saying who asked; the shared message takes reactions and feedback like any answer.
"""

from __future__ import annotations

import asyncio
import logging

from slack_sdk.web.async_client import AsyncWebClient

from bot.deps import ListenerDeps
from bot.escalation import render_offering_help
from bot.failures import log_failure
from bot.interactive import ButtonPress
from bot.leases import Lease
from bot.render import post_kwargs
from bot.render.commands import already_shared, share_failed, shared
from bot.replies import tell
from bot.store import AnswerRecord, EventKey
from bot.webapi import SLACK_CALL_ERRORS, slack_error

log = logging.getLogger("docbot.slack")


async def handle_share(deps: ListenerDeps, client: AsyncWebClient, press: ButtonPress) -> None:
    live = await deps.runtime.current()
    try:
        record = await asyncio.to_thread(
            deps.store.find_answer, press.team, press.channel, press.message_ts
        )
        if record is None or record.asker != press.user:
            return  # only the asker sees a private answer, so only they can press its button
        key = EventKey(f"share:{record.team}:{record.channel}:{record.reply_ts}")
        claim = await asyncio.to_thread(deps.store.claim, key, deps.owner)
    except Exception:
        # The edge catches broadly (an unreachable or damaged store) so the asker hears back.
        log.exception("sharing the answer %s/%s failed", press.channel, press.message_ts)
        await tell(client, press.channel, press.thread_ts, press.user, share_failed())
        return
    if not claim.granted:
        await tell(client, press.channel, press.thread_ts, press.user, already_shared())
        return
    async with Lease(deps.store, key, deps.owner, claim, deps.renew_every) as lease:
        message = shared(render_offering_help(live.config, record.answer), record.asker)
        try:
            response = await client.chat_postMessage(channel=record.channel,
                                                     **post_kwargs(message))  # fmt: skip
        except SLACK_CALL_ERRORS as exc:
            log.error("sharing answer %s failed: %s", record.id, slack_error(exc))
            await tell(client, press.channel, press.thread_ts, press.user, share_failed())
            return
        ts = str(response.get("ts") or "")
        if ts:
            await _save_shared(deps, record, ts)
            await lease.finish(ts)


async def _save_shared(deps: ListenerDeps, record: AnswerRecord, ts: str) -> None:
    """The shared message is an answer of its own: reactions and buttons on it count."""
    copy = AnswerRecord(
        team=record.team, channel=record.channel, thread_ts=ts, reply_ts=ts,
        question_ts=record.question_ts, asker=record.asker, question=record.question,
        answer=record.answer, created=deps.now().isoformat(),
    )  # fmt: skip
    try:
        await asyncio.to_thread(deps.store.save_answer, copy)
    except Exception:
        log_failure(log, "storing the shared answer %s failed", ts)
