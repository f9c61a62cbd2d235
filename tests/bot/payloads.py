"""Slack Events API payloads built from scratch, shaped like real deliveries.

The e2e suite replays these, so it runs in any clone; test_payloads.py checks their shape against
the real payloads in ../shared/slack/fixtures when that folder is present.
"""

from __future__ import annotations

import json
import time
import uuid
from pathlib import Path
from typing import Any

import pytest

APP_ID = "A0DOCBOTAPP"
VERIFICATION_TOKEN = "legacy-verification-token"  # deprecated by Slack; Bolt ignores it
SHARED_FIXTURES = Path(__file__).resolve().parents[2] / ".." / "shared" / "slack" / "fixtures"


def real(name: str) -> dict[str, Any]:
    """One of Slack's own example payloads from ../shared; skips the test when it is absent."""
    path = SHARED_FIXTURES / name
    if not path.is_file():
        pytest.skip(f"../shared is absent: {path} holds Slack's real payload")
    data: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return data


def app_mention(
    text: str, *, team: str, channel: str, user: str, ts: str, event_id: str, bot_user_id: str,
    thread_ts: str | None = None, parent_user_id: str | None = None, ext_shared: bool = False,
) -> dict[str, Any]:  # fmt: skip
    """An `app_mention` callback: `text` mentions the bot first; in a thread when `thread_ts`."""
    event: dict[str, Any] = {
        "client_msg_id": str(uuid.uuid5(uuid.NAMESPACE_URL, event_id)),
        "type": "app_mention",
        "text": f"<@{bot_user_id}> {text}".rstrip(),
        "user": user,
        "ts": ts,
        "team": team,
        "blocks": [_rich_text(bot_user_id, text)],
        "channel": channel,
        "event_ts": ts,
    }
    if thread_ts is not None:
        event.update(thread_ts=thread_ts, parent_user_id=parent_user_id or user)
    body = event_callback(event, team=team, event_id=event_id, bot_user_id=bot_user_id)
    body.update(is_ext_shared_channel=ext_shared, event_context=f"1-app_mention-{team}-{channel}")
    return body


def direct_message(
    text: str, *, team: str, channel: str, user: str, ts: str, event_id: str, bot_user_id: str
) -> dict[str, Any]:
    """A `message` in docbot's DM (the `message.im` subscription)."""
    event = {
        "type": "message",
        "channel": channel,
        "user": user,
        "text": text,
        "ts": ts,
        "event_ts": ts,
        "channel_type": "im",
    }
    return event_callback(event, team=team, event_id=event_id, bot_user_id=bot_user_id)


def reaction(
    added: bool, emoji: str, *, team: str, channel: str, user: str, item_ts: str,
    item_user: str, event_id: str, bot_user_id: str,
) -> dict[str, Any]:  # fmt: skip
    """`reaction_added` / `reaction_removed` on the message `item_ts` in `channel`."""
    event = {
        "type": "reaction_added" if added else "reaction_removed",
        "user": user,
        "reaction": emoji,
        "item_user": item_user,
        "item": {"type": "message", "channel": channel, "ts": item_ts, "channel_type": "channel"},
        "event_ts": _now_ts(),
    }
    return event_callback(event, team=team, event_id=event_id, bot_user_id=bot_user_id)


def event_callback(
    event: dict[str, Any], *, team: str, event_id: str, bot_user_id: str
) -> dict[str, Any]:
    """The `event_callback` envelope every Events API delivery comes in."""
    return {
        "token": VERIFICATION_TOKEN,
        "team_id": team,
        "api_app_id": APP_ID,
        "event": event,
        "type": "event_callback",
        "event_id": event_id,
        "event_time": int(time.time()),
        "authorizations": [
            {
                "enterprise_id": None,
                "team_id": team,
                "user_id": bot_user_id,
                "is_bot": True,
                "is_enterprise_install": False,
            }
        ],
    }


def socket_mode_envelope(
    payload: dict[str, Any], *, envelope_id: str, retry_attempt: int = 0
) -> dict[str, Any]:
    """How Socket Mode wraps an Events API payload; Bolt acks by `envelope_id`."""
    return {
        "envelope_id": envelope_id,
        "payload": payload,
        "type": "events_api",
        "accepts_response_payload": False,
        "retry_attempt": retry_attempt,
        "retry_reason": "" if retry_attempt == 0 else "timeout",
    }


def url_verification(challenge: str) -> dict[str, Any]:
    """Sent once when the Request URL is saved in the app's Event Subscriptions."""
    return {"token": VERIFICATION_TOKEN, "challenge": challenge, "type": "url_verification"}


def _rich_text(bot_user_id: str, text: str) -> dict[str, Any]:
    """The rich-text block Slack adds to a typed message: the mention, then the words."""
    elements: list[dict[str, Any]] = [{"type": "user", "user_id": bot_user_id}]
    if text.strip():
        elements.append({"type": "text", "text": f" {text}"})
    section = {"type": "rich_text_section", "elements": elements}
    return {"type": "rich_text", "block_id": uuid.uuid4().hex[:4], "elements": [section]}


def _now_ts() -> str:
    return f"{time.time():.6f}"


def block_actions(
    action_id: str, value: str, *, team: str, channel: str, user: str, message_ts: str,
    thread_ts: str | None = None, action_type: str = "feedback_buttons",
    block_id: str | None = None,
) -> dict[str, Any]:  # fmt: skip
    """A `block_actions` interaction: `user` pressed a button in the message `message_ts`, in
    its block `block_id` (as Slack names it: one it made up when the block has none)."""
    container: dict[str, Any] = {
        "type": "message", "message_ts": message_ts, "channel_id": channel,
        "is_ephemeral": False,
    }  # fmt: skip
    message: dict[str, Any] = {"type": "message", "ts": message_ts, "text": "docbot's answer"}
    if thread_ts is not None:
        container["thread_ts"] = message["thread_ts"] = thread_ts
    return {
        "type": "block_actions",
        "user": {"id": user, "username": "asker", "name": "asker", "team_id": team},
        "api_app_id": APP_ID,
        "token": VERIFICATION_TOKEN,
        "container": container,
        "trigger_id": f"{message_ts.replace('.', '')}.{uuid.uuid4().hex[:12]}",
        "team": {"id": team, "domain": "docbot-test"},
        "enterprise": None,
        "is_enterprise_install": False,
        "channel": {"id": channel, "name": "general"},
        "message": message,
        "response_url": f"https://hooks.slack.com/actions/{team}/1/{uuid.uuid4().hex}",
        "actions": [
            {
                "action_id": action_id, "block_id": block_id or uuid.uuid4().hex[:5],
                "type": action_type, "value": value, "action_ts": _now_ts(),
            }
        ],
    }  # fmt: skip


def view_submission(
    callback_id: str, values: dict[str, dict[str, Any]], *, team: str, user: str,
    private_metadata: str = "",
) -> dict[str, Any]:  # fmt: skip
    """A `view_submission`: `user` sent the modal `callback_id` with its inputs' `values`."""
    return {
        "type": "view_submission",
        "team": {"id": team, "domain": "docbot-test"},
        "user": {"id": user, "username": "asker", "name": "asker", "team_id": team},
        "api_app_id": APP_ID,
        "token": VERIFICATION_TOKEN,
        "trigger_id": f"{uuid.uuid4().int % 10**12}.{uuid.uuid4().hex[:12]}",
        "view": {
            "id": f"V{uuid.uuid4().hex[:10].upper()}", "team_id": team, "type": "modal",
            "callback_id": callback_id,
            "private_metadata": private_metadata, "state": {"values": values},
            "hash": uuid.uuid4().hex[:16], "app_id": APP_ID, "bot_id": "B0DOCBOT",
        },
        "response_urls": [],
        "is_enterprise_install": False,
    }  # fmt: skip


def slash_command(
    text: str, *, team: str, channel: str, user: str, trigger_id: str, command: str = "/docbot",
    response_url: str | None = None,
) -> dict[str, str]:  # fmt: skip
    """The form fields Slack posts for `/docbot <text>` typed in `channel`."""
    return {
        "token": VERIFICATION_TOKEN, "team_id": team, "team_domain": "docbot-test",
        "channel_id": channel, "channel_name": "general", "user_id": user,
        "user_name": "asker", "command": command, "text": text, "api_app_id": APP_ID,
        "is_enterprise_install": "false",
        "response_url": response_url
        or f"https://hooks.slack.com/commands/{team}/1/{uuid.uuid4().hex}",
        "trigger_id": trigger_id,
    }  # fmt: skip


def message_action(
    callback_id: str, *, team: str, channel: str, user: str, message_ts: str, message_text: str,
    author: str, trigger_id: str, thread_ts: str | None = None,
) -> dict[str, Any]:  # fmt: skip
    """A message shortcut: `user` chose `callback_id` on the message `message_ts`."""
    message: dict[str, Any] = {"type": "message", "user": author, "ts": message_ts,
                               "text": message_text}  # fmt: skip
    if thread_ts is not None:
        message["thread_ts"] = thread_ts
    return {
        "type": "message_action", "token": VERIFICATION_TOKEN, "action_ts": _now_ts(),
        "team": {"id": team, "domain": "docbot-test"},
        "user": {"id": user, "username": "asker", "team_id": team, "name": "asker"},
        "channel": {"id": channel, "name": "general"}, "is_enterprise_install": False,
        "callback_id": callback_id, "trigger_id": trigger_id, "message_ts": message_ts,
        "message": message,
        "response_url": f"https://hooks.slack.com/app/{team}/1/{uuid.uuid4().hex}",
    }  # fmt: skip


def app_home_opened(
    *, team: str, user: str, channel: str, event_id: str, bot_user_id: str, tab: str = "home"
) -> dict[str, Any]:
    """`user` opened docbot's App Home (`channel`: their DM with docbot)."""
    event = {"type": "app_home_opened", "user": user, "channel": channel, "tab": tab,
             "event_ts": _now_ts()}  # fmt: skip
    return event_callback(event, team=team, event_id=event_id, bot_user_id=bot_user_id)
