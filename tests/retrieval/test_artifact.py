"""Publishing the index (retrieval/artifact.py): immutable checksummed versions, a pointer replaced
last, one publisher at a time, and a loader that refuses a damaged version whole."""

from __future__ import annotations

import json
import threading
from pathlib import Path

import pytest

from retrieval.artifact import (
    KEEP,
    POINTER,
    VERSIONS,
    builder_lock,
    current_version,
    named_files,
    publish,
)
from retrieval.config import Config
from retrieval.errors import IndexNotBuiltError
from retrieval.index import Index, build_index
from retrieval.manifest import MANIFEST
from retrieval.scopes import ConversationKind, resolve_scope
from tests.retrieval.docs_tree import WordCounter, public_and_secret, write_tree


def _built(tmp_path: Path) -> Config:
    config = public_and_secret(tmp_path)  # dense on: vectors files are published too
    build_index(config, WordCounter())
    return config


def _replica(config: Config, dest: Path) -> Config:
    """The same docbot.yml on another machine: no state_dir index, only the published one."""
    return config.model_copy(update={"index_dir": dest, "state_dir": Path("/nonexistent")})


def _rollback_hits(index: Index, config: Config) -> list[str]:
    scope = resolve_scope(config, "T1", "CPUB", ConversationKind.CHANNEL)
    return [hit.chunk.path for hit in index.search("rollback release tool", scope, 3)]


def test_publish_writes_a_version_a_replica_loads_read_only(tmp_path: Path) -> None:
    config = _built(tmp_path)
    dest = tmp_path / "published"
    published = publish(config, dest)
    pointer = json.loads((dest / POINTER).read_text())
    assert pointer["version"] == published.version and not published.reused
    assert current_version(dest) == dest / VERSIONS / published.version
    manifest = json.loads((published.folder / MANIFEST).read_text())
    assert all((published.folder / name).is_file() for name, _, _ in named_files(manifest))

    replica = _replica(config, dest)
    index = Index.load(replica)
    assert index.generation == published.version
    assert _rollback_hits(index, replica) == _rollback_hits(Index.load(config), config)


def test_publish_of_an_unchanged_index_reuses_its_version(tmp_path: Path) -> None:
    config = _built(tmp_path)
    dest = tmp_path / "published"
    first = publish(config, dest)
    again = publish(config, dest)
    assert again.reused and again.version == first.version
    assert [p.name for p in (dest / VERSIONS).iterdir()] == [first.version]


def test_publish_keeps_the_newest_versions_and_never_the_half_copied(tmp_path: Path) -> None:
    config = _built(tmp_path)
    dest = tmp_path / "published"
    versions = []
    for n in range(KEEP + 2):
        write_tree(tmp_path / "handbook", {"news.md": f"# News\n\nRelease number {n} is out.\n"})
        build_index(config, WordCounter())
        versions.append(publish(config, dest).version)
    crashed = dest / VERSIONS / ".tmp-abc-123"  # what a killed publish left
    crashed.mkdir()
    write_tree(tmp_path / "handbook", {"news.md": "# News\n\nThe last release.\n"})
    build_index(config, WordCounter())
    versions.append(publish(config, dest).version)
    assert sorted(p.name for p in (dest / VERSIONS).iterdir()) == sorted(versions[-KEEP:])


def test_a_damaged_published_file_is_refused_at_load_not_half_loaded(tmp_path: Path) -> None:
    config = _built(tmp_path)
    dest = tmp_path / "published"
    folder = publish(config, dest).folder
    manifest = json.loads((folder / MANIFEST).read_text())
    snapshot = folder / manifest["collections"][0]["snapshot"]
    data = bytearray(snapshot.read_bytes())
    data[len(data) // 2] ^= 0xFF
    snapshot.write_bytes(bytes(data))
    with pytest.raises(IndexNotBuiltError, match="damaged"):
        Index.load(_replica(config, dest))


def test_a_manifest_changed_after_publishing_is_refused(tmp_path: Path) -> None:
    config = _built(tmp_path)
    dest = tmp_path / "published"
    folder = publish(config, dest).folder
    (folder / MANIFEST).write_text((folder / MANIFEST).read_text().replace("\n", "\n "))
    with pytest.raises(IndexNotBuiltError, match="has changed since it was published"):
        current_version(dest)


def test_nothing_published_yet_says_how_to_publish(tmp_path: Path) -> None:
    with pytest.raises(
        IndexNotBuiltError, match=r"nothing is published in .* yet: run `docbot index --publish "
    ):
        current_version(tmp_path / "empty")


def test_builder_lock_lets_one_publisher_at_a_time(tmp_path: Path) -> None:
    dest = tmp_path / "published"
    told = threading.Event()
    inside = threading.Event()
    said: list[str] = []

    def second() -> None:
        def waiting(why: str) -> None:
            said.append(why)
            told.set()

        with builder_lock(dest, waiting):
            inside.set()

    with builder_lock(dest):
        thread = threading.Thread(target=second)
        thread.start()
        assert told.wait(10)  # the second publisher says it waits ...
        assert not inside.is_set()  # ... and does wait, while the first holds the lock
    thread.join(10)
    assert inside.is_set()
    assert "waiting for docbot index (pid" in said[0]
