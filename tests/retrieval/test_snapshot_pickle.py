"""A collection snapshot survives the trip through its pickle whole, field for field."""

from __future__ import annotations

import dataclasses
import pickle

from retrieval.chunks import Chunk
from retrieval.collections import CollectionSnapshot, FileRecord
from retrieval.files import Skipped


def _chunk(i: int) -> Chunk:
    return Chunk(f"id{i}", "docs", "a/b.md", ("Top", f"Sec {i}"), i, i + 2, f"text {i}", "d", "")


def test_a_snapshot_round_trips_equal_in_every_field() -> None:
    record = FileRecord("a/b.md", 10, 123, "sha", "2026-01-02", "note", (_chunk(1), _chunk(2)))
    snapshot = CollectionSnapshot(
        "docs", (record,), (Skipped("docs", "x.bin", "binary"),), "c", "s", "rev"
    )
    loaded = pickle.loads(pickle.dumps(snapshot, protocol=pickle.HIGHEST_PROTOCOL))
    assert loaded == snapshot
    chunk = loaded.files[0].chunks[1]
    assert dataclasses.astuple(chunk) == dataclasses.astuple(_chunk(2))
    assert chunk.heading == "Sec 2"


def test_chunks_pickle_as_constructor_arguments() -> None:
    # The fast path: no per-object __setstate__ (which calls dataclasses.fields each time).
    reduced = _chunk(3).__reduce__()
    assert reduced == (Chunk, dataclasses.astuple(_chunk(3)))
    record = FileRecord("p", 1, 2, "s", "", "", (_chunk(3),))
    assert record.__reduce__()[0] is FileRecord
