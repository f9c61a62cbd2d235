"""Reactions on docbot's answers become feedback: a wrong-mark is thanked once and invites a
reason; removing the reaction retracts it. Each reaction event changes feedback at most once.
"""

from __future__ import annotations

import asyncio
import logging

from slack_sdk.web.async_client import AsyncWebClient

from bot.deps import ListenerDeps
from bot.escalation import help_offer
from bot.events import Reaction
from bot.leases import Lease
from bot.render.feedback import thanks_for_wrong
from bot.replies import Unknown, answer_thread, reply_question, tell
from bot.store import AnswerRecord, Claim, EventKey, StoreUnavailable, staged_reply_ts
from retrieval.config import Config

log = logging.getLogger("docbot.slack")


async def handle_reaction(
    deps: ListenerDeps, client: AsyncWebClient, reaction: Reaction | None,
    bot_user_id: str | None, *, added: bool,
) -> None:  # fmt: skip
    """Feedback on docbot's own answers only, from the configured emoji sets; idempotent."""
    if reaction is None or reaction.user == bot_user_id:
        return
    config = (await deps.runtime.current()).config
    kind = _feedback_kind(config, reaction.emoji)
    if kind is None:
        return
    try:
        await _record_feedback(deps, client, reaction, kind, bot_user_id, added=added)
    except StoreUnavailable:
        pass  # the store logs its outage once; a mark made meanwhile cannot be kept
    except Exception:
        # Runs after the ack: nobody waits on it, so log rather than let Bolt swallow it.
        log.exception(
            "recording reaction event %s on %s/%s failed",
            reaction.event_id, reaction.channel, reaction.ts,
        )  # fmt: skip


async def _record_feedback(
    deps: ListenerDeps, client: AsyncWebClient, reaction: Reaction, kind: str,
    bot_user_id: str | None, *, added: bool,
) -> None:  # fmt: skip
    store = deps.store
    record = await _reacted_to(deps, client, reaction, bot_user_id)
    if record is None or record.id is None:
        return  # not a docbot answer
    # A redelivered reaction_added after its reaction_removed would otherwise mark it again.
    key = EventKey(reaction.event_id)
    claim = await asyncio.to_thread(store.claim, key, deps.owner)
    if not claim.granted:
        log.info("reaction event %s was already handled", reaction.event_id)
        return
    async with Lease(store, key, deps.owner, claim, deps.renew_every) as lease:
        if added:
            resumed = claim is Claim.TAKEN_OVER
            await _add_feedback(deps, client, reaction, kind, record, bot_user_id, resumed)
        else:
            await _retract_feedback(deps, reaction, kind, record.id)
        await lease.finish()


async def _reacted_to(
    deps: ListenerDeps, client: AsyncWebClient, reaction: Reaction, bot_user_id: str | None
) -> AnswerRecord | None:
    """The answer on the message reacted to: found by the message's ts; or, for a message of
    docbot's the store does not know by its ts, by the question its reply metadata names.

    That is a reply reacted to in the moment between Slack posting it and its run marking the
    staged answer posted (bot/questions.py _reply). The message, read back from Slack, names its
    question; the answer staged for that question is the message's, and is marked posted here.
    Any replica can do this (the thread and the store are shared), and the run that posted it
    finds it marked. Not a reply (a note of docbot's), or Slack cannot be read: None."""
    store, team, channel = deps.store, reaction.team, reaction.channel
    record = await asyncio.to_thread(store.find_answer, team, channel, reaction.ts)
    if record is not None or bot_user_id is None or reaction.item_user != bot_user_id:
        return record
    try:
        question_ts = await reply_question(client, channel, reaction.ts)
    except Unknown:
        return None
    if question_ts is None:
        return None
    staged = await asyncio.to_thread(store.find_answer, team, channel, staged_reply_ts(question_ts))
    if staged is not None:
        log.info("reaction event %s is on the reply %s, whose answer was not yet marked posted: "
                 "marking it", reaction.event_id, reaction.ts)  # fmt: skip
        await asyncio.to_thread(store.mark_posted, team, channel, question_ts, reaction.ts)
    return await asyncio.to_thread(store.find_answer, team, channel, reaction.ts)


async def _add_feedback(
    deps: ListenerDeps, client: AsyncWebClient, reaction: Reaction, kind: str,
    record: AnswerRecord, bot_user_id: str | None, resumed: bool,
) -> None:  # fmt: skip
    """`resumed`: this event's claim was taken over from a run that died after its ack, which
    Slack redelivers only when the ack did not reach it."""
    store, user, answer_id = deps.store, reaction.user, record.id
    assert answer_id is not None
    before = await asyncio.to_thread(store.wrong_count, answer_id)
    at = deps.now().isoformat()
    new = await asyncio.to_thread(store.add_feedback, answer_id, user, kind, reaction.emoji, at)
    if new:
        deps.metrics.feedback(kind, added=True)
    if kind != "wrong":
        return
    # Thank (and invite a reason from) each person once, on their first wrong-mark. A mark its
    # dead run stored may never have been thanked: thanked now, as a second thank-you is the
    # lesser harm than an invitation nobody saw.
    first = new and await asyncio.to_thread(store.wrong_count, answer_id) > before
    if first or (resumed and not new):
        await asyncio.to_thread(store.invite_reason, answer_id, user)
        await _thank_for_wrong(deps, client, record, user, bot_user_id)


async def _retract_feedback(
    deps: ListenerDeps, reaction: Reaction, kind: str, answer_id: int
) -> None:
    # Retracting the user's last wrong-mark also withdraws their invitation (in the store).
    store = deps.store
    if await asyncio.to_thread(store.remove_feedback, answer_id, reaction.user, reaction.emoji):
        deps.metrics.feedback(kind, added=False)


async def _thank_for_wrong(
    deps: ListenerDeps, client: AsyncWebClient, record: AnswerRecord, user: str,
    bot_user_id: str | None,
) -> None:  # fmt: skip
    config = (await deps.runtime.current()).config
    thanks = thanks_for_wrong(bot_user_id, help_offer(config, record))
    await tell(client, record.channel, answer_thread(record), user, thanks)


def _feedback_kind(config: Config, emoji: str) -> str | None:
    if emoji in config.feedback.wrong:
        return "wrong"
    if emoji in config.feedback.helpful:
        return "helpful"
    return None
