"""Escalation wording: the "Still need help?" button on a not-found or thumbs-down answer, the
note in the thread that hands the question to the people who own the docs, and what the presser
is told when it cannot be sent.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from bot.render.text import Message, clip, escape, plain, plain_text, section

ESCALATE_ACTION = "docbot_escalate"
# The button's value when it sits in the answer itself (the message pressed is the answer);
# on a private note it carries the answer's ts instead.
IN_ANSWER = "answer"
QUESTION_CHARS = 500


def escalate_block(reply_ts: str = IN_ANSWER) -> dict[str, Any]:
    """An actions block with the one button that asks the docs' owners for help."""
    button = {
        "type": "button",
        "action_id": ESCALATE_ACTION,
        "text": plain_text("Still need help?"),
        "value": reply_ts,
        "accessibility_label": "Ask the people who own these docs",
    }
    return {"type": "actions", "elements": [button]}


def owner_mention(owner: str) -> str:
    """A user ID as a mention; a user group comes in Slack's mention syntax already (config)."""
    return owner if owner.startswith("<!subteam^") else f"<@{owner}>"


def escalation_note(
    presser: str, question: str, owners: Sequence[str], collections: Sequence[str]
) -> Message:
    """The thread note: who still needs help, with what, and the owners of the docs involved.

    The question is the asker's text, escaped, so it pings nobody; only the owners (from
    docbot.yml) and the presser are mentioned."""
    names = ", ".join(f"*{escape(name)}*" for name in collections)
    mentions = " ".join(owner_mention(owner) for owner in owners)
    asked = escape(clip(" ".join(question.split()), QUESTION_CHARS))
    text = (
        f":raising_hand: <@{presser}> still needs help with this question, which I could not "
        f"answer well from the docs:\n>{asked}\n{mentions}: you own {names}; could you help "
        "here, and fix or add the page if it is missing?"
    )
    return Message(text=plain(text), blocks=(section(text),))


def escalated() -> Message:
    return _note("Done: I asked the people who own these docs in the thread.")


def escalated_already() -> Message:
    """A later press on the same answer, or on a copy of it (a shared `/docbot` answer), whose
    note may be in another thread or in the channel."""
    return _note(
        "The owners of these docs were already asked for help with this question, so I did "
        "not ask them again."
    )


def escalation_pending(lease_seconds: float) -> Message:
    """A press while another press's note is still being posted (or its process died, and its
    claim has not lapsed yet): the presser is not told the owners were asked, since that is
    not known yet, but when to press again, which then looks before it posts."""
    minutes = max(1, math.ceil(lease_seconds / 60))
    within = "a minute" if minutes == 1 else f"{minutes} minutes"
    return _note(
        "Someone asked for help with this question a moment ago, and Slack has not confirmed "
        f"the request yet. If you do not see it in the thread within {within}, press *Still "
        "need help?* again: I will look first, and ask the owners only if the request is "
        "missing."
    )


def escalation_not_allowed() -> Message:
    return _note(
        "Only the person who asked, or a member of this channel, can ask the docs' owners "
        "for help here."
    )


def no_owners() -> Message:
    return _note(
        "Nobody is listed as owning these docs, so there is no one I can ask. A docbot admin "
        "can add `owners:` to the collection in `docbot.yml`."
    )


def escalation_failed() -> Message:
    return _note("Sorry, I could not post the request for help; please try again in a minute.")


def escalation_unconfirmed() -> Message:
    """Slack may have posted the note but did not say so, and could not be asked: the claim
    is kept (no second note on a guess) and the next press looks again before posting."""
    return _note(
        "Slack did not confirm that my request for help was posted, and I could not check. "
        "If you do not see it in the thread in a minute, press *Still need help?* again: I "
        "will look first, and ask the owners only if the request is missing."
    )


def _note(text: str) -> Message:
    return Message(text=text, blocks=(section(text),))
