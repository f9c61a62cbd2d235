"""A snapshot file's chunks are read (and checked) one by one: a scoped load (one `docbot
search`) decodes its hits only and refuses a damaged chunk when it reads it, a damaged header
or chunk table when it loads; a whole load (serve, ask) checks whole files at load."""

from __future__ import annotations

import hashlib
import json
import pickle
from pathlib import Path
from typing import Any

import pytest

from retrieval.config import Config
from retrieval.errors import IndexNotBuiltError
from retrieval.index import Index, build_index, index_root
from retrieval.manifest import read_manifest, read_snapshot
from retrieval.scopes import ConversationKind, Scope, resolve_scope
from retrieval.snapshot_file import decode, encode
from tests.retrieval.docs_tree import WordCounter, public_and_secret

FIX = r"run `docbot index` again"


def _scope(config: Config) -> Scope:
    return resolve_scope(config, "T1", "CPUB", ConversationKind.CHANNEL)


def _scoped(config: Config) -> Index:
    return Index.load(config, collections=_scope(config).collections)


def _entry(config: Config, name: str = "handbook") -> dict[str, Any]:
    (entry,) = [e for e in read_manifest(index_root(config))["collections"] if e["name"] == name]
    return dict(entry)


def _flip_at(path: Path, at: int) -> None:
    data = bytearray(path.read_bytes())
    data[at] ^= 0x01
    path.write_bytes(bytes(data))


def _built(tmp_path: Path) -> Config:
    config = public_and_secret(tmp_path, engine="bm25")
    build_index(config, WordCounter())
    return config


def test_snapshot_file_round_trips_every_field(tmp_path: Path) -> None:
    config = _built(tmp_path)
    snapshot = read_snapshot(index_root(config), _entry(config))
    assert snapshot.chunk_count > 3
    data = encode(snapshot)
    assert decode(data, "here", "fix") == snapshot
    assert encode(decode(data, "here", "fix")) == data


def test_a_damaged_chunk_is_refused_when_read_and_repaired_by_build(tmp_path: Path) -> None:
    config = _built(tmp_path)
    before = Index.load(config)
    rollback = before.search("rollback previous build", _scope(config), 1)
    all_chunks = before.chunks(_scope(config))
    path = index_root(config) / _entry(config)["snapshot"]
    # The last byte belongs to the last chunk's record.
    _flip_at(path, path.stat().st_size - 1)

    with pytest.raises(IndexNotBuiltError, match=FIX):
        Index.load(config)  # serve's load checks the whole file before it answers anything
    index = _scoped(config)  # the header and chunk table are whole
    if rollback[0].chunk != all_chunks[-1]:
        # A search that does not read the damaged chunk answers as before.
        assert index.search("rollback previous build", _scope(config), 1) == rollback
    with pytest.raises(IndexNotBuiltError, match=rf"chunk {len(all_chunks) - 1} .*{FIX}"):
        index.chunks(_scope(config))
    with pytest.raises(IndexNotBuiltError, match=FIX):
        read_snapshot(index_root(config), _entry(config))  # the builder checks the whole file

    build_index(config, WordCounter())
    assert _scoped(config).chunks(_scope(config)) == all_chunks


def test_a_damaged_chunk_table_is_refused_at_load(tmp_path: Path) -> None:
    config = _built(tmp_path)
    path = index_root(config) / _entry(config)["snapshot"]
    _flip_at(path, 40)  # in the header, before any chunk record

    with pytest.raises(IndexNotBuiltError, match=rf"does not match its checksum.*{FIX}"):
        _scoped(config)


def test_a_snapshot_of_the_old_single_pickle_form_says_run_index_again(tmp_path: Path) -> None:
    config = _built(tmp_path)
    root = index_root(config)
    entry = _entry(config)
    path = root / entry["snapshot"]
    path.write_bytes(pickle.dumps(read_snapshot(root, entry)))
    manifest = json.loads((root / "manifest.json").read_text("utf-8"))
    for item in manifest["collections"]:
        if item["name"] == "handbook":
            item["bytes"] = path.stat().st_size
            item["sha256"] = hashlib.sha256(path.read_bytes()).hexdigest()
    (root / "manifest.json").write_text(json.dumps(manifest), "utf-8")

    with pytest.raises(IndexNotBuiltError, match=rf"incompatible docbot version: {FIX}"):
        Index.load(config)
