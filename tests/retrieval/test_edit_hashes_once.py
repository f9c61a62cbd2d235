"""A one-file edit reads (and so hashes) each index file it reuses once: an unchanged
collection's vectors file is checked when it is kept and not again when its rows are looked up,
and a set's segment files linked from its collections' parts take their parts' records instead
of being hashed again.

Which files a build opens is seen through Python's audit hook for `open` (io.open, os.open and
so every hash of a file, tests/retrieval/audited.py), not by patching the builder."""

from __future__ import annotations

from pathlib import Path

from retrieval.index import Index, build_index, index_root
from retrieval.manifest import read_manifest
from tests.retrieval.audited import opened
from tests.retrieval.docs_tree import WordCounter, public_and_secret
from tests.retrieval.test_dense_index import RecordingEmbedder

_ENGINE_OWN_FILES = {"engine.json", "meta.json", ".managed.json"}  # not linked from a part


def _edit_handbook(base: Path) -> None:
    clients = base / "handbook" / "http" / "clients.md"
    clients.write_text(clients.read_text("utf-8").replace("five seconds", "nine seconds"))


def test_an_unchanged_collection_s_vectors_file_is_read_once(tmp_path: Path) -> None:
    config = public_and_secret(tmp_path)  # dense on: the default
    build_index(config, WordCounter(), RecordingEmbedder())
    root = index_root(config)
    (payments,) = [e for e in read_manifest(root)["collections"] if e["name"] == "payments"]
    vectors = (root / payments["vectors"]["file"]).resolve()
    _edit_handbook(tmp_path)
    with opened() as files:
        report = build_index(config, WordCounter(), RecordingEmbedder())
    assert report.embedded == 1
    # Kept (its sha256 checked) and its rows offered to the handbook's changed file: one read.
    assert files.count(vectors) == 1


def test_a_set_s_linked_segment_files_are_not_hashed_again(tmp_path: Path) -> None:
    config = public_and_secret(tmp_path, engine="tantivy")
    build_index(config, WordCounter(), RecordingEmbedder())
    _edit_handbook(tmp_path)
    with opened() as files:
        report = build_index(config, WordCounter(), RecordingEmbedder())
    assert report.engines_built == 2 and report.parts_built == 1
    engines = (index_root(config) / "engines").resolve()
    in_sets = [path for path in files if path.parent.parent == engines]
    in_sets = [path for path in in_sets if path.parent.name.startswith("tantivy-")]
    assert in_sets  # each set's own files are written and hashed
    assert {path.name for path in in_sets} <= _ENGINE_OWN_FILES
    # And what was recorded for the linked files is what they hold: a load checks them all.
    manifest = read_manifest(index_root(config))
    linked = [n for s in manifest["sets"] for n in s["files"] if n not in _ENGINE_OWN_FILES]
    assert linked
    Index.load(config, RecordingEmbedder())
