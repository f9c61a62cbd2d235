"""Reading a snapshot file leaves nothing behind for the cyclic garbage collector: the file's
bytes and the chunks built from them are freed as soon as their last user lets go.

A reference cycle between a StoredSnapshot and its chunk view kept every snapshot a build read
(its bytes and all its chunks) alive until the collector happened to run: ~120 MB more per
build at 100k chunks (benchmarks/incremental_index.py peaked at 452 MB, 301 MB before)."""

from __future__ import annotations

import sys
import weakref
from pathlib import Path

from retrieval.index import build_index, index_root
from retrieval.manifest import read_manifest
from retrieval.pickling import collector_paused
from retrieval.snapshot_file import StoredSnapshot, decode
from tests.retrieval.docs_tree import WordCounter, public_and_secret


def _snapshot_bytes(tmp_path: Path) -> bytes:
    config = public_and_secret(tmp_path, engine="bm25")
    build_index(config, WordCounter())
    root = index_root(config)
    entry = read_manifest(root)["collections"][0]
    return (root / str(entry["snapshot"])).read_bytes()


def test_decoding_a_snapshot_keeps_no_reference_to_its_bytes(tmp_path: Path) -> None:
    data = _snapshot_bytes(tmp_path)
    with collector_paused():
        before = sys.getrefcount(data)
        snapshot = decode(data, "here", "fix")
        assert snapshot.chunk_count > 3
        assert sys.getrefcount(data) == before


def test_a_stored_snapshot_is_freed_when_its_last_user_lets_go(tmp_path: Path) -> None:
    data = _snapshot_bytes(tmp_path)
    with collector_paused():
        stored = StoredSnapshot(data, "here", "fix", verified=False)
        first = stored.chunks[0]
        assert stored.every_chunk()[0] is first
        gone = weakref.ref(stored)
        del stored
        assert gone() is None
