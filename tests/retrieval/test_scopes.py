from __future__ import annotations

from pathlib import Path

import pytest

from retrieval.config import Config, load_config
from retrieval.errors import ConfigError
from retrieval.index import Index, build_index
from retrieval.scopes import ConversationKind, check_exclusive_files, resolve_scope
from tests.retrieval.docs_tree import WordCounter, public_and_secret

CONFIG = """\
teams: [T1]
collections:
  - {name: handbook, path: docs}
  - {name: runbooks, path: docs}
  - {name: payments, path: docs, access: private, channels: [C0PAY, G0PAYPRIV]}
  - {name: security, path: docs, access: private, channels: [C0PAY, D0ALICE]}
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


def _nested(tmp_path: Path, extra: str = "") -> Config:
    (tmp_path / "docs" / "payments").mkdir(parents=True)
    path = tmp_path / "docbot.yml"
    path.write_text(
        "teams: [T1]\ncollections:\n"
        f"  - {{name: handbook, path: docs{extra}}}\n"
        "  - {name: payments, path: docs/payments, access: private, channels: [C0PAY]}\n",
        encoding="utf-8",
    )
    return load_config(path)


def test_scope_file_in_public_and_private_collection_is_refused(tmp_path: Path) -> None:
    config = _nested(tmp_path)
    files = {"handbook": ["guide.md", "payments/vault.md"], "payments": ["vault.md"]}
    with pytest.raises(ConfigError) as info:
        check_exclusive_files(config, files)
    message = str(info.value)
    assert "payments/vault.md" in message
    assert "'handbook' (public)" in message and "'payments' (private)" in message
    assert "exclude" in message


def test_scope_nested_folders_are_fine_when_no_file_is_shared(tmp_path: Path) -> None:
    config = _nested(tmp_path, extra=', exclude: ["payments/**"]')
    check_exclusive_files(config, {"handbook": ["guide.md"], "payments": ["vault.md"]})


def test_scope_same_readers_may_share_files(config: Config) -> None:
    # handbook and runbooks are both public and share the folder: nothing can leak.
    check_exclusive_files(config, {"handbook": ["a.md"], "runbooks": ["a.md"]})
    with pytest.raises(ConfigError):
        check_exclusive_files(config, {"handbook": ["a.md"], "security": ["a.md"]})


def test_scope_dm_listed_in_a_private_collection_reads_it(config: Config) -> None:
    assert resolve_scope(config, "T1", "D0ALICE", ConversationKind.DM).collections == (
        "handbook",
        "runbooks",
        "security",
    )
    closed = config.model_copy(
        update={"conversations": config.conversations.model_copy(update={"dm": "none"})}
    )
    assert resolve_scope(closed, "T1", "D0ALICE", ConversationKind.DM).collections == ("security",)


@pytest.mark.parametrize("dense", [True, False])
def test_scope_private_collection_changes_nothing_in_public_results(
    tmp_path: Path, dense: bool
) -> None:
    """Hybrid search too: a private collection moves no public hit, rank or score (rule 2)."""
    loaded = []
    for with_secret in (True, False):
        base = tmp_path / f"secret-{with_secret}"
        config = public_and_secret(base, with_secret=with_secret)
        config = config.model_copy(
            update={"retrieval": config.retrieval.model_copy(update={"dense": dense})}
        )
        build_index(config, WordCounter())
        loaded.append((config, Index.load(config)))
    (with_private, index_a), (without, index_b) = loaded
    assert (index_a.dense_model is not None) == (index_b.dense_model is not None) == dense
    for question in (
        "rollback previous build",
        "rollback of the payments key",
        "deploy release tool",
    ):
        public_a = resolve_scope(with_private, "T1", "C0GEN", ConversationKind.CHANNEL)
        public_b = resolve_scope(without, "T1", "C0GEN", ConversationKind.CHANNEL)
        hits_a, hits_b = (
            index_a.search(question, public_a, 10),
            index_b.search(question, public_b, 10),
        )
        assert hits_a, question
        assert [(h.chunk.chunk_id, h.score, h.rank) for h in hits_a] == [
            (h.chunk.chunk_id, h.score, h.rank) for h in hits_b
        ]
    # ... while the channel granted the private collection does find it, by either side.
    granted = resolve_scope(with_private, "T1", "CPAY", ConversationKind.CHANNEL)
    assert index_a.search("payments key vault", granted, 1)[0].chunk.collection == "payments"
