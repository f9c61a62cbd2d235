"""Reactions on docbot's answers become feedback: a wrong-mark is thanked once and invites a
reason; removing the reaction retracts it. Each reaction event changes feedback at most once.
Its event is claimed, with the reaction, before the ack (bot/marks.py), and resolved after it,
or by a resume sweep when the process handling it died (bot/resume.py).
"""

from __future__ import annotations

import asyncio
import functools
import json
import logging
from collections.abc import Coroutine
from dataclasses import asdict, dataclass

from slack_sdk.web.async_client import AsyncWebClient

from bot.deps import ListenerDeps
from bot.escalation import help_offer
from bot.events import Reaction
from bot.failures import log_failure
from bot.leases import Lease
from bot.marks import before_ack
from bot.pending_marks import PENDING_SECONDS, Kept, MessageKey, PendingMark, key_of
from bot.render.feedback import thanks_for_wrong
from bot.replies import Unknown, answer_thread, reply_question, tell
from bot.store import AnswerRecord, Claim, EventKey, StoreUnavailable, staged_reply_ts
from bot.store.reaction_order import event_order
from bot.webapi import retry_after, unwaited
from retrieval.config import Config

log = logging.getLogger("docbot.slack")


def reaction_payload(reaction: Reaction, bot_user_id: str | None, *, added: bool) -> str:
    """The reaction as its event's claim keeps it (bot/marks.py), to resolve it without Slack."""
    fields = asdict(reaction) | {"added": added, "bot_user_id": bot_user_id}
    return json.dumps(fields, ensure_ascii=False, sort_keys=True)


def reaction_from_payload(payload: str) -> tuple[Reaction, str | None, bool] | None:
    """(reaction, bot_user_id, added) as `reaction_payload` wrote them; None when the text is
    not that (written by another version, say)."""
    try:
        fields = json.loads(payload)
        added, bot_user_id = bool(fields.pop("added")), fields.pop("bot_user_id")
        return Reaction(**fields), bot_user_id, added
    except (ValueError, TypeError, KeyError, AttributeError):
        return None


async def feedback_reaction(
    deps: ListenerDeps, reaction: Reaction | None, bot_user_id: str | None
) -> Reaction | None:
    """The reaction when it is feedback (a configured emoji, not docbot's own), else None."""
    if reaction is None or reaction.user == bot_user_id:
        return None
    config = (await deps.runtime.current()).config
    return reaction if _feedback_kind(config, reaction.emoji) is not None else None


async def record_reaction(
    deps: ListenerDeps, reaction: Reaction, bot_user_id: str | None, *, added: bool
) -> asyncio.Future[Claim]:
    """Before the ack: the reaction's event claimed, with the reaction as its payload."""
    payload = reaction_payload(reaction, bot_user_id, added=added)
    claim = asyncio.to_thread(deps.store.claim, EventKey(reaction.event_id), deps.owner, payload)
    late = functools.partial(deps.metrics.mark_late, "reaction")
    return await before_ack(claim, f"reaction event {reaction.event_id}", deps.clock, late)


async def handle_reaction(
    deps: ListenerDeps, client: AsyncWebClient, reaction: Reaction | None,
    bot_user_id: str | None, *, added: bool, recorded: asyncio.Future[Claim] | None = None,
) -> None:  # fmt: skip
    """Feedback on docbot's own answers only, from the configured emoji sets; idempotent.
    `recorded`: the claim record_reaction made before the ack (None: claimed here)."""
    if reaction is None or reaction.user == bot_user_id:
        return
    config = (await deps.runtime.current()).config
    kind = _feedback_kind(config, reaction.emoji)
    if kind is None:
        return
    try:
        claim = await recorded if recorded is not None else None
    except Exception:
        log_failure(log, "recording reaction event %s before its ack failed", reaction.event_id)
        claim = None  # claimed again below
    try:
        await _record_feedback(deps, client, reaction, kind, bot_user_id, added, claim)
    except StoreUnavailable:
        if claim is None:  # else the store logs its outage once; a later sweep resolves it
            log.warning("reaction event %s on %s/%s is lost: the answer store cannot be reached",
                        reaction.event_id, reaction.channel, reaction.ts)  # fmt: skip
    except Exception:
        # Runs after the ack: nobody waits on it, so log rather than let Bolt swallow it.
        log.exception(
            "recording reaction event %s on %s/%s failed",
            reaction.event_id, reaction.channel, reaction.ts,
        )  # fmt: skip


async def _record_feedback(
    deps: ListenerDeps, client: AsyncWebClient, reaction: Reaction, kind: str,
    bot_user_id: str | None, added: bool, claim: Claim | None,
) -> None:  # fmt: skip
    # The event's claim, with the reaction, comes first (before the ack, or here): a process
    # that dies from here on leaves it for a sweep to resolve (bot/resume.py).
    key = EventKey(reaction.event_id)
    if claim is None:
        payload = reaction_payload(reaction, bot_user_id, added=added)
        claim = await asyncio.to_thread(deps.store.claim, key, deps.owner, payload)
    if not claim.granted:
        log.info("reaction event %s was already handled", reaction.event_id)
        return
    if deps.marks.waiting(key_of(reaction)):
        # Behind the reactions kept for the message: a removal counted before the mark it
        # takes back would retract nothing and leave that mark to count after it.
        found: AnswerRecord | _Later | None = _Later(False, "reactions on it are kept already")
    else:
        found = await _reacted_to(deps, client, reaction, bot_user_id)
    if isinstance(found, _Later):
        # Its claim stays open: were this process to die, a sweep would resolve it.
        mark = PendingMark(reaction, kind, added, client, bot_user_id, deps.clock.now())
        key_kept = deps.marks.keep(mark, known=found.known, read_after=found.read_after)
        log.info("reaction event %s on %s/%s: %s; kept until its answer is stored",
                 reaction.event_id, reaction.channel, reaction.ts, found.why)  # fmt: skip
        # The run may have stored the answer while Slack was being read: look once more.
        await count_pending(deps, key_kept, read=False)
        return
    if found is None or found.id is None:
        await asyncio.to_thread(deps.store.finish, key)  # not a docbot answer: nothing to do
        return
    await _count(deps, client, reaction, kind, found, bot_user_id, added=added, claim=claim)


async def _count(
    deps: ListenerDeps, client: AsyncWebClient, reaction: Reaction, kind: str,
    record: AnswerRecord, bot_user_id: str | None, *, added: bool, claim: Claim | None = None,
) -> None:  # fmt: skip
    """Count one reaction event for `record`, once (its claim in the ledger; `claim`: what
    this run's claim found, else it is claimed here)."""
    store = deps.store
    assert record.id is not None
    # A redelivered reaction_added after its reaction_removed would otherwise mark it again.
    key = EventKey(reaction.event_id)
    if claim is None:
        claim = await asyncio.to_thread(store.claim, key, deps.owner)
        if claim is Claim.BUSY and await asyncio.to_thread(store.renew, key, deps.owner):
            claim = Claim.NEW  # this process's own claim: a mark it kept pending
    if not claim.granted:
        log.info("reaction event %s was already handled", reaction.event_id)
        return
    if event_order(reaction.event_ts) is None:
        # A claim an older docbot recorded keeps no time; its `seen` is when docbot got it, not
        # when Slack made it, and ordering by it could put a removal before its own mark.
        log.warning("reaction event %s on %s/%s has no event time (recorded by an older docbot): "
                    "counted in the order it is resolved, not the order Slack made it; if it was "
                    "removed (or added) again on another replica meanwhile, check the answer's "
                    "marks with docbot feedback", reaction.event_id, reaction.channel,
                    reaction.ts)  # fmt: skip
    async with Lease(store, key, deps.owner, claim, deps.renew_every) as lease:
        if added:
            resumed = claim is Claim.TAKEN_OVER
            await _add_feedback(deps, client, reaction, kind, record, bot_user_id, resumed)
        else:
            await _retract_feedback(deps, reaction, kind, record.id)
        await lease.finish()


async def count_pending(deps: ListenerDeps, key: MessageKey, *, read: bool = True) -> None:
    """Count the reactions kept for the message `key` once the store knows its answer, in the
    order they came; `read`: Slack may be asked about a message it could not be asked about
    before (once its Retry-After has passed). Still not known: kept again (dropped, logged,
    after PENDING_SECONDS)."""
    async with deps.marks.resolving(key):
        kept = deps.marks.take(key)
        if not kept.marks:
            return
        reading = read and not kept.known and deps.clock.now() >= kept.read_after
        try:
            found = await _answer_of(deps, key, kept.marks[0], read=reading)
        except StoreUnavailable:
            deps.marks.put_back(key, kept)
            raise
        if isinstance(found, _Later) or (found is None and not reading):
            if isinstance(found, _Later):
                kept.known, kept.read_after = found.known, max(kept.read_after, found.read_after)
            _keep_unexpired(deps, key, kept)
            return
        if found is None or found.id is None:
            log.info("the message %s/%s reacted to is not one of docbot's answers: %d reaction "
                     "event(s) dropped", key.channel, key.ts, len(kept.marks))  # fmt: skip
            for mark in kept.marks:  # their claims are done: nothing to resolve after a crash
                await asyncio.to_thread(deps.store.finish, EventKey(mark.reaction.event_id))
            return
        for done, mark in enumerate(kept.marks):
            try:
                await _count(deps, mark.client, mark.reaction, mark.kind, found,
                             mark.bot_user_id, added=mark.added)  # fmt: skip
            except StoreUnavailable:
                deps.marks.put_back(key, Kept(kept.marks[done:], known=True))
                return
        log.info("counted %d reaction event(s) kept for %s/%s", len(kept.marks), key.channel,
                 key.ts)  # fmt: skip


async def count_kept(deps: ListenerDeps, team: str, channel: str, ts: str) -> None:
    """Reactions kept for the reply `ts` (the run posting it has just stored its answer) count
    now; a failure is logged, never the reply's."""
    key = MessageKey(team, channel, ts)
    if not deps.marks.has(key):
        return
    try:
        await count_pending(deps, key, read=False)
    except StoreUnavailable:
        pass  # the store logs its outage once; the marks are kept for the next sweep
    except Exception:
        log.exception("counting the reactions kept for %s/%s failed", channel, ts)


async def _answer_of(
    deps: ListenerDeps, key: MessageKey, first: PendingMark, *, read: bool
) -> AnswerRecord | _Later | None:
    if read:
        return await _reacted_to(deps, first.client, first.reaction, first.bot_user_id)
    return await asyncio.to_thread(deps.store.find_answer, key.team, key.channel, key.ts)


async def renew_kept(deps: ListenerDeps) -> None:
    """The claims of the reactions kept here renewed (a sweep's part, every third of a lease):
    while this process lives they do not lapse, for another replica's sweep to take over and
    ask Slack again what this one is waiting on."""
    for event_id in deps.marks.event_ids():
        await asyncio.to_thread(deps.store.renew, EventKey(event_id), deps.owner)


def count_pending_later(deps: ListenerDeps) -> int:
    """Start counting every message's kept reactions (a sweep's part, bot/resume.py): each in
    a run of its own, as a read of Slack may take its retries' time (a 5xx's backoff); how many
    were started."""
    started = 0
    for key in deps.marks.messages():
        if not deps.marks.busy(key):
            deps.in_flight.start(_logged(count_pending(deps, key), key))
            started += 1
    return started


async def _logged(run: Coroutine[object, object, None], key: MessageKey) -> None:
    try:
        await run
    except StoreUnavailable:
        pass  # the store logs its outage once; what was taken is put back by count_pending
    except Exception:
        log.exception("counting the reactions kept for %s/%s failed", key.channel, key.ts)


def _keep_unexpired(deps: ListenerDeps, key: MessageKey, kept: Kept) -> None:
    now = deps.clock.now()
    fresh = [m for m in kept.marks if now - m.since < PENDING_SECONDS]
    if len(fresh) < len(kept.marks):
        log.warning("%d reaction event(s) on %s/%s dropped: its answer was not known after %d s",
                    len(kept.marks) - len(fresh), key.channel, key.ts,
                    PENDING_SECONDS)  # fmt: skip
    kept.marks = fresh
    deps.marks.put_back(key, kept)


@dataclass(frozen=True, slots=True)
class _Later:
    """The message is (`known`) or may be docbot's reply, with no answer stored for it yet;
    `read_after`: when Slack may be asked about it again (a 429's Retry-After)."""

    known: bool
    why: str
    read_after: float = 0.0


async def _reacted_to(
    deps: ListenerDeps, client: AsyncWebClient, reaction: Reaction, bot_user_id: str | None
) -> AnswerRecord | _Later | None:
    """The answer on the message reacted to: found by the message's ts; or, for a message of
    docbot's the store does not know by its ts, by the question its reply metadata names.

    That is a reply reacted to in the moment between Slack posting it and its run marking the
    staged answer posted (bot/questions.py _reply). The message, read back from Slack, names its
    question; the answer staged for that question is the message's, and is marked posted here.
    Any replica can do this (the thread and the store are shared), and the run that posted it
    finds it marked. A stream still being written (its marker, no metadata yet), or a message
    Slack cannot be read for: _Later, as its answer may yet be stored. Not a reply (a note of
    docbot's): None."""
    store, team, channel = deps.store, reaction.team, reaction.channel
    record = await asyncio.to_thread(store.find_answer, team, channel, reaction.ts)
    if record is not None or bot_user_id is None or reaction.item_user != bot_user_id:
        return record
    try:
        # A 429 is not waited out here: the mark is kept, and Slack asked after its Retry-After.
        reply = await reply_question(unwaited(client), channel, reaction.ts)
    except Unknown as exc:
        wait = retry_after(exc.__cause__) or 0.0
        return _Later(False, "Slack could not be asked which question it answers",
                      deps.clock.now() + wait)  # fmt: skip
    if reply is None:
        return None
    staged = await asyncio.to_thread(
        store.find_answer, team, channel, staged_reply_ts(reply.question_ts)
    )
    if staged is not None:
        log.info("reaction event %s is on the reply %s, whose answer was not yet marked posted: "
                 "marking it", reaction.event_id, reaction.ts)  # fmt: skip
        await asyncio.to_thread(store.mark_posted, team, channel, reply.question_ts, reaction.ts)
    found = await asyncio.to_thread(store.find_answer, team, channel, reaction.ts)
    if found is None and not reply.finished:
        return _Later(True, "it is a stream still being written")
    return found


async def _add_feedback(
    deps: ListenerDeps, client: AsyncWebClient, reaction: Reaction, kind: str,
    record: AnswerRecord, bot_user_id: str | None, resumed: bool,
) -> None:  # fmt: skip
    """`resumed`: this event's claim was taken over from a run that died after its ack, which
    Slack redelivers only when the ack did not reach it."""
    store, user, answer_id = deps.store, reaction.user, record.id
    assert answer_id is not None
    before = await asyncio.to_thread(store.wrong_count, answer_id)
    at, emoji, event_ts = deps.now().isoformat(), reaction.emoji, reaction.event_ts
    add = functools.partial(store.add_feedback, event_ts=event_ts)
    new = await asyncio.to_thread(add, answer_id, user, kind, emoji, at)
    if new:
        deps.metrics.feedback(kind, added=True)
    if kind != "wrong":
        return
    # Thank (and invite a reason from) each person once, on their first wrong-mark. A mark its
    # dead run stored may never have been thanked: thanked now, as a second thank-you is the
    # lesser harm than an invitation nobody saw; unless the mark is not there, as a removal
    # made after it was counted first (by another replica: bot/store/reaction_order.py).
    first = new and await asyncio.to_thread(store.wrong_count, answer_id) > before
    stored = resumed and not new and await asyncio.to_thread(store.has_feedback, answer_id,
                                                              user, emoji)  # fmt: skip
    if first or stored:
        await asyncio.to_thread(store.invite_reason, answer_id, user)
        await _thank_for_wrong(deps, client, record, user, bot_user_id)


async def _retract_feedback(
    deps: ListenerDeps, reaction: Reaction, kind: str, answer_id: int
) -> None:
    # Retracting the user's last wrong-mark also withdraws their invitation (in the store).
    # A removal that finds nothing is remembered by its event time all the same: a mark made
    # before it, kept pending on another replica, then changes nothing when counted.
    remove = functools.partial(deps.store.remove_feedback, event_ts=reaction.event_ts)
    if await asyncio.to_thread(remove, answer_id, reaction.user, reaction.emoji):
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
