"""The Slack listeners: mentions and DMs become answers in the thread, reactions become feedback.

Glue only: validate, de-duplicate, resolve the scope, call the pipeline, render, post, store.
Every handler runs after Bolt has acknowledged the event, so each one tells the user something
rather than letting an exception end in silence.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import re
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from slack_bolt.async_app import AsyncApp
from slack_bolt.context.async_context import AsyncBoltContext
from slack_sdk.web.async_client import AsyncWebClient

from bot.events import Reaction, Turn, mentions, parse_reaction, parse_turn
from bot.live import Answerer, Live, LiveRuntime
from bot.render import (
    Message,
    mrkdwn,
    post_kwargs,
    render_answer,
    render_error,
    render_help,
    render_input_error,
)
from bot.store import AnswerRecord, AnswerStore
from bot.webapi import SLACK_CALL_ERRORS, slack_error, slack_error_code
from grounding.answer import Answer
from retrieval.config import Config
from retrieval.errors import InputError
from retrieval.query import MAX_QUESTION_CHARS, check_question
from retrieval.scopes import ConversationKind, Scope

log = logging.getLogger("docbot.slack")

WORKING_EMOJI = "eyes"
# :eyes: is cosmetic: one try, a short timeout, never Retry-After (which can be minutes).
COSMETIC_TIMEOUT_SECONDS = 5
UNPOSTED = "unposted:"  # reply_ts prefix of an answer whose reply could not be posted
INTERNAL_ERROR = (
    "something went wrong on my side while answering (it has been logged for the docbot admins)"
)


def _utc_now() -> datetime:
    return datetime.now(UTC)


class InFlight:
    """The listener runs in progress: Bolt starts each after its ack, in a task of its own, so
    shutdown waits for these to finish their replies (Bolt offers no supported hook for it)."""

    def __init__(self) -> None:
        self._tasks: set[asyncio.Task[object]] = set()

    @contextlib.contextmanager
    def track(self) -> Iterator[None]:
        """Count the current task as in flight until the block ends."""
        task = asyncio.current_task()
        if task is not None:
            self._tasks.add(task)
        try:
            yield
        finally:
            if task is not None:
                self._tasks.discard(task)

    def pending(self) -> int:
        return sum(1 for task in self._tasks if not task.done())

    async def drain(self, seconds: float) -> None:
        """Wait up to `seconds` for the runs in progress to finish."""
        pending = [task for task in self._tasks if not task.done()]
        if pending:
            await asyncio.wait(pending, timeout=seconds)


__all__ = ["Answerer", "InFlight", "ListenerDeps", "register"]


@dataclass(frozen=True)
class ListenerDeps:
    runtime: LiveRuntime  # the config, answerer and policy of the moment (reloaded on change)
    store: AnswerStore
    now: Callable[[], datetime] = _utc_now
    in_flight: InFlight = field(default_factory=InFlight)


def register(app: AsyncApp, deps: ListenerDeps) -> None:
    """Every event docbot subscribes to has a listener; anything else is acknowledged and dropped
    (an unhandled event is answered 404, and Slack would keep retrying it)."""

    async def on_mention(
        body: dict[str, Any], context: AsyncBoltContext, client: AsyncWebClient
    ) -> None:
        turn = parse_turn(body, context.bot_user_id)
        if turn is not None:
            with deps.in_flight.track():
                await handle_turn(deps, client, turn)

    async def on_message(
        body: dict[str, Any], context: AsyncBoltContext, client: AsyncWebClient
    ) -> None:
        turn = parse_turn(body, context.bot_user_id)
        if turn is None:
            return
        with deps.in_flight.track():
            if turn.channel_type == "im":
                await handle_turn(deps, client, turn)
            elif turn.in_thread and mentions(_event_text(body), context.bot_user_id):
                # Only with `message.channels` subscribed; the same message also comes as an
                # app_mention, and claim_mention lets exactly one of the two through.
                await handle_reason_only(deps, client, turn)

    async def on_reaction(
        body: dict[str, Any], context: AsyncBoltContext, client: AsyncWebClient
    ) -> None:
        added = body["event"]["type"] == "reaction_added"  # else reaction_removed
        with deps.in_flight.track():
            reaction = parse_reaction(body)
            await handle_reaction(deps, client, reaction, context.bot_user_id, added=added)

    async def on_other(body: dict[str, Any]) -> None:
        log.debug("ignoring event %s", (body.get("event") or {}).get("type"))

    app.event("app_mention")(on_mention)
    app.event("message")(on_message)
    app.event("reaction_added")(on_reaction)
    app.event("reaction_removed")(on_reaction)
    app.event(re.compile(r".+"))(on_other)  # registered last: listeners match in order


# --- questions -------------------------------------------------------------------------------


async def handle_turn(deps: ListenerDeps, client: AsyncWebClient, turn: Turn) -> None:
    """One question, answered at most once across redeliveries and restarts.

    Config, answerer and policy are read once, here, so the whole turn uses one consistent set
    (a reload of docbot.yml or the index applies from the next question)."""
    live = await deps.runtime.current()
    if turn.team not in live.config.teams:
        log.info("ignoring event %s from unconfigured team %s", turn.event_id, turn.team)
        return
    try:
        if await _claim(deps.store, turn):
            await _respond(deps, live, client, turn)
    except Exception:
        # The edge catches broadly (a locked database included) so the asker always hears
        # back; the traceback is logged.
        log.exception("handling event %s in %s failed", turn.event_id, turn.channel)
        await _post(client, turn, render_error(INTERNAL_ERROR))


async def _respond(deps: ListenerDeps, live: Live, client: AsyncWebClient, turn: Turn) -> None:
    if turn.in_thread and await _record_reason(deps, client, turn):
        return
    scope = await live.policy.scope_for(
        turn.team, turn.channel, turn.channel_type, ext_shared=turn.ext_shared
    )
    if not turn.text:
        unverified = scope.kind is ConversationKind.UNKNOWN
        help_reply = render_help(scope.collections, live.config.feedback, unverified=unverified)
        await _post(client, turn, help_reply)
        return
    cosmetic = _cosmetic_client(client)
    # In the background: the answer never waits for the :eyes:.
    eyes = asyncio.create_task(_react(cosmetic, "reactions_add", turn))
    try:
        message, answer = await _answer(deps, live, turn, scope)
        reply_ts = await _post(client, turn, message)
        if answer is not None:
            await _save(deps, turn, answer, reply_ts)
    finally:
        # Removed only once the add is answered (a removal first would leave the :eyes: on).
        if await eyes:
            await _react(cosmetic, "reactions_remove", turn)


async def handle_reason_only(deps: ListenerDeps, client: AsyncWebClient, turn: Turn) -> None:
    """A channel thread reply seen as `message`: record it if it is an awaited reason, else leave
    it unclaimed for the app_mention delivery of the same message."""
    if turn.team not in (await deps.runtime.current()).config.teams:
        return
    try:
        if await _pending_reason(deps.store, turn) is None:
            return
        if await _claim(deps.store, turn):
            await _record_reason(deps, client, turn)
    except Exception:
        # Not known to be a reason, so no reply: the app_mention delivery answers the person.
        log.exception("handling thread reply %s in %s failed", turn.event_id, turn.channel)


async def _claim(store: AnswerStore, turn: Turn) -> bool:
    """Never trust the retry header (Socket Mode says 0 on a first delivery): ask the store."""
    if not await asyncio.to_thread(store.claim_event, turn.event_id):
        log.info("event %s was already handled", turn.event_id)
        return False
    if not await asyncio.to_thread(store.claim_mention, turn.team, turn.channel, turn.ts):
        log.info(
            "message %s/%s was already handled (event %s)", turn.channel, turn.ts, turn.event_id
        )
        return False
    return True


async def _answer(
    deps: ListenerDeps, live: Live, turn: Turn, scope: Scope
) -> tuple[Message, Answer | None]:
    if len(turn.text) > MAX_QUESTION_CHARS:
        # check_question's own words are for the command line; in Slack, say what to change.
        too_long = (
            f"That question is {len(turn.text):,} characters long; I can take up to "
            f"{MAX_QUESTION_CHARS:,}. Ask about one thing, or quote only the relevant part."
        )
        return render_input_error(too_long), None
    try:
        question = check_question(turn.text)
    except InputError as exc:
        return render_input_error(str(exc)), None
    try:
        context: tuple[str, ...] = ()
        if turn.in_thread:
            context = await asyncio.to_thread(
                deps.store.thread_questions, turn.team, turn.channel, turn.reply_thread
            )
        answer = await live.answerer.answer(question, scope, context=context, user_id=turn.user)
        return render_answer(answer, live.config.feedback), answer
    except Exception:
        # The edge catches broadly so the asker always hears back; the traceback is logged.
        log.exception("answering event %s in %s failed", turn.event_id, turn.channel)
        return render_error(INTERNAL_ERROR), None


async def _post(client: AsyncWebClient, turn: Turn, message: Message) -> str | None:
    """Post in the thread; the reply's ts, or None when posting failed (logged)."""
    try:
        response = await client.chat_postMessage(
            channel=turn.channel, thread_ts=turn.reply_thread, **post_kwargs(message)
        )
    except SLACK_CALL_ERRORS as exc:
        log.error(
            "chat.postMessage to %s failed for event %s: %s",
            turn.channel,
            turn.event_id,
            slack_error(exc),
        )
        return None
    ts = response.get("ts")
    return str(ts) if ts else None


async def _save(deps: ListenerDeps, turn: Turn, answer: Answer, reply_ts: str | None) -> None:
    """Kept even when the reply could not be posted: it is still evidence of what happened."""
    # reply_ts is unique per channel in the store; an unposted reply gets a marker that no
    # Slack message ts can equal (so no reaction ever finds it) and that stays unique.
    reply = reply_ts or f"{UNPOSTED}{turn.ts}"
    record = AnswerRecord(
        team=turn.team, channel=turn.channel, thread_ts=turn.reply_thread, reply_ts=reply,
        question_ts=turn.ts, asker=turn.user, question=answer.question,
        answer=answer.to_dict(), created=deps.now().isoformat(),
    )  # fmt: skip
    try:
        await asyncio.to_thread(deps.store.save_answer, record)
    except Exception:
        log.exception("storing the answer to event %s failed", turn.event_id)


async def _react(client: AsyncWebClient, method: str, turn: Turn) -> bool:
    """:eyes: while working; cosmetic, so a failure is only logged. True when it took effect."""
    try:
        await getattr(client, method)(channel=turn.channel, timestamp=turn.ts, name=WORKING_EMOJI)
    except SLACK_CALL_ERRORS as exc:
        log.warning("%s on %s/%s failed: %s", method, turn.channel, turn.ts, slack_error(exc))
        return slack_error_code(exc) == "already_reacted"
    return True


def _cosmetic_client(client: AsyncWebClient) -> AsyncWebClient:
    """The same workspace and API as `client`, but one try with a short timeout: a 429 on the
    :eyes: drops it instead of holding the reply for Retry-After."""
    return AsyncWebClient(
        token=client.token, base_url=client.base_url, timeout=COSMETIC_TIMEOUT_SECONDS,
        ssl=client.ssl, proxy=client.proxy, headers=client.headers, logger=client.logger,
        retry_handlers=[],
    )  # fmt: skip


# --- feedback --------------------------------------------------------------------------------


async def handle_reaction(
    deps: ListenerDeps, client: AsyncWebClient, reaction: Reaction | None,
    bot_user_id: str | None, *, added: bool,
) -> None:  # fmt: skip
    """Feedback on docbot's own answers only, from the configured emoji sets; idempotent."""
    if reaction is None or reaction.user == bot_user_id:
        return
    config = (await deps.runtime.current()).config
    if reaction.team not in config.teams:
        return
    kind = _feedback_kind(config, reaction.emoji)
    if kind is None:
        return
    try:
        await _record_feedback(deps, client, reaction, kind, bot_user_id, added=added)
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
    record = await asyncio.to_thread(
        store.find_answer, reaction.team, reaction.channel, reaction.ts
    )
    if record is None or record.id is None:
        return  # not a docbot answer
    # A redelivered reaction_added after its reaction_removed would otherwise mark it again.
    if not await asyncio.to_thread(store.claim_event, reaction.event_id):
        log.info("reaction event %s was already handled", reaction.event_id)
        return
    if added:
        await _add_feedback(deps, client, reaction, kind, record, record.id, bot_user_id)
    else:
        await _retract_feedback(deps, reaction, record.id)


async def _add_feedback(
    deps: ListenerDeps, client: AsyncWebClient, reaction: Reaction, kind: str,
    record: AnswerRecord, answer_id: int, bot_user_id: str | None,
) -> None:  # fmt: skip
    store, user = deps.store, reaction.user
    before = await asyncio.to_thread(store.wrong_count, answer_id)
    at = deps.now().isoformat()
    new = await asyncio.to_thread(store.add_feedback, answer_id, user, kind, reaction.emoji, at)
    # Thank (and invite a reason from) each person once, on their first wrong-mark.
    if new and kind == "wrong" and await asyncio.to_thread(store.wrong_count, answer_id) > before:
        await asyncio.to_thread(store.invite_reason, answer_id, user)
        await _thank_for_wrong(client, record, user, bot_user_id)


async def _retract_feedback(deps: ListenerDeps, reaction: Reaction, answer_id: int) -> None:
    # Retracting the user's last wrong-mark also withdraws their invitation (in the store).
    await asyncio.to_thread(deps.store.remove_feedback, answer_id, reaction.user, reaction.emoji)


async def _thank_for_wrong(
    client: AsyncWebClient, record: AnswerRecord, user: str, bot_user_id: str | None
) -> None:
    me = f"<@{bot_user_id}>" if bot_user_id else "docbot"
    text = (
        "Thanks for flagging this answer as wrong; it has been logged for the docbot admins. "
        f"If you can, reply in this thread mentioning {me} with what was wrong or what the "
        "right answer is: your next reply there is saved with the report."
    )
    try:
        await client.chat_postEphemeral(
            channel=record.channel, user=user, thread_ts=record.thread_ts, text=text
        )
    except SLACK_CALL_ERRORS as exc:
        log.warning("chat.postEphemeral to %s failed: %s", user, slack_error(exc))


async def _record_reason(deps: ListenerDeps, client: AsyncWebClient, turn: Turn) -> bool:
    """True when this thread reply is the reason its author was invited to give after a :x:."""
    if not turn.text:
        return False
    answer_id = await _pending_reason(deps.store, turn)
    if answer_id is None:
        return False
    try:
        # Storing the reason also answers the invitation, so the next reply is a question.
        await asyncio.to_thread(
            deps.store.add_reason, answer_id, turn.user, turn.text, deps.now().isoformat()
        )
        reply = "Thanks, I saved that with the report on my answer."
    except Exception:
        log.exception("storing the reason for answer %s failed", answer_id)
        reply = "Sorry, I could not save that with the report; please tell the docbot admins."
    await _post(client, turn, _plain_message(reply))
    return True


async def _pending_reason(store: AnswerStore, turn: Turn) -> int | None:
    """The answer in this thread whose reason the author was invited to give after a :x:.

    Kept in the store, so an invitation survives a restart of docbot."""
    return await asyncio.to_thread(
        store.pending_reason, turn.team, turn.channel, turn.reply_thread, turn.user
    )


def _plain_message(text: str) -> Message:
    """A fixed docbot sentence (no document or user text, so nothing to escape)."""
    section = {"type": "section", "text": mrkdwn(text)}
    return Message(text=text, blocks=(section,))


def _feedback_kind(config: Config, emoji: str) -> str | None:
    if emoji in config.feedback.wrong:
        return "wrong"
    if emoji in config.feedback.helpful:
        return "helpful"
    return None


def _event_text(body: Mapping[str, Any]) -> str:
    event = body.get("event")
    return str(event.get("text", "")) if isinstance(event, Mapping) else ""
