"""manifest.yml: valid against Slack's published schema, least privilege, every scope justified."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import jsonschema
import pytest
import yaml

from bot.interactive import SHORTCUT, SLASH_COMMAND

REPO = Path(__file__).resolve().parents[2]
MANIFEST = REPO / "manifest.yml"
SCHEMA = REPO / ".." / "shared" / "slack" / "manifest.schema.json"

# What the app does and the scope each needs (see the comments in manifest.yml).
NEEDED_SCOPES = {
    "app_mentions:read",  # app_mention events
    "commands",  # /docbot and the "Ask docbot about this" message shortcut
    "chat:write",  # replies in threads, streamed replies, the AI-app status
    "assistant:write",  # assistant_thread_started; assistant.threads.setSuggestedPrompts
    "reactions:read",  # reaction_added / reaction_removed
    "reactions:write",  # :eyes: while working
    "channels:read",  # conversations.info: public or Slack Connect
    "groups:read",  # conversations.info on private channels
    "im:read",  # conversations.info on DMs
    "mpim:read",  # conversations.info on group DMs
    "im:history",  # message.im events; conversations.replies in DMs
    # conversations.replies: has a run that died already posted its reply? (bot/replies.py)
    "channels:history",
    "groups:history",
    "mpim:history",
}
NEEDED_EVENTS = {
    "app_mention", "reaction_added", "reaction_removed", "message.im", "app_home_opened",
    "assistant_thread_started", "assistant_thread_context_changed",
}  # fmt: skip


def _manifest() -> dict[str, Any]:
    data = yaml.safe_load(MANIFEST.read_text(encoding="utf-8"))
    assert isinstance(data, dict)
    return data


def test_manifest_is_valid_against_slack_schema() -> None:
    if not SCHEMA.exists():
        pytest.skip(f"../shared is absent: {SCHEMA} not found")
    schema = json.loads(SCHEMA.read_text(encoding="utf-8"))
    jsonschema.Draft7Validator.check_schema(schema)
    errors = sorted(jsonschema.Draft7Validator(schema).iter_errors(_manifest()), key=str)
    assert not errors, "\n".join(f"{list(e.absolute_path)}: {e.message}" for e in errors)


def test_manifest_schema_check_catches_a_broken_manifest() -> None:
    # Guards the test above against a schema that would accept anything.
    if not SCHEMA.exists():
        pytest.skip(f"../shared is absent: {SCHEMA} not found")
    schema = json.loads(SCHEMA.read_text(encoding="utf-8"))
    broken = _manifest()
    broken["settings"]["interactivity"] = {"enabled": False}
    broken["display_information"]["name"] = "d" * 36
    assert len(list(jsonschema.Draft7Validator(schema).iter_errors(broken))) >= 2


def test_manifest_asks_for_exactly_the_scopes_the_app_needs() -> None:
    scopes = _manifest()["oauth_config"]["scopes"]
    assert set(scopes["bot"]) == NEEDED_SCOPES
    assert len(scopes["bot"]) == len(NEEDED_SCOPES)
    assert "user" not in scopes  # docbot never acts as a person


def test_manifest_subscribes_to_the_events_the_app_handles() -> None:
    settings = _manifest()["settings"]
    assert set(settings["event_subscriptions"]["bot_events"]) == NEEDED_EVENTS
    assert settings["socket_mode_enabled"] is True
    # The feedback buttons and the modal (block_actions, view_submission) need interactivity.
    assert settings["interactivity"]["is_enabled"] is True


def test_manifest_bot_user_is_docbot_and_accepts_dms() -> None:
    features = _manifest()["features"]
    assert features["bot_user"]["display_name"] == "docbot"
    # message.im only arrives if people can write in the app's Messages tab.
    assert features["app_home"]["messages_tab_enabled"] is True
    assert features["app_home"]["messages_tab_read_only_enabled"] is False


def test_manifest_justifies_every_scope_in_a_comment() -> None:
    lines = MANIFEST.read_text(encoding="utf-8").splitlines()
    for index, line in enumerate(lines):
        match = re.fullmatch(r"\s*- ([a-z_.]+:[a-z_.]+)\s*", line)
        if match:
            assert lines[index - 1].strip().startswith("#"), f"{match[1]} has no comment above it"


def test_manifest_declares_the_command_and_shortcut_the_app_listens_for() -> None:
    features = _manifest()["features"]
    assert [c["command"] for c in features["slash_commands"]] == [SLASH_COMMAND]
    assert [(s["type"], s["callback_id"]) for s in features["shortcuts"]] == [("message", SHORTCUT)]
