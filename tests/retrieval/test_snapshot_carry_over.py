"""A rebuild reads the previous snapshots without building their chunks: an unchanged
collection's chunks, and an edited collection's unchanged files' chunks, are never built, and
their stored records are copied into the next snapshot file as they are. What that file holds
is exactly what a full rebuild of the same files writes."""

from __future__ import annotations

import shutil
from pathlib import Path

import yaml

from retrieval.collections import CollectionSnapshot
from retrieval.config import Config, load_config
from retrieval.index import build_index, index_root
from retrieval.manifest import SnapshotCache, read_manifest, read_snapshot
from retrieval.snapshot_file import StoredChunks, decode, encode
from tests.retrieval.docs_tree import PUBLIC_DOCS, SECRET_DOCS, WordCounter, write_tree


def _config(base: Path, state: str) -> Config:
    """`handbook` (public) and `payments` (private to CPAY), BM25 only."""
    write_tree(base / "handbook", PUBLIC_DOCS)
    write_tree(base / "payments", SECRET_DOCS)
    raw = {
        "state_dir": str(base / state),
        "teams": ["T1"],
        "collections": [
            {"name": "handbook", "path": str(base / "handbook")},
            {"name": "payments", "path": str(base / "payments"), "access": "private"}
            | {"channels": ["CPAY"]},
        ],
        "search": {"engine": "tantivy", "chunk_tokens": 60},
        "retrieval": {"dense": False},
    }
    path = base / f"{state}.yml"
    path.write_text(yaml.safe_dump(raw), encoding="utf-8")
    return load_config(path)


def _files(config: Config) -> dict[str, bytes]:
    """Each collection's snapshot file name and bytes, as the manifest names them."""
    root = index_root(config)
    entries = read_manifest(root)["collections"]
    return {entry["snapshot"]: (root / entry["snapshot"]).read_bytes() for entry in entries}


def _edit(base: Path) -> None:
    page = base / "handbook" / "oncall.md"
    page.write_text(
        page.read_text("utf-8") + "\n## Escalation\n\nPage the lead after 30 minutes.\n"
    )


def _kept(config: Config, cache: SnapshotCache) -> dict[str, CollectionSnapshot]:
    found = {}
    for entry in read_manifest(index_root(config))["collections"]:
        snapshot = cache.get(entry["sha256"])
        assert snapshot is not None
        found[entry["name"]] = snapshot
    return found


def test_a_rebuild_builds_no_chunk_of_a_file_it_did_not_read_again(tmp_path: Path) -> None:
    config = _config(tmp_path, "state")
    build_index(config, WordCounter())
    _edit(tmp_path)
    cache = SnapshotCache()  # empty: the previous snapshots are read from their files
    report = build_index(config, WordCounter(), cache=cache)
    assert {c.name: c.changed for c in report.collections} == {"handbook": 1, "payments": 0}

    snapshots = _kept(config, cache)
    for name, snapshot in snapshots.items():
        for record in snapshot.files:
            if (name, record.path) == ("handbook", "oncall.md"):
                assert not isinstance(record.chunks, StoredChunks)  # chunked again
                continue
            assert isinstance(record.chunks, StoredChunks), (name, record.path)
            assert record.chunks.stored.built == 0, (name, record.path)


def test_the_carried_over_snapshot_file_is_the_one_a_full_rebuild_writes(tmp_path: Path) -> None:
    config = _config(tmp_path, "state")
    build_index(config, WordCounter())
    _edit(tmp_path)
    build_index(config, WordCounter())
    incremental = _files(config)
    shutil.rmtree(index_root(config))
    build_index(config, WordCounter())  # the same files, built from nothing

    assert _files(config) == incremental


def test_a_lazily_read_snapshot_equals_its_decoded_chunks_and_encodes_to_its_file(
    tmp_path: Path,
) -> None:
    config = _config(tmp_path, "state")
    build_index(config, WordCounter())
    root = index_root(config)
    for entry in read_manifest(root)["collections"]:
        data = (root / entry["snapshot"]).read_bytes()
        lazy = read_snapshot(root, entry)
        whole = decode(data, "here", "fix")
        assert all(isinstance(r.chunks, StoredChunks) for r in lazy.files)
        assert lazy == whole and whole == lazy
        assert encode(lazy) == data  # copied as stored
        assert encode(whole) == data  # built and pickled again: the same bytes
        first = lazy.files[0].chunks
        assert list(first) == list(whole.files[0].chunks)
        assert first != whole.files[0].chunks[1:]
