""" "Still need help?": hands a question docbot could not answer well to the people who own the
docs. Only the asker or a member of the channel may press it (asked of Slack; any doubt says
no), and it fires once per answer, whichever copy of it is pressed (the store's claim per
question, atomic across processes), even when Slack's answer to the note's post is lost (the
note is looked for in Slack before it is posted again: _post_note), and even when the process
that claimed it dies before it knows: the claim is a lease, and the first press after it lapses
looks for the note and posts it only if it is missing."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Sequence

from slack_sdk.web.async_client import AsyncWebClient

from bot.deps import ListenerDeps
from bot.escalation_notes import note_metadata, posted_note
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
    escalation_pending,
    escalation_unconfirmed,
    no_owners,
)
from bot.render.feedback import not_my_answer
from bot.replies import MESSAGE_TS, Unknown, answer_thread, post_once, tell
from bot.store import AnswerRecord, StoreError
from grounding.answer import Answer
from retrieval.config import Config

log = logging.getLogger("docbot.slack")

# The share of the claim's lease its holder may spend waiting on Slack (the post, and a look
# when its answer is lost): past the lease another press may take the claim over, and it must
# not find a post still in flight.
HOLD_SHARE = 0.5


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
    note = escalation_note(press.user, record.question, owners, collections)
    lease = config.feedback.escalation_lease_seconds
    if await asyncio.to_thread(
        deps.store.claim_escalation, record.id, press.user, deps.now().isoformat()
    ):
        return await _post_note(deps, client, record, note, lease)
    taken = await asyncio.to_thread(deps.store.recheck_escalation, record.id, lease)
    if taken is None:
        if await asyncio.to_thread(deps.store.escalation_pending, record.id):
            return escalation_pending(lease)
        return escalated_already()
    # An earlier press may have posted the note, and then lost Slack's answer or its process:
    # look, and post only if it is missing.
    assert taken.id is not None
    try:
        if await posted_note(client, taken) is not None:
            await _confirm(deps, taken.id)
            return escalated_already()
    except Unknown:
        await asyncio.to_thread(deps.store.doubt_escalation, taken.id)
        return escalation_unconfirmed()
    return await _post_note(deps, client, taken, note, lease)


async def _post_note(
    deps: ListenerDeps, client: AsyncWebClient, record: AnswerRecord, note: Message,
    lease: float,
) -> Message:  # fmt: skip
    """Post the owners' note for `record`, whose escalation this caller holds, and settle the
    claim: confirmed when the note is in Slack, released when it surely is not.

    The post is never retried blind (replies.post_once): when it fails in a way that may have
    posted it all the same, the thread is read for the note's metadata. When Slack cannot be
    read either, or does not answer within half the claim's `lease` (after which another press
    could take the claim over), the claim is kept but marked unsure, and the presser is told
    so: a second note is never posted on a guess, and the next press looks again before
    posting, so a note that never arrived is not lost without anyone knowing."""
    assert record.id is not None
    try:
        async with deps.clock.timeout(lease * HOLD_SHARE):
            posted = await post_once(
                client, lambda: posted_note(client, record),
                f"the escalation of answer {record.id}", channel=record.channel,
                thread_ts=answer_thread(record), metadata=note_metadata(record),
                **post_kwargs(note),
            )  # fmt: skip
    except (Unknown, TimeoutError) as exc:
        if isinstance(exc, TimeoutError):
            log.warning("Slack did not answer the escalation of answer %s within %.0f s; "
                        "the next press looks for it", record.id, lease * HOLD_SHARE)  # fmt: skip
        await asyncio.to_thread(deps.store.doubt_escalation, record.id)
        return escalation_unconfirmed()
    if posted is None:
        await asyncio.to_thread(deps.store.release_escalation, record.id)
        return escalation_failed()
    await _confirm(deps, record.id)
    return escalated()


async def _confirm(deps: ListenerDeps, answer_id: int) -> None:
    """Mark the claim final: its note is in Slack. A store that fails here is logged, not told
    to the presser as a note that could not be posted: the claim stays unconfirmed, so after
    its lease the next press looks for the note, finds it and posts nothing."""
    try:
        await asyncio.to_thread(deps.store.confirm_escalation, answer_id)
    except StoreError:
        log_failure(log, "confirming the posted escalation of answer %s failed", answer_id)
