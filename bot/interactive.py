"""Interactivity payloads (a button pressed, a modal submitted, a slash command, a message
shortcut): the slices docbot reads, validated at the boundary. Pure: a raw body in, frozen values
out (None when it is not one). Commands and shortcuts become the same Turn a mention does.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel, ConfigDict, ValidationError

from bot.events import Turn, question_text

SLASH_COMMAND = "/docbot"
SHORTCUT = "docbot_ask"  # callback_id of the "Ask docbot about this" message shortcut


class _Slice(BaseModel):
    model_config = ConfigDict(extra="ignore", frozen=True)


class _Id(_Slice):
    id: str


class _Container(_Slice):
    type: str
    message_ts: str | None = None
    channel_id: str | None = None
    thread_ts: str | None = None
    is_ephemeral: bool = False


class _Action(_Slice):
    action_id: str
    block_id: str | None = None
    value: str | None = None
    selected_option: dict[str, Any] | None = None


class _Message(_Slice):
    ts: str
    thread_ts: str | None = None


class _BlockActions(_Slice):
    team: _Id
    user: _Id
    trigger_id: str | None = None
    container: _Container
    channel: _Id | None = None
    message: _Message | None = None
    actions: tuple[_Action, ...]


class _View(_Slice):
    callback_id: str
    id: str | None = None
    private_metadata: str = ""
    state: dict[str, Any] = {}


class _ViewSubmission(_Slice):
    team: _Id
    user: _Id
    view: _View


class _Command(_Slice):
    command: str
    team_id: str
    channel_id: str
    user_id: str
    text: str = ""
    trigger_id: str
    response_url: str | None = None


class _ShortcutMessage(_Slice):
    ts: str
    text: str = ""
    thread_ts: str | None = None


class _Shortcut(_Slice):
    callback_id: str
    trigger_id: str
    team: _Id
    user: _Id
    channel: _Id
    message: _ShortcutMessage


@dataclass(frozen=True, slots=True)
class ButtonPress:
    """A button in one of docbot's messages, pressed by `user`."""

    team: str
    user: str
    channel: str
    message_ts: str  # the message holding the button: docbot's answer
    thread_ts: str  # the thread that message is in (its own ts when it starts none)
    action_id: str
    value: str
    trigger_id: str | None  # for views.open, valid for 3 seconds
    block_id: str | None = None  # the block holding the button, as Slack names it


@dataclass(frozen=True, slots=True)
class Submission:
    """A modal of docbot's submitted by `user`: its fields by block id and action id."""

    team: str
    user: str
    callback_id: str
    metadata: Mapping[str, str]  # what docbot put in private_metadata (a JSON object of str)
    values: Mapping[str, Mapping[str, Any]]
    view_id: str | None = None  # the modal's id in Slack: one modal, one reason


def parse_button(body: Mapping[str, Any], action_id: str) -> ButtonPress | None:
    """The press of the `action_id` button on a message; None for anything else."""
    try:
        payload = _BlockActions.model_validate(body)
    except ValidationError:
        return None
    action = next((a for a in payload.actions if a.action_id == action_id), None)
    container = payload.container
    channel = container.channel_id or (payload.channel.id if payload.channel else None)
    ts = container.message_ts or (payload.message.ts if payload.message else None)
    if action is None or action.value is None or container.type != "message":
        return None
    if channel is None or ts is None:
        return None
    thread = container.thread_ts or (payload.message.thread_ts if payload.message else None)
    return ButtonPress(
        team=payload.team.id, user=payload.user.id, channel=channel, message_ts=ts,
        thread_ts=thread or ts, action_id=action.action_id, value=action.value,
        trigger_id=payload.trigger_id, block_id=action.block_id,
    )  # fmt: skip


def parse_submission(body: Mapping[str, Any]) -> Submission | None:
    """A view_submission whose private_metadata is docbot's (a JSON object of strings)."""
    try:
        payload = _ViewSubmission.model_validate(body)
        metadata = json.loads(payload.view.private_metadata or "{}")
    except (ValidationError, ValueError):
        return None
    if not isinstance(metadata, dict) or not all(isinstance(v, str) for v in metadata.values()):
        return None
    values = payload.view.state.get("values", {})
    return Submission(
        team=payload.team.id, user=payload.user.id, callback_id=payload.view.callback_id,
        metadata=metadata, values=values if isinstance(values, dict) else {},
        view_id=payload.view.id,
    )  # fmt: skip


def field(submission: Submission, block_id: str, action_id: str) -> Mapping[str, Any]:
    """One input's state in a submitted modal ({} when absent)."""
    block = submission.values.get(block_id)
    value = block.get(action_id) if isinstance(block, Mapping) else None
    return value if isinstance(value, Mapping) else {}


def parse_command(body: Mapping[str, Any]) -> Turn | None:
    """`/docbot QUESTION` as a question answered to its asker only, in the channel it was typed
    in. A command is no message: its key in the ledger is its trigger (Slack sends each once)."""
    try:
        command = _Command.model_validate(body)
    except ValidationError:
        return None
    if command.command != SLASH_COMMAND:
        return None
    key = f"command:{command.trigger_id}"
    return Turn(
        event_id=key, team=command.team_id, channel=command.channel_id, ts=key, thread_ts=None,
        user=command.user_id, text=question_text(command.text, None), channel_type=None,
        ext_shared=False, ephemeral=True, response_url=command.response_url,
    )  # fmt: skip


def parse_shortcut(body: Mapping[str, Any], bot_user_id: str | None) -> Turn | None:
    """ "Ask docbot about this" on a message: that message's text as the question of the person
    who chose the shortcut, answered in the message's thread like a mention of it."""
    try:
        shortcut = _Shortcut.model_validate(body)
    except ValidationError:
        return None
    if shortcut.callback_id != SHORTCUT:
        return None
    message = shortcut.message
    return Turn(
        event_id=f"shortcut:{shortcut.trigger_id}", team=shortcut.team.id,
        channel=shortcut.channel.id, ts=message.ts, thread_ts=message.thread_ts,
        user=shortcut.user.id, text=question_text(message.text, bot_user_id), channel_type=None,
        ext_shared=False,
    )  # fmt: skip
