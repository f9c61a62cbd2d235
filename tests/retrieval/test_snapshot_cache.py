"""A builder that builds again and again in one process (docbot serve's sync loop) takes the
last build's snapshots from memory, and only while their files on disk are the same bytes."""

from __future__ import annotations

import json
from pathlib import Path

from retrieval.config import Config
from retrieval.index import Index, build_index, index_root
from retrieval.manifest import SnapshotCache, read_previous
from retrieval.scopes import ConversationKind, resolve_scope
from tests.retrieval.docs_tree import WordCounter, public_and_secret, public_and_secret_results

QUERIES = ("zebrafish desk", "rollback release tool", "payments key vault", "PagerDuty rota")


def _results(config: Config) -> list[list[tuple[str, int, float]]]:
    return public_and_secret_results(config, QUERIES)


def test_the_next_build_takes_the_last_builds_snapshots_from_the_cache(tmp_path: Path) -> None:
    config = public_and_secret(tmp_path)
    cache = SnapshotCache()
    build_index(config, WordCounter(), cache=cache)
    (tmp_path / "handbook" / "oncall.md").write_text(
        "# On-call\n\nEscalate to the zebrafish desk.\n"
    )
    build_index(config, WordCounter(), cache=cache)  # what it wrote is what the cache holds

    previous = read_previous(index_root(config), cache)

    manifest = json.loads((index_root(config) / "manifest.json").read_text())
    for entry in manifest["collections"]:
        assert previous.snapshots[entry["name"]] is cache.get(entry["sha256"])
    fresh = public_and_secret(tmp_path / "fresh")
    (tmp_path / "fresh" / "handbook" / "oncall.md").write_text(
        "# On-call\n\nEscalate to the zebrafish desk.\n"
    )
    build_index(fresh, WordCounter())
    assert _results(config) == _results(fresh)


def test_a_snapshot_file_changed_on_disk_is_not_taken_from_the_cache(tmp_path: Path) -> None:
    config = public_and_secret(tmp_path)
    cache = SnapshotCache()
    build_index(config, WordCounter(), cache=cache)
    root = index_root(config)
    manifest = json.loads((root / "manifest.json").read_text())
    entry = next(e for e in manifest["collections"] if e["name"] == "handbook")
    cached = cache.get(entry["sha256"])
    assert cached is not None
    path = root / entry["snapshot"]
    path.write_bytes(path.read_bytes()[:-1] + b"x")

    previous = read_previous(root, cache)

    assert "handbook" not in previous.snapshots  # refused, as without a cache
    assert "payments" in previous.snapshots
    report = build_index(config, WordCounter(), cache=cache)
    assert next(c for c in report.collections if c.name == "handbook").new == 3  # read again
    assert Index.load(config).search(
        "rollback", resolve_scope(config, "T1", "CPUB", ConversationKind.CHANNEL), 1
    )
