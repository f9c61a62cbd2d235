"""One channel's search reads only what it needs of the snapshot files: its hits' chunks and,
for an answer's evidence, their files' chunks (`Index.adjacent`), never another collection's
chunks; a scoped load maps its snapshot files instead of reading them whole.

Which files are mapped is seen through Python's audit hook for `mmap.__new__`
(tests/retrieval/audited.py), not by patching the index."""

from __future__ import annotations

from pathlib import Path

from retrieval.chunks import Chunk
from retrieval.config import Config
from retrieval.index import Index, index_root
from retrieval.manifest import read_manifest
from retrieval.scopes import ConversationKind, Scope, resolve_scope
from tests.retrieval.audited import mapped
from tests.retrieval.test_scoped_load import three_collections


def _scope(config: Config, channel: str) -> Scope:
    return resolve_scope(config, "T1", channel, ConversationKind.CHANNEL)


def _expected_neighbours(config: Config, chunk: Chunk) -> tuple[Chunk | None, Chunk | None]:
    """From a fresh load's whole listing of CA's chunks: the same file's chunks before and
    after `chunk`, in index order."""
    listed = Index.load(config).chunks(_scope(config, "CA"))
    same_file = [c for c in listed if (c.collection, c.path) == (chunk.collection, chunk.path)]
    at = same_file.index(chunk)
    before = same_file[at - 1] if at > 0 else None
    return before, (same_file[at + 1] if at + 1 < len(same_file) else None)


def test_an_answer_s_neighbours_read_its_hits_files_only(tmp_path: Path) -> None:
    config = three_collections(tmp_path)
    index = Index.load(config)  # whole, as `docbot serve` loads it
    hits = index.search("rollback of the payments key deploy", _scope(config, "CA"), 3)
    assert {hit.chunk.collection for hit in hits} == {"handbook", "payments"}
    for hit in hits:
        assert index.adjacent(hit.chunk) == _expected_neighbours(config, hit.chunk)
    spans = {(hit.chunk.collection, hit.chunk.path) for hit in hits}
    in_hit_files = {
        name: sum(
            1
            for chunk in Index.load(config).chunks(_scope(config, "CA"))
            if chunk.collection == name and (name, chunk.path) in spans
        )
        for name in ("handbook", "payments")
    }
    built = index.built()
    assert built["team-b"] == 0  # CB's collection: not one of its chunks is built
    assert 0 < built["handbook"] <= in_hit_files["handbook"]
    assert 0 < built["payments"] <= in_hit_files["payments"]
    assert built["handbook"] < index.collections()["handbook"][1]  # not the whole collection


def test_a_chunk_the_index_does_not_hold_has_no_neighbours(tmp_path: Path) -> None:
    config = three_collections(tmp_path)
    index = Index.load(config)
    (hit,) = index.search("rollback", _scope(config, "CA"), 1)
    for other in (
        Chunk("x" * 20, "handbook", hit.chunk.path, (), 1, 1, "t", "d", "2026-01-01"),
        Chunk(hit.chunk.chunk_id, "handbook", "no/such.md", (), 1, 1, "t", "d", "2026-01-01"),
        Chunk(hit.chunk.chunk_id, "no-such", hit.chunk.path, (), 1, 1, "t", "d", "2026-01-01"),
    ):
        assert index.adjacent(other) == (None, None)


def test_a_scoped_load_maps_its_snapshot_files_and_a_whole_load_reads_them(
    tmp_path: Path,
) -> None:
    config = three_collections(tmp_path)
    root = index_root(config)
    snapshots = {
        entry["name"]: (root / entry["snapshot"]).resolve()
        for entry in read_manifest(root)["collections"]
    }
    scope = _scope(config, "CA")
    with mapped() as found:
        index = Index.load(config, collections=scope.collections)
        assert index.search("payments key", scope, 3)
    assert {snapshots["handbook"], snapshots["payments"]} <= set(found)
    assert snapshots["team-b"] not in found  # not CA's: not opened at all
    with mapped() as found:
        Index.load(config)  # checks each snapshot's whole sha256 first: read, not mapped
    assert not set(snapshots.values()) & set(found)
