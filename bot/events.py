"""Slack event payloads: the slices docbot reads, validated at the boundary, and the question text.

Pure: a raw `event_callback` body in, frozen values out (None when the payload is not one we serve).
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import asdict, dataclass
from typing import Any

from pydantic import BaseModel, ConfigDict, ValidationError

from retrieval.text.slack import markup_words

# Message subtypes that are still a person writing to docbot; the rest (edits, deletions, joins,
# bot messages, ...) are acknowledged and ignored.
QUESTION_SUBTYPES = frozenset({None, "thread_broadcast", "file_share"})
_SKIN_TONE = re.compile(r"::skin-tone-\d$")


class _Slice(BaseModel):
    model_config = ConfigDict(extra="ignore", frozen=True)


class _Envelope(_Slice):
    team_id: str
    event_id: str
    is_ext_shared_channel: bool = False


class _MessageEvent(_Slice):
    channel: str
    ts: str
    user: str | None = None
    text: str = ""
    thread_ts: str | None = None
    channel_type: str | None = None
    subtype: str | None = None
    bot_id: str | None = None


class _ReactionItem(_Slice):
    type: str
    channel: str | None = None
    ts: str | None = None


class _ReactionEvent(_Slice):
    user: str
    reaction: str
    item: _ReactionItem
    item_user: str = ""
    event_ts: str = ""


@dataclass(frozen=True, slots=True)
class Turn:
    """A person's message addressed to docbot: a mention, or a message in a DM."""

    event_id: str
    team: str
    channel: str
    ts: str
    thread_ts: str | None  # the thread's parent when the message is a reply inside a thread
    user: str
    text: str  # docbot's own mention removed, Slack's entity escaping undone
    channel_type: str | None
    ext_shared: bool
    # Answered to the asker only (chat.postEphemeral), not in a thread: `/docbot QUESTION`.
    ephemeral: bool = False
    # The command's response_url: reaches the asker where docbot cannot post (not a member).
    response_url: str | None = None

    def to_payload(self) -> str:
        """The turn as the event ledger keeps it, so another process can answer it."""
        return json.dumps(asdict(self), ensure_ascii=False, sort_keys=True)

    @classmethod
    def from_payload(cls, payload: str) -> Turn | None:
        """The turn `to_payload` wrote; None when the text is not one (written by another
        version, say)."""
        try:
            fields = json.loads(payload)
            return cls(**fields) if isinstance(fields, dict) else None
        except (ValueError, TypeError):
            return None

    @property
    def reply_thread(self) -> str:
        """Where docbot replies: the existing thread, else a new one under the message."""
        return self.thread_ts or self.ts

    @property
    def in_thread(self) -> bool:
        return self.thread_ts is not None and self.thread_ts != self.ts


@dataclass(frozen=True, slots=True)
class Reaction:
    event_id: str
    team: str
    user: str
    emoji: str  # skin tone stripped: `+1::skin-tone-3` counts as `+1`
    channel: str
    ts: str  # the message reacted to
    item_user: str = ""  # who wrote it, when Slack says
    event_ts: str = ""  # when it was added or removed, by Slack (its order: reaction_order.py)


class _HomeOpened(_Slice):
    type: str
    user: str
    channel: str = ""
    tab: str = "home"


@dataclass(frozen=True, slots=True)
class HomeOpened:
    """Someone opened docbot's App Home (`tab`: home or messages); `channel` is their DM."""

    team: str
    user: str
    channel: str
    tab: str


def parse_home_opened(body: Mapping[str, Any]) -> HomeOpened | None:
    try:
        envelope = _Envelope.model_validate(body)
        event = _HomeOpened.model_validate(body.get("event"))
    except ValidationError:
        return None
    if event.type != "app_home_opened":
        return None
    return HomeOpened(envelope.team_id, event.user, event.channel, event.tab)


def parse_turn(body: Mapping[str, Any], bot_user_id: str | None) -> Turn | None:
    """The turn in an `app_mention` or `message` delivery; None for bots, edits and the like."""
    try:
        envelope = _Envelope.model_validate(body)
        event = _MessageEvent.model_validate(body.get("event"))
    except ValidationError:
        return None
    if event.subtype not in QUESTION_SUBTYPES or event.bot_id or not event.user:
        return None
    if bot_user_id is not None and event.user == bot_user_id:
        return None
    return Turn(
        event_id=envelope.event_id,
        team=envelope.team_id,
        channel=event.channel,
        ts=event.ts,
        thread_ts=event.thread_ts,
        user=event.user,
        text=question_text(event.text, bot_user_id),
        channel_type=event.channel_type,
        ext_shared=envelope.is_ext_shared_channel,
    )


def parse_reaction(body: Mapping[str, Any]) -> Reaction | None:
    """A reaction on a message; None for reactions on files or malformed payloads."""
    try:
        envelope = _Envelope.model_validate(body)
        event = _ReactionEvent.model_validate(body.get("event"))
    except ValidationError:
        return None
    item = event.item
    if item.type != "message" or item.channel is None or item.ts is None:
        return None
    emoji = _SKIN_TONE.sub("", event.reaction)
    return Reaction(
        envelope.event_id, envelope.team_id, event.user, emoji, item.channel, item.ts,
        event.item_user, event.event_ts,
    )  # fmt: skip


def mentions(text: str, user_id: str | None) -> bool:
    return user_id is not None and re.search(_mention_pattern(user_id), text) is not None


def question_text(text: str, bot_user_id: str | None) -> str:
    """The question as plain text: docbot's own mention removed, the rest of Slack's markup
    (other mentions, channel links, @here, links) turned into words, Slack's escaping undone."""
    if bot_user_id is not None:
        text = re.sub(_mention_pattern(bot_user_id), " ", text)
    text = markup_words(text)
    return re.sub(r"[ \t]{2,}", " ", text).strip()


def _mention_pattern(user_id: str) -> str:
    return rf"<@{re.escape(user_id)}(?:\|[^>]*)?>"
