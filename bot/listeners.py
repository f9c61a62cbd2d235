"""The Slack listeners: which event goes where. Mentions and DMs are questions (bot/questions.py),
reactions and the feedback buttons are feedback (bot/reactions.py, bot/feedback_actions.py),
recorded before their ack (bot/marks.py); anything else is acknowledged and dropped.
"""

from __future__ import annotations

import asyncio
import logging
import re
from collections.abc import Awaitable, Callable, Mapping
from typing import Any

from slack_bolt.async_app import AsyncAck, AsyncApp
from slack_bolt.context.async_context import AsyncBoltContext
from slack_bolt.request.async_request import AsyncBoltRequest
from slack_bolt.response import BoltResponse
from slack_sdk.web.async_client import AsyncWebClient

from bot.assistant import handle_thread_event, parse_thread_event
from bot.deps import REFUSED_WHILE_CLOSING, InFlight, ListenerDeps
from bot.escalation import handle_escalation
from bot.events import Turn, mentions, parse_home_opened, parse_reaction, parse_turn
from bot.feedback_actions import (
    FEEDBACK_VALUES,
    handle_feedback_press,
    handle_reason,
    reason_problems,
    reason_unstored,
    record_press,
    record_reason,
)
from bot.home import handle_home_opened
from bot.interactive import (
    SHORTCUT,
    SLASH_COMMAND,
    ButtonPress,
    parse_button,
    parse_command,
    parse_shortcut,
    parse_submission,
)
from bot.live import Answerer
from bot.questions import claim_before_ack, handle_reason_only, handle_turn
from bot.reactions import feedback_reaction, handle_reaction, record_reaction
from bot.render.commands import SHARE_ACTION
from bot.render.escalation import ESCALATE_ACTION
from bot.render.feedback import FEEDBACK_ACTION, REASON_VIEW
from bot.share import handle_share
from bot.shortcuts import point_to_answer
from bot.store import Claim, StoreUnavailable
from bot.webapi import observed

log = logging.getLogger("docbot.slack")

PRE_CLAIM = "docbot_claim"  # Bolt context key: what claim_before_ack found
PRE_RECORD = "docbot_mark"  # Bolt context key: a reaction's record before its ack (bot/marks.py)
# Slack retries an unacknowledged event three times (X-Slack-Retry-Num 1 to 3, over ~5 minutes).
LAST_SLACK_RETRY = 3

# A press of one of docbot's buttons, handled after its ack.
ButtonHandler = Callable[[ListenerDeps, AsyncWebClient, ButtonPress], Awaitable[None]]
BUTTONS: dict[str, ButtonHandler] = {
    ESCALATE_ACTION: handle_escalation,
    SHARE_ACTION: handle_share,
}

__all__ = ["Answerer", "InFlight", "ListenerDeps", "register"]


def register(app: AsyncApp, deps: ListenerDeps) -> None:
    """Every event docbot subscribes to has a listener; anything else is acknowledged and dropped
    (an unhandled event is answered 404, and Slack would keep retrying it)."""

    async def claim_questions(
        body: dict[str, Any], context: AsyncBoltContext, req: AsyncBoltRequest,
        next_: Callable[[], Awaitable[None]],
    ) -> BoltResponse | None:  # fmt: skip
        # Middleware: runs before Bolt acknowledges the delivery (see claim_before_ack).
        turn = _question(body, context.bot_user_id)
        if turn is not None:
            try:
                context[PRE_CLAIM] = await claim_before_ack(deps, turn)
            except StoreUnavailable:
                if _slack_delivers_again(body, req):
                    return _refused_for_now(deps, turn)
                # Slack's last try, or a command (never retried): answered unclaimed instead.
        await next_()
        return None

    async def record_reactions(
        body: dict[str, Any], context: AsyncBoltContext, req: AsyncBoltRequest,
        next_: Callable[[], Awaitable[None]],
    ) -> BoltResponse | None:  # fmt: skip
        # Middleware: a reaction's event is claimed, with it, before Bolt acknowledges it.
        added = _reaction_added(body)
        reaction = None if added is None else parse_reaction(body)
        reaction = await feedback_reaction(deps, reaction, context.bot_user_id)
        if added is not None and reaction is not None:
            recorded = await record_reaction(deps, reaction, context.bot_user_id, added=added)
            if _unrecorded(recorded) and _slack_delivers_again(body, req):
                return _mark_refused(deps, reaction.event_id)
            context[PRE_RECORD] = recorded
        await next_()
        return None

    def counted(client: AsyncWebClient) -> AsyncWebClient:
        # Bolt hands each request a fresh client: this one counts its failures (/metrics).
        return observed(client, deps.metrics.slack_error)

    async def on_mention(
        body: dict[str, Any], context: AsyncBoltContext, client: AsyncWebClient
    ) -> None:
        turn = parse_turn(body, context.bot_user_id)
        if turn is not None:
            with deps.in_flight.track():
                await handle_turn(deps, counted(client), turn, context.get(PRE_CLAIM))

    async def on_message(
        body: dict[str, Any], context: AsyncBoltContext, client: AsyncWebClient
    ) -> None:
        turn = parse_turn(body, context.bot_user_id)
        if turn is None:
            return
        client = counted(client)
        with deps.in_flight.track():
            if turn.channel_type == "im":
                await handle_turn(deps, client, turn, context.get(PRE_CLAIM))
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
            await handle_reaction(deps, counted(client), reaction, context.bot_user_id,
                                  added=added, recorded=context.get(PRE_RECORD))  # fmt: skip

    async def on_command(
        ack: AsyncAck, body: dict[str, Any], context: AsyncBoltContext, client: AsyncWebClient
    ) -> None:
        # The same question path as a mention: claimed before this ack, answered after it.
        with deps.in_flight.track():
            await ack()
            turn = parse_command(body)
            if turn is not None:
                await handle_turn(deps, counted(client), turn, context.get(PRE_CLAIM))

    async def on_shortcut(
        ack: AsyncAck, body: dict[str, Any], context: AsyncBoltContext, client: AsyncWebClient
    ) -> None:
        with deps.in_flight.track():
            await ack()
            turn = parse_shortcut(body, context.bot_user_id)
            if turn is not None and context.get(PRE_CLAIM) is Claim.DONE:
                await point_to_answer(deps, counted(client), turn)
            elif turn is not None:
                await handle_turn(deps, counted(client), turn, context.get(PRE_CLAIM))

    async def on_feedback_press(
        ack: AsyncAck, body: dict[str, Any], client: AsyncWebClient
    ) -> None:
        # The press is stored before its ack (bot/marks.py): Slack never sends it again.
        with deps.in_flight.track():
            press = parse_button(body, FEEDBACK_ACTION)
            known = press is not None and press.value in FEEDBACK_VALUES
            recorded = await record_press(deps, press) if press is not None and known else None
            await ack()
            if press is not None and recorded is not None:
                await handle_feedback_press(deps, counted(client), press, recorded)

    def on_button(action_id: str, handle: ButtonHandler) -> Callable[..., Awaitable[None]]:
        """The listener of one of docbot's buttons: acknowledged at once, then handled."""

        async def on_press(ack: AsyncAck, body: dict[str, Any], client: AsyncWebClient) -> None:
            with deps.in_flight.track():
                await ack()
                press = parse_button(body, action_id)
                if press is not None:
                    await handle(deps, counted(client), press)

        return on_press

    async def on_feedback_reason(
        ack: AsyncAck, body: dict[str, Any], client: AsyncWebClient
    ) -> None:
        with deps.in_flight.track():
            submission = parse_submission(body)
            problems = reason_problems(submission) if submission is not None else {}
            if problems:
                # Slack keeps the modal open and shows each problem beside its input.
                await ack(response_action="errors", errors=problems)
                return
            if submission is None:
                await ack()
                return
            # Stored before the ack (bot/marks.py); if it cannot be, Slack keeps the modal open.
            recorded = await record_reason(deps, submission)
            unstored = reason_unstored(recorded)
            if unstored:
                await ack(response_action="errors", errors=unstored)
                return
            await ack()
            await handle_reason(deps, counted(client), submission, recorded)

    async def on_home_opened(body: dict[str, Any], client: AsyncWebClient) -> None:
        opened = parse_home_opened(body)
        if opened is not None:
            with deps.in_flight.track():
                await handle_home_opened(deps, counted(client), opened)

    async def on_assistant_thread(body: dict[str, Any], client: AsyncWebClient) -> None:
        thread = parse_thread_event(body)
        if thread is not None:
            with deps.in_flight.track():
                await handle_thread_event(deps, counted(client), thread)

    async def on_other(body: dict[str, Any]) -> None:
        log.debug("ignoring event %s", (body.get("event") or {}).get("type"))

    async def on_other_interaction(ack: AsyncAck, body: dict[str, Any]) -> None:
        # A button or modal of an older docbot message: acknowledged, so Slack shows no error.
        await ack()
        log.debug("ignoring %s interaction", body.get("type"))

    app.middleware(claim_questions)
    app.middleware(record_reactions)
    app.event("app_mention")(on_mention)
    app.event("message")(on_message)
    app.event("reaction_added")(on_reaction)
    app.event("reaction_removed")(on_reaction)
    app.event("app_home_opened")(on_home_opened)
    app.event("assistant_thread_started")(on_assistant_thread)
    app.event("assistant_thread_context_changed")(on_assistant_thread)
    app.command(SLASH_COMMAND)(on_command)
    app.shortcut(SHORTCUT)(on_shortcut)
    app.view_submission(REASON_VIEW)(on_feedback_reason)
    app.action(FEEDBACK_ACTION)(on_feedback_press)
    for action_id, handle in BUTTONS.items():
        app.action(action_id)(on_button(action_id, handle))
    app.action(re.compile(r".*"))(on_other_interaction)
    app.view(re.compile(r".*"))(on_other_interaction)
    app.event(re.compile(r".+"))(on_other)  # registered last: listeners match in order


def _slack_delivers_again(body: Mapping[str, Any], req: AsyncBoltRequest) -> bool:
    """Whether Slack will deliver this again if it is not acknowledged: an event before its
    last retry (commands and shortcuts are never retried)."""
    if body.get("type") != "event_callback":
        return False
    tries = req.headers.get("x-slack-retry-num") or ["0"]
    return not tries[0].isdigit() or int(tries[0]) < LAST_SLACK_RETRY


def _refused_for_now(deps: ListenerDeps, turn: Turn) -> BoltResponse:
    """Without the store no claim can be made, and replicas would each answer the event Slack
    delivers to all of them: refuse it (503, or no Socket Mode ack), and the next delivery,
    a minute on, is answered once the store is back."""
    deps.metrics.delivery_dropped("deferred")
    log.info("event %s left for Slack to deliver again: no claim without the answer store",
             turn.event_id)  # fmt: skip
    return BoltResponse(status=REFUSED_WHILE_CLOSING, body="answer store unreachable; retry")


def _reaction_added(body: Mapping[str, Any]) -> bool | None:
    """True for a reaction_added delivery, False for a reaction_removed, None for the rest."""
    event = body.get("event") if body.get("type") == "event_callback" else None
    kind = event.get("type") if isinstance(event, Mapping) else None
    return {"reaction_added": True, "reaction_removed": False}.get(str(kind))


def _unrecorded(recorded: asyncio.Future[Claim]) -> bool:
    """Whether a mark's record before the ack failed or is still being written."""
    return not recorded.done() or recorded.exception() is not None


def _mark_refused(deps: ListenerDeps, event_id: str) -> BoltResponse:
    """A reaction not recorded before its ack (the store failed, or is slow): refused (503, or no
    Socket Mode ack), so Slack delivers it again; a record still being written is then found
    done, or resolved by a resume sweep once its claim lapses."""
    deps.metrics.delivery_dropped("deferred")
    log.info("reaction event %s left for Slack to deliver again: not recorded before its ack",
             event_id)  # fmt: skip
    return BoltResponse(status=REFUSED_WHILE_CLOSING, body="answer store unavailable; retry")


def _question(body: Mapping[str, Any], bot_user_id: str | None) -> Turn | None:
    """The question handle_turn answers for this delivery, if any: a mention, a message in a
    DM, `/docbot QUESTION` or the message shortcut (the listeners below route the same way)."""
    if body.get("type") == "message_action":
        return parse_shortcut(body, bot_user_id)
    if "command" in body and "type" not in body:
        return parse_command(body)
    if body.get("type") != "event_callback":
        return None
    turn = parse_turn(body, bot_user_id)
    if turn is None:
        return None
    event = body.get("event")
    kind = event.get("type") if isinstance(event, Mapping) else None
    return (
        turn if kind == "app_mention" or (kind == "message" and turn.channel_type == "im") else None
    )


def _event_text(body: Mapping[str, Any]) -> str:
    event = body.get("event")
    return str(event.get("text", "")) if isinstance(event, Mapping) else ""
