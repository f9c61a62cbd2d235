"""Wording for `/docbot`: the button that shares a private answer with the channel, and the
line that says who asked when it is shared."""

from __future__ import annotations

from typing import Any

from bot.render.answers import MAX_BLOCKS
from bot.render.text import Message, context, plain, plain_text, section

SHARE_ACTION = "docbot_share"


def shareable(message: Message) -> Message:
    """A private answer with a "Share in channel" button (when Slack's block limit allows)."""
    if len(message.blocks) >= MAX_BLOCKS:
        return message
    button = {
        "type": "button",
        "action_id": SHARE_ACTION,
        "text": plain_text("Share in channel"),
        "value": "share",
        "accessibility_label": "Post this answer in the channel for everyone",
    }
    return Message(message.text, (*message.blocks, {"type": "actions", "elements": [button]}))


def shared(message: Message, asker: str) -> Message:
    """The answer as posted in the channel: who asked it with `/docbot`, then the answer."""
    said = f"<@{asker}> asked with `/docbot`:"
    blocks: tuple[dict[str, Any], ...] = (context(said), *message.blocks)
    return Message(plain(f"{said} {message.text}"), blocks[:MAX_BLOCKS])


def already_shared() -> Message:
    text = "This answer is in the channel already."
    return Message(text, (context(text),))


def share_failed() -> Message:
    text = "Sorry, I could not post the answer in the channel; please try again in a minute."
    return Message(text, (context(text),))


def share_unconfirmed() -> Message:
    """Slack may have posted the copy without saying so, and could not be asked: the claim is
    left to lapse, and the next press looks in the channel before posting."""
    text = (
        "Slack did not confirm that the answer was posted in the channel, and I could not "
        "check. If it does not appear there, press *Share in channel* again in a minute: I "
        "will look first, and post it only if it is missing."
    )
    return Message(text, (context(text),))


def not_a_member() -> Message:
    """`/docbot` where docbot is not a member: Slack takes no reply from it there."""
    text = (
        ":wave: I'm not a member of this conversation, so I can't answer here. Invite me with "
        "`/invite @docbot` (or mention me and choose to invite me), then ask again; or ask me "
        "in a direct message."
    )
    return Message(plain(text), (section(text),))


def reply_unconfirmed() -> Message:
    """A `/docbot` answer Slack may or may not have shown the asker (its answer to the post was
    lost): it is not sent again, since a private message cannot be read back to check."""
    text = (
        "Slack did not confirm that my answer reached you. If you do not see it just above, "
        "ask again: I did not send it twice, so that you would not get it twice."
    )
    return Message(plain(text), (section(text),))


def already_answered(permalink: str | None) -> Message:
    """The shortcut on a message docbot has answered: where that answer is (Slack's own link)."""
    if permalink and not any(c in permalink for c in "<>| "):
        text = f"I answered this message already: <{permalink}|see my answer in its thread>."
    else:
        text = "I answered this message already: my answer is in its thread."
    return Message(text, (section(text),))
