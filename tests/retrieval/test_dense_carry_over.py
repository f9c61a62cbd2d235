"""A one-file edit with dense vectors on: an unchanged file's rows are copied from the previous
vectors file by position, so its chunks are neither built nor embedded; the edited file's
unchanged sections keep their rows by text; the vectors file equals a full rebuild's."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

from retrieval.collections import CollectionSnapshot
from retrieval.config import Config
from retrieval.index import build_index, index_root
from retrieval.manifest import SnapshotCache, read_manifest, read_snapshot
from retrieval.snapshot_file import StoredChunks
from tests.retrieval.docs_tree import WordCounter, public_and_secret
from tests.retrieval.test_dense_index import RecordingEmbedder


def _entries(config: Config) -> list[dict[str, Any]]:
    return list(read_manifest(index_root(config))["collections"])


def _chunks_of(snapshot: CollectionSnapshot, path: str) -> int:
    (record,) = [record for record in snapshot.files if record.path == path]
    return len(record.chunks)


def _vectors(config: Config) -> dict[str, bytes]:
    root = index_root(config)
    entries = read_manifest(root)["collections"]
    return {e["name"]: (root / str(e["vectors"]["file"])).read_bytes() for e in entries}


def test_an_edit_embeds_only_its_changed_chunks_and_builds_no_other_chunk(
    tmp_path: Path,
) -> None:
    config = public_and_secret(tmp_path)  # dense on: the default
    build_index(config, WordCounter(), RecordingEmbedder())
    old = {e["name"]: read_snapshot(index_root(config), e) for e in _entries(config)}
    # The edited file's old chunks are read (their texts find its unchanged sections' rows).
    expected = {"handbook": _chunks_of(old["handbook"], "http/clients.md"), "payments": 0}
    clients = tmp_path / "handbook" / "http" / "clients.md"
    clients.write_text(clients.read_text("utf-8").replace("five seconds", "nine seconds"))
    embedder, cache = RecordingEmbedder(), SnapshotCache()
    report = build_index(config, WordCounter(), embedder, cache=cache)

    assert report.embedded == len(embedder.texts) == 1  # the Timeouts section only
    assert "nine seconds" in embedder.texts[0]
    for entry in _entries(config):
        snapshot = cache.get(entry["sha256"])
        assert snapshot is not None
        for record in snapshot.files:
            if record.path == "http/clients.md":
                continue
            assert isinstance(record.chunks, StoredChunks), record.path
            assert record.chunks.stored.built == expected[snapshot.name], record.path

    incremental = _vectors(config)
    shutil.rmtree(index_root(config))
    build_index(config, WordCounter(), RecordingEmbedder())
    assert _vectors(config) == incremental
