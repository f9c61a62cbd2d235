""" "Still need help?": hands a question docbot could not answer well to the people who own the
docs. Only the asker or a member of the channel may press it (asked of Slack; any doubt says
no), and it fires once per answer, whichever copy of it is pressed (the store's claim per
question, atomic across processes)."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Sequence

from slack_sdk.web.async_client import AsyncWebClient

from bot.deps import ListenerDeps
from bot.failures import log_failure
from bot.interactive import ButtonPress
from bot.members import is_member
from bot.render import Message, post_kwargs, render_answer
from bot.render.escalation import (
    escalated,
    escalated_already,
    escalation_failed,
    escalation_not_allowed,
    escalation_note,
    no_owners,
)
from bot.render.feedback import not_my_answer
from bot.replies import MESSAGE_TS, answer_thread, tell
from bot.store import AnswerRecord
from bot.webapi import SLACK_CALL_ERRORS, slack_error
from grounding.answer import Answer
from retrieval.config import Config

log = logging.getLogger("docbot.slack")


def owners_of(config: Config, collections: Sequence[str]) -> tuple[str, ...]:
    """The owners of `collections` in docbot.yml, each once, in the config's order."""
    wanted = set(collections)
    found: list[str] = []
    for collection in config.collections:
        if collection.name in wanted:
            found += [owner for owner in collection.owners if owner not in found]
    return tuple(found)


def involved_collections(answer: Answer) -> tuple[str, ...]:
    """The collections an answer cited, else (a not-found) the ones it searched."""
    names = [source.collection for source in answer.sources] or list(answer.scope.collections)
    return tuple(dict.fromkeys(names))


def offers_help(config: Config, answer: Answer) -> bool:
    """Whether "Still need help?" is offered with `answer`: the collections involved have
    owners to ask."""
    return bool(owners_of(config, involved_collections(answer)))


def help_offer(config: Config, record: AnswerRecord) -> str | None:
    """The stored answer's ts for a "Still need help?" button, when it offers help."""
    return record.reply_ts if offers_help(config, record.answer) else None


def render_offering_help(config: Config, answer: Answer) -> Message:
    """`answer`'s message, with "Still need help?" when it offers help."""
    return render_answer(answer, config.feedback, escalate=offers_help(config, answer))


async def handle_escalation(deps: ListenerDeps, client: AsyncWebClient, press: ButtonPress) -> None:
    config = (await deps.runtime.current()).config
    reply_ts = press.value if MESSAGE_TS.match(press.value) else press.message_ts
    try:
        record = await asyncio.to_thread(
            deps.store.find_answer, press.team, press.channel, reply_ts
        )
        reply = await _escalate(deps, client, config, press, record)
    except Exception:
        log_failure(log, "escalating answer %s/%s failed", press.channel, reply_ts)
        reply = escalation_failed()
    await tell(client, press.channel, press.thread_ts, press.user, reply)


async def _escalate(
    deps: ListenerDeps, client: AsyncWebClient, config: Config, press: ButtonPress,
    record: AnswerRecord | None,
) -> Message:  # fmt: skip
    if record is None or record.id is None:
        return not_my_answer()
    if press.user != record.asker and not await is_member(
        client, record.channel, press.user, "escalation refused"
    ):
        return escalation_not_allowed()
    collections = involved_collections(record.answer)
    owners = owners_of(config, collections)
    if not owners:
        return no_owners()
    at = deps.now().isoformat()
    if not await asyncio.to_thread(deps.store.claim_escalation, record.id, press.user, at):
        return escalated_already()
    note = escalation_note(press.user, record.question, owners, collections)
    try:
        await client.chat_postMessage(
            channel=record.channel, thread_ts=answer_thread(record), **post_kwargs(note)
        )
    except SLACK_CALL_ERRORS as exc:
        log.error("posting the escalation of answer %s failed: %s", record.id, slack_error(exc))
        await asyncio.to_thread(deps.store.release_escalation, record.id)
        return escalation_failed()
    return escalated()
