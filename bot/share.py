""" "Share in channel" under a private `/docbot` answer: posts that same stored answer in the
channel, once, saying who asked; the shared message takes reactions and feedback like any answer.
Once even when Slack posts it but its answer is lost: the copy is found again by its metadata.
"""

from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass
from typing import Any

from slack_sdk.web.async_client import AsyncWebClient

from bot.deps import ListenerDeps
from bot.escalation import render_offering_help
from bot.failures import log_failure
from bot.interactive import ButtonPress
from bot.leases import Lease
from bot.render import post_kwargs
from bot.render.commands import already_shared, share_failed, share_unconfirmed, shared
from bot.replies import Unknown, find_posted, has_metadata, post_once, tell
from bot.store import AnswerRecord, Claim, EventKey
from retrieval.config import Config

log = logging.getLogger("docbot.slack")

# The copy's message metadata names the private answer it copies, so it can be found again.
SHARED_EVENT_TYPE = "docbot_shared_answer"


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
        try:
            posted = await _share(live.config, client, record, first=claim is Claim.NEW)
        except Unknown:
            lease.leave_open()
            await tell(client, press.channel, press.thread_ts, press.user, share_unconfirmed())
            return
        if posted is None:
            await tell(client, press.channel, press.thread_ts, press.user, share_failed())
            return
        await _save_shared(deps, record, posted)
        await lease.finish(posted.ts)
    if posted.found:
        await tell(client, press.channel, press.thread_ts, press.user, already_shared())


@dataclass(frozen=True, slots=True)
class _Shared:
    ts: str
    found: bool  # posted by an earlier press whose answer from Slack was lost


async def _share(
    config: Config, client: AsyncWebClient, record: AnswerRecord, *, first: bool
) -> _Shared | None:
    """Post the copy, once: None when it surely is not in the channel (logged).

    The post is not retried blind (replies.post_once); after a failure that may have posted
    it all the same, and before posting for a claim taken over from a press that ended so,
    the channel is read for the copy's metadata. Raises replies.Unknown when Slack cannot
    tell: the caller then leaves the claim to lapse rather than risk a second copy, and the
    next press looks again."""
    if not first:
        found = await _posted_copy(client, record)
        if found is not None:
            return _Shared(found, found=True)
    message = shared(render_offering_help(config, record.answer), record.asker)
    ts = await post_once(
        client, lambda: _posted_copy(client, record), f"the shared copy of answer {record.id}",
        channel=record.channel, metadata=_share_metadata(record), **post_kwargs(message),
    )  # fmt: skip
    return None if ts is None else _Shared(ts, found=False)


def _share_metadata(record: AnswerRecord) -> dict[str, Any]:
    return {"event_type": SHARED_EVENT_TYPE, "event_payload": {"answer_ts": record.reply_ts}}


async def _posted_copy(client: AsyncWebClient, record: AnswerRecord) -> str | None:
    return await find_posted(
        client, record.channel, None, record.reply_ts,
        has_metadata(SHARED_EVENT_TYPE, {"answer_ts": record.reply_ts}),
        f"the shared copy of answer {record.id}",
    )  # fmt: skip


async def _save_shared(deps: ListenerDeps, record: AnswerRecord, posted: _Shared) -> None:
    """The shared message is an answer of its own: reactions and buttons on it count. Saved
    once: only a copy found again may have been saved already, by the press that posted it, so
    only then is the store read first."""
    ts = posted.ts
    copy = AnswerRecord(
        team=record.team, channel=record.channel, thread_ts=ts, reply_ts=ts,
        question_ts=record.question_ts, asker=record.asker, question=record.question,
        answer=record.answer, created=deps.now().isoformat(),
    )  # fmt: skip
    try:
        find = deps.store.find_answer
        if posted.found and await asyncio.to_thread(find, copy.team, copy.channel, ts) is not None:
            return
        await asyncio.to_thread(deps.store.save_answer, copy)
    except Exception:
        log_failure(log, "storing the shared answer %s failed", ts)
