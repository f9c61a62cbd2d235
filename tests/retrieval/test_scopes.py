from __future__ import annotations

from pathlib import Path

import pytest

from retrieval.config import Config, load_config
from retrieval.scopes import ConversationKind, resolve_scope

CONFIG = """\
teams: [T1]
collections:
  - {name: handbook, path: docs}
  - {name: runbooks, path: docs}
  - {name: payments, path: docs, access: private, channels: [C0PAY, G0PAYPRIV]}
  - {name: security, path: docs, access: private, channels: [C0PAY]}
conversations: {dm: public, external: none}
"""


@pytest.fixture
def config(tmp_path: Path) -> Config:
    (tmp_path / "docs").mkdir()
    path = tmp_path / "docbot.yml"
    path.write_text(CONFIG, encoding="utf-8")
    return load_config(path)


def test_scope_public_channel_sees_public_collections(config: Config) -> None:
    scope = resolve_scope(config, "T1", "C0GENERAL", ConversationKind.CHANNEL)
    assert scope.collections == ("handbook", "runbooks")


def test_scope_listed_channel_adds_its_private_collections(config: Config) -> None:
    assert resolve_scope(config, "T1", "C0PAY", ConversationKind.CHANNEL).collections == (
        "handbook",
        "payments",
        "runbooks",
        "security",
    )
    assert resolve_scope(config, "T1", "G0PAYPRIV", ConversationKind.PRIVATE).collections == (
        "handbook",
        "payments",
        "runbooks",
    )


def test_scope_unconfigured_team_sees_nothing(config: Config) -> None:
    assert resolve_scope(config, "T2", "C0PAY", ConversationKind.CHANNEL).is_empty


def test_scope_external_channel_follows_config_and_never_gets_private(
    config: Config, tmp_path: Path
) -> None:
    assert resolve_scope(config, "T1", "C0PAY", ConversationKind.EXTERNAL).is_empty
    opened = config.model_copy(
        update={"conversations": config.conversations.model_copy(update={"external": "public"})}
    )
    scope = resolve_scope(opened, "T1", "C0PAY", ConversationKind.EXTERNAL)
    assert scope.collections == ("handbook", "runbooks")


def test_scope_dm_follows_config(config: Config) -> None:
    assert resolve_scope(config, "T1", "D0ME", ConversationKind.DM).collections == (
        "handbook",
        "runbooks",
    )
    closed = config.model_copy(
        update={"conversations": config.conversations.model_copy(update={"dm": "none"})}
    )
    assert resolve_scope(closed, "T1", "D0ME", ConversationKind.DM).is_empty


def test_scope_unknown_properties_fail_closed(config: Config) -> None:
    assert resolve_scope(config, "T1", "C0OTHER", ConversationKind.UNKNOWN).collections == (
        "handbook",
        "runbooks",
    )
    assert resolve_scope(config, "T1", "C0PAY", ConversationKind.UNKNOWN).is_empty


def test_scope_to_dict_matches_the_answer_contract(config: Config) -> None:
    scope = resolve_scope(config, "T1", "C0GENERAL", ConversationKind.CHANNEL)
    assert scope.to_dict() == {
        "team": "T1",
        "channel": "C0GENERAL",
        "kind": "channel",
        "collections": ["handbook", "runbooks"],
    }
