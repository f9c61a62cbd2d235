"""Feedback wording: the thumbs under every answer, the "what was wrong?" modal a thumbs down
opens, and what docbot says back. The ids here are how the listeners recognise the payloads.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from bot.render.escalation import escalate_block
from bot.render.text import Message, plain_text, section

# action_id of the feedback_buttons element, and the values its two buttons send.
FEEDBACK_ACTION = "docbot_feedback"
HELPFUL = "helpful"
WRONG = "wrong"
# The feedback block's id names the question: this, then its ts (naming_question).
_BUTTONS_BLOCK = "docbot_feedback:"
# callback_id of the modal, and the block/action ids of its two inputs.
REASON_VIEW = "docbot_feedback_reason"
CATEGORY_BLOCK, CATEGORY_ACTION = "category", "category_choice"
DETAIL_BLOCK, DETAIL_ACTION = "detail", "detail_text"
# Slack caps a plain_text_input at 3,000 characters; a reason needs far fewer.
DETAIL_MAX_CHARS = 2_000
# store REASON_CATEGORIES -> what the modal offers.
CATEGORY_LABELS = {
    "wrong": "It is wrong",
    "outdated": "It is outdated",
    "incomplete": "It is incomplete",
    "wrong_channel": "Wrong channel for this question",
}


def feedback_block() -> dict[str, Any]:
    """The `context_actions` block every answer ends with: Slack's own thumbs up / down.

    Pressing one again takes the mark back (bot/feedback_actions.py); emoji reactions on the
    answer keep working beside it."""
    return {
        "type": "context_actions",
        "elements": [
            {
                "type": "feedback_buttons",
                "action_id": FEEDBACK_ACTION,
                "positive_button": {
                    "text": plain_text("👍"),
                    "value": HELPFUL,
                    "accessibility_label": "This answer helped",
                },
                "negative_button": {
                    "text": plain_text("👎"),
                    "value": WRONG,
                    "accessibility_label": "Something is wrong with this answer",
                },
            }
        ],
    }


def naming_question(
    blocks: tuple[dict[str, Any], ...], question_ts: str
) -> tuple[dict[str, Any], ...]:
    """`blocks` with the feedback buttons' block named after the question the answer replies to
    (Slack sends a press with its block's id): a press on a reply whose answer is not yet known
    by the reply's ts still finds the answer staged for that question (bot/feedback_actions.py).
    """
    return tuple(
        {**block, "block_id": f"{_BUTTONS_BLOCK}{question_ts}"} if _is_feedback(block) else block
        for block in blocks
    )


def named_question(block_id: str | None) -> str | None:
    """The question ts a feedback block's id names (see naming_question), if it names one."""
    if block_id is None or not block_id.startswith(_BUTTONS_BLOCK):
        return None
    return block_id.removeprefix(_BUTTONS_BLOCK) or None


def _is_feedback(block: Mapping[str, Any]) -> bool:
    elements = block.get("elements")
    return block.get("type") == "context_actions" and any(
        isinstance(e, Mapping) and e.get("action_id") == FEEDBACK_ACTION for e in elements or ()
    )


def reason_modal(answer_ref: Mapping[str, str]) -> dict[str, Any]:
    """The modal a thumbs down opens; `answer_ref` (team, channel, reply ts) rides along in
    `private_metadata` so the submission finds the answer it is about."""
    options = [
        {"text": plain_text(label), "value": code} for code, label in CATEGORY_LABELS.items()
    ]
    return {
        "type": "modal",
        "callback_id": REASON_VIEW,
        "private_metadata": json.dumps(dict(answer_ref), sort_keys=True),
        "title": plain_text("What was wrong?"),
        "submit": plain_text("Send"),
        "close": plain_text("Skip"),
        "blocks": [
            section(
                "Thanks for the 👎. Telling the docbot admins what was wrong helps them fix the "
                "docs or docbot; your answer is stored with the report."
            ),
            {
                "type": "input",
                "block_id": CATEGORY_BLOCK,
                "label": plain_text("The answer"),
                "element": {
                    "type": "radio_buttons",
                    "action_id": CATEGORY_ACTION,
                    "options": options,
                },
            },
            {
                "type": "input",
                "block_id": DETAIL_BLOCK,
                "optional": True,
                "label": plain_text("Anything else? (the right answer, a better doc)"),
                "element": {
                    "type": "plain_text_input",
                    "action_id": DETAIL_ACTION,
                    "multiline": True,
                    "max_length": DETAIL_MAX_CHARS,
                },
            },
        ],
    }


def mark_recorded(mark: str | None, escalate: str | None = None) -> Message:
    """The ephemeral word after a press of a feedback button (its state afterwards); with
    `escalate` (the answer's ts), a "Still need help?" button."""
    if mark == HELPFUL:
        text = "Thanks, I noted that this answer helped. Press 👍 again to take it back."
    elif mark == WRONG:
        text = "Thanks, I logged this answer as wrong. Press 👎 again to take it back."
    else:
        text = "Done: your feedback on this answer is taken back."
    return _offering(text, escalate if mark == WRONG else None)


def reason_recorded(escalate: str | None = None) -> Message:
    """After the modal; with `escalate` (the answer's ts), a "Still need help?" button."""
    return _offering("Thanks, I saved what was wrong with the report on my answer.", escalate)


def _offering(text: str, escalate: str | None) -> Message:
    extra = () if escalate is None else (escalate_block(escalate),)
    return Message(text=text, blocks=(section(text), *extra))


def not_my_answer() -> Message:
    text = (
        "I can't find that answer in my records any more, so I could not save your feedback. "
        "Please tell the docbot admins."
    )
    return Message(text=text, blocks=(section(text),))


def feedback_failed() -> Message:
    text = "Sorry, I could not save your feedback; please try again, or tell the docbot admins."
    return Message(text=text, blocks=(section(text),))


def reason_not_saved_yet() -> str:
    """Shown in the "what was wrong?" modal, kept open, when the store has not finished saving
    its answer in the time Slack gives docbot: sending it again cannot store it twice."""
    return (
        "This is taking longer than it should to save. Send it again in a moment; it is saved once."
    )


def reason_not_saved() -> str:
    """Shown in the "what was wrong?" modal, kept open, when its answer could not be stored."""
    return "I could not save this just now; send it again in a minute, or tell the docbot admins."


def thanks_for_wrong(bot_user_id: str | None, escalate: str | None = None) -> Message:
    """The private thanks after a wrong-mark reaction, inviting the reason as a thread reply;
    with `escalate` (the answer's ts), a "Still need help?" button."""
    me = f"<@{bot_user_id}>" if bot_user_id else "docbot"
    text = (
        "Thanks for flagging this answer as wrong; it has been logged for the docbot admins. "
        f"If you can, reply in this thread mentioning {me} with what was wrong or what the "
        "right answer is: your next reply there is saved with the report."
    )
    return _offering(text, escalate)


def thread_reason_saved() -> Message:
    text = "Thanks, I saved that with the report on my answer."
    return Message(text=text, blocks=(section(text),))


def thread_reason_failed() -> Message:
    text = "Sorry, I could not save that with the report; please tell the docbot admins."
    return Message(text=text, blocks=(section(text),))
