"""Interactivity payloads (a button pressed, a modal submitted): the slices docbot reads,
validated at the boundary. Pure: a raw body in, frozen values out (None when it is not one).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel, ConfigDict, ValidationError


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
    private_metadata: str = ""
    state: dict[str, Any] = {}


class _ViewSubmission(_Slice):
    team: _Id
    user: _Id
    view: _View


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


@dataclass(frozen=True, slots=True)
class Submission:
    """A modal of docbot's submitted by `user`: its fields by block id and action id."""

    team: str
    user: str
    callback_id: str
    metadata: Mapping[str, str]  # what docbot put in private_metadata (a JSON object of str)
    values: Mapping[str, Mapping[str, Any]]


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
        trigger_id=payload.trigger_id,
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
    )  # fmt: skip


def field(submission: Submission, block_id: str, action_id: str) -> Mapping[str, Any]:
    """One input's state in a submitted modal ({} when absent)."""
    block = submission.values.get(block_id)
    value = block.get(action_id) if isinstance(block, Mapping) else None
    return value if isinstance(value, Mapping) else {}
