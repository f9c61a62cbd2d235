"""The feedback buttons under an answer: 👍 records helpful, 👎 records wrong and opens the "what
was wrong?" modal, pressing either again takes the mark back; the modal's answer is stored with
the report like a reason given in the thread. One mark per person and answer (the store's).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Mapping

from slack_sdk.web.async_client import AsyncWebClient

from bot.deps import ListenerDeps
from bot.escalation import help_offer
from bot.failures import log_failure
from bot.interactive import ButtonPress, Submission, field
from bot.marks import before_ack
from bot.render.feedback import (
    CATEGORY_ACTION,
    CATEGORY_BLOCK,
    DETAIL_ACTION,
    DETAIL_BLOCK,
    HELPFUL,
    WRONG,
    feedback_failed,
    mark_recorded,
    named_question,
    not_my_answer,
    reason_modal,
    reason_not_saved,
    reason_not_saved_yet,
    reason_recorded,
)
from bot.replies import answer_thread, tell
from bot.store import REASON_CATEGORIES, AnswerRecord, EventKey, Toggled, staged_reply_ts
from bot.webapi import SLACK_CALL_ERRORS, slack_error

log = logging.getLogger("docbot.slack")

_KINDS = {HELPFUL: "helpful", WRONG: "wrong"}  # button value -> the store's feedback kind
FEEDBACK_VALUES = frozenset(_KINDS)  # the values a feedback button press may carry
_REF_KEYS = ("team", "channel", "reply_ts")  # what the modal carries to find its answer


# A press, stored before its ack: the answer pressed on (None: not one of docbot's stored
# answers) and what the press did (None then).
Pressed = tuple[AnswerRecord | None, Toggled | None]


async def record_press(deps: ListenerDeps, press: ButtonPress) -> asyncio.Future[Pressed]:
    """Before the ack: the press applied to the answer's marks, once (bot/marks.py)."""
    kind = _KINDS[press.value]
    at = deps.now().isoformat()
    once = EventKey(f"press:{press.trigger_id}") if press.trigger_id else None

    async def store_press() -> Pressed:
        record = await _pressed_on(deps, press)
        if record is None or record.id is None:
            return None, None
        toggle = deps.store.toggle_mark
        return record, await asyncio.to_thread(toggle, record.id, press.user, kind, at, once=once)

    what = f"feedback press by {press.user} on {press.message_ts}"
    return await before_ack(
        store_press(), what, deps.clock, lambda: deps.metrics.mark_late("press")
    )


async def handle_feedback_press(
    deps: ListenerDeps, client: AsyncWebClient, press: ButtonPress,
    recorded: asyncio.Future[Pressed] | None = None,
) -> None:  # fmt: skip
    """Say what the press did (`recorded` by record_press before the ack; None: stored here);
    a new wrong-mark opens the modal asking what was wrong. A press Slack delivered again
    (done already) is neither counted nor answered again."""
    kind = _KINDS.get(press.value)
    if kind is None:
        return
    try:
        record, toggled = await (recorded or await record_press(deps, press))
    except Exception:
        log_failure(log, "recording a feedback button on %s/%s failed", press.channel,
                    press.message_ts)  # fmt: skip
        await tell(client, press.channel, press.thread_ts, press.user, feedback_failed())
        return
    if record is None or toggled is None:
        await tell(client, press.channel, press.thread_ts, press.user, not_my_answer())
        return
    if toggled.repeat:
        log.info("feedback press %s by %s was already handled", press.trigger_id, press.user)
        return
    mark = toggled.mark
    deps.metrics.feedback(kind, added=mark == kind)  # a press again takes the mark back
    if mark == "wrong" and press.trigger_id and await _open_modal(client, press, record):
        return
    said = mark_recorded(_value(mark), await _escalation(deps, record))
    await tell(client, press.channel, press.thread_ts, press.user, said)


async def _pressed_on(deps: ListenerDeps, press: ButtonPress) -> AnswerRecord | None:
    """The answer on the message pressed on: found by its ts; or, for a reply whose answer is
    not yet marked as its (the moment between Slack posting it and its run hearing back), the
    answer staged for the question its buttons' block names, marked posted here. The posting
    run finds it marked, as after a reaction in that moment (bot/reactions.py)."""
    store, team, channel, ts = deps.store, press.team, press.channel, press.message_ts
    record = await asyncio.to_thread(store.find_answer, team, channel, ts)
    question_ts = named_question(press.block_id)
    if record is not None or question_ts is None:
        return record
    staged = await asyncio.to_thread(store.find_answer, team, channel, staged_reply_ts(question_ts))
    if staged is None:
        return None
    log.info("a feedback button on %s/%s, whose answer was not yet marked posted: marking it",
             channel, ts)  # fmt: skip
    await asyncio.to_thread(store.mark_posted, team, channel, question_ts, ts)
    return await asyncio.to_thread(store.find_answer, team, channel, ts)


def reason_problems(submission: Submission) -> dict[str, str]:
    """What to fix in a submitted modal, by block id (Slack shows it beside the input)."""
    choice = field(submission, CATEGORY_BLOCK, CATEGORY_ACTION).get("selected_option")
    category = choice.get("value") if isinstance(choice, Mapping) else None
    if category not in REASON_CATEGORIES:
        return {CATEGORY_BLOCK: "Choose what was wrong with the answer."}
    if any(key not in submission.metadata for key in _REF_KEYS):
        return {CATEGORY_BLOCK: "This form is not about one of my answers; close it."}
    return {}


# A reason, stored before its ack: the answer it is about (None: gone, nothing to attach it to),
# and whether it was stored now (False: the same modal was stored already, Slack sent it again).
Reasoned = tuple[AnswerRecord | None, bool]


async def record_reason(deps: ListenerDeps, submission: Submission) -> asyncio.Future[Reasoned]:
    """Before the ack: a submitted modal (checked by reason_problems) stored with the answer it
    is about, once per modal (bot/marks.py)."""
    ref = submission.metadata
    choice = field(submission, CATEGORY_BLOCK, CATEGORY_ACTION).get("selected_option") or {}
    detail = field(submission, DETAIL_BLOCK, DETAIL_ACTION).get("value")
    text = detail.strip() if isinstance(detail, str) else ""
    at = deps.now().isoformat()
    once = EventKey(f"reason:{submission.view_id}") if submission.view_id else None

    def store_reason() -> Reasoned:
        record = deps.store.find_answer(ref["team"], ref["channel"], ref["reply_ts"])
        if record is None or record.id is None or ref["team"] != submission.team:
            return None, False  # the answer is gone (pruned store): nothing to attach it to
        stored = deps.store.add_reason(
            record.id, submission.user, text, at, source="modal",
            category=str(choice.get("value")), once=once,
        )  # fmt: skip
        return record, stored

    return await before_ack(asyncio.to_thread(store_reason),
                            f"feedback reason by {submission.user}", deps.clock,
                            lambda: deps.metrics.mark_late("reason"))  # fmt: skip


def reason_unstored(recorded: asyncio.Future[Reasoned]) -> dict[str, str]:
    """What the modal shows when its reason is not stored before the ack: Slack keeps it open
    with what was typed, to send again (empty when stored). Still being written counts too:
    closed on a write that has not ended, the reason would be lost with a process stopped
    before it ends (Slack never delivers a submission again); sent again, it is stored once
    (the same modal: `once`), by whichever write comes first."""
    if not recorded.done():
        return {CATEGORY_BLOCK: reason_not_saved_yet()}
    if recorded.exception() is None:
        return {}
    return {CATEGORY_BLOCK: reason_not_saved()}


async def handle_reason(
    deps: ListenerDeps, client: AsyncWebClient, submission: Submission,
    recorded: asyncio.Future[Reasoned],
) -> None:  # fmt: skip
    """Thank the person for a reason record_reason stored before the ack (once: the same modal
    delivered again is not thanked for again)."""
    ref = submission.metadata
    try:
        record, stored = await recorded
        if record is None:
            return
        if not stored:
            log.info("feedback reason %s by %s was already stored", submission.view_id,
                     submission.user)  # fmt: skip
            return
        reply = reason_recorded(await _escalation(deps, record))
    except Exception:
        log_failure(log, "storing a feedback reason on %s/%s failed", ref["channel"],
                    ref["reply_ts"])  # fmt: skip
        return
    await tell(client, record.channel, answer_thread(record), submission.user, reply)


async def _escalation(deps: ListenerDeps, record: AnswerRecord) -> str | None:
    return help_offer((await deps.runtime.current()).config, record)


def _value(mark: str | None) -> str | None:
    return {kind: value for value, kind in _KINDS.items()}.get(mark or "")


async def _open_modal(client: AsyncWebClient, press: ButtonPress, record: AnswerRecord) -> bool:
    ref = {"team": record.team, "channel": record.channel, "reply_ts": record.reply_ts}
    try:
        await client.views_open(trigger_id=press.trigger_id, view=reason_modal(ref))
    except SLACK_CALL_ERRORS as exc:
        log.warning("views.open for %s failed: %s", press.user, slack_error(exc))
        return False
    return True
