"""A person's question to docbot, answered exactly once: claimed as a lease, answered, posted
in the thread, stored, and only then marked done (bot/store/event_ledger.py EventLedger).

Glue only: validate, claim, resolve the scope, call the pipeline, render, post, store. Every
handler runs after Bolt has acknowledged the event, so each one tells the user something rather
than letting an exception end in silence.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Callable

from slack_sdk.web.async_client import AsyncWebClient

from bot.deps import ListenerDeps
from bot.escalation import render_offering_help
from bot.events import Turn
from bot.failures import log_failure
from bot.leases import Lease
from bot.live import Live, ask
from bot.reactions import count_kept
from bot.render import Message, render_help, render_input_error
from bot.render.answers import render_internal_error, render_too_long
from bot.render.commands import shareable
from bot.render.feedback import naming_question, thread_reason_failed, thread_reason_saved
from bot.render.live import stream_tail
from bot.replies import cosmetic_client, post, unposted
from bot.store import AnswerRecord, AnswerStore, Claim, MentionKey, StoreUnavailable
from bot.streaming import LiveReply
from bot.takeover import Later, Unread, defer_takeover, earlier_reply, finish_in_place
from bot.thread_context import question_scope
from bot.working import Working
from grounding.answer import Answer
from grounding.progress import Report, ignore
from retrieval.errors import InputError
from retrieval.query import MAX_QUESTION_CHARS, check_question
from retrieval.scopes import ConversationKind, Scope

log = logging.getLogger("docbot.slack")


async def claim_before_ack(deps: ListenerDeps, turn: Turn) -> Claim | None:
    """Claim a question, with its message, before Bolt acknowledges its delivery: Slack never
    delivers an acknowledged event again, so from the ack on the ledger must hold it (a process
    killed a moment later leaves a claim that the next one resumes, bot/resume.py).

    Other teams' requests never get here (bot/teams.py). None when the store failed (logged):
    the listener then claims as usual, and tells the asker if that fails too. StoreUnavailable
    when the store cannot be reached (it logs its outage once): the caller decides whether to
    refuse the delivery for Slack to deliver again (bot/listeners.py)."""
    try:
        return await asyncio.to_thread(deps.store.claim, _key(turn), deps.owner, turn.to_payload())
    except StoreUnavailable:
        raise
    except Exception:
        log.exception("claiming event %s before its ack failed", turn.event_id)
        return None


async def handle_turn(
    deps: ListenerDeps, client: AsyncWebClient, turn: Turn, claim: Claim | None = None
) -> None:
    """One question, answered at most once across redeliveries, restarts and crashes; `claim`
    is what claim_before_ack found, when it ran.

    Config, answerer and policy are read once, here, so the whole turn uses one consistent set
    (a reload of docbot.yml or the index applies from the next question); the turn holds them,
    so an answerer a reload replaces is closed only once it has ended (LiveRuntime.hold)."""
    async with deps.runtime.hold() as live:
        await _handle(deps, live, client, turn, claim)


async def _handle(
    deps: ListenerDeps, live: Live, client: AsyncWebClient, turn: Turn, claim: Claim | None
) -> None:
    if turn.team not in live.config.teams:
        # Deliveries of other teams stop at bot/teams.py; this is for a resumed claim whose
        # team docbot.yml no longer serves.
        log.info("ignoring event %s from unconfigured team %s", turn.event_id, turn.team)
        return
    lease: Lease | None = None
    try:
        lease = await claim_turn(deps, client, turn, claim)
        if lease is not None:
            async with lease:
                await _respond(deps, live, client, turn, lease)
    except Exception:
        # The edge catches broadly (a locked database included) so the asker always hears
        # back, unless the reply is already out; the traceback is logged.
        log.exception("handling event %s in %s failed", turn.event_id, turn.channel)
        if lease is None or not lease.posting:
            await post(client, turn, render_internal_error())


async def claim_turn(
    deps: ListenerDeps, client: AsyncWebClient, turn: Turn, claim: Claim | None = None
) -> Lease | None:
    """The lease on this message, or None when it is answered or being answered.

    Never trusts the retry header (Socket Mode says 0 on a first delivery): asks the store,
    unless `claim` says what it answered already. A run taken over first looks for the reply
    its last owner may have posted, in the answer log, then the thread: an owner that began
    posting (UNSURE), or one that lost the store and posted without saying so (TAKEN_OVER);
    when Slack's rate limit keeps the thread from being read, the claim is deferred past the
    Retry-After (bot/takeover.defer_takeover) and None returned.
    When the store cannot be reached at all the question is answered without a claim: Slack
    delivers an acknowledged event only once, so waiting would lose it."""
    key = _key(turn)
    if claim is None:
        try:
            claim = await asyncio.to_thread(deps.store.claim, key, deps.owner, turn.to_payload())
        except StoreUnavailable:
            return Lease(deps.store, key, deps.owner, None, deps.renew_every)
    if not claim.granted:
        deps.metrics.delivery_dropped(claim.value)
        log.info(
            "message %s/%s is %s (event %s)", turn.channel, turn.ts,
            "answered" if claim is Claim.DONE else "being answered", turn.event_id,
        )  # fmt: skip
        return None
    lease = Lease(deps.store, key, deps.owner, claim, deps.renew_every)
    if claim in (Claim.UNSURE, Claim.TAKEN_OVER):
        earlier = await earlier_reply(deps.store, client, turn)
        if isinstance(earlier, Later):
            if await defer_takeover(lease, turn, earlier):
                deps.metrics.delivery_dropped("rate_limited")
                return None
            deps.metrics.takeover_unchecked("rate_limited")
            earlier = None
        elif isinstance(earlier, Unread):
            deps.metrics.takeover_unchecked("unreadable")
            earlier = None
        if earlier is not None and earlier.unfinished:
            log.info("event %s: finishing the stream %s its stopped run left cut off",
                     turn.event_id, earlier.ts)  # fmt: skip
            lease.cut_stream, lease.cut_answer = earlier.ts, earlier.record
        elif earlier is not None:
            log.info("event %s was answered (reply %s) before its run stopped", turn.event_id,
                     earlier.ts)  # fmt: skip
            # The answer its run staged is marked posted here when that run died first; if the
            # store fails, the claim lapses unfinished and a later run marks it.
            if await _mark_posted(deps.store, turn, earlier.ts):
                await lease.finish(earlier.ts)
            deps.metrics.delivery_dropped("posted")
            return None
    if claim is Claim.TAKEN_OVER:
        log.info("event %s: taking over from a run that stopped before replying", turn.event_id)
    return lease


def _key(turn: Turn) -> MentionKey:
    return MentionKey(turn.team, turn.channel, turn.ts)


async def _respond(
    deps: ListenerDeps, live: Live, client: AsyncWebClient, turn: Turn, lease: Lease
) -> None:
    if lease.cut_stream is not None and lease.cut_answer is not None:
        # Its run stored the answer before the stream's end: written in whole, not asked again.
        message = render_offering_help(live.config, lease.cut_answer.answer)
        message = Message(message.text, naming_question(message.blocks, turn.ts))
        if await lease.begin_post():
            reply_ts = await finish_in_place(client, turn, lease.cut_stream, message)
            if reply_ts is not None:
                await lease.finish(reply_ts)
        return
    if turn.in_thread and await record_reason(deps, client, turn, lease):
        return
    scope = await question_scope(deps, live, client, turn)
    if not turn.text:
        unverified = scope.kind is ConversationKind.UNKNOWN
        help_reply = render_help(
            scope.collections, live.config.feedback, unverified=unverified, command=turn.ephemeral
        )
        await _reply(deps, client, turn, lease, help_reply)
        return
    if turn.ephemeral:
        # Only the asker sees the answer: no message to show a status or an :eyes: on.
        message, answer = await _answer(deps, live, turn, scope, ignore)
        await _reply(deps, client, turn, lease, shareable(message) if answer else message, answer)
        return
    async with Working(cosmetic_client(client), turn, deps.status) as working:
        # A run taking over never streams: whatever the first run showed must not show twice.
        reply = LiveReply(client, turn, lease, working, deps.streams,
                          enabled=lease.claim is Claim.NEW)  # fmt: skip
        message, answer = await _answer(deps, live, turn, scope, reply.report)
        message = Message(message.text, naming_question(message.blocks, turn.ts))
        await reply.drain()
        await working.stop()
        if reply.started:
            working.posted = await _end_stream(deps, live, turn, lease, reply, message, answer)
        elif reply.may_post:
            working.posted = await _reply(deps, client, turn, lease, message, answer) is not None


async def _end_stream(
    deps: ListenerDeps, live: Live, turn: Turn, lease: Lease, reply: LiveReply, message: Message,
    answer: Answer | None,
) -> bool:  # fmt: skip
    """The streamed message ends with the sources and controls (or, if answering failed after it
    started, with the error); the answer is stored and the claim done, as after a post."""
    if answer is not None and answer.claims:
        tail = naming_question(stream_tail(answer, live.config.feedback), turn.ts)
    else:
        tail = message.blocks
    if not await lease.begin_post():
        return False  # taken over (this run had stalled): the new owner finishes the message
    if answer is not None and reply.ts is not None:
        # Stored before the stop adds the feedback buttons: a press on them finds it.
        await _save(deps, turn, answer, reply.ts)
    reply_ts = await reply.finish(message, tail)
    if reply_ts is not None:
        await count_kept(deps, turn.team, turn.channel, reply_ts)  # reacted to while streamed
    await lease.finish(reply_ts)
    return True


async def _reply(
    deps: ListenerDeps, client: AsyncWebClient, turn: Turn, lease: Lease, message: Message,
    answer: Answer | None = None,
) -> str | None:  # fmt: skip
    """Store the answer, post, mark the answer posted, then the claim done; the reply's ts.

    The answer is stored (staged) before the post, so a run killed just after posting leaves it
    for the run taking the question over to mark (claim_turn); until it is marked (just after
    Slack answers the post) a reaction or a button on the reply finds no answer. A failed post
    leaves the claim open (released on exit) so a redelivery tries again; the answer stays
    stored, unposted. So does a post whose answer could not be marked: its next owner finds the
    reply and marks it."""
    if not await lease.begin_post():
        return None
    message = Message(message.text, naming_question(message.blocks, turn.ts))
    staged = answer is not None and await _stage(deps, turn, answer)
    if lease.cut_stream is not None:
        reply_ts = await finish_in_place(client, turn, lease.cut_stream, message)
    else:
        reply_ts = await post(client, turn, message)
    if reply_ts is None:
        return None
    if answer is not None and not staged:
        await _save(deps, turn, answer, reply_ts)  # staging failed: stored the old way
    elif staged and not await _mark_posted(deps.store, turn, reply_ts):
        return reply_ts
    await count_kept(deps, turn.team, turn.channel, reply_ts)  # reacted to before it was marked
    await lease.finish(reply_ts)
    return reply_ts


async def handle_reason_only(deps: ListenerDeps, client: AsyncWebClient, turn: Turn) -> None:
    """A channel thread reply seen as `message`: record it if it is an awaited reason, else leave
    it unclaimed for the app_mention delivery of the same message."""
    try:
        if await _pending_reason(deps.store, turn) is None:
            return
        lease = await claim_turn(deps, client, turn)
        if lease is not None:
            async with lease:
                await record_reason(deps, client, turn, lease)
    except Exception:
        # Not known to be a reason, so no reply: the app_mention delivery answers the person.
        log.exception("handling thread reply %s in %s failed", turn.event_id, turn.channel)


async def _answer(
    deps: ListenerDeps, live: Live, turn: Turn, scope: Scope, report: Report
) -> tuple[Message, Answer | None]:
    if len(turn.text) > MAX_QUESTION_CHARS:
        # check_question's own words are for the command line; in Slack, say what to change.
        deps.metrics.not_answered("input_error")
        return render_too_long(len(turn.text), MAX_QUESTION_CHARS), None
    try:
        question = check_question(turn.text)
    except InputError as exc:
        deps.metrics.not_answered("input_error")
        return render_input_error(str(exc)), None
    try:
        context: tuple[str, ...] = ()
        if turn.in_thread:
            # Without the store, answered as a question of its own: better than no answer.
            with contextlib.suppress(StoreUnavailable):
                context = await asyncio.to_thread(
                    deps.store.thread_questions, turn.team, turn.channel, turn.reply_thread
                )
        started = time.perf_counter()
        answer = await ask(live.answerer, question, scope, context, turn.user, report)
        deps.metrics.answered(answer, time.perf_counter() - started)
        return render_offering_help(live.config, answer), answer
    except Exception:
        # The edge catches broadly so the asker always hears back; the traceback is logged.
        log.exception("answering event %s in %s failed", turn.event_id, turn.channel)
        deps.metrics.not_answered("error")
        return render_internal_error(), None


def _record(deps: ListenerDeps, turn: Turn, answer: Answer, reply_ts: str) -> AnswerRecord:
    return AnswerRecord(
        team=turn.team, channel=turn.channel, thread_ts=turn.reply_thread, reply_ts=reply_ts,
        question_ts=turn.ts, asker=turn.user, question=answer.question,
        answer=answer, created=deps.now().isoformat(),
    )  # fmt: skip


async def _stage(deps: ListenerDeps, turn: Turn, answer: Answer) -> bool:
    """Store the answer under its question's marker (no Slack ts equals it, so nothing finds it
    as a reply until it is marked posted); kept even when the post then fails, as evidence of
    what happened. False when the store failed (logged): the reply is posted all the same."""
    record = _record(deps, turn, answer, unposted(turn))
    return await _stored(turn, "storing the answer", deps.store.stage_answer, record)


async def _mark_posted(store: AnswerStore, turn: Turn, reply_ts: str) -> bool:
    """The staged answer is the reply `reply_ts` now; False when the store failed (logged)."""
    if reply_ts == unposted(turn):
        return True  # a private reply that may not have arrived: it stays unposted
    return await _stored(
        turn, "marking the answer posted", store.mark_posted,
        turn.team, turn.channel, turn.ts, reply_ts,
    )  # fmt: skip


async def _save(deps: ListenerDeps, turn: Turn, answer: Answer, reply_ts: str) -> None:
    """Store the answer under its posted reply (the reply itself is in the thread either way)."""
    record = _record(deps, turn, answer, reply_ts)
    await _stored(turn, "storing the answer", deps.store.save_answer, record)


async def _stored(turn: Turn, doing: str, call: Callable[..., object], *args: object) -> bool:
    """Run one answer-log write off the event loop; False when the store failed. An outage is
    logged once by the store itself; anything else is logged here with the event it was for."""
    try:
        await asyncio.to_thread(call, *args)
    except StoreUnavailable:
        return False
    except Exception:
        log.exception("%s to event %s failed", doing, turn.event_id)
        return False
    return True


async def record_reason(
    deps: ListenerDeps, client: AsyncWebClient, turn: Turn, lease: Lease
) -> bool:
    """True when this thread reply is the reason its author was invited to give after a :x:."""
    if not turn.text:
        return False
    answer_id = await _pending_reason(deps.store, turn)
    if answer_id is None:
        if lease.claim in (Claim.TAKEN_OVER, Claim.UNSURE) and await _reason_given(deps, turn):
            # Its last run stored it (which answered the invitation) and died before saying so.
            await _reply(deps, client, turn, lease, thread_reason_saved())
            return True
        return False
    try:
        # Storing the reason also answers the invitation, so the next reply is a question.
        await asyncio.to_thread(
            deps.store.add_reason, answer_id, turn.user, turn.text, deps.now().isoformat()
        )
        reply = thread_reason_saved()
    except Exception:
        log_failure(log, "storing the reason for answer %s failed", answer_id)
        reply = thread_reason_failed()
    await _reply(deps, client, turn, lease, reply)
    return True


async def _reason_given(deps: ListenerDeps, turn: Turn) -> bool:
    given = deps.store.reason_given
    try:
        found = await asyncio.to_thread(
            given, turn.team, turn.channel, turn.reply_thread, turn.user, turn.text
        )
    except StoreUnavailable:
        return False
    return found is not None


async def _pending_reason(store: AnswerStore, turn: Turn) -> int | None:
    """The answer in this thread whose reason the author was invited to give after a :x:.

    Kept in the store, so an invitation survives a restart of docbot; while the store cannot
    be reached, none is known, and the reply is answered as a question."""
    try:
        return await asyncio.to_thread(
            store.pending_reason, turn.team, turn.channel, turn.reply_thread, turn.user
        )
    except StoreUnavailable:
        return None
